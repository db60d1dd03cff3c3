/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/**
 * @file record.h
 * @brief libgtsc: recording a session into a trace file, and what a
 * session can say about itself while it records.
 *
 * Part of the public API: include <gtsc/gtsc.h>, which includes this file.
 *
 * A struct gtsc_recording is what `gtsc-bpf record` does, without its
 * options and messages: a session whose records go to a trace file, with
 * the metadata a report needs on another machine, the names of the tasks
 * alive at the start, the flight channels' retained records and the
 * allocation stacks at the end, and the trailer's counts.  Lifecycle:
 * new (checks and parses every option; nothing is created, so a caller can
 * tell a usage error from a failure) -> open (creates the file, loads the
 * session) -> [gtsc_session__track_pid] -> attach (and writes the
 * metadata) -> gtsc_session__start -> poll ... [snapshot] -> stop ->
 * finish -> free.
 */
#ifndef __GTSC_PUBLIC_RECORD_H
#define __GTSC_PUBLIC_RECORD_H

#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gtsc_recording;

/**
 * How a trace's record chunks are compressed (metadata always takes zlib).
 * Zeroed options mean LZ4, as before ZSTD existed; the CLI's default is ZSTD.
 */
enum gtsc_compression {
	GTSC_COMPRESS_LZ4 = 0, /**< format 1.1's default: ~9 bytes per syscall event */
	GTSC_COMPRESS_ZLIB,    /**< what 1.0 readers read (~6 bytes per syscall event) */
	GTSC_COMPRESS_NONE,    /**< nothing compressed (~60 bytes per syscall event) */
	GTSC_COMPRESS_ZSTD,    /**< columns, then zstd (format 1.3): the smallest, reads fastest */
};

struct gtsc_recording_opts {
	size_t sz;
	enum gtsc_compression compress; /**< of the file and of every snapshot */
	/* Who recorded, as the trace's META chunk says it (report's "by:"). */
	const char *tool;    /**< "gtsc-bpf 0.1.0"; NULL: "libgtsc" */
	const char *cmdline; /**< the recorder's command line; NULL: the program's name */
	const char *command; /**< the traced command line, if the recorder ran one */
	/** perf's habit: a non-empty PATH becomes PATH.old first (the entry, never a link's target) */
	bool keep_old;
	/**
	 * the live view: gtsc_recording__live() yields the records in time
	 * order as they are recorded, with the file's metadata (PATH may be
	 * "/dev/null")
	 */
	bool live;
	size_t : 0;
};
#define gtsc_recording_opts__last_field live

/**
 * @brief Checks and parses SOPTS (events, channel specs, syscall sets,
 * snapshot_on) and resolves its function patterns, without loading
 * anything or touching PATH.  The recording keeps its own copy of what it
 * needs: SOPTS' arrays and strings may go after the call.
 * @return a recording, or NULL and errno (EINVAL, ENOENT: an option is
 * wrong, the sentence went to sopts->log)
 */
GTSC_API struct gtsc_recording *gtsc_recording__new(const char *path,
						    const struct gtsc_session_opts *sopts,
						    const struct gtsc_recording_opts *opts);

/**
 * @brief Creates the trace file (mode 0600) and opens the session, whose
 * records go to the file (gtsc_session__consume refuses it).  PATH is
 * removed again if the session cannot open.
 * @return 0 or -errno (the reason went to the log)
 */
GTSC_API int gtsc_recording__open(struct gtsc_recording *r);

/**
 * @brief The session, once open: track_pid, start, stop, rewind, stats.
 * Owned by R.  NULL before open.
 */
GTSC_API struct gtsc_session *gtsc_recording__session(const struct gtsc_recording *r);

/**
 * @brief Attaches the session's programs, then writes the metadata and
 * names every task traced so far (pids, tracked pids, or all with
 * system_wide): tasks alive before recording never fork or exec in it.
 * @return 0 or -errno (the reason went to the log)
 */
GTSC_API int gtsc_recording__attach(struct gtsc_recording *r);

/**
 * @brief Waits up to TIMEOUT_MS for records and writes what the discard
 * channels hold into the file (one drain round).
 * @return records written, or -errno
 */
GTSC_API int gtsc_recording__poll(struct gtsc_recording *r, int timeout_ms);

