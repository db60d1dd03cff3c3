/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The emitters (emit_text.c, emit_json.c): one record of a class, its fields
 * walked in order.  What a field's bytes mean is resolved once (emit.c);
 * each emitter only decides how a kind of value looks.
 */
#ifndef __GTSC_EMIT_H
#define __GTSC_EMIT_H

#include <stdbool.h>
#include <stdio.h>
#include <gtsc/buf.h>
#include <gtsc/print.h>
#include "fields.h"

struct cache_name;

struct gtsc_event_printer {
	const struct gtsc_reader *r;
	FILE *out;
	bool json;
	bool json_fields; /* the fields alone: another format's args */
	__u64 t0_ns;
	struct gtsc_comm_table *comms;
	struct cache_name *caches; /* sorted by id */
	size_t nr_caches;
	char scratch[512]; /* a name made for one field (symbol+offset, printf text) */
};

enum emit_kind {
	EV_OMIT,    /* nothing to show: past the record's end, a cache not named */
	EV_STR,	    /* s, len bytes, any bytes */
	EV_INT,	    /* i */
	EV_UINT,    /* u */
	EV_HEX,	    /* u */
	EV_BOOL,    /* u */
	EV_TIME,    /* u: ns on the trace's clock */
	EV_ERRNO,   /* i */
	EV_XLAT,    /* u, field's xlat */
	EV_FLAGS,   /* u, field's xlat */
	EV_ARRAY,   /* s: len bytes of elements of elem_size bytes, is_signed */
	EV_PAYLOAD, /* s: len bytes of gtsc_payload_item list */
};

struct emit_value {
	enum emit_kind kind;
	const char *s;
	size_t len;
	__u64 u;
	__s64 i;
	__u16 elem_size;
	bool is_signed;
};

/* What field F of REC (of class C) holds, resolved against the trace's metadata. */
struct emit_value gt_emit_value(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
				const struct gtsc_rec_hdr *rec, const struct gtsc_field *f);
/*
 * The name of an EV_XLAT, EV_FLAGS or EV_ERRNO value (the field's xlat
 * table in strace's form, the class's field_text, an errno's name) into B;
 * false when there is none and the number stands alone.
 */
bool gt_emit_decoded(const struct gtsc_event_class *c, const struct gtsc_rec_hdr *rec,
		     const struct gtsc_field *f, const struct emit_value *v, struct gtsc_buf *b);
/* Whether a field of print hint PRINT shows a name (an EV_STR) rather than its number. */
bool gt_emit_is_name(__u8 print);
/* Element I of an EV_ARRAY value. */
__s64 gt_emit_elem(const struct emit_value *v, size_t i);
/* Seconds from the trace's start to TS_NS, as the reports print them. */
double gt_emit_secs(const struct gtsc_event_printer *p, __u64 ts_ns);

void gt_emit_text(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		  const struct gtsc_rec_hdr *rec);
void gt_emit_json(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		  const struct gtsc_rec_hdr *rec);
/* {"k":v,...}: the fields alone, all at one level, no newline */
void gt_emit_json_fields(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
			 const struct gtsc_rec_hdr *rec);
/*
 * A printer that only resolves values (gt_emit_value), for an emitter of its
 * own (emit_ctf.c): OUT is NULL.  NULL and errno ENOMEM.
 */
struct gtsc_event_printer *gt_emit_printer__new(const struct gtsc_reader *r);
/*
 * Takes what REC names (a cache, a comm) before its event is emitted: 1 for
 * a record that only names (no event), 0, or -ENOMEM.
 */
int gt_emit_printer__note(struct gtsc_event_printer *p, const struct gtsc_rec_hdr *rec);
/* The cache table of printer_api.c: NULL when the trace did not name ID. */
const char *gt_emit_cache_name(const struct gtsc_event_printer *p, __u64 id);

#endif
