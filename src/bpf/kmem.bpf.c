// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kmem tracepoints: kmalloc, kfree, kmem_cache_alloc, kmem_cache_free,
 * mm_page_alloc, mm_page_free, written as kmemtrace-style alloc/free records.
 *
 * Slab events use tp_btf (arguments straight from the tracepoint call, and
 * the kmem_cache itself, which names the cache); the loader checks each
 * tp_btf prototype against the kernel's BTF first and falls back to the
 * classic tracepoint, read by field name through CO-RE, when it differs.
 * Page events use tp_btf too, deriving the pfn as page_to_pfn() does with
 * SPARSEMEM_VMEMMAP: the classic tracepoint computes it for us, but classic
 * tracepoint programs share the per-CPU bpf_prog_active guard with every
 * other kprobe/tracepoint program and the bpf() syscall, and lose page frees
 * that happen inside them.
 */
#include "gtsc.bpf.h"
#include "core_fixes.bpf.h"
#include "gtsc_stacks.bpf.h"
#include "kmem_chain.h"

#define GTSC_PAGE_SHIFT 12 /* x86: the only arch with a vmlinux.h so far */
/* x86-64's vmemmap without KASLR (CONFIG_DYNAMIC_MEMORY_LAYOUT off). */
#define GTSC_VMEMMAP_START 0xffffea0000000000ULL

/* Typeless and weak: resolved from kallsyms when the kernel randomizes it. */
extern const void vmemmap_base __ksym __weak;

/* kmem_caches already named in this trace (one GTSC_REC_KMEM_CACHE each). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} gtsc_caches_seen SEC(".maps");

struct kmem_alloc_args {
	__u64 call_site;
	__u64 ptr;
	__u64 cache_id;
	__u64 bytes_req;
	__u64 bytes_alloc;
	__u32 gfp_flags;
	__s32 node;
	__u8 kind;
	__u8 order;
	__s8 migratetype;
};

/*
 * The filter, with bpf_get_current_pid_tgid() read once for it and the
 * record's header (ID): the second call was ~5 ns of each event (perf on the
 * bench's kmem loop, 6.18 host: bpf_get_current_pid_tgid 0.7% of its CPU).
 */
static __always_inline bool kmem_wanted(__u64 *id)
{
	if (!gtsc_on)
		return false;
	*id = bpf_get_current_pid_tgid();
	return gtsc_tgid_wanted(*id >> 32);
}

static __always_inline int kmem_alloc(void *ctx, const struct kmem_alloc_args *a, __u64 id)
{
	struct gtsc_rec_kmem_alloc *e;
	struct gtsc_slot s;

	if (!gtsc_reserve_id(&s, GTSC_CLASS_KMEM, GTSC_REC_KMEM_ALLOC, sizeof(*e), id))
		return 0;
	e = s.rec;
	e->call_site = a->call_site;
	e->ptr = a->ptr;
	e->cache_id = a->cache_id;
	e->bytes_req = a->bytes_req;
	e->bytes_alloc = a->bytes_alloc;
	e->gfp_flags = a->gfp_flags;
	e->node = a->node;
	e->kind = a->kind;
	e->order = a->order;
	e->migratetype = a->migratetype;
	__builtin_memset(e->__pad, 0, sizeof(e->__pad));
	e->stack_id = gtsc_stack_id(ctx);
	e->__pad2 = 0;
	gtsc_submit(&s);
	return 0;
}

static __always_inline int kmem_free(__u64 call_site, __u64 ptr, __u64 cache_id, __u8 kind,
				     __u8 order, __u64 id)
{
	struct gtsc_rec_kmem_free *e;
	struct gtsc_slot s;

	if (!gtsc_reserve_id(&s, GTSC_CLASS_KMEM, GTSC_REC_KMEM_FREE, sizeof(*e), id))
		return 0;
	e = s.rec;
	e->call_site = call_site;
	e->ptr = ptr;
	e->cache_id = cache_id;
	e->kind = kind;
	e->order = order;
	__builtin_memset(e->__pad, 0, sizeof(e->__pad));
	gtsc_submit(&s);
	return 0;
}

