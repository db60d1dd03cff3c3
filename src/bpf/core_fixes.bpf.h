/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CO-RE type flavours for kernel changes the programs must survive.  Each
 * block names the change.  Field offsets are relocated by libbpf; these
 * flavours only exist so that code can test which layout the kernel has.
 */
#ifndef __GTSC_CORE_FIXES_BPF_H
#define __GTSC_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/*
 * Classic tracepoint layouts, for the fallback programs.  6.1's
 * kmem_cache_alloc (after 11e9734bcb6a "mm/slab_common: unify NUMA and UMA
 * version of tracepoints") has no cache name; 6.18's has __data_loc name
 * before bytes_req, moving it from offset 24 to 32.  Reading by field name
 * with BPF_CORE_READ makes both work; the ___gtsc flavours keep us
 * independent of the vmlinux.h we compile against.
 */
struct trace_event_raw_kmalloc___gtsc {
	unsigned long call_site;
	const void *ptr;
	size_t bytes_req;
	size_t bytes_alloc;
	unsigned long gfp_flags;
	int node;
} __attribute__((preserve_access_index));

struct trace_event_raw_kmem_cache_alloc___gtsc {
	unsigned long call_site;
	const void *ptr;
	size_t bytes_req;
	size_t bytes_alloc;
	unsigned long gfp_flags;
	int node;
} __attribute__((preserve_access_index));

/* kfree and kmem_cache_free share call_site/ptr since 5.x. */
struct trace_event_raw_kfree___gtsc {
	unsigned long call_site;
	const void *ptr;
} __attribute__((preserve_access_index));

struct trace_event_raw_kmem_cache_free___gtsc {
	unsigned long call_site;
	const void *ptr;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_page_alloc___gtsc {
	unsigned long pfn;
	unsigned int order;
	unsigned long gfp_flags;
	int migratetype;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_page_free___gtsc {
	unsigned long pfn;
	unsigned int order;
} __attribute__((preserve_access_index));

#endif
