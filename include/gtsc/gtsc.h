/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/**
 * @file gtsc.h
 * @brief libgtsc: the one public header of the gtsc-bpf library.
 *
 * Three objects, each an opaque handle with object__verb functions, as in
 * libbpf:
 *  - struct gtsc_session records gtsc-bpf's own event sources (syscalls,
 *    kmem, task) into channels and hands the records to a callback;
 *  - struct gtsc_tool drives a BPF object of your own that writes records
 *    into gtsc channels with <gtsc/gtsc.bpf.h>;
 *  - struct gtsc_reader reads a .gtsc trace file.
 *
 * The contract: int functions return 0 (or a count) or a negative errno;
 * functions returning a pointer return NULL and set errno.  Every opts
 * struct starts with `size_t sz` (set it with GTSC_OPTS): a caller built
 * against an older, smaller struct keeps working (the fields it does not
 * know take their defaults), and one built against a newer header is
 * refused with -EINVAL only if it sets a field this library does not know.
 * Records are those of <gtsc/records.h>; a record passed to a callback is
 * valid only during the call.  Only what this header declares is exported
 * (libgtsc.map, version GTSC_0.1).
 */
#ifndef __GTSC_GTSC_H
#define __GTSC_GTSC_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>
#include "records.h"
#include "file.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GTSC_API
#define GTSC_API __attribute__((visibility("default")))
#endif

/**
 * @brief Declares NAME, a zeroed struct TYPE with sz set, and the given
 * fields: GTSC_OPTS(gtsc_session_opts, o, .sources = GTSC_SOURCE_KMEM);
 * (libbpf's LIBBPF_OPTS: padding is zeroed too, so that a newer library
 * never reads garbage as an option).
 */
#define GTSC_OPTS(TYPE, NAME, ...)                                                                 \
	struct TYPE NAME = ({                                                                      \
		memset(&NAME, 0, sizeof(struct TYPE));                                             \
		(struct TYPE){                                                                     \
			.sz = sizeof(struct TYPE),                                                 \
			__VA_ARGS__                                                                \
		};                                                                                 \
	})

enum gtsc_log_level {
	GTSC_LOG_WARN,
	GTSC_LOG_INFO,
	GTSC_LOG_DEBUG,
};

/** @brief Receives one sentence (no newline) about what went wrong or what was chosen. */
typedef void (*gtsc_log_fn)(void *ctx, enum gtsc_log_level level, const char *msg);

/**
 * @brief Receives one record; REC is valid only during the call.  A
 * non-zero return stops the consumption and is what consume returns.
 */
typedef int (*gtsc_record_fn)(void *ctx, const struct gtsc_rec_hdr *rec);

/* ---- sessions: gtsc-bpf's own event sources ---- */

struct gtsc_session;

/** Event sources (fork/exec/exit, the "task" channel, are always recorded). */
enum gtsc_source {
	GTSC_SOURCE_SYSCALLS = 1 << 1, /**< raw_syscalls sys_enter/sys_exit */
	GTSC_SOURCE_KMEM = 1 << 2,     /**< kmalloc, kfree, kmem_cache_*, mm_page_* */
};

enum gtsc_channel_scope {
	GTSC_SCOPE_DEFAULT = 0, /**< the channel's own: task is global, the others per CPU */
	GTSC_SCOPE_PERCPU = 1,
	GTSC_SCOPE_GLOBAL = 2,
};

enum gtsc_channel_mode {
	GTSC_CHANNEL_DISCARD = 0,   /**< a full ring drops (and counts) new records */
	GTSC_CHANNEL_OVERWRITE = 1, /**< flight recorder: the newest overwrite the oldest */
};

/**
 * What carries a discard channel's records to the recorder.  ARRAY is issue
 * #13's cheaper reserve: per-CPU regions of an mmapable BPF array, claimed
 * with a compare-and-swap (Linux 5.12); overwrite channels keep their own.
 */
