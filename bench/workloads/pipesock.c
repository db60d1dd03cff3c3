// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pipesock N: N times a pipe and a unix socketpair, 256 bytes through each,
 * then closed: every iteration allocates and frees files, pipe buffers,
 * socks and skbs, so the kernel-memory events outnumber the syscalls
 * (bench/size.sh's kmem-heavy workload).
 */
#include "common.h" /* first: it defines _GNU_SOURCE */
#include <sys/socket.h>

static void through(int rfd, int wfd, char *buf, size_t len)
{
	if (write(wfd, buf, len) != (ssize_t)len || read(rfd, buf, len) != (ssize_t)len) {
		perror("pipesock");
		exit(1);
	}
	close(rfd);
	close(wfd);
}

static void one(char *buf, size_t len)
{
	int p[2], s[2];

	if (pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, s)) {
		perror("pipesock");
		exit(1);
	}
	through(p[0], p[1], buf, len);
	through(s[0], s[1], buf, len);
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	char buf[256];
	long i, n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		return 2;
	}
	n = parse_count(argv[1], argv[0]);
	memset(buf, 'x', sizeof(buf));
	bench_setup();

	for (i = 0; i < n / 10; i++)
		one(buf, sizeof(buf));

	t0 = now_ns();
	for (i = 0; i < n; i++)
		one(buf, sizeof(buf));
	t1 = now_ns();

	bench_report(t1 - t0, n, 10);
	return 0;
}
