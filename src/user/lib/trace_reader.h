/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reads a .gtsc file: validates it, exposes metadata, yields records in time order. */
#ifndef __GTSC_TRACE_READER_H
#define __GTSC_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include "gtsc/file.h"
#include "gtsc/gtsc.h"
#include "gtsc/records.h"

/*
 * The reader's public half is in gtsc/gtsc.h: gtsc_reader_opts, open, next,
 * count, meta, truncated, damage, syscall_name, ksym, format, close.  What
 * follows is for the report code.
 */

struct gtsc_channel_info {
	__u32 id;
	char name[32];
	bool percpu;
	__u32 nr_rings;
	__u64 ring_bytes;
	char mode[16]; /* "discard" or "overwrite" */
};

struct gtsc_chan_stat {
	__u32 channel;
	__u32 cpu;
	__u64 written;
	__u64 dropped;
};

/* A trailer "flight" line: one region of an overwrite channel when the file was written. */
struct gtsc_flight_stat {
	__u32 channel;
	__u32 cpu; /* (__u32)-1: the one region of a global channel */
	__u64 written;
	__u64 retained;	   /* records the region held: those in this file */
	__u64 overwritten; /* written - retained */
	__u64 torn;	   /* skipped because a writer was changing them */
};

struct gtsc_syscall_info {
	int nr;
	char name[64];
	int nr_args;
	char arg_type[6][48];
	char arg_name[6][32];
};

/* A probed function (FUNCS chunk); the strings live as long as the reader. */
struct gtsc_func_info {
	__u32 id;
	const char *name;
	__u64 addr;
	bool has_return;
	const char *ret_kind; /* how a value prints: "s4", "u8", "p8", "x0" (file.h) */
	const char *ret_type; /* "?" when the recording kernel had no BTF prototype */
	int nr_args;
	const char *arg_kind[6];
	const char *arg_type[6];
	const char *arg_name[6];
};

/* A FEATURES key's value, NULL if absent. */
const char *gtsc_reader__feature(const struct gtsc_reader *r, const char *key);
/* Raw bytes of all chunks of TYPE, concatenated in file order (NULL, *len = 0 if none). */
const char *gtsc_reader__chunk_text(const struct gtsc_reader *r, enum gtsc_chunk_type type,
				    size_t *len);
const struct gtsc_channel_info *gtsc_reader__channels(const struct gtsc_reader *r, size_t *n);
/* Per channel per CPU counts from the trailer; NULL if there is no trailer. */
const struct gtsc_chan_stat *gtsc_reader__stats(const struct gtsc_reader *r, size_t *n);
/* The trailer's flight lines (NULL, *n = 0 if none). */
const struct gtsc_flight_stat *gtsc_reader__flight_stats(const struct gtsc_reader *r, size_t *n);
/* A trailer "prog" line's recursion misses summed over programs; 0 if none. */
__u64 gtsc_reader__prog_misses(const struct gtsc_reader *r);
/* Syscall table entry by number, NULL if unknown. */
const struct gtsc_syscall_info *gtsc_reader__syscall(const struct gtsc_reader *r, int nr);
/* Probed function by id (gtsc_rec_func.func_id), NULL if unknown. */
const struct gtsc_func_info *gtsc_reader__func(const struct gtsc_reader *r, __u32 id);
/* Every probed function, by id. */
const struct gtsc_func_info *gtsc_reader__funcs(const struct gtsc_reader *r, size_t *n);

/* Frames (innermost first) of stack ID of SOURCE ("kmem") from the STACKS chunk; NULL if none. */
const __u64 *gtsc_reader__stack(const struct gtsc_reader *r, const char *source, __u32 id,
				size_t *n);

/*
 * About gtsc_reader__next: a record shorter than its type's minimum size or
 * crossing its chunk ends that chunk and marks the file damaged.
 */

#endif
