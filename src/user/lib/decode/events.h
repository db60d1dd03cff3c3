/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The registry of event classes (events.c): for each record type, how a
 * record finds its class.  A built-in class is a const row there; a class
 * that depends on the trace (a syscall's arguments from its syscall table, a
 * probed function's prototype, a tracepoint's format) is built at report
 * time the first time a record needs it and kept in a table the reader owns.
 */
#ifndef __GTSC_EVENTS_H
#define __GTSC_EVENTS_H

#include "fields.h"
#include "gtsc/records.h"

struct gtsc_reader;

/*
 * One record type.  KEY picks the class among the type's (a flavour: the
 * kmem kind, the task event; or an id: syscall nr, function id, tracepoint
 * common_type); NULL: one class.  Fixed classes are CLASSES[key] (a NULL
 * entry, or a key past NR_CLASSES: the record prints nothing); else BUILD
 * makes the class of REC's key from R's metadata: a malloc'd class whose
 * fields array is malloc'd too (both freed with the reader; the names they
 * point to must live as long as R), or NULL.  *STATE is the row's own, one
 * per reader (NULL at first; a tracepoint row keeps the parsed formats
 * there), freed by FREE_STATE when the reader closes.
 */
struct event_rec_type {
	__u16 type;
	__u64 (*key)(const struct gtsc_rec_hdr *rec);
	const struct gtsc_event_class *const *classes;
	unsigned int nr_classes;
	struct gtsc_event_class *(*build)(const struct gtsc_reader *r,
					  const struct gtsc_rec_hdr *rec, void **state);
	void (*free_state)(void *state);
};

/* REC's class, NULL for records that print nothing (names only, unknown types). */
const struct gtsc_event_class *gt_event_class__of(const struct gtsc_reader *r,
						  const struct gtsc_rec_hdr *rec);

#endif