enum gtsc_channel_ring {
	GTSC_RING_DEFAULT = 0, /**< array ring where the kernel has it (5.12), else ring buffer */
	GTSC_RING_RINGBUF = 1, /**< BPF_MAP_TYPE_RINGBUF */
	GTSC_RING_ARRAY = 2,   /**< per-CPU array ring */
};

/**
 * @brief One channel override.  In an array, elements are sz bytes apart
 * (the first element's sz counts), so that the array of an older caller
 * still indexes right.
 */
struct gtsc_channel_opts {
	size_t sz;
	const char *name; /**< "syscalls", "kmem" or "task" */
	__u64 size;	  /**< bytes per ring or flight region (power of two); 0: default */
	enum gtsc_channel_scope scope;
	enum gtsc_channel_mode mode;
	__u64 sub_size; /**< GTSC's sub-buffer size; 0: the mode's default */
	__u32 nr_sub;	/**< or the number of sub-buffers; 0: from sub_size */
	enum gtsc_channel_ring ring; /**< since GTSC_0.5; 0: the default ring */
};
#define gtsc_channel_opts__last_field ring

struct gtsc_session_opts {
	size_t sz;
	unsigned int sources; /**< enum gtsc_source mask; 0: syscalls and kmem */
	bool system_wide;     /**< else only PIDS (and the children they fork) */
	const int *pids;      /**< read by open only */
	size_t nr_pids;
	const struct gtsc_channel_opts *channels; /**< read by open only */
	size_t nr_channels;
	__u64 ring_bytes;   /**< default per-CPU ring size of syscalls and kmem; 0: 8 MiB */
	bool allow_missing; /**< record what this kernel allows instead of failing */
	gtsc_log_fn log;    /**< NULL: silent; errors still return -errno */
	void *log_ctx;
	/*
	 * Since GTSC_0.2: the rest of what `gtsc-bpf record` sets, in the
	 * strings its options take.  A string that does not parse fails open
	 * with -EINVAL and one sentence through log.
	 */
	/** record -e: "syscalls,kmem"; "kmem,syscalls=openat,*stat*,%net" records only
	 *  those syscalls (names, globs, strace classes, up to the end).  Replaces sources. */
	const char *events;
	/** record --channel: "NAME:KEY=VALUE[,...]" with size=, scope=percpu|global,
	 *  mode=discard|overwrite, sub_size=, nr_sub=, ring=ringbuf|array; applied after
	 *  channels */
	const char *const *channel_specs;
	size_t nr_channel_specs;
	__u32 capture_size; /**< bytes of user memory captured per buffer (strace's -s); 0: 32 */
	bool no_capture;    /**< raw syscall arguments only, no user memory */
	/** record -k: kernel function patterns, each "a,b*,c%return" (%return adds the
	 *  return and its latency); resolved by open (-ENOENT: one matches nothing) */
	const char *const *funcs;
	size_t nr_funcs;
	const char *const *comms; /**< only tasks whose comm is one of these (at most 8) */
	size_t nr_comms;
	const char *cgroup; /**< only tasks in this cgroup v2 directory or below it */
	/** "syscall=NAME" (or =NR): a traced task entering NAME counts a trigger, at most
	 *  once a second (gtsc_session__trigger); needs an overwrite channel and syscalls */
	const char *snapshot_on;
	bool stacks; /**< a kernel stack for each kmem allocation and function entry (needs kmem or funcs) */
	size_t : 0;
};
#define gtsc_session_opts__last_field stacks

/** Most bytes of user memory a syscall record captures per buffer (capture_size). */
#define GTSC_CAPTURE_MAX 4096

/**
 * @brief Checks permissions and kernel features, loads the BPF programs and
 * creates the channels.  Needs root (or CAP_BPF and CAP_PERFMON).  Nothing
 * is attached yet, except where sessions share the syscall hooks
 * (`gtsc-bpf features`: sys_dispatch) and no other session records
 * syscalls: this session's syscall pair is then attached here, idle until
 * start, for later sessions to join.  open -> attach -> start.
 * @return a session, or NULL and errno (the reason also went to opts->log)
 */
GTSC_API struct gtsc_session *gtsc_session__open(const struct gtsc_session_opts *opts);

