// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A syscall storm whose event count is known from this code alone: after the
 * blocking read(0) returns, exactly N getppid() calls and one exit_group().
 * A recorder started while it blocks sees sys_exit(read), 2N getppid events
 * and sys_enter(exit_group) (which never returns): 2N + 2 events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	char c;

	printf("%d\n", getpid());
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	syscall(SYS_exit_group, 0);
	return 0;
}
