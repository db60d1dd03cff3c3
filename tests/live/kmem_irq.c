// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kmem events in interrupt context during syscalls, for test_kmem_irq.sh:
 * prints "pids=PARENT,CHILD", waits for a byte on stdin, then for SECONDS
 * both tasks, pinned to CPU 0, exchange 4 KiB over a loopback TCP
 * connection (skbs allocated and freed in the NET_RX softirq and TCP's
 * timers) while the parent also creates, writes and unlinks a file and
 * opens a pipe each round (dentries, inodes and files freed by RCU
 * callbacks in softirq, on the exit of whichever interrupt comes next).
 * The softirqs run on CPU 0 while our kmem programs run there too.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

static char buf[4096];

static int full_io(int fd, int out)
{
	size_t done = 0;

	while (done < sizeof(buf)) {
		ssize_t n = out ? write(fd, buf + done, sizeof(buf) - done) :
				  read(fd, buf + done, sizeof(buf) - done);

		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

static int file_round(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), p[2], ret = -1;

	if (fd < 0)
		return -1;
	if (write(fd, buf, 1234) == 1234)
		ret = 0;
	close(fd);
	unlink(path);
	if (pipe(p))
		return -1;
	close(p[0]);
	close(p[1]);
	return ret;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int l, c, s, one = 1, status;
	cpu_set_t cpus;
	double end;
	pid_t child;
	char go;

	if (argc != 3) {
		fprintf(stderr, "usage: kmem_irq PATH SECONDS\n");
		return 2;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		perror("sched_setaffinity");
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (void *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (void *)&a, &alen)) {
		perror("loopback listener");
		return 2;
	}
	child = fork();
	if (child == 0) {
		s = accept(l, NULL, NULL);
		while (s >= 0 && !full_io(s, 0) && !full_io(s, 1))
			;
		_exit(0);
	}
	close(l);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (void *)&a, sizeof(a))) {
		perror("connect");
		return 1;
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	printf("pids=%d,%d\n", getpid(), child);
	fflush(stdout);
	if (read(0, &go, 1) != 1)
		return 1;
	end = now() + atof(argv[2]);
	while (now() < end)
		if (full_io(c, 1) || full_io(c, 0) || file_round(argv[1]))
			return 1;
	close(c);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 1;
	return 0;
}
