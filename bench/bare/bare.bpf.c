// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor gtsc-bpf is measured against: the least a BPF recorder can do
 * and still write gtsc's records.  One pid compare, one reservation of
 * gtsc's fixed record sizes, the same fields, a commit that never wakes the
 * consumer.  No maps looked up, no options, no payloads.
 *
 * Three sets of programs on the same hooks (bare.c loads one set, -m):
 *   rec_*   BPF_MAP_TYPE_RINGBUF reserve + submit (the floor of make bench);
 *   nil_*   return 0 at once: what attaching a program costs (the attach
 *           floor under every recorder);
 *   arr_*   issue 13's "cheaper reserve" prototype: a per-CPU region of a
 *           BPF_F_MMAPABLE array of 64-byte slots, as the flight channels
 *           lay them out (gtsc_shared.h), claimed with a fetch-add on the
 *           CPU's own head (no lock, no interrupts off) and committed by
 *           one store of the first slot's seq; a full region drops.
 * and two sources (-e): syscalls (raw sys_enter/sys_exit) and kmem (the six
 * kmem tracepoints gtsc-bpf's `-e kmem` attaches).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <gtsc/records.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by bare.c before load: constants the verifier folds. */
const volatile __u32 target_tgid = 0;
const volatile __u32 arr_slots = 1; /* slots per CPU region, a power of two */

/* Reservations that failed (ring or region full); read by bare.c at the end. */
__u64 dropped = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} rb SEC(".maps");

#define ARR_DATA 56
/* Room kept free in a region for writers nested on its CPU between the
 * full check and the fetch-add (task, softirq, hardirq, NMI): 4 records
 * of at most 2 slots. */
#define ARR_SLACK 8

struct arr_slot {
	__u64 seq; /* position + 1 once the record starting here is whole */
	__u8 data[ARR_DATA];
};

struct arr_head {
	__u64 pos;	/* slots claimed, by the programs */
	__u64 __pad[7];
	__u64 tail;	/* slots consumed, published by bare.c */
	__u64 __pad2[7];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* bare.c: arr_slots * CPUs */
	__type(key, __u32);
	__type(value, struct arr_slot);
} arr_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* bare.c: CPUs */
	__type(key, __u32);
	__type(value, struct arr_head);
} arr_heads SEC(".maps");

static __always_inline void fill_hdr(struct gtsc_rec_hdr *h, __u16 type, __u16 size, __u64 pid_tgid)
{
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->ts_ns = bpf_ktime_get_ns();
}

/*
 * The prototype's write: REC (built on the stack, NSLOTS * 56 bytes) into
 * the CPU's region.  The position is only ever moved by writers on this
 * CPU, so the fetch-add never contends; a nested writer that comes between
 * the check and the add takes the slack.
 */
static __always_inline void arr_put(const __u8 *rec, __u32 nslots)
{
	__u32 cpu = bpf_get_smp_processor_id(), mask = arr_slots - 1, idx;
	struct arr_head *h = bpf_map_lookup_elem(&arr_heads, &cpu);
	struct arr_slot *first = NULL, *sl;
	__u64 pos;

	if (!h || h->pos + nslots - *(volatile __u64 *)&h->tail > arr_slots - ARR_SLACK) {
		__sync_fetch_and_add(&dropped, 1);
		return;
	}
	pos = __sync_fetch_and_add(&h->pos, nslots);
	for (__u32 i = 0; i < nslots; i++) {
		idx = cpu * arr_slots + ((pos + i) & mask);
		sl = bpf_map_lookup_elem(&arr_ring, &idx);
		if (!sl)
			return; /* cannot happen: idx < arr_slots * CPUs */
		__builtin_memcpy(sl->data, rec + i * ARR_DATA, ARR_DATA);
		if (!i)
			first = sl;
	}
	/* x86 (TSO): a compiler barrier orders the data before the commit. */
	asm volatile("" ::: "memory");
	if (first)
		*(volatile __u64 *)&first->seq = pos + 1;
}

#define SLOTS_OF(t) ((sizeof(t) + ARR_DATA - 1) / ARR_DATA)

/*
 * The three flavours of one hook.  FILL(r) fills record R of TYPE but its
 * header; PRE declares what FILL needs (evaluated after the pid check).
 */
