// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A model check of the kmem rescue chain (src/bpf/kmem_chain.h, the code the
 * BPF programs run).  One CPU; each kmem event runs its hook's three
 * programs in order, and the kernel skips program P while P runs on the CPU
 * (prog->active, counted in P's misses).  At every point of a chain (between
 * programs, inside one before and after its mark is read and written, and
 * around its record) an interrupt may run another event: on the IRQ stack,
 * deeper (a lower context address) than any IRQ-stack event it interrupts;
 * where the programs are preemptible (by thread), a task of another thread
 * may run one too, and tasks preempted elsewhere may hold any of the hook's
 * programs.  Every choice is enumerated, depth first, up to a budget of
 * events.  After each run: no event is recorded twice, and the events of a
 * hook not recorded are exactly its first program's misses minus its
 * rescued count (lost, and counted so).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/types.h>
#include "harness.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

struct model;
static void model_point(void);
#define KMEM_CHAIN_POINT() model_point()
#include "kmem_chain.h"

#define NHOOK 2	  /* hooks 1 and 2: the same hook as the outer event, or another */
#define NPROG 3	  /* gtsc_X, gtsc_X_r, gtsc_X_r2 */
#define MAXEV 16
#define MAXCHOICE 512
#define IRQ_TOP 0x10000 /* the IRQ stack's first frame; level L at IRQ_TOP - 0x100 * L */

struct event {
	__u8 hook;
	bool irq;
	int level; /* IRQ stack: its depth, 1 the shallowest */
	__u32 tid;
	__u8 held; /* programs held by preempted tasks while it runs (by thread) */
	int recorded;
};

struct limits {
	bool by_tid;
	int top;       /* events one after another on the CPU, not nested */
	int nested;    /* events started inside another's chain */
	int irq_depth; /* IRQ-stack events nested in each other at most */
	__u8 last;     /* the last rescue program's position */
};

struct model {
	const struct limits *lim;
	/* the choice sequence being replayed, extended depth first */
	int choice[MAXCHOICE], bound[MAXCHOICE], nchoice, at;
	/* the CPU */
	struct kmem_cpu_mark c;
	__u8 tid_byte[4];
	int active[NHOOK + 1][NPROG];
	__u64 misses[NHOOK + 1], rescued[NHOOK + 1];
	struct event ev[MAXEV];
	int nev, nested, running[MAXEV], nrunning;
	bool overflow;
};

/* The model the KMEM_CHAIN_POINT()s of the header under test call back into. */
static struct model *cur;

static int choose(struct model *m, int n)
{
	if (m->at == m->nchoice) {
		if (m->nchoice == MAXCHOICE) {
			m->overflow = true;
			return 0;
		}
		m->choice[m->nchoice] = 0;
		m->bound[m->nchoice++] = n;
	}
	return m->choice[m->at++];
}

/* Next choice sequence, depth first; false when all were run. */
static bool next_choices(struct model *m)
{
	while (m->nchoice > 0) {
		int i = m->nchoice - 1;

		if (++m->choice[i] < m->bound[i])
			return true;
		m->nchoice--;
	}
	return false;
}

static int irq_level_now(const struct model *m)
{
	int lvl = 0;

	for (int i = 0; i < m->nrunning; i++)
		if (m->ev[m->running[i]].irq && m->ev[m->running[i]].level > lvl)
			lvl = m->ev[m->running[i]].level;
	return lvl;
}

static bool tid_running(const struct model *m, __u32 tid)
{
	for (int i = 0; i < m->nrunning; i++)
		if (!m->ev[m->running[i]].irq && m->ev[m->running[i]].tid == tid)
			return true;
	return false;
}

/* kmem_chain() of kmem.bpf.c, its stack and thread given. */
static bool chain(struct model *m, const struct event *e, __u8 pos)
{
	if (e->irq)
		return !kmem_irq_seen(&m->c, IRQ_TOP - 0x100 * e->level, e->hook, pos, m->lim->last);
	if (!m->lim->by_tid || !e->tid)
		return !kmem_byte_seen(&m->c.task_mark, e->hook, pos);
	return !kmem_byte_seen(&m->tid_byte[e->tid], e->hook, pos);
}

