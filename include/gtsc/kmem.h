/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/**
 * @file kmem.h
 * @brief libgtsc: kernel memory analysis and trace checking.  Include
 * <gtsc/gtsc.h>, which includes this file; it is a separate file only to
 * keep gtsc.h readable.
 *
 * struct gtsc_kmem_analysis pairs the frees of a trace's kmem records with
 * their allocations and aggregates them as kmemtrace and perf kmem do: per
 * allocator kind, call site, slab cache, size class, page order and GFP
 * value, plus what does not pair up (errors), allocation stacks and what is
 * still live at the end (leak suspects).  Its memory is bounded by the
 * objects live at a time, never by the trace's length.  Results are read
 * through accessors returning pointers into the analysis; each result
 * struct is filled by the library only and grows only at the end.
 */
#ifndef __GTSC_PUBLIC_KMEM_H
#define __GTSC_PUBLIC_KMEM_H

#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GTSC_KMEM_KINDS 3	  /**< enum gtsc_kmem_kind */
#define GTSC_KMEM_SIZE_CLASSES 33 /**< class k holds sizes (2^(k-1), 2^k], k = 0..32 */
#define GTSC_KMEM_ORDERS 16	  /**< page orders; higher ones count in the last */
#define GTSC_KMEM_MIGRATETYPES 8  /**< the last counts every migrate type from 7 up */

/** @brief What did not pair up, in classes a user acts on differently. */
enum gtsc_kmem_err_class {
	GTSC_KMEM_ERR_CACHE_KFREE,	  /**< kmem_cache_alloc'd, then kfree'd: legal since 6.4 */
	GTSC_KMEM_ERR_KMALLOC_CACHE_FREE, /**< kmalloc'd, then kmem_cache_free'd: never legal */
	GTSC_KMEM_ERR_DOUBLE_FREE,	  /**< allocated in the trace, freed twice */
	GTSC_KMEM_ERR_FREE_AFTER_FREE,	  /**< never allocated in the trace, freed twice */
	GTSC_KMEM_ERR_PRETRACE_FREE,	  /**< never allocated in the trace: allocated before it */
	GTSC_KMEM_ERR_ALLOC_LIVE,	  /**< allocated again while live: a free was not traced */
	GTSC_KMEM_ERR_NULL_ALLOC,	  /**< the allocation failed (NULL, pfn -1) */
	GTSC_KMEM_ERR_PAGE_ORDER,	  /**< pages freed with another order than allocated */
	GTSC_KMEM_ERR_MAX, /**< the classes this header knows; a newer library may add more */
};

/**
 * @brief Counts of one allocator kind.  As perf kmem counts: every
 * allocation event counts in allocs and bytes (failed ones too), a free
 * counts as matched when its pointer's allocation is in the trace, and a
 * matched free on another CPU than its allocation is a ping-pong.
 */
struct gtsc_kmem_kind_stats {
	__u64 allocs; /**< allocation events, failed ones included */
	__u64 failed;
	__u64 frees;	     /**< free events of this kind */
	__u64 frees_null;    /**< of them, kfree(NULL or ZERO_SIZE_PTR): no-ops */
	__u64 frees_matched; /**< frees of allocations of this kind made in the trace */
	__u64 bytes_req;
	__u64 bytes_alloc;
	__u64 bytes_freed; /**< bytes_alloc of the matched frees */
	__u64 pingpong;	   /**< matched frees on another CPU than the allocation */
};

/** @brief One call site; the counters are those of the allocations made there. */
struct gtsc_kmem_site {
	__u64 call_site; /**< 0: unknown (pages: the tracepoint has none) */
	__u64 allocs, failed, frees, bytes_req, bytes_alloc, bytes_freed, pingpong;
	/** allocations still live at the end: leak suspects; ages up to end_ts */
	__u64 live, live_bytes_req, live_bytes_alloc, live_age_sum, live_oldest_ts;
	__u8 kinds; /**< bit (1 << kind) for each enum gtsc_kmem_kind allocated here */
};

