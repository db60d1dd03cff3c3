// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pidreuse: a traced process whose child gets the pid of an untraced one
 * that ran on the same CPU just before (test_pid_cache.sh).  Pins itself to
 * the CPU in argv[1], forks U (blocked on a pipe), prints its own pid and
 * blocks in read(0) until the recorder follows it with -p.  Then U (forked
 * before recording started, so untraced) calls getpgid(555555) three times
 * and exits; this process makes the kernel hand U's pid to its next child
 * (ns_last_pid), whose getpgid(777777) calls, three, must be recorded.
 * Another process may take the pid first: it retries, up to 100 times.
 * Prints "reused=PID tries=N", or exits 1.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void calls(long marker)
{
	for (int i = 0; i < 3; i++)
		syscall(SYS_getpgid, marker);
}

static int set_last_pid(pid_t pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int bad;

	if (!f)
		return -1;
	bad = fprintf(f, "%d", pid - 1) < 0;
	return fclose(f) || bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	int go[2], status, tries;
	cpu_set_t set;
	pid_t u, c;
	char b;

	CPU_ZERO(&set);
	CPU_SET(argc > 1 ? atoi(argv[1]) : 0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || pipe(go))
		return perror("pidreuse"), 1;
	u = fork();
	if (u < 0)
		return perror("fork"), 1;
	if (u == 0) {
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		calls(555555);
		_exit(0);
	}
	printf("%d\n", getpid());
	fflush(stdout);
	if (read(0, &b, 1) != 1 || write(go[1], "g", 1) != 1 || waitpid(u, &status, 0) != u)
		return perror("pidreuse"), 1;
	for (tries = 1; tries <= 100; tries++) {
		if (set_last_pid(u))
			return perror("ns_last_pid"), 1;
		c = fork();
		if (c < 0)
			return perror("fork"), 1;
		if (c == 0) {
			if (getpid() != u)
				_exit(2);
			calls(777777);
			_exit(0);
		}
		if (waitpid(c, &status, 0) != c)
			return perror("waitpid"), 1;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("reused=%d tries=%d\n", u, tries);
			return 0;
		}
	}
	fprintf(stderr, "pidreuse: pid %d was never handed out again\n", u);
	return 1;
}
