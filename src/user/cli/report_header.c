// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The warnings the report commands print about their trace.  They differ
 * only in which losses count and in how each ends its sentences (the live
 * tests assert every byte), so one table holds the differences.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "cli.h"
#include "report_header.h"

enum no_counts_warning {
	NO_COUNTS_SILENT,	/* the channel table already shows "?" */
	NO_COUNTS_UNLESS_DAMAGED, /* the damage sentence already explains it */
	NO_COUNTS_ALWAYS,
};

struct report_words {
	const char *channel; /* whose losses count; NULL: every channel */
	bool flight;	     /* overwritten and torn flight records count as lost too */
	const char *lost;    /* follows "# WARNING: N " */
	const char *misses_end;
	const char *damage_end;
	enum no_counts_warning no_counts;
};

static const struct report_words words[] = {
	[REPORT_EVENTS] = {
		.lost = "events were dropped (rings full); the trace is incomplete",
		.misses_end = "",
		.damage_end = "",
		.no_counts = NO_COUNTS_SILENT,
	},
	[REPORT_SYSCALLS] = {
		.channel = "syscalls",
		.flight = true,
		.lost = "syscall events were lost (rings full): some calls are missing or show "
			"as unfinished",
		.misses_end = "",
		.damage_end = ": the trace is incomplete",
		.no_counts = NO_COUNTS_UNLESS_DAMAGED,
	},
	[REPORT_KMEM] = {
		.channel = "kmem",
		.lost = "kmem events were dropped (rings full): these results are incomplete",
		.misses_end = ": results may be incomplete",
		.damage_end = ": these results are incomplete",
		.no_counts = NO_COUNTS_ALWAYS,
	},
};

int report_inputs__add(struct report_inputs *in, const char *path)
{
	if (in->n == REPORT_MAX_INPUTS) {
		fprintf(stderr, "gtsc-bpf: more than %d input files\n", REPORT_MAX_INPUTS);
		return -EINVAL;
	}
	in->path[in->n++] = path;
	return 0;
}

/*
 * When the recording left file PATH: its trailer's end_ns, the time of the
 * switch to the next file; a file without a trailer (the last, when the
 * recorder was killed) after every other.  false when PATH does not open.
 */
static bool file_end(const char *path, __u64 *end)
{
	struct gtsc_reader *r = gtsc_reader__open(path, NULL);
	const char *v = r ? gtsc_reader__meta(r, "end_ns") : NULL;

	*end = v ? strtoull(v, NULL, 10) : ~0ULL;
	gtsc_reader__close(r);
	return r;
}

/*
 * The files of a rotated recording in the order they were written,
 * whatever order they were named in, as trace-cmd report merges its -i
 * files by time.  A stream is read alone, as it comes; with a file that
 * does not open, the order stays for report_open to say why.
 */
static void sort_by_time(struct report_inputs *in)
{
	__u64 end[REPORT_MAX_INPUTS]; /* 8 KiB */
	struct stat st;

	for (size_t i = 0; i < in->n; i++)
		if (!strcmp(in->path[i], "-") || stat(in->path[i], &st) || !S_ISREG(st.st_mode) ||
		    !file_end(in->path[i], &end[i]))
			return;
	for (size_t i = 1; i < in->n; i++) { /* stable: equal ends keep their order */
		const char *p = in->path[i];
		__u64 e = end[i];
		size_t j = i;

		for (; j > 0 && end[j - 1] > e; j--) {
			end[j] = end[j - 1];
			in->path[j] = in->path[j - 1];
		}
		end[j] = e;
		in->path[j] = p;
	}
}

int report_inputs__rest(struct report_inputs *in, int argc, char **argv, const char *cmd)
{
	int err = 0;

	if (optind < argc && !in->n) {
		fprintf(stderr, "gtsc-bpf: %s takes no argument '%s' (use -i FILE)\n", cmd,
			argv[optind]);
		return -EINVAL;
	}
	for (int i = optind; i < argc && !err; i++)
		err = report_inputs__add(in, argv[i]);
	if (!err && in->n > 1)
		sort_by_time(in);
	return err;
}

const char *report_inputs__name(const struct report_inputs *in)
{
	return in->n ? in->path[0] : GTSC_DEFAULT_OUTPUT;
}

struct gtsc_reader *report_open(const struct report_inputs *in)
{
	return report_open_reading(in, NULL, 0);
}

struct gtsc_reader *report_open_reading(const struct report_inputs *in,
					const struct gtsc_rec_part *reads, size_t n)
{
	static const char *const dflt[] = { GTSC_DEFAULT_OUTPUT };
	const char *input = report_inputs__name(in);
	char errbuf[512] = "";
	GTSC_OPTS(gtsc_reader_opts, ro, .errbuf = errbuf, .errbuf_sz = sizeof(errbuf),
		  .reads = reads, .nr_reads = n);
	struct gtsc_reader *r = gtsc_reader__open_files(in->n ? in->path : dflt, in->n ?: 1, &ro);

	if (!r)
		fprintf(stderr, "gtsc-bpf: %s: %s\n", input, errbuf[0] ? errbuf : strerror(errno));
	return r;
}

__u64 report_lost(const struct gtsc_reader *r, enum report_kind kind, bool *known)
{
	const struct report_words *w = &words[kind];
	GTSC_OPTS(gtsc_reader_channel, ch);
	__u64 lost = 0;

	if (known)
		*known = gtsc_reader__has_counts(r);
	for (size_t i = 0; !gtsc_reader__channel(r, i, &ch); i++) {
		if (w->channel && strcmp(ch.name, w->channel))
			continue;
		lost += ch.dropped;
		if (w->flight)
			lost += ch.overwritten + ch.torn;
	}
	return lost;
}

void report_warnings(const struct gtsc_reader *r, enum report_kind kind)
{
	const struct report_words *w = &words[kind];
	bool known, damaged = gtsc_reader__truncated(r);
	__u64 lost = report_lost(r, kind, &known), misses = gtsc_reader__prog_misses(r);

	if (lost)
		printf("# WARNING: %llu %s\n", (unsigned long long)lost, w->lost);
	/* The kernel counts every task's events on a hook, filtered out or not. */
	if (misses)
		printf("# WARNING: the kernel skipped %llu events (BPF recursion protection: %s; "
		       "of any task, inside the session's filters or not)%s\n",
		       (unsigned long long)misses, gtsc_reader__prog_skips(r), w->misses_end);
	if (damaged)
		printf("# WARNING: %s%s\n", gtsc_reader__damage(r), w->damage_end);
	if (!known && (w->no_counts == NO_COUNTS_ALWAYS ||
		       (w->no_counts == NO_COUNTS_UNLESS_DAMAGED && !damaged)))
		printf("# WARNING: the trace has no drop counts (no trailer)\n");
}

/* A whole decimal number of META's KEY that fits a long long. */
static bool meta_ll(const struct gtsc_reader *r, const char *key, long long *v)
{
	const char *s = gtsc_reader__meta(r, key);
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && !*end;
}

void report_wall_time(const struct gtsc_reader *r, char *buf, size_t sz)
{
	long long start, offset, ns;
	time_t t;
	struct tm tm;

	/* numbers a recorder cannot have written (a damaged or crafted trace) say no date */
	if (!meta_ll(r, "start_ns", &start) || !meta_ll(r, "wall_offset_ns", &offset) ||
	    __builtin_add_overflow(start, offset, &ns) || ns < 0) {
		snprintf(buf, sz, "?");
		return;
	}
	t = ns / 1000000000LL;
	if (!gmtime_r(&t, &tm) || !strftime(buf, sz, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, sz, "?");
}