static void run_event(struct model *m, int id)
{
	struct event *e = &m->ev[id];

	m->running[m->nrunning++] = id;
	for (__u8 pos = 0; pos <= m->lim->last; pos++) {
		model_point(); /* before the program, after the one before */
		if (m->active[e->hook][pos] || (e->held >> pos & 1)) {
			if (!pos)
				m->misses[e->hook]++;
			continue;
		}
		m->active[e->hook][pos]++;
		model_point();
		if (!pos) {
			chain(m, e, 0);
			model_point();
			e->recorded++;
		} else if (chain(m, e, pos)) {
			model_point();
			m->rescued[e->hook]++;
			e->recorded++;
		}
		model_point();
		m->active[e->hook][pos]--;
	}
	m->nrunning--;
}

/* A new event here: none, or its hook and its stack. */
static void maybe_event(struct model *m, bool top)
{
	const struct limits *l = m->lim;
	int lvl = irq_level_now(m), irq_opts = l->irq_depth - lvl, task_opts = 0, k, id;
	struct event *e;

	if (m->nev == MAXEV || (!top && m->nested == l->nested))
		return;
	if (top || l->by_tid)
		task_opts = l->by_tid ? 3 : 1; /* tids 0 (idle: by CPU), 1, 2 */
	if (irq_opts < 0)
		irq_opts = 0;
	k = choose(m, 1 + NHOOK * (irq_opts + task_opts)) - 1;
	if (k < 0)
		return;
	id = m->nev++;
	e = &m->ev[id];
	*e = (struct event){ .hook = 1 + k % NHOOK };
	k /= NHOOK;
	if (k < irq_opts) {
		e->irq = true;
		e->level = lvl + 1 + k;
	} else {
		e->tid = k - irq_opts;
		if (tid_running(m, e->tid)) { /* a thread does not preempt itself */
			m->nev--;
			m->nested += !top; /* no event, but the budget spent: no endless no-ops */
			return;
		}
	}
	if (l->by_tid)
		e->held = choose(m, 1 << l->last) << 1; /* the first program: by nesting only */
	m->nested += !top;
	run_event(m, id);
}

static void model_point(void)
{
	if (cur && cur->nrunning)
		maybe_event(cur, false);
}

struct verdict {
	long runs;
	bool bad;
	char why[400];
};

static void describe(const struct model *m, struct verdict *v, const char *what)
{
	int n = snprintf(v->why, sizeof(v->why), "%s; choices", what);

	for (int i = 0; i < m->nchoice && n < (int)sizeof(v->why) - 8; i++)
		n += snprintf(v->why + n, sizeof(v->why) - n, " %d", m->choice[i]);
	for (int i = 0; i < m->nev && n < (int)sizeof(v->why) - 40; i++)
		n += snprintf(v->why + n, sizeof(v->why) - n, "; ev%d hook %d %s%d rec %d", i,
			      m->ev[i].hook, m->ev[i].irq ? "irq L" : "tid ",
			      m->ev[i].irq ? m->ev[i].level : (int)m->ev[i].tid, m->ev[i].recorded);
}

static void check_run(const struct model *m, struct verdict *v)
{
	for (int h = 1; h <= NHOOK; h++) {
		__u64 unrecorded = 0;

		for (int i = 0; i < m->nev; i++) {
			if (m->ev[i].recorded > 1) {
				describe(m, v, "an event recorded twice");
				v->bad = true;
				return;
			}
			unrecorded += m->ev[i].hook == h && !m->ev[i].recorded;
		}
		if (unrecorded + m->rescued[h] != m->misses[h]) {
			describe(m, v, unrecorded + m->rescued[h] < m->misses[h] ?
					       "more counted lost than lost" :
					       "an event lost without being counted");
			v->bad = true;
			return;
		}
	}
	for (int h = 1; h <= NHOOK; h++)
		for (int p = 0; p < NPROG; p++)
			if (m->active[h][p]) {
				describe(m, v, "a program left running");
				v->bad = true;
				return;
			}
}