/* Names a cache the first time it is seen; forgets it again if the record is
 * dropped, so a later event retries. */
static __always_inline void kmem_name_cache(const struct kmem_cache *c, __u64 pid_tgid)
{
	struct gtsc_rec_kmem_cache *e;
	__u64 id = (__u64)c;
	struct gtsc_slot s;
	__u8 one = 1;

	if (!c || bpf_map_lookup_elem(&gtsc_caches_seen, &id))
		return;
	bpf_map_update_elem(&gtsc_caches_seen, &id, &one, BPF_ANY);
	if (!gtsc_reserve_id(&s, GTSC_CLASS_KMEM, GTSC_REC_KMEM_CACHE, sizeof(*e), pid_tgid)) {
		bpf_map_delete_elem(&gtsc_caches_seen, &id);
		return;
	}
	e = s.rec;
	e->cache_id = id;
	e->object_size = BPF_CORE_READ(c, object_size);
	e->size = BPF_CORE_READ(c, size);
	__builtin_memset(e->name, 0, sizeof(e->name));
	bpf_probe_read_kernel_str(e->name, sizeof(e->name), BPF_CORE_READ(c, name));
	gtsc_submit(&s);
}

/*
 * The tracepoints' `const void *ptr` argument.  6.18's verifier lets tp_btf
 * load it as a scalar; 6.1 and 6.12 refuse ("arg1 type UNKNOWN is not a
 * struct"), and one refused program fails the whole object.  The loader
 * probes which (GTSC_FEAT_TP_BTF_VOID_ARG); as a rodata constant, the branch
 * this kernel cannot load is pruned before verification.  The bodies read
 * it only through void_arg, so the compiler emits no other load of it.
 */
const volatile bool gtsc_void_arg_direct = false;

/*
 * Written in asm so that the load keeps the one form the verifier accepts,
 * r = *(u64 *)(ctx + off): left to itself clang shares &ctx[i] between the
 * two paths and the verifier refuses a load through a modified ctx pointer.
 */
#define void_arg(ctx, i)                                                                        \
	({                                                                                     \
		__u64 __v = 0, *__p = (ctx);                                                   \
		if (gtsc_void_arg_direct) {                                                    \
			asm volatile("%[v] = *(u64 *)(%[c] + %[o])"                            \
				     : [v] "=r"(__v)                                           \
				     : [c] "r"(ctx), [o] "i"((i) * 8));                         \
		} else {                                                                       \
			barrier_var(__p);                                                      \
			bpf_probe_read_kernel(&__v, sizeof(__v), &__p[i]);                     \
		}                                                                              \
		__v;                                                                           \
	})

/*
 * The tp_btf bodies read their arguments from the context by position, as
 * BPF_PROG does: each is shared by the first program of its hook and the
 * two rescue programs (KMEM_PROGS below).
 */
static __always_inline int kmalloc_btf(__u64 *ctx)
{
	__u64 id;
	struct kmem_alloc_args a = {
		.call_site = ctx[0],
		.ptr = void_arg(ctx, 1),
		.bytes_req = ctx[2],
		.bytes_alloc = ctx[3],
		.gfp_flags = ctx[4],
		.node = ctx[5],
		.kind = GTSC_KMEM_KMALLOC,
		.migratetype = -1,
	};

	if (!kmem_wanted(&id))
		return 0;
	return kmem_alloc(ctx, &a, id);
}

static __always_inline int kfree_btf(__u64 *ctx)
{
	__u64 id;

	if (!kmem_wanted(&id))
		return 0;
	return kmem_free(ctx[0], void_arg(ctx, 1), 0, GTSC_KMEM_KMALLOC, 0, id);
}

