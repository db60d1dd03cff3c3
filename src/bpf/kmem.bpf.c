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

static __always_inline int kmem_alloc(void *ctx, const struct kmem_alloc_args *a)
{
	struct gtsc_rec_kmem_alloc *e;
	struct gtsc_slot s;

	if (!gtsc_reserve(&s, GTSC_CLASS_KMEM, GTSC_REC_KMEM_ALLOC, sizeof(*e)))
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
				     __u8 order)
{
	struct gtsc_rec_kmem_free *e;
	struct gtsc_slot s;

	if (!gtsc_reserve(&s, GTSC_CLASS_KMEM, GTSC_REC_KMEM_FREE, sizeof(*e)))
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
static __always_inline void kmem_name_cache(const struct kmem_cache *c)
{
	struct gtsc_rec_kmem_cache *e;
	__u64 id = (__u64)c;
	struct gtsc_slot s;
	__u8 one = 1;

	if (!c || bpf_map_lookup_elem(&gtsc_caches_seen, &id))
		return;
	bpf_map_update_elem(&gtsc_caches_seen, &id, &one, BPF_ANY);
	if (!gtsc_reserve(&s, GTSC_CLASS_KMEM, GTSC_REC_KMEM_CACHE, sizeof(*e))) {
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
 * this kernel cannot load is pruned before verification.  The BPF_PROG
 * parameter for it stays unused, so the compiler emits no load of it.
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

SEC("tp_btf/kmalloc")
int BPF_PROG(gtsc_kmalloc_btf, unsigned long call_site, const void *ptr, size_t bytes_req,
	     size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	struct kmem_alloc_args a = {
		.call_site = call_site,
		.ptr = void_arg(ctx, 1),
		.bytes_req = bytes_req,
		.bytes_alloc = bytes_alloc,
		.gfp_flags = gfp_flags,
		.node = node,
		.kind = GTSC_KMEM_KMALLOC,
		.migratetype = -1,
	};

	if (!gtsc_wanted())
		return 0;
	return kmem_alloc(ctx, &a);
}

SEC("tp_btf/kfree")
int BPF_PROG(gtsc_kfree_btf, unsigned long call_site, const void *ptr)
{
	if (!gtsc_wanted())
		return 0;
	return kmem_free(call_site, void_arg(ctx, 1), 0, GTSC_KMEM_KMALLOC, 0);
}

SEC("tp_btf/kmem_cache_alloc")
int BPF_PROG(gtsc_cache_alloc_btf, unsigned long call_site, const void *ptr, struct kmem_cache *s,
	     gfp_t gfp_flags, int node)
{
	/* What the tracepoint itself reports as bytes_req/bytes_alloc. */
	struct kmem_alloc_args a = {
		.call_site = call_site,
		.ptr = void_arg(ctx, 1),
		.cache_id = (__u64)s,
		.bytes_req = BPF_CORE_READ(s, object_size),
		.bytes_alloc = BPF_CORE_READ(s, size),
		.gfp_flags = gfp_flags,
		.node = node,
		.kind = GTSC_KMEM_CACHE,
		.migratetype = -1,
	};

	if (!gtsc_wanted())
		return 0;
	kmem_name_cache(s);
	return kmem_alloc(ctx, &a);
}

SEC("tp_btf/kmem_cache_free")
int BPF_PROG(gtsc_cache_free_btf, unsigned long call_site, const void *ptr,
	     const struct kmem_cache *s)
{
	if (!gtsc_wanted())
		return 0;
	return kmem_free(call_site, void_arg(ctx, 1), (__u64)s, GTSC_KMEM_CACHE, 0);
}

SEC("tp/kmem/kmalloc")
int gtsc_kmalloc_tp(struct trace_event_raw_kmalloc___gtsc *ctx)
{
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

	if (!gtsc_wanted())
		return 0;
	return kmem_alloc(ctx, &a);
}

SEC("tp/kmem/kfree")
int gtsc_kfree_tp(struct trace_event_raw_kfree___gtsc *ctx)
{
	if (!gtsc_wanted())
		return 0;
	return kmem_free(BPF_CORE_READ(ctx, call_site), (__u64)BPF_CORE_READ(ctx, ptr), 0,
			 GTSC_KMEM_KMALLOC, 0);
}

SEC("tp/kmem/kmem_cache_alloc")
int gtsc_cache_alloc_tp(struct trace_event_raw_kmem_cache_alloc___gtsc *ctx)
{
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

	if (!gtsc_wanted())
		return 0;
	return kmem_alloc(ctx, &a);
}

SEC("tp/kmem/kmem_cache_free")
int gtsc_cache_free_tp(struct trace_event_raw_kmem_cache_free___gtsc *ctx)
{
	if (!gtsc_wanted())
		return 0;
	return kmem_free(BPF_CORE_READ(ctx, call_site), (__u64)BPF_CORE_READ(ctx, ptr), 0,
			 GTSC_KMEM_CACHE, 0);
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

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(gtsc_page_alloc_btf, struct page *page, unsigned int order, gfp_t gfp_flags,
	     int migratetype)
{
	struct kmem_alloc_args a = {
		.bytes_req = (__u64)1 << (GTSC_PAGE_SHIFT + (order & 31)),
		.bytes_alloc = (__u64)1 << (GTSC_PAGE_SHIFT + (order & 31)),
		.gfp_flags = gfp_flags,
		.node = -1,
		.kind = GTSC_KMEM_PAGE,
		.order = order,
		.migratetype = migratetype,
	};

	if (!gtsc_wanted())
		return 0;
	a.ptr = arg_page_to_pfn(ctx);
	return kmem_alloc(ctx, &a);
}

SEC("tp_btf/mm_page_free")
int BPF_PROG(gtsc_page_free_btf, struct page *page, unsigned int order)
{
	if (!gtsc_wanted())
		return 0;
	return kmem_free(0, arg_page_to_pfn(ctx), 0, GTSC_KMEM_PAGE, order);
}

SEC("tp/kmem/mm_page_alloc")
int gtsc_page_alloc_tp(struct trace_event_raw_mm_page_alloc___gtsc *ctx)
{
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

	if (!gtsc_wanted())
		return 0;
	return kmem_alloc(ctx, &a);
}

SEC("tp/kmem/mm_page_free")
int gtsc_page_free_tp(struct trace_event_raw_mm_page_free___gtsc *ctx)
{
	if (!gtsc_wanted())
		return 0;
	return kmem_free(0, BPF_CORE_READ(ctx, pfn), 0, GTSC_KMEM_PAGE, BPF_CORE_READ(ctx, order));
}