struct gtsc_snapshot_opts {
	size_t sz;
	bool consume;	/**< only what no consume snapshot took yet (see gtsc_session__rewind) */
	__u64 records;	/**< out: records written */
	__u64 torn;	/**< out: records skipped because a writer was changing them */
	char *errbuf;	/**< one sentence on failure ("cannot create PATH: ...") */
	size_t errbuf_sz;
	size_t : 0;
};
#define gtsc_snapshot_opts__last_field errbuf_sz

/**
 * @brief As gtsc_session__snapshot, with the recording's metadata, task
 * names and trailer lines: a complete trace at PATH of what the overwrite
 * channels retain now.  Recording goes on.  PATH is removed on failure.
 * @return 0, -ENOENT if the session has no overwrite channel, or -errno
 */
GTSC_API int gtsc_recording__snapshot(struct gtsc_recording *r, const char *path,
				      struct gtsc_snapshot_opts *opts);

/**
 * @brief A "meta KEY VALUE" line in the trailer of the file and of every
 * snapshot after this call, for what is known only late (a command's
 * exit status).  A reader takes a key's last value.
 * @return 0, -EINVAL (KEY or VALUE has a tab or newline) or -ENOMEM
 */
GTSC_API int gtsc_recording__add_meta(struct gtsc_recording *r, const char *key,
				      const char *value);

/**
 * @brief Stops the session and writes every record the programs wrote
 * before it, waiting up to TIMEOUT_MS for those in flight.
 * @return 0, -ETIMEDOUT (some were still in flight: logged), or -errno
 */
GTSC_API int gtsc_recording__stop(struct gtsc_recording *r, int timeout_ms);

/**
 * @brief After stop: writes the overwrite channels' retained records (not
 * consumed: a later snapshot still finds them), the kernel stacks
 * (stacks), the kernel symbols and the trailer, and closes the file.
 * A failure to read the flight channels or the stacks is logged and the
 * file completed without them.
 * @return 0, or -errno writing the file (logged)
 */
GTSC_API int gtsc_recording__finish(struct gtsc_recording *r);

/**
 * @brief Rotation (perf record --switch-output): ends the current file as
 * finish does (stacks, symbols, a trailer with the counts and drops since
 * the previous switch) and goes on in PATH, a file readable alone: the
 * recording's metadata and the names of the tasks known so far come first.
 * The overwrite channels' records go to the last file only.  If PATH
 * cannot be created, recording goes on in the current file.  Not for a
 * recording to "-".
 * @return 0 or -errno (logged)
 */
GTSC_API int gtsc_recording__switch(struct gtsc_recording *r, const char *path);

/** @brief The file being written (PATH, or the last switch's). */
GTSC_API const char *gtsc_recording__path(const struct gtsc_recording *r);

/**
 * @brief With opts.live: a reader of the records written so far, merged in
 * time order with the one-round window report uses; its next() returns
 * -EAGAIN when the rounds polled so far are all yielded, and 0 once
 * finish wrote the trailer.  Owned by R; NULL without opts.live or before
 * open.  Metadata (syscall table, symbols) is the file's.
 */
GTSC_API struct gtsc_reader *gtsc_recording__live(const struct gtsc_recording *r);

/**
 * @brief Destroys the session and frees R.  A file not finished is closed
 * as it is: it reads up to its last whole chunk, as a killed recorder's.
 * NULL is a no-op.
 */
GTSC_API void gtsc_recording__free(struct gtsc_recording *r);

/* ---- what a session says about itself (any session, recording or not) ---- */

/**
 * @brief One channel as the session set it up.  Set sz (GTSC_OPTS) and
 * gtsc_session__channel() fills what both sides know: the struct grows
 * only at the end.
 */
struct gtsc_channel_info {
	size_t sz;
	__u32 id;	  /**< the channel number of stats and GTSC_REC_DROPS records */
	const char *name; /**< valid as long as the session */
	enum gtsc_channel_scope scope; /**< GTSC_SCOPE_PERCPU or GTSC_SCOPE_GLOBAL */
	enum gtsc_channel_mode mode;
	__u64 size;	/**< bytes per ring or flight region, as rounded */
	__u64 sub_size; /**< GTSC's sub-buffer size in effect */
	__u32 nr_sub;
	__u32 nr_rings; /**< rings, or flight regions */
	size_t : 0;
};
#define gtsc_channel_info__last_field nr_rings

/**
 * @brief Channel IDX (0, 1, ...) into *INFO: loop until -ENOENT.
 * @return 0, -ENOENT past the last channel, or -EINVAL
 */
GTSC_API int gtsc_session__channel(const struct gtsc_session *s, size_t idx,
				   struct gtsc_channel_info *info);