static __always_inline int cache_alloc_btf(__u64 *ctx)
{
	__u64 id;
	struct kmem_cache *s = (void *)ctx[2];
	struct kmem_alloc_args a = {
		.call_site = ctx[0],
		.ptr = void_arg(ctx, 1),
		.cache_id = (__u64)s,
		.gfp_flags = ctx[3],
		.node = ctx[4],
		.kind = GTSC_KMEM_CACHE,
		.migratetype = -1,
	};

	if (!kmem_wanted(&id))
		return 0;
	/*
	 * What the tracepoint itself reports as bytes_req/bytes_alloc, loaded
	 * straight from the BTF pointer as the verifier allows tp_btf: two
	 * bpf_probe_read_kernel calls were ~20 ns of each kmem_cache_alloc
	 * (perf, bench kmem loop, 6.18 host).  NULL reads as 0, as they did.
	 */
	if (s) {
		a.bytes_req = s->object_size;
		a.bytes_alloc = s->size;
	}
	kmem_name_cache(s, id);
	return kmem_alloc(ctx, &a, id);
}

static __always_inline int cache_free_btf(__u64 *ctx)
{
	__u64 id;

	if (!kmem_wanted(&id))
		return 0;
	return kmem_free(ctx[0], void_arg(ctx, 1), ctx[2], GTSC_KMEM_CACHE, 0, id);
}

SEC("tp/kmem/kmalloc")
int gtsc_kmalloc_tp(struct trace_event_raw_kmalloc___gtsc *ctx)
{
	__u64 id;
	struct kmem_alloc_args a = {
		.call_site = BPF_CORE_READ(ctx, call_site),
		.ptr = (__u64)BPF_CORE_READ(ctx, ptr),
		.bytes_req = BPF_CORE_READ(ctx, bytes_req),
		.bytes_alloc = BPF_CORE_READ(ctx, bytes_alloc),
		.gfp_flags = BPF_CORE_READ(ctx, gfp_flags),
		.node = BPF_CORE_READ(ctx, node),
		.kind = GTSC_KMEM_KMALLOC,
		.migratetype = -1,
	};

	if (!kmem_wanted(&id))
		return 0;
	return kmem_alloc(ctx, &a, id);
}

SEC("tp/kmem/kfree")
int gtsc_kfree_tp(struct trace_event_raw_kfree___gtsc *ctx)
{
	__u64 id;

	if (!kmem_wanted(&id))
		return 0;
	return kmem_free(BPF_CORE_READ(ctx, call_site), (__u64)BPF_CORE_READ(ctx, ptr), 0,
			 GTSC_KMEM_KMALLOC, 0, id);
}

SEC("tp/kmem/kmem_cache_alloc")
int gtsc_cache_alloc_tp(struct trace_event_raw_kmem_cache_alloc___gtsc *ctx)
{
	__u64 id;
	struct kmem_alloc_args a = {
		.call_site = BPF_CORE_READ(ctx, call_site),
		.ptr = (__u64)BPF_CORE_READ(ctx, ptr),
		.bytes_req = BPF_CORE_READ(ctx, bytes_req),
		.bytes_alloc = BPF_CORE_READ(ctx, bytes_alloc),
		.gfp_flags = BPF_CORE_READ(ctx, gfp_flags),
		.node = BPF_CORE_READ(ctx, node),
		.kind = GTSC_KMEM_CACHE,
		.migratetype = -1,
	};

	if (!kmem_wanted(&id))
		return 0;
	return kmem_alloc(ctx, &a, id);
}

SEC("tp/kmem/kmem_cache_free")
int gtsc_cache_free_tp(struct trace_event_raw_kmem_cache_free___gtsc *ctx)
{
	__u64 id;

	if (!kmem_wanted(&id))
		return 0;
	return kmem_free(BPF_CORE_READ(ctx, call_site), (__u64)BPF_CORE_READ(ctx, ptr), 0,
			 GTSC_KMEM_CACHE, 0, id);
}

