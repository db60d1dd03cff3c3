/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kmem rescue chain's bookkeeping (kmem.bpf.c, "---- rescue ----"):
 * plain functions over plain structs, so that tests/unit/test_kmem_chain.c
 * runs the very code the BPF programs run under every nesting of events.
 * The BPF side keeps the map lookups and the reads of the task.
 *
 * KMEM_CHAIN_POINT() marks where an interrupt may run another event's chain
 * between two accesses to the marks: nothing in BPF, the model's
 * scheduler in the unit test.
 */
#ifndef GTSC_KMEM_CHAIN_H
#define GTSC_KMEM_CHAIN_H

#ifndef KMEM_CHAIN_POINT
#define KMEM_CHAIN_POINT() do { } while (0)
#endif

/*
 * IRQ-stack chains nest (a hardirq's events in a softirq's), deeper at lower
 * addresses: a slot per chain, in address order.  A chain's program takes the
 * first slot whose address is not above its own: its own entry if it holds
 * its address, else one a finished, deeper or closed chain left, which it
 * claims.  A nested chain passes every slot of the chains it interrupts, so
 * it writes only above them; the last program closes its slot.  A chain
 * whose last program was skipped leaves its slot open, to be claimed by the
 * next chain at or above its address.
 */
#define KMEM_IRQ_SLOTS 4

struct kmem_irq_slot {
	__u64 ctx; /* the chain's context address; 0: closed */
	__u8 mark; /* hook << 2 | position of the last of its programs that ran */
	__u8 __pad[7];
};

struct kmem_cpu_mark {
	struct kmem_irq_slot irq[KMEM_IRQ_SLOTS];
	__u8 task_mark; /* task stack, when not by thread */
	__u8 __pad[7];
};

/* True when an earlier program of the chain had the event (byte M, program POS). */
static __always_inline bool kmem_byte_seen(__u8 *m, __u8 hook, __u8 pos)
{
	__u8 v = *m;

	KMEM_CHAIN_POINT();
	*m = hook << 2 | pos;
	return pos && v >> 2 == hook && (v & 3) < pos;
}

/*
 * As kmem_byte_seen for an IRQ-stack event at context address X; LAST: the
 * last program's position.  The address is written before the mark, so that
 * a chain nesting in between passes the slot.  Deeper than the slots, a
 * rescue program cannot tell and records nothing: lost, and counted.
 */
static __always_inline bool kmem_irq_seen(struct kmem_cpu_mark *c, __u64 x, __u8 hook, __u8 pos,
					  __u8 last)
{
#ifdef __clang__
#pragma unroll
#endif
	for (int i = 0; i < KMEM_IRQ_SLOTS; i++) {
		struct kmem_irq_slot *s = &c->irq[i];
		__u64 sx = s->ctx;
		__u8 ours = 0;
		bool seen;

		KMEM_CHAIN_POINT();
		if (sx > x)
			continue;
		if (sx == x)
			ours = s->mark;
		else
			s->ctx = x;
		KMEM_CHAIN_POINT();
		seen = pos && ours >> 2 == hook && (ours & 3) < pos;
		s->mark = hook << 2 | pos;
		KMEM_CHAIN_POINT();
		if (pos == last)
			s->ctx = 0;
		return seen;
	}
	return pos;
}

#endif /* GTSC_KMEM_CHAIN_H */
