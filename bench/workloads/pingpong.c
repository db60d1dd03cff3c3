// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pingpong N: two processes on one CPU pass a byte back and forth over two
 * pipes N times.  Each round trip is two context switches (and four
 * syscalls), so the time per switch is what recording sched_switch adds.
 * Both processes are pinned to BENCH_CPU (the child inherits the mask).
 */
#include "common.h" /* first: it defines _GNU_SOURCE */
#include <sys/wait.h>

static void bounce(int in, int out, long n)
{
	char c = 'x';

	for (long i = 0; i < n; i++)
		if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
			_exit(1);
}

/* N round trips from the parent's side; the child echoes. */
static void serve(int in, int out, long n)
{
	char c = 'x';

	for (long i = 0; i < n; i++)
		if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1) {
			fprintf(stderr, "pingpong: the echo process went away\n");
			exit(1);
		}
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	int to_child[2], to_parent[2], status;
	long n;
	pid_t pid;

	n = bench_init(argc, argv);
	if (pipe(to_child) || pipe(to_parent)) {
		perror("pingpong: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		bounce(to_child[0], to_parent[1], n + n / 10);
		_exit(0);
	}
	serve(to_parent[0], to_child[1], n / 10); /* warm-up, untimed */
	t0 = now_ns();
	serve(to_parent[0], to_child[1], n);
	t1 = now_ns();
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pingpong: the echo process failed\n");
		return 1;
	}
	/* per context switch: a round trip is two */
	bench_report(t1 - t0, 2 * n, 2);
	return 0;
}