/*
 * page_to_pfn() on the tracepoint's first argument.  The verifier forbids
 * arithmetic on a BTF pointer, so the argument word is read as a scalar.
 */
static __always_inline __u64 arg_page_to_pfn(__u64 *ctx)
{
	__u64 base = GTSC_VMEMMAP_START, page = 0;

	bpf_probe_read_kernel(&page, sizeof(page), &ctx[0]);
	if (!page)
		return (__u64)-1; /* what the tracepoint reports for a failed allocation */
	if (&vmemmap_base)
		bpf_probe_read_kernel(&base, sizeof(base), &vmemmap_base);
	return (page - base) / bpf_core_type_size(struct page);
}

static __always_inline int page_alloc_btf(__u64 *ctx)
{
	__u64 id;
	__u32 order = ctx[1];
	struct kmem_alloc_args a = {
		.bytes_req = (__u64)1 << (GTSC_PAGE_SHIFT + (order & 31)),
		.bytes_alloc = (__u64)1 << (GTSC_PAGE_SHIFT + (order & 31)),
		.gfp_flags = ctx[2],
		.node = -1,
		.kind = GTSC_KMEM_PAGE,
		.order = order,
		.migratetype = ctx[3],
	};

	if (!kmem_wanted(&id))
		return 0;
	a.ptr = arg_page_to_pfn(ctx);
	return kmem_alloc(ctx, &a, id);
}

static __always_inline int page_free_btf(__u64 *ctx)
{
	__u64 id;

	if (!kmem_wanted(&id))
		return 0;
	return kmem_free(0, arg_page_to_pfn(ctx), 0, GTSC_KMEM_PAGE, ctx[1], id);
}

SEC("tp/kmem/mm_page_alloc")
int gtsc_page_alloc_tp(struct trace_event_raw_mm_page_alloc___gtsc *ctx)
{
	__u64 id;
	__u32 order = BPF_CORE_READ(ctx, order);
	struct kmem_alloc_args a = {
		.ptr = BPF_CORE_READ(ctx, pfn),
		.bytes_req = (__u64)1 << (GTSC_PAGE_SHIFT + (order & 31)),
		.bytes_alloc = (__u64)1 << (GTSC_PAGE_SHIFT + (order & 31)),
		.gfp_flags = BPF_CORE_READ(ctx, gfp_flags),
		.node = -1,
		.kind = GTSC_KMEM_PAGE,
		.order = order,
		.migratetype = BPF_CORE_READ(ctx, migratetype),
	};

	if (!kmem_wanted(&id))
		return 0;
	return kmem_alloc(ctx, &a, id);
}

SEC("tp/kmem/mm_page_free")
int gtsc_page_free_tp(struct trace_event_raw_mm_page_free___gtsc *ctx)
{
	__u64 id;

	if (!kmem_wanted(&id))
		return 0;
	return kmem_free(0, BPF_CORE_READ(ctx, pfn), 0, GTSC_KMEM_PAGE, BPF_CORE_READ(ctx, order),
			 id);
}

