// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pingpong N S: a known set of scheduler and signal events for the
 * tracepoint tests.  Stays on the CPU it starts on (so that each round
 * switches to the child and back: 2N switches at least), forks a child, prints "pid=P child=C", waits for a
 * line on stdin (the recorders are ready), then passes a byte back and
 * forth N times over two pipes (each side blocks, so each round switches
 * both tasks out), sends itself SIGUSR1 S times, reaps the child and
 * execs itself as "pingpong exec", which exits 0.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
	caught++;
}

static void child(int in, int out, int n)
{
	char c;

	for (int i = 0; i < n; i++)
		if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
			_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	int to_child[2], to_parent[2], n, sigs, status;
	char c = 'x', line[16];
	cpu_set_t one;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "exec"))
		return 0;
	if (argc != 3)
		return fprintf(stderr, "usage: pingpong ROUNDS SIGNALS\n"), 2;
	n = atoi(argv[1]);
	sigs = atoi(argv[2]);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 1;
	if (pipe(to_child) || pipe(to_parent))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		child(to_child[0], to_parent[1], n);
	printf("pid=%d child=%d\n", getpid(), pid);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 0; i < n; i++)
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			return 1;
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < sigs; i++)
		kill(getpid(), SIGUSR1);
	if (waitpid(pid, &status, 0) != pid || status || caught != sigs)
		return 1;
	execl("/proc/self/exe", "pingpong", "exec", (char *)NULL);
	return 1;
}
