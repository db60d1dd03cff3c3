// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * getppid N: the cheapest syscall there is, so the time per iteration is
 * almost all entry/exit cost and a tracer's added nanoseconds stand out.
 * syscall() rather than getppid(): no libc may ever cache it.
 */
#include <sys/syscall.h>
#include "common.h"

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	long i, n;

	n = bench_init(argc, argv);

	/* Warm up caches, TLB and the tracer's buffers before timing. */
	for (i = 0; i < n / 10; i++)
		syscall(SYS_getppid);

	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	t1 = now_ns();

	bench_report(t1 - t0, n, 1);
	return 0;
}