#define HOOK(name, tp, rtype, rtag, args, pre, fill)                                             \
	SEC("tp_btf/" tp)                                                                          \
	int BPF_PROG(nil_##name, args)                                                             \
	{                                                                                          \
		return 0;                                                                          \
	}                                                                                          \
	SEC("tp_btf/" tp)                                                                          \
	int BPF_PROG(rec_##name, args)                                                             \
	{                                                                                          \
		__u64 pid_tgid = bpf_get_current_pid_tgid();                                       \
		rtype *r;                                                                          \
		if ((pid_tgid >> 32) != target_tgid)                                               \
			return 0;                                                                  \
		pre;                                                                               \
		r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);                                       \
		if (!r) {                                                                          \
			__sync_fetch_and_add(&dropped, 1);                                         \
			return 0;                                                                  \
		}                                                                                  \
		fill_hdr(&r->hdr, rtag, sizeof(*r), pid_tgid);                                     \
		fill;                                                                              \
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);                                           \
		return 0;                                                                          \
	}                                                                                          \
	SEC("tp_btf/" tp)                                                                          \
	int BPF_PROG(arr_##name, args)                                                             \
	{                                                                                          \
		__u64 pid_tgid = bpf_get_current_pid_tgid();                                       \
		__u64 buf[SLOTS_OF(rtype) * ARR_DATA / 8];                                         \
		rtype *r = (void *)buf;                                                            \
		if ((pid_tgid >> 32) != target_tgid)                                               \
			return 0;                                                                  \
		pre;                                                                               \
		fill_hdr(&r->hdr, rtag, sizeof(*r), pid_tgid);                                     \
		fill;                                                                              \
		arr_put((void *)buf, SLOTS_OF(rtype));                                             \
		return 0;                                                                          \
	}

#define A(...) __VA_ARGS__

/* x86-64 syscall ABI: the fourth argument is in r10, not cx. */
HOOK(sys_enter, "sys_enter", struct gtsc_rec_sys_enter, GTSC_REC_SYS_ENTER,
     A(struct pt_regs *regs, long id), ,
     A(r->nr = id; r->payload_len = 0; r->__pad = 0; r->args[0] = regs->di;
       r->args[1] = regs->si; r->args[2] = regs->dx; r->args[3] = regs->r10;
       r->args[4] = regs->r8; r->args[5] = regs->r9))

HOOK(sys_exit, "sys_exit", struct gtsc_rec_sys_exit, GTSC_REC_SYS_EXIT,
     A(struct pt_regs *regs, long ret), ,
     A(r->nr = regs->orig_ax; r->payload_len = 0; r->__pad = 0; r->ret = ret))

/* kmem: the fields gtsc-bpf's kmem.bpf.c writes, read the cheapest way 6.18 allows. */
#define KALLOC(site, p, cache, req, alloc, gfp, nd, k, ord, mt)                                 \
	A(r->call_site = site; r->ptr = p; r->cache_id = cache; r->bytes_req = req;              \
	  r->bytes_alloc = alloc; r->gfp_flags = gfp; r->node = nd; r->kind = k; r->order = ord;  \
	  r->migratetype = mt; __builtin_memset(r->__pad, 0, sizeof(r->__pad)); r->stack_id = 0; \
	  r->__pad2 = 0)
#define KFREE(site, p, cache, k, ord)                                                            \
	A(r->call_site = site; r->ptr = p; r->cache_id = cache; r->kind = k; r->order = ord;     \
	  __builtin_memset(r->__pad, 0, sizeof(r->__pad)))
/* The `const void *ptr` / `struct page *` argument word, as a number. */
#define ARGW(i) A(__u64 w = 0; bpf_probe_read_kernel(&w, sizeof(w), &((__u64 *)ctx)[i]))

HOOK(kmalloc, "kmalloc", struct gtsc_rec_kmem_alloc, GTSC_REC_KMEM_ALLOC,
     A(unsigned long call_site, const void *ptr, size_t bytes_req, size_t bytes_alloc,
       gfp_t gfp_flags, int node), ARGW(1),
     KALLOC(call_site, w, 0, bytes_req, bytes_alloc, gfp_flags, node, GTSC_KMEM_KMALLOC, 0, -1))

HOOK(kfree, "kfree", struct gtsc_rec_kmem_free, GTSC_REC_KMEM_FREE,
     A(unsigned long call_site, const void *ptr), ARGW(1),
     KFREE(call_site, w, 0, GTSC_KMEM_KMALLOC, 0))

HOOK(cache_alloc, "kmem_cache_alloc", struct gtsc_rec_kmem_alloc, GTSC_REC_KMEM_ALLOC,
     A(unsigned long call_site, const void *ptr, struct kmem_cache *s, gfp_t gfp_flags,
       int node), ARGW(1),
     KALLOC(call_site, w, (__u64)s, s->object_size, s->size, gfp_flags, node, GTSC_KMEM_CACHE,
	    0, -1))

HOOK(cache_free, "kmem_cache_free", struct gtsc_rec_kmem_free, GTSC_REC_KMEM_FREE,
     A(unsigned long call_site, const void *ptr, const struct kmem_cache *s), ARGW(1),
     KFREE(call_site, w, (__u64)s, GTSC_KMEM_CACHE, 0))

HOOK(page_alloc, "mm_page_alloc", struct gtsc_rec_kmem_alloc, GTSC_REC_KMEM_ALLOC,
     A(struct page *page, unsigned int order, gfp_t gfp_flags, int migratetype), ARGW(0),
     KALLOC(0, w, 0, 4096u << (order & 15), 4096u << (order & 15), gfp_flags, -1,
	    GTSC_KMEM_PAGE, order, migratetype))

HOOK(page_free, "mm_page_free", struct gtsc_rec_kmem_free, GTSC_REC_KMEM_FREE,
     A(struct page *page, unsigned int order), ARGW(0),
     KFREE(0, w, 0, GTSC_KMEM_PAGE, order))
