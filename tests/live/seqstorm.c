// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A syscall storm whose calls can be told apart: after the blocking read(0)
 * returns (EOF counts too), getpgid(BASE + i) for i = 1..N, then exit_group.
 * BASE is above the largest pid_max (PID_MAX_LIMIT, 4194304), so every call
 * fails fast with ESRCH, and the argument numbers the call.  The process
 * first pins itself to one CPU, so that all its records go to one per-CPU
 * flight region.  Prints its pid, then the last argument, on stdout.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#define BASE 10000000L

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int cpu = argc > 2 ? atoi(argv[2]) : 0;
	cpu_set_t set;
	char c;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 1;
	printf("%d\n", getpid());
	fflush(stdout);
	if (read(0, &c, 1) < 0)
		return 1;
	for (long i = 1; i <= n; i++)
		syscall(SYS_getpgid, BASE + i);
	printf("last=%ld\n", BASE + n);
	fflush(stdout);
	syscall(SYS_exit_group, 0);
	return 0;
}