/* Every run within L; stops at the first bad one. */
static struct verdict explore(const struct limits *l)
{
	struct model *m = calloc(1, sizeof(*m));
	struct verdict v = {};

	if (!m) {
		v.bad = true;
		snprintf(v.why, sizeof(v.why), "out of memory");
		return v;
	}
	m->lim = l;
	cur = m;
	do {
		/* a fresh CPU; the choices replayed from the start */
		memset(&m->c, 0, sizeof(*m) - offsetof(struct model, c));
		m->at = 0;
		for (int t = 0; t < l->top; t++)
			maybe_event(m, true);
		v.runs++;
		if (m->overflow) {
			v.bad = true;
			snprintf(v.why, sizeof(v.why), "more than %d choices in a run", MAXCHOICE);
			break;
		}
		m->nchoice = m->at;
		check_run(m, &v);
	} while (!v.bad && next_choices(m));
	cur = NULL;
	free(m);
	return v;
}

static void expect_sound(struct test_ctx *t, const struct limits *l, long min_runs)
{
	struct verdict v = explore(l);

	CHECK(t, !v.bad, "after %ld runs: %s", v.runs, v.why);
	CHECK(t, v.runs >= min_runs, "only %ld runs: the model explored nothing", v.runs);
	printf("# %s: %ld runs\n", t->name, v.runs);
}

/* Interrupts only (no preemption): task, softirq, hardirq; two events in a row. */
static void test_irq_depth3(struct test_ctx *t)
{
	const struct limits l = { .top = 2, .nested = 2, .irq_depth = 2, .last = 2 };

	expect_sound(t, &l, 1000);
}

static void test_irq_nested3(struct test_ctx *t)
{
	const struct limits l = { .top = 1, .nested = 3, .irq_depth = 2, .last = 2 };

	expect_sound(t, &l, 1000);
}

/* Preemptible programs: marks by thread. */
static void test_by_tid(struct test_ctx *t)
{
	const struct limits l = { .by_tid = true, .top = 2, .nested = 1, .irq_depth = 1, .last = 2 };

	expect_sound(t, &l, 1000);
}

/* Deeper than the kernel nests IRQ-stack events, and than the slots. */
static void test_irq_depth4(struct test_ctx *t)
{
	const struct limits l = { .top = 1, .nested = 3, .irq_depth = 4, .last = 2 };

	expect_sound(t, &l, 1000);
}

/*
 * The case the model found in the former single saved entry: a softirq's
 * event E (hook 1) in its last program, before it reads its mark, is
 * interrupted twice by hardirq events of hook 1 at one address; each has its
 * last program skipped (E runs it).  E's rescue must still find E recorded.
 */
static void test_two_nested_same_address(struct test_ctx *t)
{
	struct kmem_cpu_mark c = {};
	__u64 e = 0x9000, b = 0x8000;

	CHECK(t, !kmem_irq_seen(&c, e, 1, 0, 2), "E's first program");
	CHECK(t, kmem_irq_seen(&c, e, 1, 1, 2), "E's first rescue program");
	for (int i = 0; i < 2; i++) {
		CHECK(t, !kmem_irq_seen(&c, b, 1, 0, 2), "B%d's first program", i);
		CHECK(t, kmem_irq_seen(&c, b, 1, 1, 2), "B%d's first rescue program", i);
	}
	CHECK(t, kmem_irq_seen(&c, e, 1, 2, 2), "E's last program records E a second time");
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "irq-depth3", test_irq_depth3 },
		{ "irq-nested3", test_irq_nested3 },
		{ "by-tid", test_by_tid },
		{ "irq-depth4", test_irq_depth4 },
		{ "two-nested-same-address", test_two_nested_same_address },
	};

	return RUN_TESTS("kmem_chain", cases);
}