/** @brief Also traces PID and what it forks from now on (a session that is not system-wide). */
GTSC_API int gtsc_session__track_pid(struct gtsc_session *s, int pid);

/** @brief Attaches the programs; nothing is recorded before start. */
GTSC_API int gtsc_session__attach(struct gtsc_session *s);

/** @brief Starts recording (a flag the programs read; they stay attached). */
GTSC_API int gtsc_session__start(struct gtsc_session *s);

/**
 * @brief Stops recording: when it returns, every record begun before it is
 * written and counted, and nothing is written after it.  start again resumes.
 */
GTSC_API int gtsc_session__stop(struct gtsc_session *s);

/**
 * @brief Waits up to TIMEOUT_MS for records, then hands every record the
 * discard channels hold to FN, in each ring's order, with a GTSC_REC_DROPS
 * record wherever records were dropped.  After stop it drains the rings
 * completely (waiting up to TIMEOUT_MS for records still in flight) and
 * then reads the overwrite channels from where the previous read ended
 * (see gtsc_session__rewind); while recording, overwrite channels are left
 * to the kernel.
 * @return records handed over, or -errno, or FN's non-zero return
 */
GTSC_API int gtsc_session__consume(struct gtsc_session *s, int timeout_ms, gtsc_record_fn fn,
				   void *ctx);

/**
 * @brief Records dropped so far (rings full) by CHANNEL ("syscalls", ...),
 * or by every channel when CHANNEL is NULL, into *DROPPED.
 * @return 0, -ENOENT for an unknown channel, or -errno
 */
GTSC_API int gtsc_session__dropped(struct gtsc_session *s, const char *channel, __u64 *dropped);

/**
 * @brief GTSC's rewind: the next read of the overwrite channels (consume
 * after stop) starts again at the oldest record they retain.  Retained
 * records are never consumed from the kernel.
 * @return 0, or -EINVAL if the session has no overwrite channel
 */
GTSC_API int gtsc_session__rewind(struct gtsc_session *s);

/**
 * @brief Writes a complete trace file at PATH (mode 0600) of what the
 * overwrite channels retain now, with the metadata `gtsc-bpf report` needs;
 * recording goes on and nothing is consumed.
 * @return 0, -EINVAL if the session has no overwrite channel, or -errno
 */
GTSC_API int gtsc_session__snapshot(struct gtsc_session *s, const char *path);

/** @brief Detaches, frees the channels and S.  NULL is a no-op. */
GTSC_API void gtsc_session__destroy(struct gtsc_session *s);

/* ---- tools: your own BPF object writing into gtsc channels ---- */

struct bpf_object;
struct gtsc_tool;

struct gtsc_tool_opts {
	size_t sz;
	const char *channel; /**< the channel's name; NULL: "tool" */
	__u64 ring_bytes;    /**< per ring, a power of two; 0: 1 MiB */
	bool global;	     /**< one ring for all CPUs instead of one per CPU */
	const int *pids;     /**< trace only these (and their children); none: every task */
	size_t nr_pids;
	gtsc_log_fn log;
	void *log_ctx;
	size_t : 0;
};
#define gtsc_tool_opts__last_field log_ctx

/**
 * @brief Takes OBJ, opened but not loaded, linked with gtsc's channel.bpf.o
 * (see gtsc.bpf.h): routes every record class into one channel, sizes the
 * channel maps and collects the gtsc_printf formats.  Then load OBJ
 * yourself (bpf_object__load or the skeleton's __load) and call attach.
 * OBJ stays yours and must outlive the tool.
 * @return a tool, or NULL and errno
 */
GTSC_API struct gtsc_tool *gtsc_tool__open(struct bpf_object *obj,
					   const struct gtsc_tool_opts *opts);

/**
 * @brief After OBJ is loaded: creates the rings and attaches every program
 * OBJ loaded.  Nothing is recorded before start.
 */
