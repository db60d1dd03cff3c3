// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A 32-bit (ia32) process making known syscalls with i386 numbers, for
 * test_compat.sh: getpid, pipe, a write of 777 bytes to the pipe, an open
 * of a missing path (ENOENT), then exit_group(3).  Built with -m32 -static
 * (Makefile); prints what the test must find.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

static char buf[777];

int main(int argc, char **argv)
{
	long pid, wrote, fd;
	int p[2];

	if (argc != 2) {
		fprintf(stderr, "usage: compat32 MISSING_PATH\n");
		return 2;
	}
	if (sizeof(long) != 4) {
		fprintf(stderr, "compat32: not built with -m32\n");
		return 2;
	}
	memset(buf, 'y', sizeof(buf));
	if (syscall(SYS_pipe, p))
		return 1;
	pid = syscall(SYS_getpid);
	wrote = syscall(SYS_write, p[1], buf, sizeof(buf));
	fd = syscall(SYS_open, argv[1], O_RDONLY);
	printf("pid=%ld pipe=%d wrote=%ld open=%ld nr_getpid=%d nr_write=%d nr_open=%d\n", pid, p[1],
	       wrote, fd, SYS_getpid, SYS_write, SYS_open);
	fflush(stdout);
	syscall(SYS_exit_group, 3);
	return 1;
}
