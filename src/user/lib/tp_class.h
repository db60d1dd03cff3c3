/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A recorded tracepoint as a field-layer class (fields.h): libtraceevent's
 * tep_event/tep_format_field list converted into gtsc_field rows whose
 * offsets count from the start of the GTSC_REC_TRACEPOINT record, plus
 * what the print fmt decodes with __print_flags/__print_symbolic.  Until
 * the field layer's JSON emitter lands, tp_class__json is the walker that
 * prints these rows.
 */
#ifndef __GTSC_TP_CLASS_H
#define __GTSC_TP_CLASS_H

#include "fields.h"
#include "strbuf.h"

struct tep_event;
struct tep_print_arg;

struct tp_class {
	struct gtsc_event_class cls;
	struct gtsc_field *fields; /* cls.fields, ours */
	struct tep_event *ev;
	struct tep_format_field **tf; /* per field: libtraceevent's own row */
	/* Per field: the print fmt's args that decode it to text (NULL: none). */
	struct tep_print_arg **decode; /* [nr_fields][TP_MAX_DECODE] */
};

#define TP_MAX_DECODE 2

/* CLS from EV, the record's entry at DATA_OFFSET.  0 or -ENOMEM. */
int tp_class__init(struct tp_class *c, struct tep_event *ev, __u16 data_offset);
void tp_class__fini(struct tp_class *c);
/*
 * ,"name":value members for every non-common field of REC (SIZE bytes, the
 * entry clamped to what was recorded), and "<name>_text" for decoded flags.
 */
void tp_class__json(const struct tp_class *c, const void *rec, size_t size, struct strbuf *sb);

#endif