/** @brief A slab cache, or for kmalloc the size class it served from. */
struct gtsc_kmem_group {
	__u64 id;   /**< kmem_cache address; bytes_alloc for kmalloc and for unnamed caches */
	__u8 kind;  /**< GTSC_KMEM_KMALLOC or GTSC_KMEM_CACHE */
	bool named; /**< the trace named the cache: name, object_size and size are set */
	char name[GTSC_CACHE_NAME_LEN];
	__u32 object_size, size;
	__u32 unit; /**< bytes_alloc of every object of the group */
	__u64 allocs, failed, frees, bytes_req, bytes_alloc, bytes_freed, live;
};

/** @brief Slab allocations whose requested (by_req) or allocated (by_alloc) size is in a class. */
struct gtsc_kmem_size_class {
	__u64 by_req, by_alloc;
	__u64 bytes_req, bytes_alloc; /**< of the allocations counted in by_req */
};

/** @brief Page allocations of one order. */
struct gtsc_kmem_order {
	__u64 unit; /**< bytes of an allocation of this order */
	__u64 allocs, failed, frees, frees_matched, live, live_age_sum;
	__u64 by_migratetype[GTSC_KMEM_MIGRATETYPES]; /**< enum migratetype's numbering */
};

/** @brief Allocations made with one GFP value (gtsc_kmem_gfp__decode names it). */
struct gtsc_kmem_gfp_use {
	__u64 gfp_flags;
	__u64 allocs[GTSC_KMEM_KINDS];
	__u64 bytes_alloc;
};

/**
 * @brief One error class between two call sites.  site is the
 * allocation's (the first free's for FREE_AFTER_FREE, the free's for
 * PRETRACE_FREE); site2 the offending free's, or the second allocation's
 * for ALLOC_LIVE.
 */
struct gtsc_kmem_err {
	__u8 cls;	/**< enum gtsc_kmem_err_class */
	__u8 kind;	/**< the allocation's kind (the free's when there is none) */
	__u8 free_kind; /**< the free event's kind, when there is one */
	__u64 site;
	__u64 site2;
	__u64 count;
	__u64 first_ptr; /**< of the first occurrence */
	__u64 first_ts;
};

/** @brief Allocations with one kernel stack (a trace recorded with --stacks). */
struct gtsc_kmem_stack_use {
	__u32 stack_id; /**< gtsc_reader__stack(r, "kmem", stack_id, &n) gives its frames */
	__u64 allocs, bytes_alloc;
};

/** @brief Whole-analysis figures and the number of entries of each result table. */
struct gtsc_kmem_summary {
	__u64 events; /**< kmem alloc/free records analysed */
	__u64 first_ts, last_ts;
	__u64 end_ts;	    /**< what ages of live objects are measured to */
	__u64 live_objects; /**< at the end */
	__u64 table_slots;  /**< object table size: the analysis' memory */
	/** allocations recorded without a stack (a full stack map, deep nesting) */
	__u64 unstacked_allocs, unstacked_bytes;
	size_t nr_sites, nr_groups, nr_gfps, nr_errs, nr_stacks;
};

struct gtsc_kmem_analysis;

struct gtsc_kmem_analysis_opts {
	size_t sz;
	const __u32 *pids; /**< only these thread groups; none: every one */
	size_t nr_pids;
	size_t : 0;
};
#define gtsc_kmem_analysis_opts__last_field nr_pids

/** @return an empty analysis, or NULL and errno */
GTSC_API struct gtsc_kmem_analysis *
gtsc_kmem_analysis__new(const struct gtsc_kmem_analysis_opts *opts);

/**
 * @brief Feeds one record, in time order (a session's consume callback can
 * call it); records of other types than kmem are ignored.
 * @return 0, -EINVAL once finished, or -ENOMEM (the analysis is then unusable)
 */
GTSC_API int gtsc_kmem_analysis__add(struct gtsc_kmem_analysis *a, const struct gtsc_rec_hdr *rec);

/**
 * @brief Ends the analysis: counts what is still live, aged up to END_NS
 * (0: the last event).  The accessors below work from then on.
 * @return 0, or -EINVAL if A was finished already
 */
GTSC_API int gtsc_kmem_analysis__finish(struct gtsc_kmem_analysis *a, __u64 end_ns);

