// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two SCHED_FIFO tasks on one CPU preempting each other inside traced
 * syscalls, with event counts known from this code alone.  Pinned to CPU
 * 0, it prints its pid and blocks in read(0); once released it forks: the
 * parent (FIFO 10) makes N getppid() calls back to back, the child (FIFO
 * 20) M times sleeps 50 us then makes K getppid() calls.  Each time the
 * child's timer fires it preempts the parent wherever it is, also inside a
 * BPF program on the parent's syscall (on PREEMPT_RT programs run
 * preemptible), and enters the same hook.  getppid events: 2N from the
 * parent, 2MK from the child.  Exits 2 when it may not use SCHED_FIFO.
 *   rtpair N M K
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static int fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rtpair: SCHED_FIFO %d: %s\n", prio, strerror(errno));
		return -1;
	}
	return 0;
}

static int child(long m, long k)
{
	struct timespec ts = { .tv_nsec = 50000 };

	if (fifo(20))
		return 2;
	for (long i = 0; i < m; i++) {
		nanosleep(&ts, NULL);
		for (long j = 0; j < k; j++)
			syscall(SYS_getppid);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, m = argc > 2 ? atol(argv[2]) : 2000,
	     k = argc > 3 ? atol(argv[3]) : 4;
	static char page[4096];
	cpu_set_t one;
	int status, null = open("/dev/null", O_WRONLY);
	pid_t pid;
	char c;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		perror("rtpair: sched_setaffinity");
		return 1;
	}
	printf("%d\n", getpid());
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	pid = fork();
	if (pid < 0) {
		perror("rtpair: fork");
		return 1;
	}
	if (!pid)
		_exit(child(m, k));
	if (fifo(10)) {
		kill(pid, SIGKILL);
		return 2;
	}
	for (long i = 0; i < n; i++)
		if (write(null, page, sizeof(page)) != sizeof(page))
			return 1;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