GTSC_API int gtsc_tool__attach(struct gtsc_tool *t);
GTSC_API int gtsc_tool__start(struct gtsc_tool *t);
/** @brief As gtsc_session__stop: every record begun before it is counted when it returns. */
GTSC_API int gtsc_tool__stop(struct gtsc_tool *t);
/**
 * @brief As gtsc_session__consume, for the tool's one channel; drops come
 * as no records here: gtsc_tool__dropped counts them.
 */
GTSC_API int gtsc_tool__consume(struct gtsc_tool *t, int timeout_ms, gtsc_record_fn fn,
				void *ctx);
/** @brief Records the tool's programs could not write (ring full) so far. */
GTSC_API int gtsc_tool__dropped(struct gtsc_tool *t, __u64 *dropped);
/**
 * @brief Formats a GTSC_REC_PRINTF record with the format strings of the
 * tool's object, snprintf-style into BUF.
 * @return the length of the text (as snprintf), or -EINVAL / -ENOENT (unknown format)
 */
GTSC_API int gtsc_tool__format(const struct gtsc_tool *t, const struct gtsc_rec_hdr *rec,
			       char *buf, size_t size);
/** @brief Detaches the tool's links and frees the rings; OBJ is left to its owner. */
GTSC_API void gtsc_tool__destroy(struct gtsc_tool *t);

/* ---- reading trace files ---- */

struct gtsc_reader;

/** Bytes [off, off + size) of the records of one type: what a reader's caller reads. */
struct gtsc_rec_part {
	__u16 type; /**< enum gtsc_rec_type */
	__u16 off;
	__u16 size; /**< up to the end of the record (payloads included): 0xffff */
};

struct gtsc_reader_opts {
	size_t sz;
	bool unordered; /**< yield records in file order instead of merging by timestamp */
	char *errbuf;	/**< one sentence on failure of open or next */
	size_t errbuf_sz;
	/**
	 * When not NULL, the caller reads only reads[0, nr_reads) of records
	 * (and every header's type, size and ts_ns): the reader may skip
	 * decoding the rest, whose bytes are then unspecified.  Format 1.2
	 * files store fields apart and are read faster so; other files give
	 * whole records.  A statistics pass reads a few fields of each record.
	 */
	const struct gtsc_rec_part *reads;
	size_t nr_reads;
};
#define gtsc_reader_opts__last_field nr_reads

/**
 * @brief Opens PATH and checks header and chunk framing.  A file cut short
 * or with a corrupt chunk opens (gtsc_reader__truncated() says so, and the
 * records before it are readable); a file that is not a trace, a future
 * major version, a foreign byte order or an unreadable header fail.
 * @return a reader, or NULL and errno, with a sentence in opts->errbuf
 */
GTSC_API struct gtsc_reader *gtsc_reader__open(const char *path,
					       const struct gtsc_reader_opts *opts);

/**
 * @brief As gtsc_reader__open, for the N files of one recording in order
 * (record --switch-output), read as one trace: the first file's metadata,
 * the trailers' counts added up, records merged across the files' ends.
 * A file of another recording fails the open; a damaged or unfinished one
 * ends the trace there.  PATH "-" is the standard input, and a pipe or
 * FIFO (alone) is read as a stream: in order as it comes, without seeking,
 * its trailer and late symbols known only once next() reached them
 * (gtsc_reader__streaming).
 */
GTSC_API struct gtsc_reader *gtsc_reader__open_files(const char *const *paths, size_t n,
						     const struct gtsc_reader_opts *opts);

/**
 * @brief Whether R reads a stream: then the trailer's counts, the drops
 * and the damage are known only after next() returned 0.
 */
GTSC_API bool gtsc_reader__streaming(const struct gtsc_reader *r);

/**
 * @brief Next record in timestamp order: 1 and *REC set (valid until the
 * next call), 0 at the end, -errno on an I/O error.  Records of a type
 * this build does not know are yielded too: skip them by hdr.size.
 */
GTSC_API int gtsc_reader__next(struct gtsc_reader *r, const struct gtsc_rec_hdr **rec);

/** @brief Records yielded so far. */
GTSC_API __u64 gtsc_reader__count(const struct gtsc_reader *r);

