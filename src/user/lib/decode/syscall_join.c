// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "syscall_join.h"

enum thr_state {
	T_IDLE,
	T_HELD,	      /* entered, nothing shown yet */
	T_UNFINISHED, /* entered, shown as <unfinished ...> */
};

struct thr {
	__u32 tid; /* 0: free slot */
	__u8 state;
	struct gtsc_rec_sys_enter *enter; /* copy of the enter record, payload included */
	size_t enter_cap;
};

struct syscall_joiner {
	enum sj_mode mode;
	sj_emit_fn emit;
	void *ctx;
	struct thr *thr; /* open addressing on tid */
	size_t cap, n;
	__u32 held; /* SJ_STREAM: the one thread in T_HELD, 0 if none */
};

struct syscall_joiner *gt_syscall_joiner__new(enum sj_mode mode, sj_emit_fn emit, void *ctx)
{
	struct syscall_joiner *j = calloc(1, sizeof(*j));

	if (j) {
		j->mode = mode;
		j->emit = emit;
		j->ctx = ctx;
	}
	return j;
}

void gt_syscall_joiner__free(struct syscall_joiner *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->cap; i++)
		free(j->thr[i].enter);
	free(j->thr);
	free(j);
}

static size_t slot_of(__u32 tid, size_t cap)
{
	return (tid * 2654435761u) & (cap - 1);
}

static int grow(struct syscall_joiner *j)
{
	size_t cap = j->cap ? j->cap * 2 : 256;
	struct thr *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < j->cap; i++) {
		size_t h;

		if (!j->thr[i].tid)
			continue;
		for (h = slot_of(j->thr[i].tid, cap); t[h].tid; h = (h + 1) & (cap - 1))
			;
		t[h] = j->thr[i];
	}
	free(j->thr);
	j->thr = t;
	j->cap = cap;
	return 0;
}

static struct thr *find(const struct syscall_joiner *j, __u32 tid)
{
	if (!j->cap)
		return NULL;
	for (size_t h = slot_of(tid, j->cap); j->thr[h].tid; h = (h + 1) & (j->cap - 1))
		if (j->thr[h].tid == tid)
			return &j->thr[h];
	return NULL;
}

static struct thr *find_or_add(struct syscall_joiner *j, __u32 tid)
{
	struct thr *t = find(j, tid);
	size_t h;

	if (t)
		return t;
	if ((j->n + 1) * 2 > j->cap && grow(j))
		return NULL;
	for (h = slot_of(tid, j->cap); j->thr[h].tid; h = (h + 1) & (j->cap - 1))
		;
	j->thr[h].tid = tid;
	j->n++;
	return &j->thr[h];
}

/* TS: when a call that ends without an exit record ended, 0 if unknown. */
static int emit(struct syscall_joiner *j, enum sd_part part, const struct thr *t,
		const struct gtsc_rec_sys_exit *e, __u64 ts)
{
	const struct gtsc_rec_sys_enter *en = t && t->state != T_IDLE ? t->enter : NULL;
	const struct gtsc_rec_hdr *h = en ? &en->hdr : &e->hdr;
	struct sj_call c = {
		.part = part,
		.pid = h->pid,
		.tid = h->tid,
		.nr = en ? en->nr : e->nr,
		.enter = en,
		.exit = e,
		.ts = part != SD_EXIT_PART ? h->ts_ns : e ? e->hdr.ts_ns : ts ? ts : h->ts_ns,
	};

	return j->emit(j->ctx, &c);
}

/* The held call is interrupted by another line: it shows as unfinished. */
int gt_syscall_joiner__interrupt(struct syscall_joiner *j)
{
	struct thr *t = j->held ? find(j, j->held) : NULL;

	j->held = 0;
	if (!t || t->state != T_HELD)
		return 0;
	t->state = T_UNFINISHED;
	return emit(j, SD_ENTER_PART, t, NULL, 0);
}