/*
 * ---- rescue (gtsc_shared.h) ----
 * The kernel runs a program at most once per CPU at a time: a kmem event
 * from an interrupt (RCU callbacks freeing in softirq, on the exit of the
 * interrupt that stopped us) that fires while the hook's first program runs
 * on that CPU is skipped, and so, on PREEMPT_RT and 7.x, is the event of a
 * task that preempted another inside it.  Two rescue programs, attached
 * after the first, take exactly those events: each event runs the hook's
 * three programs in order, each possibly skipped, with the same context
 * address (the tracepoint's loop calls each with the same frame).
 *
 * Task-stack events never nest on a CPU (interrupts switch to the IRQ
 * stack) and, where these programs are preemptible (bpf_preemptible), not
 * within a thread: a byte per CPU, or per thread there, holds the hook and
 * the position (0..2) of the last of its programs that ran.  The first
 * program writes (hook, 0) before anything else; rescue program K finding
 * (hook, j < K) knows an earlier program had the event, otherwise (another
 * hook, or j >= K: an earlier event's) none did, and it records the event,
 * counted in the hook's gtsc_rescued slot; either way it writes (hook, K).
 *
 * On the IRQ stack a hardirq's events nest in a softirq's, deeper: a slot
 * per chain, in address order (kmem_chain.h, model-checked by
 * tests/unit/test_kmem_chain.c).  The former single saved entry let two
 * chains nested in one, the first with its last program skipped, erase the
 * outer chain's entry, and the outer chain's rescue program record its event
 * a second time while counting it rescued: with a loss elsewhere on the
 * hook, the trailer counted 0 lost.  Nothing is written twice; an event all
 * three skip is lost and counted (the first program's misses minus the
 * rescued), as is one that finds an earlier event's slot at its own address
 * still open (its rescue programs were all skipped).
 *
 * Cost, bpf_stats (run_time_ns / run_cnt), -e kmem -a under kmem_irq on the
 * 6.18 host, two runs interleaved with main's binary: the first program's
 * mark adds ~10 ns (kmem_cache_free 147/156 -> 156/167 ns, kfree 159/167
 * -> 166/177); the rescue program, which finds nearly every event handled,
 * takes 58-66 ns, of which ~48 ns is what bpf_stats reports for a program
 * that returns at once (its floor on this host): ~15 ns of check.  On by
 * default: its events are the ones perf keeps and we otherwise lose.
 */
#define KMEM_THREAD_SIZE (16 << 10) /* x86-64 without KASAN */

/*
 * Set by the loader where the rescue programs are attached: how many (the
 * position of the last).  Both, on every kernel: a hardirq's event inside a
 * softirq's rescue inside the first program never happened in ~10 runs
 * here, but a CI run on the 6.18 host lost one kmem_cache_free of 240,782
 * that way (kmem-irq, 730 skipped, 729 rescued).  The second costs ~60 ns
 * per kmem event end to end (bench kmem loop: 5,399-5,411 ns an iteration
 * of 9 events against 4,848-4,867 without it, two runs each, 6.18).
 * Together they are most of what gtsc-bpf costs over bench/bare (2026-11-26,
 * medians of 5 interleaved, added ns an iteration): both +3,366, one +2,824,
 * none +2,094, bare +1,547; with this file's cheaper first program, none
 * +1,441 against bare's +1,434 (best runs).  Two of the ~45 ns attach floors
 * an event (bench/bare -m nil) are ~790 of it; bpf_stats cannot see them.
 * On array rings (2026-11-26 20:20 UTC, same bench, against trace-cmd in
 * the same run): both +2,564 (1.16x trace-cmd), one +1,971 (0.82x), none
 * +1,229 (0.56x).  Running the programs with interrupts off
 * (bpf_local_irq_save, 6.14+) instead does not help: the kernel delivers
 * the interrupts held back at bpf_local_irq_restore, still inside
 * __bpf_trace_run's recursion window, and without rescue programs kmem_irq
 * lost more events that way (190 and 504 in 3 s) than with interrupts on
 * (60 and 100).
 */
const volatile __u8 gtsc_kmem_rescue = 0;
/* Task-stack events keyed by thread: kernels that preempt these programs. */
const volatile bool gtsc_kmem_by_tid = false;

