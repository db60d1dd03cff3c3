// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include "task_names.h"

struct task_name {
	__u32 tid; /* 0: free slot (tid 0, the idle task, makes no task records) */
	__u32 pid;
	char comm[GTSC_COMM_LEN];
};

/* Open addressing, at most half full: a probe ends at a free slot. */
struct task_names {
	struct task_name *slot;
	size_t mask, n, max;
};

struct task_names *gt_task_names__new(size_t max)
{
	struct task_names *t = calloc(1, sizeof(*t));
	size_t cap = 16;

	while (cap < 2 * max)
		cap <<= 1;
	if (t)
		t->slot = calloc(cap, sizeof(*t->slot));
	if (!t || !t->slot) {
		free(t);
		return NULL;
	}
	t->mask = cap - 1;
	t->max = max;
	return t;
}

void gt_task_names__free(struct task_names *t)
{
	if (t)
		free(t->slot);
	free(t);
}

static struct task_name *find(const struct task_names *t, __u32 tid)
{
	size_t i = (tid * 2654435761u) & t->mask;

	while (t->slot[i].tid && t->slot[i].tid != tid)
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

void gt_task_names__note(struct task_names *t, const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_rec_task *task = (const void *)rec;
	struct task_name *e;

	if (rec->type != GTSC_REC_TASK || rec->size < sizeof(*task) || !rec->tid)
		return;
	e = find(t, rec->tid);
	if (!e->tid) {
		if (t->n == t->max)
			return;
		t->n++;
		e->tid = rec->tid;
	}
	e->pid = rec->pid;
	memcpy(e->comm, task->comm, sizeof(e->comm));
}

int gt_task_names__write(const struct task_names *t, struct gtsc_sink *sink, __u64 ts)
{
	int err = 0;

	for (size_t i = 0; i <= t->mask && !err; i++) {
		const struct task_name *e = &t->slot[i];
		struct gtsc_rec_task rec = {
			.hdr = { .type = GTSC_REC_TASK, .size = sizeof(rec), .pid = e->pid,
				 .tid = e->tid, .ts_ns = ts },
			.event = GTSC_TASK_COMM,
		};

		if (!e->tid)
			continue;
		memcpy(rec.comm, e->comm, sizeof(rec.comm));
		err = sink->record(sink, &rec.hdr);
	}
	return err;
}