/**
 * @brief Adds every record of R (from where it is) and finishes, with live
 * objects aged to the end of the recording, on the caller's thread (the
 * records are analysed where the reader decompressed them, without a copy).
 * @return 0, or -errno (the reader's error, or -ENOMEM)
 */
GTSC_API int gtsc_kmem_analysis__read(struct gtsc_kmem_analysis *a, struct gtsc_reader *r);

/** @return the summary, or NULL and errno EINVAL before finish */
GTSC_API const struct gtsc_kmem_summary *
gtsc_kmem_analysis__summary(const struct gtsc_kmem_analysis *a);

/*
 * Result tables, by index (below the summary's nr_* or the GTSC_KMEM_*
 * count): NULL and errno ENOENT past the end, EINVAL before finish.
 * Pointers are valid until gtsc_kmem_analysis__free.
 */
GTSC_API const struct gtsc_kmem_kind_stats *
gtsc_kmem_analysis__kind(const struct gtsc_kmem_analysis *a, enum gtsc_kmem_kind kind);
GTSC_API const struct gtsc_kmem_site *gtsc_kmem_analysis__site(const struct gtsc_kmem_analysis *a,
							       size_t i);
GTSC_API const struct gtsc_kmem_group *gtsc_kmem_analysis__group(const struct gtsc_kmem_analysis *a,
								 size_t i);
/** @brief Size class K: sizes (2^(K-1), 2^K]. */
GTSC_API const struct gtsc_kmem_size_class *
gtsc_kmem_analysis__size_class(const struct gtsc_kmem_analysis *a, unsigned int k);
GTSC_API const struct gtsc_kmem_order *gtsc_kmem_analysis__order(const struct gtsc_kmem_analysis *a,
								 unsigned int order);
GTSC_API const struct gtsc_kmem_gfp_use *gtsc_kmem_analysis__gfp(const struct gtsc_kmem_analysis *a,
								 size_t i);
GTSC_API const struct gtsc_kmem_err *gtsc_kmem_analysis__err(const struct gtsc_kmem_analysis *a,
							     size_t i);
GTSC_API const struct gtsc_kmem_stack_use *
gtsc_kmem_analysis__stack(const struct gtsc_kmem_analysis *a, size_t i);

/** @brief Frees A and its results.  NULL is a no-op. */
GTSC_API void gtsc_kmem_analysis__free(struct gtsc_kmem_analysis *a);

/* ---- decoding helpers ---- */

/** @brief The class's key in JSON ("double_free"); "?" for a class this library does not know. */
GTSC_API const char *gtsc_kmem_err_name(enum gtsc_kmem_err_class cls);

/** @brief Its title in text ("double frees (allocated in the trace, freed twice)"). */
GTSC_API const char *gtsc_kmem_err_title(enum gtsc_kmem_err_class cls);

/**
 * @brief Why the class happens other than by a kernel bug, for allocations
 * of KIND (events the kernel does not trace, ...); "" when nothing else does.
 */
GTSC_API const char *gtsc_kmem_err_cause(enum gtsc_kmem_err_class cls, enum gtsc_kmem_kind kind);

/**
 * @brief Whether kfree() may free a kmem_cache_alloc() object on the kernel
 * RELEASE (uname -r, the trace's "kernel" meta): documented as allowed from
 * Linux 6.4 on (commit ae65a5211d90, with SLOB's removal).
 * @return 1 legal, 0 not, -1 when RELEASE does not say
 */
GTSC_API int gtsc_kmem_kfree_cache_legal(const char *release);

/**
 * GFP flag names by the recording kernel's own bit values: GFP bits moved
 * between kernels, so the names come from the __print_flags() list of the
 * kmem tracepoint formats a trace saves (GTSC_CHUNK_EVENT_FORMATS).
 */
struct gtsc_kmem_gfp;

/**
 * @brief Names from FORMATS (tracefs format text, LEN bytes), or from a
 * compiled-in table of Linux 6.18's values when FORMATS is NULL or names none.
 * @return the names, or NULL and errno
 */
GTSC_API struct gtsc_kmem_gfp *gtsc_kmem_gfp__new(const char *formats, size_t len);

