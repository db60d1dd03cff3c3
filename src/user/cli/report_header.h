/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every report says about its trace before its results: the reader
 * opened with the error sentence, and the "# WARNING:" lines about events
 * the trace lacks (drops, recursion misses, damage, no trailer), worded
 * for each command as its tests expect.
 */
#ifndef __GTSC_REPORT_HEADER_H
#define __GTSC_REPORT_HEADER_H

#include <stdbool.h>
#include <gtsc/gtsc.h>

/* Which report speaks: each counts its own channel's losses in its own words. */
enum report_kind {
	REPORT_EVENTS,	 /* report: drops of every channel */
	REPORT_SYSCALLS, /* report --syscalls/--summary: the syscalls channel, flight losses too */
	REPORT_KMEM,	 /* report --kmem: drops of the kmem channel */
};

/* The files -i names (and the arguments after the options): one trace. */
#define REPORT_MAX_INPUTS 1024
struct report_inputs {
	const char *path[REPORT_MAX_INPUTS];
	size_t n;
};

/* -i PATH; 0 or -EINVAL (said why). */
int report_inputs__add(struct report_inputs *in, const char *path);
/*
 * What follows the options (argv[optind..]): more files after an -i, as a
 * shell glob gives them (-i trace.gtsc.*), else a usage error (said).
 * CMD names the command in the sentence.  Several files are then put in
 * the order they were recorded in (each one's end).  0 or -EINVAL.
 */
int report_inputs__rest(struct report_inputs *in, int argc, char **argv, const char *cmd);
/* The trace's name in headers and messages: the first file (or the default). */
const char *report_inputs__name(const struct report_inputs *in);

/*
 * Opens IN's files as one trace (none: the default file); on failure says
 * why on stderr ("gtsc-bpf: INPUT: reason") and returns NULL (the command
 * then exits 1).
 */
struct gtsc_reader *report_open(const struct report_inputs *in);
/* The same, for a caller that reads only READS[0, N) of records (gtsc_reader_opts.reads). */
struct gtsc_reader *report_open_reading(const struct report_inputs *in,
					const struct gtsc_rec_part *reads, size_t n);

/* Events KIND's channel(s) lack; *KNOWN (if not NULL) false when the trace has no counts. */
__u64 report_lost(const struct gtsc_reader *r, enum report_kind kind, bool *known);

/* KIND's "# WARNING:" lines on stdout: losses, recursion misses, damage, no counts. */
void report_warnings(const struct gtsc_reader *r, enum report_kind kind);

/* When the trace began, "2026-11-25 20:32:49 UTC", or "?" when the metadata cannot say. */
void report_wall_time(const struct gtsc_reader *r, char *buf, size_t sz);

#endif
