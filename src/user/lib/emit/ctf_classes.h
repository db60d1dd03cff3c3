/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event classes of a CTF conversion, made from the field layer's
 * (events.c): each named as LTTng's kernel tracer names the event, with its
 * field names where LTTng has the field.  A CTF class has a fixed layout,
 * so a layer class whose records may lack a field (a slab cache the trace
 * does not name) is one CTF class per set of fields present; and a CTF
 * class is one syscall where the layer has one sys_exit for all.
 */
#ifndef __GTSC_CTF_CLASSES_H
#define __GTSC_CTF_CLASSES_H

#include <gtsc/gtsc.h>
#include "fields.h"

/* Where a CTF field's value comes from. */
enum ctf_src {
	CTF_SRC_FIELD,	  /* the layer's field, its value as the emitters resolve it */
	CTF_SRC_CAPTURED, /* the path sys_enter captured for the argument, else its value */
	CTF_SRC_TID,	  /* the record's thread, a field LTTng's event has */
	CTF_SRC_PID,
};

enum ctf_type {
	CTF_INT,    /* size bytes, signed or not, shown in hex or decimal */
	CTF_STRING, /* NUL-terminated */
	CTF_SEQ,    /* a u32 count, then integers of size bytes */
};

struct ctf_field {
	const char *name; /* LTTng's, else the layer's */
	const struct gtsc_field *f;
	__u8 src;	  /* enum ctf_src */
	__u8 type;	  /* enum ctf_type */
	__u8 size;
	bool is_signed, hex;
	__u8 arg;	  /* CTF_SRC_CAPTURED: the syscall argument's index */
};

struct ctf_class {
	const char *name;
	const struct ctf_field *fields;
	unsigned int nr_fields;
};

struct ctf_classes;

struct ctf_classes *gt_ctf_classes__new(const struct gtsc_reader *r);
void gt_ctf_classes__free(struct ctf_classes *c);

/*
 * The CTF class of REC, of the layer's class EC, with every field (a
 * record writes them in this order, leaving out those it lacks); NULL and
 * errno ENOMEM.  Valid as long as C.
 */
const struct ctf_class *gt_ctf_classes__of(struct ctf_classes *c, const struct gtsc_event_class *ec,
					   const struct gtsc_rec_hdr *rec);
/* The id of FULL without the fields of OMITTED (bit i: its field i), or -ENOMEM. */
int gt_ctf_classes__id(struct ctf_classes *c, const struct ctf_class *full, __u64 omitted);

/* Class ID (ids are 0, 1, ... below gt_ctf_classes__count). */
const struct ctf_class *gt_ctf_classes__get(const struct ctf_classes *c, unsigned int id);
unsigned int gt_ctf_classes__count(const struct ctf_classes *c);

#endif
