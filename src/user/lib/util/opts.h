/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libbpf's opts rules for every opts struct the library takes (OPTS_VALID,
 * OPTS_GET in libbpf_internal.h), so that a caller built against an older
 * or newer header keeps working: sz says how much of the struct the caller
 * knows, fields past it take defaults, and bytes past what this build knows
 * must be zero (a caller setting an option we cannot honour must hear about
 * it).  Not part of any API.
 */
#ifndef __GTSC_OPTS_H
#define __GTSC_OPTS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#ifndef offsetofend
#define offsetofend(TYPE, FIELD) (offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))
#endif

/* NULL opts are valid (all defaults); KNOWN_SZ ends the last field this build knows. */
static inline bool gtsc_opts_valid(const void *opts, size_t known_sz)
{
	const unsigned char *p = opts;
	size_t sz;

	if (!opts)
		return true;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t))
		return false;
	for (size_t i = known_sz; i < sz; i++) {
		if (p[i])
			return false;
	}
	return true;
}

#define OPTS_KNOWN_SZ(type) offsetofend(struct type, type##__last_field)
#define OPTS_VALID(opts, type) gtsc_opts_valid(opts, OPTS_KNOWN_SZ(type))
#define OPTS_HAS(opts, field) ((opts) && (opts)->sz >= offsetofend(typeof(*(opts)), field))
#define OPTS_GET(opts, field, fallback) (OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/*
 * A whole-struct copy for code that keeps its opts: the part the caller's
 * sz covers, zeros past it (the defaults), and dst->sz made this build's.
 * -EINVAL on what OPTS_VALID refuses.
 */
static inline int gtsc_opts_copy(void *dst, size_t dst_sz, const void *src, size_t known_sz)
{
	size_t sz;

	memset(dst, 0, dst_sz);
	*(size_t *)dst = dst_sz;
	if (!src)
		return 0;
	if (!gtsc_opts_valid(src, known_sz))
		return -EINVAL;
	sz = *(const size_t *)src;
	memcpy(dst, src, sz < dst_sz ? sz : dst_sz);
	*(size_t *)dst = dst_sz;
	return 0;
}

#define OPTS_COPY(dst, src, type) gtsc_opts_copy(dst, sizeof(*(dst)), src, OPTS_KNOWN_SZ(type))

#endif
