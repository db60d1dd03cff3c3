// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void read_progress_init(struct read_progress *p, const struct gtsc_reader *r, const char *what,
			bool streaming)
{
	*p = (struct read_progress){ .r = r, .what = what };
	p->on = isatty(STDERR_FILENO) && !(streaming && isatty(STDOUT_FILENO));
	if (p->on) {
		p->start_ns = now_ns();
		p->next_ns = p->start_ns + 1000000000ULL; /* a short read shows nothing */
	}
}

void read_progress__tick_slow(struct read_progress *p)
{
	__u64 now = now_ns(), done, total;

	if (now < p->next_ns || gtsc_reader__progress(p->r, &done, &total) || !total)
		return;
	fprintf(stderr, "\r\033[Kgtsc-bpf: %s: %.0f%% of %.1f MiB read, %.0f s", p->what,
		100.0 * done / total, total / 1048576.0, (now - p->start_ns) / 1e9);
	p->shown = true;
	p->next_ns = now + 500000000ULL;
}

void read_progress_end(struct read_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

void read_progress_on(void *ctx, const struct gtsc_reader *r)
{
	struct read_progress *p = ctx;

	if (!p->on)
		return;
	p->r = r;
	read_progress__tick_slow(p);
}
