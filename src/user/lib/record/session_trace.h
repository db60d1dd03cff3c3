/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a trace file of a session carries besides its records (file.h): the
 * metadata chunks that let it decode on another machine, and the trailer's
 * counts.  Shared by `gtsc-bpf record` and gtsc_session__snapshot, so that
 * every trace a session writes reads the same.
 */
#ifndef __GTSC_SESSION_TRACE_H
#define __GTSC_SESSION_TRACE_H

#include "session.h"
#include "strbuf.h"

struct gtsc_file_sink;

/* Chunk texts in file order; each may be added to before it is written. */
struct gtsc_trace_meta {
	struct strbuf meta;  /* host and clock; syscall_table=, decode_tables= */
	struct strbuf feat;  /* the feature table and the source plan */
	struct strbuf chans; /* CHANNELS lines */
	struct strbuf sys;   /* the syscall table */
	struct strbuf fmt;   /* tracefs formats of the events (flag tables) */
	struct strbuf printf; /* gtsc_printf formats of the programs (empty: none print) */
	struct strbuf tps;    /* TRACEPOINTS: formats of -e GROUP:NAME (empty: none) */
};

void gt_trace_meta__build(struct gtsc_trace_meta *m, struct gtsc_session *s);
/* Writes the non-empty chunks to FS. */
int gt_trace_meta__write(const struct gtsc_trace_meta *m, struct gtsc_file_sink *fs);
void gt_trace_meta__free(struct gtsc_trace_meta *m);

/* CHANNELS lines: id name scope rings|regions bytes mode sub_size nr_sub. */
void gt_trace__channels(const struct gtsc_channels *ch, struct strbuf *sb);
/*
 * TRAILER "stat" lines; *WRITTEN and *DROPPED get the sums.  SINCE (NULL,
 * or gt_trace__nr_stats entries): the counts are those after it, and it
 * takes the counts of now (a rotated file's trailer holds its own).
 * 0 or -errno.
 */
int gt_trace__stats(struct gtsc_session *s, struct strbuf *tr, __u64 *written, __u64 *dropped,
		    struct gtsc_session_stat *since);
size_t gt_trace__nr_stats(struct gtsc_session *s);
/*
 * "flight CHANNEL CPU|all WRITTEN RETAINED OVERWRITTEN TORN" lines, CHANNEL
 * the id (trailer), or the name when CH is given (status replies).
 */
void gt_trace__flight(struct strbuf *out, const struct gtsc_channels *ch,
		      const struct gtsc_session_flight *fl, int n);

#endif
