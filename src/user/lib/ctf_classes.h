/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event classes of a CTF conversion: which class each record is, under
 * the name LTTng's kernel tracer gives it, with its fields described in the
 * field layer's terms (fields.h).  Built-in records have const classes;
 * syscalls and probed functions get one class each, made from the trace's
 * own tables the first time a record needs it.
 */
#ifndef __GTSC_CTF_CLASSES_H
#define __GTSC_CTF_CLASSES_H

#include <gtsc/gtsc.h>
#include "fields.h"

/* a string a sys_enter captured for argument OFFSET (until CTF uses the field layer's payload) */
#define GTSC_FT_CAPTURED (GTSC_FT_PAYLOAD + 1)

struct ctf_classes;

struct ctf_classes *ctf_classes__new(const struct gtsc_reader *r);
void ctf_classes__free(struct ctf_classes *c);

/*
 * The class id of REC (0, 1, ... in the order classes were first needed),
 * -ENOENT for a record that is no event (drops, cache names, the comms of
 * tasks alive at start, a newer recorder's types), -ENOMEM.  CACHE_NAMED:
 * the trace names the slab cache of a kmem record (its class has a cache
 * field).
 */
int ctf_classes__of(struct ctf_classes *c, const struct gtsc_rec_hdr *rec, bool cache_named);

/* Class ID (below ctf_classes__count). */
const struct gtsc_event_class *ctf_classes__get(const struct ctf_classes *c, unsigned int id);
unsigned int ctf_classes__count(const struct ctf_classes *c);

#endif
