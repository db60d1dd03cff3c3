/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by the benchmark workloads.  Each workload times only its own loop,
 * so a tracer's startup and teardown never count, and prints one line:
 *   ns_per_iter=<float> syscalls_per_iter=<int> iters=<int>
 *
 * Environment (set by bench/run.sh, passed through every tracer untouched):
 *   BENCH_CPU=n     pin to CPU n before the loop: a migration in the middle
 *                   of a short loop is the largest source of noise here;
 *   BENCH_GATE=path read one byte from path (a FIFO) before the loop, so a
 *                   tracer started after the workload (trace-cmd -P pid) can
 *                   attach first.
 */
#ifndef __BENCH_COMMON_H
#define __BENCH_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline long parse_count(const char *s, const char *prog)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*end || n <= 0) {
		fprintf(stderr, "%s: bad iteration count '%s'\n", prog, s);
		exit(2);
	}
	return n;
}

static inline void bench_setup(void)
{
	const char *cpu = getenv("BENCH_CPU");
	const char *gate = getenv("BENCH_GATE");

	if (cpu && *cpu) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(cpu), &set);
		/* Not fatal: an unpinned number is still a number. */
		if (sched_setaffinity(0, sizeof(set), &set))
			fprintf(stderr, "bench: cannot pin to CPU %s: %s\n", cpu, strerror(errno));
	}
	if (gate && *gate) {
		int fd = open(gate, O_RDONLY);
		char c;

		if (fd < 0 || read(fd, &c, 1) != 1) {
			fprintf(stderr, "bench: gate %s: %s\n", gate, strerror(errno));
			exit(1);
		}
		close(fd);
	}
}

/* The usual "PROG N" command line: N, after bench_setup(). */
static inline long bench_init(int argc, char **argv)
{
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		exit(2);
	}
	n = parse_count(argv[1], argv[0]);
	bench_setup();
	return n;
}

static inline void bench_report(unsigned long long ns, long iters, int syscalls_per_iter)
{
	printf("ns_per_iter=%.1f syscalls_per_iter=%d iters=%ld\n", (double)ns / iters,
	       syscalls_per_iter, iters);
	fflush(stdout);
}

#endif /* __BENCH_COMMON_H */
