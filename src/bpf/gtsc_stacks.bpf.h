/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --stacks: a kernel stack for each kmem allocation and function hit,
 * stored once per distinct stack, keyed by its frames; records carry its id
 * (from 1, 0 meaning no stack).  Not a STACK_TRACE map: that one keys by a
 * hash of the frames and refuses a second stack landing in a taken bucket,
 * and the stacks of one short run already collide one time in ten, losing
 * every record made under one of the two.  The maps live in stacks.bpf.c,
 * part of gtsc-bpf's own object only (tools linking channel.bpf.o do not
 * carry them); without --stacks the loader shrinks the map to one entry and
 * leaves the flag off.
 */
#ifndef __GTSC_STACKS_BPF_H
#define __GTSC_STACKS_BPF_H

#include "gtsc.bpf.h"

#define GTSC_STACK_DEPTH 32 /* frames kept of a stack */

struct gtsc_stack {
	__u64 ips[GTSC_STACK_DEPTH];
};

/* One per nesting level (task, softirq, hardirq, NMI), claimed by exchange. */
struct gtsc_stack_scratch {
	__u64 busy;
	struct gtsc_stack st;
};

#ifdef GTSC_DEFINE_STACKS
#define GTSC_STACKS_EXTERN
#else
#define GTSC_STACKS_EXTERN extern
#endif

GTSC_STACKS_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct gtsc_stack);
	__type(value, __u32);
} gtsc_stacks SEC(".maps");

GTSC_STACKS_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GTSC_FLIGHT_NEST);
	__type(key, __u32);
	__type(value, struct gtsc_stack_scratch);
} gtsc_stack_scratch SEC(".maps");

GTSC_STACKS_EXTERN const volatile __u32 gtsc_stacks_on;
GTSC_STACKS_EXTERN __u32 gtsc_stack_next;

static __always_inline __u32 gtsc_stack_intern(const struct gtsc_stack *st)
{
	__u32 id = __sync_fetch_and_add(&gtsc_stack_next, 1) + 1;
	__u32 *known;

	if (!bpf_map_update_elem(&gtsc_stacks, st, &id, BPF_NOEXIST))
		return id;
	/* another CPU stored it first (the id drawn stays unused), or the map is full */
	known = bpf_map_lookup_elem(&gtsc_stacks, st);
	return known ? *known : 0;
}

/* The current kernel stack's id, 0 without --stacks or when it cannot be kept. */
static __always_inline __u32 gtsc_stack_id(void *ctx)
{
	struct gtsc_stack_scratch *sc = NULL;
	__u32 *known, id = 0;

	if (!gtsc_stacks_on)
		return 0;
	for (__u32 d = 0; d < GTSC_FLIGHT_NEST && !sc; d++) {
		__u32 key = d;

		sc = bpf_map_lookup_elem(&gtsc_stack_scratch, &key);
		if (sc && __sync_lock_test_and_set(&sc->busy, 1))
			sc = NULL;
	}
	if (!sc)
		return 0;
	/* zero-fills the frames it does not reach: equal stacks are equal keys */
	if (bpf_get_stack(ctx, &sc->st, sizeof(sc->st), 0) > 0) {
		known = bpf_map_lookup_elem(&gtsc_stacks, &sc->st);
		id = known ? *known : gtsc_stack_intern(&sc->st);
	}
	*(volatile __u64 *)&sc->busy = 0;
	return id;
}

#endif