/* T's call ends without an exit record, at TS if known. */
static int end_without_exit(struct syscall_joiner *j, struct thr *t, __u64 ts)
{
	int err = 0;

	if (t->state == T_IDLE)
		return 0;
	if (j->held == t->tid)
		j->held = 0;
	if (j->mode == SJ_COMPLETE || t->state == T_HELD)
		err = emit(j, SD_WHOLE, t, NULL, ts); /* "exit_group(0) = ?" */
	else
		err = emit(j, SD_EXIT_PART, t, NULL, ts); /* "<... futex resumed>) = ?" */
	t->state = T_IDLE;
	return err;
}

static int hold(struct thr *t, const struct gtsc_rec_sys_enter *e)
{
	if (e->hdr.size > t->enter_cap) {
		void *p = realloc(t->enter, e->hdr.size);

		if (!p)
			return -ENOMEM;
		t->enter = p;
		t->enter_cap = e->hdr.size;
	}
	memcpy(t->enter, e, e->hdr.size);
	t->state = T_HELD;
	return 0;
}

int gt_syscall_joiner__enter(struct syscall_joiner *j, const struct gtsc_rec_sys_enter *e)
{
	struct thr *t = find_or_add(j, e->hdr.tid);
	int err;

	if (!t)
		return -ENOMEM;
	err = end_without_exit(j, t, 0); /* its exit record was lost */
	if (!err && j->mode == SJ_STREAM)
		err = gt_syscall_joiner__interrupt(j);
	err = err ?: hold(t, e);
	if (!err && j->mode == SJ_STREAM)
		j->held = t->tid;
	return err;
}

/*
 * Whether exit E ends T's call.  rt_sigreturn's exit has nr -1: the kernel
 * resets orig_ax so that the restored registers are not taken for a call to
 * restart.  An execve that switches between 64 and 32 bits returns with the
 * new ABI's flag and number (execve is 59 on x86-64, 11 on i386).
 */
static bool same_call(const struct thr *t, const struct gtsc_rec_sys_exit *e)
{
	bool abi_changed = (t->enter->hdr.flags ^ e->hdr.flags) & GTSC_SYS_F_COMPAT;

	return t->state != T_IDLE && (t->enter->nr == e->nr || e->nr < 0 || abi_changed);
}

int gt_syscall_joiner__exit(struct syscall_joiner *j, const struct gtsc_rec_sys_exit *e)
{
	struct thr *t = find(j, e->hdr.tid);
	int err = 0;

	if (t && t->state != T_IDLE && !same_call(t, e))
		err = end_without_exit(j, t, 0); /* not its exit: that one was lost */
	if (err)
		return err;
	if (j->mode == SJ_STREAM && j->held && (!t || j->held != t->tid))
		err = gt_syscall_joiner__interrupt(j);
	if (err)
		return err;
	if (!t || t->state == T_IDLE)
		return emit(j, SD_EXIT_PART, NULL, e, 0); /* entered before the trace */
	err = emit(j, t->state == T_HELD ? SD_WHOLE : SD_EXIT_PART, t, e, 0);
	if (j->held == t->tid)
		j->held = 0;
	t->state = T_IDLE;
	return err;
}

int gt_syscall_joiner__thread_exit(struct syscall_joiner *j, __u32 tid, __u64 ts)
{
	struct thr *t = find(j, tid);

	return t ? end_without_exit(j, t, ts) : 0;
}

bool gt_syscall_joiner__in_call(const struct syscall_joiner *j, __u32 tid)
{
	const struct thr *t = find(j, tid);

	return t && t->state != T_IDLE;
}

int gt_syscall_joiner__finish(struct syscall_joiner *j)
{
	int err = j->mode == SJ_STREAM ? gt_syscall_joiner__interrupt(j) : 0;

	for (size_t i = 0; !err && i < j->cap; i++) {
		struct thr *t = &j->thr[i];

		if (!t->tid || t->state == T_IDLE)
			continue;
		/* Streamed calls were shown as unfinished already: nothing more to say. */
		if (j->mode == SJ_STREAM)
			t->state = T_IDLE;
		else
			err = end_without_exit(j, t, 0);
	}
	return err;
}
