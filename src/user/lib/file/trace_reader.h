/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reads a .gtsc file: validates it, exposes metadata, yields records in time order. */
#ifndef __GTSC_TRACE_READER_H
#define __GTSC_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "gtsc/file.h"
#include "gtsc/gtsc.h"
#include "gtsc/records.h"

/*
 * The reader's public half is in gtsc/gtsc.h (open, next, meta, channel,
 * syscall, func, chunk_text, ...).  What follows is for the library's own
 * analysis code (kmem_check, ...): the raw tables the public accessors sum.
 */

struct trace_channel {
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

/* A FEATURES key's value, NULL if absent. */
const char *gt_reader__feature(const struct gtsc_reader *r, const char *key);
const struct trace_channel *gt_reader__channels(const struct gtsc_reader *r, size_t *n);
/* Per channel per CPU counts from the trailer; NULL if there is no trailer. */
const struct gtsc_chan_stat *gt_reader__stats(const struct gtsc_reader *r, size_t *n);
/* The trailer's flight lines (NULL, *n = 0 if none). */
const struct gtsc_flight_stat *gt_reader__flight_stats(const struct gtsc_reader *r, size_t *n);

/* A record and its timestamp, as the reader orders them. */
struct trace_rec_ref {
	__u64 ts;
	const struct gtsc_rec_hdr *rec;
};

/*
 * State a later stage keeps per reader (decode's event classes, built at
 * report time): the reader never looks into DATA and calls FREE(DATA) when
 * it closes, so the file stage does not depend on the stages reading it.
 */
struct trace_reader_ext {
	void *data;
	void (*free)(void *data);
};

/* R's slot for that state, writable through a const reader: it is a cache. */
struct trace_reader_ext *gt_reader__ext(const struct gtsc_reader *r);

/*
 * What gtsc_reader__next would yield next, as many records as are ready at
 * once: (*refs)[0, n).  No copy and no call per record, for analyses that
 * read ahead (prefetching); valid until the next call of either.  n > 0,
 * 0 at the end, or -errno.
 */
ssize_t gt_reader__next_span(struct gtsc_reader *r, const struct trace_rec_ref **refs);

struct col_want;

/*
 * Tells R that its records are read only where W says (col_codec.h): in
 * column chunks (1.2) the rest is not decoded, and what those bytes hold is
 * unspecified.  Other chunks give whole records.  For an analysis that owns
 * the reader and reads every record itself (the kmem report); before the
 * first record: 0, or -EBUSY.
 */
int gt_reader__want(struct gtsc_reader *r, const struct col_want *w);

/*
 * A reader of what the caller feeds it, a stream's bytes as a recorder
 * writes them (file header, chunks): the live view.  next() says -EAGAIN
 * when it needs what was not fed yet; feed(r, NULL, 0) says the stream
 * ended.  feed: 0 or -errno.
 */
struct gtsc_reader *gt_reader__open_feed(const struct gtsc_reader_opts *opts);
int gt_reader__feed(struct gtsc_reader *r, const void *data, size_t len);
/* Reads the metadata fed so far, no record: the accessors answer from it.  0 or -errno. */
int gt_reader__feed_meta(struct gtsc_reader *r);

/*
 * About gtsc_reader__next: a record shorter than its type's minimum size or
 * crossing its chunk ends that chunk and marks the file damaged.
 */

#endif
