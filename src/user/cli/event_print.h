/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One record -> one line of text or one JSON object, with the same field
 * names in both.  Names come from the trace's metadata (syscall table,
 * symbols, cache names), never from the machine reading it.
 */
#ifndef __GTSC_EVENT_PRINT_H
#define __GTSC_EVENT_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <gtsc/gtsc.h>

struct event_printer;

struct event_printer *event_printer__new(const struct gtsc_reader *r, FILE *out, bool json);
void event_printer__free(struct event_printer *p);
/* Prints REC (metadata-only records just update state). 0 or -errno. */
int event_printer__print(struct event_printer *p, const struct gtsc_rec_hdr *rec);

#endif
