/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Recorded tracepoints as field-layer classes (fields.h): the formats a
 * trace saved (its TRACEPOINTS chunk) parsed once per reader by
 * libtraceevent, and each event's tep_format_field list turned into
 * gtsc_field rows whose offsets count from the start of the
 * GTSC_REC_TRACEPOINT record.  The class's field_text is the print fmt's:
 * with a field, what __print_flags/__print_symbolic make of it; without
 * (GTSC_CLASS_FMT), the whole line as trace-cmd report prints it.
 */
#ifndef __GTSC_TP_CLASS_H
#define __GTSC_TP_CLASS_H

#include <stddef.h>
#include "fields.h"

struct gtsc_reader;
struct tp_formats;

/* R's saved formats; NULL and errno ENOENT when it recorded none, EINVAL when damaged. */
struct tp_formats *gt_tp_formats__new(const struct gtsc_reader *r);
void gt_tp_formats__free(struct tp_formats *s);
/* The IDX-th event (by group, then name), its group in *GROUP; NULL past the last. */
const char *gt_tp_formats__event(const struct tp_formats *s, size_t idx, const char **group);
/* The class of event ID (malloc'd, fields too: the registry frees both); NULL if unknown. */
struct gtsc_event_class *gt_tp_class__build(struct tp_formats *s, __u32 id);

/* A field printed with %pS, %ps, %pF or %pf: a kernel address the trace must name. */
struct tp_sym_field {
	__u32 id; /* the event's tracefs id */
	__u16 offset, size; /* in the raw entry */
};
/* The symbol fields of TEXT's events (a TRACEPOINTS chunk), by id; *FIELDS malloc'd. */
int gt_tp_sym_fields__new(const char *text, size_t len, struct tp_sym_field **fields, size_t *n);

#endif
