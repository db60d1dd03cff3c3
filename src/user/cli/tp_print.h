/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report's lines for tracepoints recorded by name (-e GROUP:NAME):
 * after event_print's head, trace-cmd report's field text, or the fields
 * as JSON members.  Its own file until the field layer prints every class.
 */
#ifndef __GTSC_CLI_TP_PRINT_H
#define __GTSC_CLI_TP_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <gtsc/gtsc.h>

struct tp_printer;

/* NULL when the trace has no formats: records then print by id. */
struct tp_printer *tp_printer__new(const struct gtsc_reader *r);
void tp_printer__free(struct tp_printer *p);
/* "sched_switch", or "tracepoint_<id>" for an id the trace has no format for. */
const char *tp_printer__name(struct tp_printer *p, const struct gtsc_rec_hdr *rec);
/* The rest of the line after event_print's head, its newline included. */
void tp_printer__print(struct tp_printer *p, const struct gtsc_rec_hdr *rec, FILE *out, bool json);

#endif
