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
#include "gtsc/gtsc.h"
#include "channel.h"
#include "feature_probe.h"
#include "funcs.h"
#include "gtsc_syscalls.h"
#include "sink.h"
#include "sources.h"
#include "tracepoints.h"

struct strbuf;

/*
 * The engine's options: gtsc/gtsc.h's gtsc_session_opts and what only the
 * CLI sets so far (internal types: a syscall set, resolved functions).
 * gtsc_session__open (gtsc.h) converts into this.
 */
struct gtsc_engine_opts {
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
	/* User memory captured with syscalls (gtsc_syscalls.h has the bounds). */
	__u32 capture_size; /* data bytes per buffer, strace's -s; 0 = 32 */
	bool no_capture;    /* raw arguments only: read no user memory */
	/* Record only these syscalls (in the kernel); NULL = all. */
	const struct gtsc_sys_set *syscall_filter;
	/* Function probes (-k) from gt_funcs__resolve; must outlive attach. NULL: none. */
	const struct gtsc_func_set *funcs;
	/*
	 * In-kernel filters besides pids, all of which an event passes: the
	 * task's comm is one of COMMS (-C; at most GTSC_MAX_COMMS, 15 chars as
	 * the kernel keeps them), it is in the cgroup v2 directory CGROUP or
	 * below (--cgroup).
	 */
	const char *const *comms;
	size_t nr_comms;
	const char *cgroup;
	/*
	 * --snapshot-on syscall=NR: a traced task entering syscall NR counts a
	 * trigger (gtsc_session__trigger), at most one per trigger_gap_ns
	 * (0: 1 s).
	 */
	bool trigger_syscall;
	int trigger_nr;
	__u64 trigger_gap_ns;
	/* A kernel stack for each kmem allocation and function entry (record --stacks). */
	bool stacks;
	/*
	 * -e GROUP:NAME patterns (comma lists, globs), resolved against tracefs
	 * at open; only read during open.
	 */
	const char *const *tracepoints;
	size_t nr_tracepoints;
};
#define gtsc_engine_opts__last_field nr_tracepoints

/*
 * gtsc_session__open with the records going to SINK (the CLI's trace file)
 * instead of a consume callback.  NULL + errno; the reason went to
 * opts->log as one sentence.  track_pid, attach, start, stop (which clears
 * the flag the programs read, then waits for every program already past
 * it) and destroy are in gtsc/gtsc.h.
 */
struct gtsc_session *gt_session__open_sink(const struct gtsc_engine_opts *opts,
					   struct gtsc_sink *sink);
/*
 * gtsc_session__open's conversion of the public options (for the tests):
 * SPECS has room for GTSC_MAX_CHANNELS and backs eo->channels.
 */
int gt_session_opts__engine(const struct gtsc_session_opts *opts, struct gtsc_engine_opts *eo,
			    struct gtsc_channel_spec *specs);

/* What the public options' strings parse into; P->eo points into P. */
struct gtsc_session_parse {
	struct gtsc_engine_opts eo;
	struct gtsc_channel_spec specs[GTSC_MAX_CHANNELS];
	struct gtsc_sys_set syscalls;
	struct gtsc_func_set funcs;
	char **tracepoints; /* the -e tokens that are GROUP:NAME */
	size_t nr_tracepoints;
	char *events;	    /* -e without them */
};

/*
 * gt_session_opts__engine, then the GTSC_0.2 fields: events, channel
 * specs, syscall sets, function patterns, snapshot_on, and the checks
 * between them.  -errno with one sentence through opts->log.
 */
int gt_session_opts__parse(const struct gtsc_session_opts *opts, struct gtsc_session_parse *p);
void gt_session_parse__free(struct gtsc_session_parse *p);
/* Moves SET (resolved functions) into S, which frees it; after a successful open. */
void gt_session__own_funcs(struct gtsc_session *s, struct gtsc_func_set *set);
/* The tracepoints S records (none: n == 0). */
const struct gtsc_tp_set *gt_session__tracepoints(const struct gtsc_session *s);
/* The functions S probes (NULL: none). */
const struct gtsc_func_set *gt_session__funcs(const struct gtsc_session *s);
/* Every pid given to open or track_pid; *N their number. */
const int *gt_session__tracked(const struct gtsc_session *s, size_t *n);
/* The engine options open was given (their pointers past open are NULL). */
const struct gtsc_engine_opts *gt_session__opts(const struct gtsc_session *s);
/* The sink given to open (gtsc_session__open's: its callback sink). */
struct gtsc_sink *gt_session__sink(const struct gtsc_session *s);
/* The loaded BPF object (its gtsc_printf formats: printf_fmt.h). */
struct bpf_object *gt_session__object(const struct gtsc_session *s);
/* CLOCK_MONOTONIC of the first start, 0 before it. */
__u64 gt_session__start_ns(const struct gtsc_session *s);
/* Between start and stop. */
bool gt_session__recording(const struct gtsc_session *s);
/* Waits up to TIMEOUT_MS, drains all rings, reports new drops as records. */
int gt_session__poll(struct gtsc_session *s, int timeout_ms);
/*
 * After stop: drains until every record the programs counted as written has
 * been consumed (events in flight across the stop included), or TIMEOUT_MS.
 */
int gt_session__flush(struct gtsc_session *s, int timeout_ms);

enum gtsc_flight_read {
	GTSC_FLIGHT_COUNT,   /* count only (status) */
	GTSC_FLIGHT_ALL,     /* every retained record: snapshots, the end of a session */
	GTSC_FLIGHT_CONSUME, /* from each region's read cursor on, which moves to the head */
};

/*
 * Reads what the flight channels retain into SINK (its round ended), never
 * changing it; fills one entry per region into OUT and returns how many, or
 * -errno.  0 without flight channels.  (gtsc_session__stats and the
 * structs are public: gtsc/record.h.)
 */
int gt_session__flight_read(struct gtsc_session *s, enum gtsc_flight_read how,
			    struct gtsc_sink *sink, struct gtsc_session_flight *out, size_t max);
/* GTSC's rewind: the next GTSC_FLIGHT_CONSUME read starts at the oldest retained record. */
void gt_session__flight_rewind(struct gtsc_session *s);
/* Recursion misses of every attached program (events the kernel skipped). */
__u64 gt_session__prog_misses(struct gtsc_session *s, struct strbuf *lines);

/* One recorded kernel stack: ID as SOURCE's records hold it, IPS innermost first. */
typedef int (*gtsc_stack_fn)(void *ctx, const char *source, __u32 id, const __u64 *ips,
			     size_t n);
/* Every stack of opts.stacks, after stop. 0, or the first error of FN or of the map. */
int gt_session__stacks(struct gtsc_session *s, gtsc_stack_fn fn, void *ctx);
__u64 gt_session__consumed(const struct gtsc_session *s);
const struct gtsc_features *gt_session__features(const struct gtsc_session *s);
const struct gtsc_channels *gt_session__channels(const struct gtsc_session *s);
const struct gtsc_source_plan *gt_session__plan(const struct gtsc_session *s);

#endif
