/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A recording session: one loaded BPF object with its own channels, filters
 * and counters.  Lifecycle as libbpf's: open (probe, plan, load, make rings)
 * -> attach -> start/stop (a flag, programs stay attached) -> poll -> flush ->
 * destroy.  Several sessions in one or many processes never share state.
 */
#ifndef __GTSC_SESSION_H
#define __GTSC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "channel.h"
#include "feature_probe.h"
#include "sink.h"
#include "sources.h"

struct strbuf;

enum gtsc_log_level {
	GTSC_LOG_WARN,
	GTSC_LOG_INFO,
	GTSC_LOG_DEBUG,
};

typedef void (*gtsc_log_fn)(void *ctx, enum gtsc_log_level level, const char *msg);

struct gtsc_session_opts {
	size_t sz;
	unsigned int sources; /* enum gtsc_source_mask; task is always added */
	bool system_wide;     /* otherwise only tracked pids and their children */
	const int *pids;
	size_t nr_pids;
	/* Channel overrides by name ("syscalls", "kmem", "task", or a new one). */
	const struct gtsc_channel_spec *channels;
	size_t nr_channels;
	__u64 ring_bytes;   /* default per-ring size of the syscalls and kmem channels */
	bool allow_missing; /* record what the kernel allows instead of failing */
	gtsc_log_fn log;
	void *log_ctx;
};
#define gtsc_session_opts__last_field log_ctx

struct gtsc_session;

/* NULL + errno; the reason went to opts->log as one sentence. */
struct gtsc_session *gtsc_session__open(const struct gtsc_session_opts *opts,
					struct gtsc_sink *sink);
int gtsc_session__track_pid(struct gtsc_session *s, int pid);
int gtsc_session__attach(struct gtsc_session *s);
int gtsc_session__start(struct gtsc_session *s);
int gtsc_session__stop(struct gtsc_session *s);
/* Waits up to TIMEOUT_MS, drains all rings, reports new drops as records. */
int gtsc_session__poll(struct gtsc_session *s, int timeout_ms);
/*
 * After stop: drains until every record the programs counted as written has
 * been consumed (events in flight across the stop included), or TIMEOUT_MS.
 */
int gtsc_session__flush(struct gtsc_session *s, int timeout_ms);

struct gtsc_session_stat {
	__u32 channel;
	__u32 cpu;
	__u64 written;
	__u64 dropped;
};

/* Per channel per CPU counters; returns how many entries were filled. */
int gtsc_session__stats(struct gtsc_session *s, struct gtsc_session_stat *out, size_t max);
/* Recursion misses of every attached program (events the kernel skipped). */
__u64 gtsc_session__prog_misses(struct gtsc_session *s, struct strbuf *lines);
__u64 gtsc_session__consumed(const struct gtsc_session *s);
const struct gtsc_features *gtsc_session__features(const struct gtsc_session *s);
const struct gtsc_channels *gtsc_session__channels(const struct gtsc_session *s);
const struct gtsc_source_plan *gtsc_session__plan(const struct gtsc_session *s);
void gtsc_session__destroy(struct gtsc_session *s);

#endif
