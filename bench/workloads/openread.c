// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * openread N FILE: open, read, close a small file N times; three syscalls
 * per iteration with real arguments (a path, a buffer), the shape of a
 * typical traced program rather than a pure entry/exit loop.
 */
#include "common.h"

static void one(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	if (read(fd, buf, len) < 0) {
		perror("read");
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	char buf[4096];
	long i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s N FILE\n", argv[0]);
		return 2;
	}
	n = parse_count(argv[1], argv[0]);
	bench_setup();

	for (i = 0; i < n / 10; i++)
		one(argv[2], buf, sizeof(buf));

	t0 = now_ns();
	for (i = 0; i < n; i++)
		one(argv[2], buf, sizeof(buf));
	t1 = now_ns();

	bench_report(t1 - t0, n, 3);
	return 0;
}
