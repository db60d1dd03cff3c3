/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The last name of every thread whose task records a recording has seen.
 * A snapshot names the tasks of the flight channels' records from /proc,
 * which no longer has those that ended: the ones a flight recorder is
 * usually kept for (a crash, an exit_group trigger).  This remembers them.
 */
#ifndef __GTSC_TASK_NAMES_H
#define __GTSC_TASK_NAMES_H

#include "gtsc/records.h"
#include "sink.h"

struct task_names;

/* Up to MAX threads; past that, new ones are not remembered.  NULL: ENOMEM. */
struct task_names *gt_task_names__new(size_t max);
void gt_task_names__free(struct task_names *t);
/* Takes the name a GTSC_REC_TASK record gives its thread; other records are ignored. */
void gt_task_names__note(struct task_names *t, const struct gtsc_rec_hdr *rec);
/* A GTSC_TASK_COMM record stamped TS for each thread remembered: 0 or the sink's -errno. */
int gt_task_names__write(const struct task_names *t, struct gtsc_sink *sink, __u64 ts);

#endif