/**
 * @brief How far reading has got, for a progress line: *DONE bytes of the
 * file's *TOTAL are behind the records yielded so far (read in chunks, so
 * it moves by a chunk at a time).
 * @return 0, or -EINVAL
 */
GTSC_API int gtsc_reader__progress(const struct gtsc_reader *r, __u64 *done, __u64 *total);

/** @brief A META key's value ("kernel", "hostname", "nr_cpus", ...), NULL if absent. */
GTSC_API const char *gtsc_reader__meta(const struct gtsc_reader *r, const char *key);

/** @brief True if the file ends before its trailer (recorder killed) or a chunk is damaged. */
GTSC_API bool gtsc_reader__truncated(const struct gtsc_reader *r);

/** @brief One sentence on why the file is truncated or damaged ("" if it is not). */
GTSC_API const char *gtsc_reader__damage(const struct gtsc_reader *r);

/** @brief Name of syscall NR in the recording machine's table, NULL if unknown. */
GTSC_API const char *gtsc_reader__syscall_name(const struct gtsc_reader *r, int nr);

/** @brief Kernel symbol containing ADDR (a call site), *OFF the offset in it; NULL if none. */
GTSC_API const char *gtsc_reader__ksym(const struct gtsc_reader *r, __u64 addr, __u64 *off);

/**
 * @brief Formats a GTSC_REC_PRINTF record with the format strings the trace
 * saved, snprintf-style into BUF.
 * @return the length of the text (as snprintf), or -EINVAL / -ENOENT (unknown format)
 */
GTSC_API int gtsc_reader__format(const struct gtsc_reader *r, const struct gtsc_rec_hdr *rec,
				 char *buf, size_t size);

/**
 * @brief Raw bytes of every chunk of TYPE, concatenated in file order: for
 * the text chunks file.h describes (GTSC_CHUNK_EVENT_FORMATS, the recording
 * kernel's tracefs formats, ...).  Valid as long as R; not NUL-terminated.
 * @return the bytes and *LEN, or NULL and *LEN = 0 if the trace has none
 */
GTSC_API const char *gtsc_reader__chunk_text(const struct gtsc_reader *r,
					     enum gtsc_chunk_type type, size_t *len);

/**
 * @brief One channel of a trace: how the recorder set it up, and what the
 * trailer counted for it, summed over its rings.  Set sz (GTSC_OPTS) and
 * gtsc_reader__channel() fills what both sides know, so the struct grows
 * only at the end.
 */
struct gtsc_reader_channel {
	size_t sz;
	__u32 id;	   /**< the channel's number in GTSC_REC_DROPS records */
	const char *name;  /**< valid as long as the reader */
	enum gtsc_channel_mode mode;
	enum gtsc_channel_scope scope; /**< GTSC_SCOPE_PERCPU or GTSC_SCOPE_GLOBAL */
	__u32 nr_rings;	   /**< rings, or flight regions */
	__u64 ring_bytes;  /**< bytes per ring or region */
	__u64 written;	   /**< records the programs wrote (0 without a trailer) */
	__u64 dropped;	   /**< records lost to a full ring or a fifth nesting level */
	bool flight;	   /**< an overwrite channel's counts follow (its trailer lines) */
	__u64 retained;	   /**< records its regions held: those in this file */
	__u64 overwritten; /**< written - retained */
	__u64 torn;	   /**< skipped because a writer was changing them */
	size_t : 0;
};
#define gtsc_reader_channel__last_field torn

/**
 * @brief Channel number IDX (0, 1, ... in the order the trace lists them)
 * into *CH: loop until it returns -ENOENT.
 * @return 0, -ENOENT past the last channel, or -EINVAL (CH's sz unknown)
 */
GTSC_API int gtsc_reader__channel(const struct gtsc_reader *r, size_t idx,
				  struct gtsc_reader_channel *ch);

/** @brief As gtsc_reader__channel, by name ("syscalls", "kmem", ...); -ENOENT if absent. */
GTSC_API int gtsc_reader__channel_by_name(const struct gtsc_reader *r, const char *name,
					  struct gtsc_reader_channel *ch);

