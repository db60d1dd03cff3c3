// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The fields of each built-in record, as the column coder (col_codec.c)
 * sees them, in the form of fields.h, the field layer's contract; the coder
 * only reads offsets, sizes, types and print hints.
 *
 * Why not the field layer's classes (events.c): those describe how a record
 * is shown, and the streams of a column chunk are part of the file format
 * (COL_VERSION).  There, one record has several classes (kmem_alloc is
 * kmalloc, kmem_cache_alloc or page_alloc; sys_enter's is built per trace
 * from its syscall table, with 4-byte arguments where the call's type is an
 * int), a field can appear twice (nr as "name" and "nr"), some records have
 * none (kmem_cache), and print hints follow what reads best: gfp_flags is
 * HEX there, which the coder would code as a delta (a FLAGS field is a
 * plain varint).  Deriving the streams from them would let a display change
 * move the layout of files already written.  This table is one class per
 * record, sorted by offset, never overlapping, and changes only with a new
 * COL_VERSION; gt_col_record_class() costs nothing per record either way (the
 * layout is made once per coder).
 *
 * The coder makes of each field (col_codec.c, field_coding()):
 *   UINT/INT printed as HEX or SYM (pointers, addresses) or TIME: the
 *   difference from the previous value of the same field; other INTs
 *   zigzag varints, UINTs varints; the rest raw bytes.  Bytes no field
 *   names (padding) ride raw in a stream of their own, which the
 *   compressor reduces to nothing while they are zero.
 */
#include <stddef.h>
#include "col_codec_int.h"

#define F(rec, field, t, p)                                                                        \
	{                                                                                          \
		.name = #field, .offset = offsetof(struct rec, field),                             \
		.size = sizeof(((struct rec *)0)->field), .type = GTSC_FT_##t, .print = GTSC_FP_##p \
	}
#define ARG(rec, i)                                                                                \
	{                                                                                          \
		.name = "args" #i, .offset = offsetof(struct rec, args) + 8 * (i), .size = 8,      \
		.type = GTSC_FT_UINT, .print = GTSC_FP_HEX                                         \
	}
#define CLASS(g, n, f) { .group = g, .name = n, .fields = f, .nr_fields = sizeof(f) / sizeof(f[0]) }

static const struct gtsc_field sys_enter_fields[] = {
	F(gtsc_rec_sys_enter, nr, INT, DEFAULT),
	F(gtsc_rec_sys_enter, payload_len, UINT, DEFAULT),
	ARG(gtsc_rec_sys_enter, 0), ARG(gtsc_rec_sys_enter, 1), ARG(gtsc_rec_sys_enter, 2),
	ARG(gtsc_rec_sys_enter, 3), ARG(gtsc_rec_sys_enter, 4), ARG(gtsc_rec_sys_enter, 5),
};

static const struct gtsc_field sys_exit_fields[] = {
	F(gtsc_rec_sys_exit, nr, INT, DEFAULT),
	F(gtsc_rec_sys_exit, payload_len, UINT, DEFAULT),
	F(gtsc_rec_sys_exit, ret, INT, ERRNO),
};

static const struct gtsc_field kmem_alloc_fields[] = {
	F(gtsc_rec_kmem_alloc, call_site, UINT, SYM),
	F(gtsc_rec_kmem_alloc, ptr, UINT, HEX),
	F(gtsc_rec_kmem_alloc, cache_id, UINT, HEX),
	F(gtsc_rec_kmem_alloc, bytes_req, UINT, DEFAULT),
	F(gtsc_rec_kmem_alloc, bytes_alloc, UINT, DEFAULT),
	F(gtsc_rec_kmem_alloc, gfp_flags, UINT, FLAGS),
	F(gtsc_rec_kmem_alloc, node, INT, DEFAULT),
	F(gtsc_rec_kmem_alloc, kind, UINT, XLAT),
	F(gtsc_rec_kmem_alloc, order, UINT, DEFAULT),
	F(gtsc_rec_kmem_alloc, migratetype, INT, DEFAULT),
	F(gtsc_rec_kmem_alloc, stack_id, UINT, DEFAULT),
};

