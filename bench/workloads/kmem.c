// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kmem N: a kmem-heavy loop, close(eventfd()) N times.  On 6.18 each
 * iteration is 9 kmem events in the task's own context (a kmalloc and two
 * kfrees, three kmem_cache allocs and frees: the eventfd context, the file,
 * its name) and two syscalls, so a recorder of `-e kmem` is measured on
 * what it does per allocation, not per syscall.
 */
#include "common.h" /* first: it defines _GNU_SOURCE */
#include <sys/eventfd.h>

static void once(void)
{
	int fd = eventfd(0, 0);

	if (fd < 0) {
		perror("kmem: eventfd");
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	long i, n;

	n = bench_init(argc, argv);

	for (i = 0; i < n / 10; i++) /* warm-up, untimed */
		once();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		once();
	t1 = now_ns();

	bench_report(t1 - t0, n, 2);
	return 0;
}