/** @brief True if the names came from FORMATS, false for the compiled-in table. */
GTSC_API bool gtsc_kmem_gfp__from_formats(const struct gtsc_kmem_gfp *g);

/**
 * @brief FLAGS as the kernel prints them, into BUF: "GFP_KERNEL|__GFP_ZERO",
 * "none" for 0, bits without a name in hex; cut to SIZE.
 * @return 0, or -EINVAL
 */
GTSC_API int gtsc_kmem_gfp__decode(const struct gtsc_kmem_gfp *g, __u64 flags, char *buf,
				   size_t size);

/** @brief Frees G.  NULL is a no-op. */
GTSC_API void gtsc_kmem_gfp__free(struct gtsc_kmem_gfp *g);

/* ---- checking a trace (gtsc-bpf check) ---- */

/**
 * @brief What gtsc_check__run counted.  Only the library fills it, and it
 * grows only at the end.
 */
struct gtsc_check_stats {
	__u64 records;
	__u64 out_of_order; /**< records earlier than the record before them in their ring */
	__u64 nested;	    /**< earlier, but explained by an interrupt: not findings */
	__u64 max_nested_ns;
	__u64 unknown_types; /**< records of types this library does not know */
	__u64 bad_sizes;     /**< records of known types of a size they cannot have */
	__u64 dropped;	     /**< per the trailer */
	__u64 kmem_errors;   /**< kmem records that do not pair up (notes: see gtsc_check__notes) */
	bool opened;	     /**< the file opened as a trace */
	bool damaged;	     /**< truncated, a bad CRC, no trailer */
	char format[96];     /**< "format 1.0, record ABI 1.1, kernel ..., N cpus" */
	int nr_findings;
	/* since GTSC_0.2 */
	__u64 overwritten; /**< records flight channels overwrote: left out by design, not lost */
	__u64 not_covered; /**< records of channels a snapshot does not hold (the main file has them) */
	__u64 misses;	   /**< events the kernel skipped (BPF recursion protection) */
	int nr_notes;	   /**< facts that explain what a reader might take for an error */
	int nr_warnings;   /**< the trace is incomplete (drops, skipped events): not findings */
};

struct gtsc_check;

/** Nothing to set yet: a struct so that options can come without a new function. */
struct gtsc_check_opts {
	size_t sz;
	size_t : 0;
};
#define gtsc_check_opts__last_field sz

/**
 * @brief Checks the trace at PATH as kmemtrace_check did: is it whole
 * (magic, versions, chunk CRCs, truncation, trailer), are its records sane
 * (known types and sizes, each ring's records in time order), is it
 * complete (drops, events the kernel skipped, records written against
 * records in the file), and do its kmem records pair up.  A damaged or
 * foreign file is a finding, not a failure.
 * @return the check's results, or NULL and errno if it could not run
 */
GTSC_API struct gtsc_check *gtsc_check__run(const char *path, const struct gtsc_check_opts *opts);

/**
 * @brief The counts; nr_findings 0 and !damaged mean a sound trace.  A
 * finding is what is wrong in the file (damage, records lost between the
 * rings and the file, impossible records) or provably wrong in the kernel's
 * events; drops and skipped events are warnings; what gtsc-bpf cannot see
 * (overwritten flight records, channels a snapshot leaves out, kmem pairs
 * whose other half the kernel made through untraced paths or outside the
 * session's filter) are notes.
 */
GTSC_API const struct gtsc_check_stats *gtsc_check__stats(const struct gtsc_check *k);

/** @brief The findings, one sentence per line, each ending in '\n'; "" when none. */
GTSC_API const char *gtsc_check__findings(const struct gtsc_check *k);

/** @brief The notes, one sentence per line, each ending in '\n'; "" when none. */
GTSC_API const char *gtsc_check__notes(const struct gtsc_check *k);

/** @brief The warnings (the trace is incomplete), one sentence per line; "" when none. */
GTSC_API const char *gtsc_check__warnings(const struct gtsc_check *k);

/** @brief Frees K.  NULL is a no-op. */
GTSC_API void gtsc_check__free(struct gtsc_check *k);

#ifdef __cplusplus
}
#endif

#endif
