// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* runas UID CMD ARGS: drops root (and every capability) and runs CMD. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3)
		return 2;
	uid = atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("runas");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror("runas: exec");
	return 127;
}
