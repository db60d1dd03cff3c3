/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Which command a thread was running at a point of the trace, from task records. */
#ifndef __GTSC_COMM_TABLE_H
#define __GTSC_COMM_TABLE_H

#include <gtsc/gtsc.h>

struct comm_table;

struct comm_table *comm_table__new(void);
void comm_table__free(struct comm_table *t);
/* Feeds a GTSC_REC_TASK record (other types are ignored). */
void comm_table__update(struct comm_table *t, const struct gtsc_rec_hdr *rec);
/* Comm of TID, else of its thread group PID, else "?". */
const char *comm_table__get(const struct comm_table *t, __u32 pid, __u32 tid);

#endif