/** One channel's counters on one CPU.  Fixed: a new counter gets a new function. */
struct gtsc_session_stat {
	__u32 channel;
	__u32 cpu;
	__u64 written; /**< records the programs wrote */
	__u64 dropped; /**< records lost (ring full) */
};

/**
 * @brief Per channel per CPU counters, channel by channel, into OUT.
 * @return entries filled (at most MAX), or -errno
 */
GTSC_API int gtsc_session__stats(struct gtsc_session *s, struct gtsc_session_stat *out,
				 size_t max);

#define GTSC_FLIGHT_ALL_CPUS ((__u32)-1)

/**
 * One flight region: a CPU's of a per-CPU overwrite channel, or a global
 * one's (cpu GTSC_FLIGHT_ALL_CPUS).  Fixed, as gtsc_session_stat.
 */
struct gtsc_session_flight {
	__u32 channel;
	__u32 cpu;
	__u64 written;	   /**< records the programs wrote into it */
	__u64 retained;	   /**< whole records it holds now */
	__u64 overwritten; /**< written - retained: exact once stopped */
	__u64 torn;	   /**< skipped: a writer was changing them (recording only) */
	__u64 read;	   /**< handed over by this read (0 for counts) */
};

/**
 * @brief Counts every flight region now, copying no record.
 * @return entries filled (at most MAX; 0 without overwrite channels), or -errno
 */
GTSC_API int gtsc_session__flight_stats(struct gtsc_session *s, struct gtsc_session_flight *out,
					size_t max);

/**
 * @brief What the session records, comma-separated, as `gtsc-bpf list`
 * shows it: "syscalls,kmem", with ",funcs(vfs_read,vfs_write,+3)" when it
 * probes functions; snprintf-style into BUF.
 * @return the length of the text (as snprintf), or -EINVAL
 */
GTSC_API int gtsc_session__sources(const struct gtsc_session *s, char *buf, size_t size);

/**
 * @brief The snapshot_on condition as the session understood it
 * ("syscall=exit_group"), *COUNT the triggers counted so far.
 * @return the condition, or NULL (and *COUNT 0) without one
 */
GTSC_API const char *gtsc_session__trigger(const struct gtsc_session *s, __u64 *count);

/**
 * @brief Events the kernel skipped because the same BPF program was
 * already running on that CPU (recursion protection) and that no rescue
 * program recorded: lost, and no drop counter sees them.
 * @return 0 or -EINVAL
 */
GTSC_API int gtsc_session__missed(struct gtsc_session *s, __u64 *missed);

/* The largest ring a channel can have: 2 GiB BPF rings took the kernel minutes to set up. */
#define GTSC_RING_MAX (1ULL << 30)
/* The largest size gtsc_parse_size takes. */
#define GTSC_SIZE_MAX (1ULL << 40)

/**
 * @brief Parses a size as record's options take it: "4096", "512K", "8M",
 * "2G" (powers of 1024), from 1 to GTSC_SIZE_MAX.
 * @return 0 and *BYTES, or -EINVAL if S is not a size, -ERANGE if it is out of range
 */
GTSC_API int gtsc_parse_size(const char *s, __u64 *bytes);

/**
 * @brief The checked parsers every size, count and duration option goes
 * through, before anything is created.  A size is digits with an optional
 * K, M, G or T (powers of 1024, "B" or "iB" after it allowed); a count
 * takes K, M, G; a duration is seconds, a fraction allowed, or with a
 * suffix ns, us, ms, s, m, h, d.  Signs, overflow, unknown suffixes and
 * values outside [MIN, MAX] are refused; WHY (if not NULL) gets the reason
 * and the range as part of a sentence ("'-5' is negative (a size from 4K
 * to 2G such as 8M)").
 * @return 0 and the value, -EINVAL (not a number or an unknown suffix) or
 * -ERANGE (negative, overflowing, below MIN or above MAX)
 */
GTSC_API int gtsc_parse_size_range(const char *s, __u64 min, __u64 max, __u64 *bytes, char *why,
				   size_t why_sz);
GTSC_API int gtsc_parse_count(const char *s, __u64 min, __u64 max, __u64 *n, char *why,
			      size_t why_sz);
GTSC_API int gtsc_parse_duration(const char *s, __u64 min_ns, __u64 max_ns, __u64 *ns, char *why,
				 size_t why_sz);

#ifdef __cplusplus
}
#endif

#endif
