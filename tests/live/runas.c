// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * runas [-k] UID CMD ARGS: drops root (and every capability) and runs CMD.
 * -k keeps CAP_DAC_OVERRIDE alone (as an ambient capability), so that the
 * command, as UID, can reach root's 0700 directories: what a socket's own
 * check (SO_PEERCRED) must then refuse.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static int keep_dac_override(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};
	__u32 bit = 1U << CAP_DAC_OVERRIDE;

	d[0].effective = d[0].permitted = d[0].inheritable = bit;
	if (syscall(SYS_capset, &h, d))
		return -1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_OVERRIDE, 0, 0);
}

int main(int argc, char **argv)
{
	int keep = argc > 1 && !strcmp(argv[1], "-k");
	uid_t uid;

	argv += keep;
	argc -= keep;
	if (argc < 3)
		return 2;
	uid = atoi(argv[1]);
	if ((keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) || setgroups(0, NULL) || setgid(uid) ||
	    setuid(uid) || (keep && keep_dac_override())) {
		perror("runas");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror("runas: exec");
	return 127;
}
