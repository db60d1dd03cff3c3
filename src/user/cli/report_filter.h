/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The filters report and report --syscalls share, spelled as perf script
 * spells them (--pid, --tid, --comm) with a time window in seconds since the
 * recording began (--since, inclusive; --until, exclusive), as strace users
 * read the times the reports print.  One parser, one test of a record.
 */
#ifndef __GTSC_REPORT_FILTER_H
#define __GTSC_REPORT_FILTER_H

#include <stdbool.h>
#include <stdio.h>
#include <gtsc/print.h>

#define REPORT_FILTER_MAX 64 /* entries of one list option */

struct report_filter {
	int nr_pids, nr_tids, nr_comms;
	__u32 pids[REPORT_FILTER_MAX]; /* a process's or a thread's id */
	__u32 tids[REPORT_FILTER_MAX]; /* a thread's id only */
	char *comms[REPORT_FILTER_MAX]; /* globs, in comm_copy */
	char *comm_copy;
	__s64 since_ns, until_ns; /* since the start; -1: unset */
};

/* getopt_long values of the filter's options: above every caller's own. */
enum {
	REPORT_FILTER_PID = 0x1000,
	REPORT_FILTER_TID,
	REPORT_FILTER_COMM,
	REPORT_FILTER_SINCE,
	REPORT_FILTER_UNTIL,
};

/* The entries of a caller's struct option array. */
#define REPORT_FILTER_LONGOPTS                                                                     \
	{ "pid", required_argument, NULL, REPORT_FILTER_PID },                                     \
	{ "tid", required_argument, NULL, REPORT_FILTER_TID },                                     \
	{ "comm", required_argument, NULL, REPORT_FILTER_COMM },                                   \
	{ "since", required_argument, NULL, REPORT_FILTER_SINCE },                                 \
	{ "until", required_argument, NULL, REPORT_FILTER_UNTIL }

/* The options' lines of a usage text. */
#define REPORT_FILTER_USAGE                                                                        \
	"      --pid PID,...      process or thread ids\n"                                         \
	"      --tid TID,...      thread ids\n"                                                    \
	"      --comm COMM,...    command names (globs)\n"

void report_filter__init(struct report_filter *f);
void report_filter__free(struct report_filter *f);
/*
 * getopt_long's C and ARG, when C is one of the filter's: 0, or -EINVAL
 * (said why); -ENOENT when C is not the filter's.
 */
int report_filter__option(struct report_filter *f, int c, const char *arg);
/* Whether TS_NS (on the trace's clock, T0 its start) is inside F's window. */
bool report_filter__time(const struct report_filter *f, __u64 ts_ns, __u64 t0);
/* Whether record H passes F: its task (COMMS names it) and its time. */
bool report_filter__wanted(const struct report_filter *f, const struct gtsc_comm_table *comms,
			   const struct gtsc_rec_hdr *h, __u64 t0);

/*
 * ARG, a comma list of at most REPORT_FILTER_MAX names, cut into DST (*N of
 * them) in a copy that replaces *COPY (the last option given wins).  0,
 * -EINVAL (said, naming OPT) or -ENOMEM.
 */
int report_filter__names(char **copy, char **dst, int *n, const char *arg, const char *opt);

#endif
