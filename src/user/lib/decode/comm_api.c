// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Which command a thread ran at a point of a trace, from its task records (<gtsc/print.h>). */
#include <stdlib.h>
#include <string.h>
#include <gtsc/print.h>

struct comm_entry {
	__u32 tid; /* 0: empty */
	char comm[GTSC_COMM_LEN];
};

struct gtsc_comm_table {
	struct comm_entry *e;
	size_t cap, n;
};

static size_t slot_of(__u32 tid, size_t cap)
{
	return (tid * 2654435761u) & (cap - 1);
}

static struct comm_entry *find(const struct gtsc_comm_table *t, __u32 tid)
{
	size_t h;

	if (!t->cap || !tid)
		return NULL;
	for (h = slot_of(tid, t->cap); t->e[h].tid; h = (h + 1) & (t->cap - 1))
		if (t->e[h].tid == tid)
			return &t->e[h];
	return NULL;
}

static int grow(struct gtsc_comm_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct comm_entry *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t h;

		if (!t->e[i].tid)
			continue;
		for (h = slot_of(t->e[i].tid, cap); e[h].tid; h = (h + 1) & (cap - 1))
			;
		e[h] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

static void set(struct gtsc_comm_table *t, __u32 tid, const char *comm)
{
	struct comm_entry *e = find(t, tid);
	size_t h;

	if (!e) {
		if (!tid || ((t->n + 1) * 2 > t->cap && grow(t)))
			return;
		for (h = slot_of(tid, t->cap); t->e[h].tid; h = (h + 1) & (t->cap - 1))
			;
		e = &t->e[h];
		e->tid = tid;
		t->n++;
	}
	memcpy(e->comm, comm, GTSC_COMM_LEN);
	e->comm[GTSC_COMM_LEN - 1] = '\0';
}

GTSC_API struct gtsc_comm_table *gtsc_comm_table__new(void)
{
	return calloc(1, sizeof(struct gtsc_comm_table));
}

GTSC_API void gtsc_comm_table__free(struct gtsc_comm_table *t)
{
	if (!t)
		return;
	free(t->e);
	free(t);
}

GTSC_API void gtsc_comm_table__update(struct gtsc_comm_table *t, const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_rec_task *task = (const void *)rec;

	if (rec->type != GTSC_REC_TASK || rec->size < sizeof(*task))
		return;
	set(t, rec->tid, task->comm);
	/* exec leaves one thread whose tid is the pid: name the group too. */
	if (task->event == GTSC_TASK_EXEC && rec->pid != rec->tid)
		set(t, rec->pid, task->comm);
}

GTSC_API const char *gtsc_comm_table__get(const struct gtsc_comm_table *t, __u32 pid, __u32 tid)
{
	const struct comm_entry *e = find(t, tid);

	if (!e)
		e = find(t, pid);
	return e ? e->comm : "?";
}
