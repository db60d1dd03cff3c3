/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-syscall time statistics for report --summary: calls, errors, total,
 * min, max, and percentiles from a log-linear histogram (16 buckets per
 * power of two, so a percentile is the midpoint of a bucket at most 1/16 of
 * its value wide: within 3.2%, exact below 16 ns, and clamped to [min, max]).
 * Memory is one entry per (process, syscall) key, whatever the trace length.
 */
#ifndef __GTSC_SYSCALL_STATS_H
#define __GTSC_SYSCALL_STATS_H

#include <stddef.h>
#include <linux/types.h>

#define SC_HIST_BUCKETS 976

struct sc_stat {
	__u64 key; /* caller's: (pid << 32) | nr */
	__u64 calls, errors, timed;
	__u64 total_ns, min_ns, max_ns;
	__u32 hist[SC_HIST_BUCKETS];
};

struct sc_table;

struct sc_table *sc_table__new(void);
void sc_table__free(struct sc_table *t);
/* The entry for KEY, created zeroed on first use; NULL when out of memory. */
struct sc_stat *sc_table__get(struct sc_table *t, __u64 key);
/* Every entry (pointers stay valid until the next get of a new key). */
struct sc_stat **sc_table__all(struct sc_table *t, size_t *n);

/* Counts one call; NS < 0: its duration is unknown. */
void sc_stat__add(struct sc_stat *s, __s64 ns, int failed);
/* The Q-quantile (0..1) of the timed calls' durations, 0 if none. */
__u64 sc_stat__quantile(const struct sc_stat *s, double q);

#endif
