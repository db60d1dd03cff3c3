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

/*
 * Opens INPUT; on failure says why on stderr ("gtsc-bpf: INPUT: reason")
 * and returns NULL (the command then exits 1).
 */
struct gtsc_reader *report_open(const char *input);

/* Events KIND's channel(s) lack; *KNOWN (if not NULL) false when the trace has no counts. */
__u64 report_lost(const struct gtsc_reader *r, enum report_kind kind, bool *known);

/* KIND's "# WARNING:" lines on stdout: losses, recursion misses, damage, no counts. */
void report_warnings(const struct gtsc_reader *r, enum report_kind kind);

/* When the trace began, "2026-11-25 20:32:49 UTC", or "?" when the metadata cannot say. */
void report_wall_time(const struct gtsc_reader *r, char *buf, size_t sz);

#endif