/**
 * @brief True if the trace has the counts its trailer brings (written,
 * dropped, overwritten): false for a trace whose recorder was killed, whose
 * drops are then unknown rather than zero.
 */
GTSC_API bool gtsc_reader__has_counts(const struct gtsc_reader *r);

/**
 * @brief Events the kernel itself skipped (BPF recursion protection: a
 * program not run because it was already running on that CPU) and that
 * no rescue program recorded, summed over the trace's programs; 0 without
 * a trailer.  No drop counter sees them.
 */
GTSC_API __u64 gtsc_reader__prog_misses(const struct gtsc_reader *r);

/**
 * @brief gtsc_reader__prog_misses() by hook, as the recorder named them:
 * "kmem:kfree 2, events 1", "" when none.  The kernel counts every task's
 * events on a hook, so some may be outside the session's filters: an upper
 * bound of what the session lost.  Valid until the reader is closed.
 */
GTSC_API const char *gtsc_reader__prog_skips(const struct gtsc_reader *r);

/**
 * @brief A syscall of the recording machine's table, with the argument
 * types and names its tracefs format (or gtsc's built-in table) gave.
 * Only the library fills it, and it grows only at the end.
 */
struct gtsc_syscall_info {
	int nr;
	char name[64];
	int nr_args; /**< 0 also when the table had no prototype */
	char arg_type[6][48];
	char arg_name[6][32];
};

/** @brief Syscall NR of the trace's table, valid as long as R; NULL if unknown. */
GTSC_API const struct gtsc_syscall_info *gtsc_reader__syscall(const struct gtsc_reader *r,
							      int nr);

/**
 * @brief A probed function (record -k), from the trace's FUNCS chunk; the
 * strings live as long as the reader.  Only the library fills it, and it
 * grows only at the end.
 */
struct gtsc_func_info {
	__u32 id; /**< what gtsc_rec_func.func_id holds */
	const char *name;
	__u64 addr;
	bool has_return;      /**< probed on return too (FUNC%return) */
	const char *ret_kind; /**< how a value prints: "s4", "u8", "p8", "x0" (see file.h) */
	const char *ret_type; /**< C text; "?" when the recording kernel had no BTF prototype */
	int nr_args;
	const char *arg_kind[6];
	const char *arg_type[6];
	const char *arg_name[6];
};

/** @brief Probed function ID, valid as long as R; NULL if unknown. */
GTSC_API const struct gtsc_func_info *gtsc_reader__func(const struct gtsc_reader *r, __u32 id);

/** @brief Every probed function, sorted by id, *N of them (NULL and 0 if none). */
GTSC_API const struct gtsc_func_info *gtsc_reader__funcs(const struct gtsc_reader *r, size_t *n);

/**
 * @brief Frames of kernel stack ID that records of SOURCE ("kmem": struct
 * gtsc_rec_kmem_alloc.stack_id) name, innermost first, *N of them, from
 * the trace's STACKS chunk (record --stacks); gtsc_reader__ksym names them.
 * @return the frames, valid as long as R, or NULL if the trace lacks them
 */
GTSC_API const __u64 *gtsc_reader__stack(const struct gtsc_reader *r, const char *source, __u32 id,
					 size_t *n);

/** @brief Frees R.  NULL is a no-op. */
GTSC_API void gtsc_reader__close(struct gtsc_reader *r);

#ifdef __cplusplus
}
#endif

/* The rest of the API, one file per area (each includes this one). */
#include "record.h"   /* recording a session into a trace file */
#include "control.h"  /* runtime control of named sessions; kernel features */
#include "syscalls.h" /* decoding syscall records */
#include "kmem.h"     /* kmem analysis */
#include "tracepoints.h" /* tracepoints recorded by name */
#include "buf.h"      /* output lines and the escapers of text and JSON */
#include "print.h"    /* printing events: one line of text or JSON each */
#include "ctf.h"      /* writing a trace as CTF */

#endif /* __GTSC_GTSC_H */