static const struct gtsc_field kmem_free_fields[] = {
	F(gtsc_rec_kmem_free, call_site, UINT, SYM),
	F(gtsc_rec_kmem_free, ptr, UINT, HEX),
	F(gtsc_rec_kmem_free, cache_id, UINT, HEX),
	F(gtsc_rec_kmem_free, kind, UINT, XLAT),
	F(gtsc_rec_kmem_free, order, UINT, DEFAULT),
};

static const struct gtsc_field kmem_cache_fields[] = {
	F(gtsc_rec_kmem_cache, cache_id, UINT, HEX),
	F(gtsc_rec_kmem_cache, object_size, UINT, DEFAULT),
	F(gtsc_rec_kmem_cache, size, UINT, DEFAULT),
	F(gtsc_rec_kmem_cache, name, CHARS, DEFAULT),
};

static const struct gtsc_field task_fields[] = {
	F(gtsc_rec_task, event, UINT, XLAT),
	F(gtsc_rec_task, other_pid, UINT, DEFAULT),
	F(gtsc_rec_task, exit_code, INT, DEFAULT),
	F(gtsc_rec_task, comm, CHARS, DEFAULT),
};

static const struct gtsc_field drops_fields[] = {
	F(gtsc_rec_drops, since_ns, UINT, TIME),
	F(gtsc_rec_drops, count, UINT, DEFAULT),
	F(gtsc_rec_drops, channel, UINT, DEFAULT),
};

static const struct gtsc_field func_fields[] = {
	F(gtsc_rec_func, func_id, UINT, DEFAULT),
	F(gtsc_rec_func, kind, UINT, XLAT),
	F(gtsc_rec_func, stack_id, UINT, DEFAULT),
	F(gtsc_rec_func, ip, UINT, SYM),
	F(gtsc_rec_func, ret, UINT, HEX),
	F(gtsc_rec_func, latency_ns, UINT, DEFAULT),
	ARG(gtsc_rec_func, 0), ARG(gtsc_rec_func, 1), ARG(gtsc_rec_func, 2),
	ARG(gtsc_rec_func, 3), ARG(gtsc_rec_func, 4), ARG(gtsc_rec_func, 5),
};

static const struct gtsc_field printf_fields[] = {
	F(gtsc_rec_printf, fmt_id, UINT, HEX),
	F(gtsc_rec_printf, nr_args, UINT, DEFAULT),
};

static const struct gtsc_event_class classes[GTSC_REC_TYPE_MAX] = {
	[GTSC_REC_SYS_ENTER] = CLASS("raw_syscalls", "sys_enter", sys_enter_fields),
	[GTSC_REC_SYS_EXIT] = CLASS("raw_syscalls", "sys_exit", sys_exit_fields),
	[GTSC_REC_KMEM_ALLOC] = CLASS("kmem", "alloc", kmem_alloc_fields),
	[GTSC_REC_KMEM_FREE] = CLASS("kmem", "free", kmem_free_fields),
	[GTSC_REC_KMEM_CACHE] = CLASS("kmem", "cache", kmem_cache_fields),
	[GTSC_REC_TASK] = CLASS("task", "task", task_fields),
	[GTSC_REC_DROPS] = CLASS("gtsc", "drops", drops_fields),
	[GTSC_REC_FUNC] = CLASS("funcs", "func", func_fields),
	[GTSC_REC_PRINTF] = CLASS("gtsc", "printf", printf_fields),
};

const struct gtsc_event_class *gt_col_record_class(unsigned int type)
{
	return type < GTSC_REC_TYPE_MAX && classes[type].fields ? &classes[type] : NULL;
}
