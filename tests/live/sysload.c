// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Known syscalls and known kmem activity, for the live tests to find in a
 * trace with exact values: openat(AT_FDCWD, PATH, O_WRONLY|O_CREAT|O_TRUNC|
 * O_CLOEXEC, 0640), write of 1234 bytes, close; then pipe2, which kcallocs
 * 16 struct pipe_buffer (640 bytes) in alloc_pipe_info, and closing both
 * ends, which kfrees them in free_pipe_info.  Prints what the test must find.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

static char buf[1234];

int main(int argc, char **argv)
{
	int fd, p[2];
	long ret;

	if (argc != 2) {
		fprintf(stderr, "usage: sysload PATH\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0)
		return 1;
	ret = syscall(SYS_write, fd, buf, sizeof(buf));
	syscall(SYS_close, fd);
	if (syscall(SYS_pipe2, p, 0))
		return 1;
	syscall(SYS_close, p[0]);
	syscall(SYS_close, p[1]);
	unlink(argv[1]);
	printf("pid=%d path=%p buf=%p fd=%d written=%ld\n", getpid(), (void *)argv[1], (void *)buf,
	       fd, ret);
	return 0;
}
