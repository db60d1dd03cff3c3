/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace-file sink: records into DATA chunks, one round per drain; it
 * remembers the call sites it wrote so that finishing the file can save
 * just the kernel symbols that name them.
 */
#ifndef __GTSC_SINK_FILE_H
#define __GTSC_SINK_FILE_H

#include "sink.h"
#include "trace_writer.h"

struct gtsc_file_sink;
struct strbuf;

struct gtsc_file_sink *gt_file_sink__create(const char *path,
					    const struct gtsc_writer_opts *opts);
struct gtsc_sink *gt_file_sink__sink(struct gtsc_file_sink *fs);
int gt_file_sink__add_chunk(struct gtsc_file_sink *fs, enum gtsc_chunk_type type,
			    const struct strbuf *text);
/*
 * A kernel stack the records of SOURCE name by ID (file.h's STACKS chunk,
 * written by finish); its frames are named in KSYMS with the call sites.
 */
int gt_file_sink__add_stack(struct gtsc_file_sink *fs, const char *source, __u32 id,
			    const __u64 *ips, size_t n);
/* Writes STACKS, KSYMS (call sites and stack frames seen), TRAILER; closes. Frees FS. */
int gt_file_sink__finish(struct gtsc_file_sink *fs, const struct strbuf *trailer);
/*
 * Keeps the call sites first seen since the last take_fresh: a stream
 * names them as it goes (KSYMS chunks) rather than only at its end.
 */
void gt_file_sink__track_fresh(struct gtsc_file_sink *fs);
/* The fresh call sites in *SITES (valid until the next record), and forgets them. */
size_t gt_file_sink__take_fresh(struct gtsc_file_sink *fs, const __u64 **sites);
__u64 gt_file_sink__bytes(const struct gtsc_file_sink *fs);
/* Closes without a trailer (error paths). Frees FS. */
void gt_file_sink__abort(struct gtsc_file_sink *fs);

#endif