/* The task-stack bytes by thread, eight to a value; one entry unless gtsc_kmem_by_tid. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GTSC_MARK_TIDS / 8);
	__type(key, __u32);
	__type(value, __u64);
} gtsc_kmem_mark SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kmem_cpu_mark);
} gtsc_kmem_cpu SEC(".maps");

enum kmem_hook {
	KMEM_HOOK_KMALLOC = 1,
	KMEM_HOOK_KFREE,
	KMEM_HOOK_CACHE_ALLOC,
	KMEM_HOOK_CACHE_FREE,
	KMEM_HOOK_PAGE_ALLOC,
	KMEM_HOOK_PAGE_FREE,
};

/* Program POS (0 first) of HOOK's chain at context CTX: true when no program before it had the event. */
static __always_inline bool kmem_chain(void *ctx, __u8 hook, __u8 pos)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 x = (__u64)ctx, lo = (__u64)t->stack, hi = lo + KMEM_THREAD_SIZE;
	__u32 tid, key = 0;
	struct kmem_cpu_mark *c;
	__u8 *m;

	c = bpf_map_lookup_elem(&gtsc_kmem_cpu, &key);
	if (!c)
		return false;
	/*
	 * X stays a ctx pointer, only compared and stored: 6.1 refuses any
	 * arithmetic on it ("math between ctx pointer and register with
	 * unbounded min value"), so clang must not fold the two compares
	 * into x - lo >= size.
	 */
	barrier_var(hi);
	if (x < lo || x >= hi)
		return !kmem_irq_seen(c, x, hook, pos, gtsc_kmem_rescue);
	tid = gtsc_kmem_by_tid ? bpf_get_current_pid_tgid() : 0;
	/* idle tasks are all tid 0, one per CPU: keyed by CPU */
	if (!tid)
		return !kmem_byte_seen(&c->task_mark, hook, pos);
	key = (tid & (GTSC_MARK_TIDS - 1)) / 8;
	m = bpf_map_lookup_elem(&gtsc_kmem_mark, &key);
	return m && !kmem_byte_seen(m + (tid & 7), hook, pos);
}

static __always_inline void kmem_ran(void *ctx, __u8 hook)
{
	if (gtsc_kmem_rescue)
		kmem_chain(ctx, hook, 0);
}

/* Rescue program POS of HOOK: true when no program before it had the event (counted). */
static __always_inline bool kmem_skipped(void *ctx, __u8 hook, __u8 pos)
{
	__u32 slot = GTSC_RESCUE_KMALLOC + hook - KMEM_HOOK_KMALLOC;
	__u64 *n;

	if (!kmem_chain(ctx, hook, pos))
		return false;
	n = bpf_map_lookup_elem(&gtsc_rescued, &slot);
	if (n)
		__sync_fetch_and_add(n, 1); /* a nested rescue may count the same slot */
	return true;
}

/* Body NAME's programs: gtsc_NAME first (the one sources.c names), then gtsc_NAME_r, _r2. */
#define KMEM_PROGS(tp, name, hook)                                                                 \
	SEC("tp_btf/" tp)                                                                          \
	int gtsc_##name(__u64 *ctx)                                                                \
	{                                                                                          \
		kmem_ran(ctx, hook);                                                                    \
		return name(ctx);                                                                  \
	}                                                                                          \
	SEC("tp_btf/" tp)                                                                          \
	int gtsc_##name##_r(__u64 *ctx)                                                            \
	{                                                                                          \
		return kmem_skipped(ctx, hook, 1) ? name(ctx) : 0;                                      \
	}                                                                                          \
	SEC("tp_btf/" tp)                                                                          \
	int gtsc_##name##_r2(__u64 *ctx)                                                           \
	{                                                                                          \
		return kmem_skipped(ctx, hook, 2) ? name(ctx) : 0;                                      \
	}

KMEM_PROGS("kmalloc", kmalloc_btf, KMEM_HOOK_KMALLOC)
KMEM_PROGS("kfree", kfree_btf, KMEM_HOOK_KFREE)
KMEM_PROGS("kmem_cache_alloc", cache_alloc_btf, KMEM_HOOK_CACHE_ALLOC)
KMEM_PROGS("kmem_cache_free", cache_free_btf, KMEM_HOOK_CACHE_FREE)
KMEM_PROGS("mm_page_alloc", page_alloc_btf, KMEM_HOOK_PAGE_ALLOC)
KMEM_PROGS("mm_page_free", page_free_btf, KMEM_HOOK_PAGE_FREE)
