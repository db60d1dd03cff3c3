/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * gtsc-bpf check, as kmemtrace_check was for kmemtrace: is a trace whole
 * (magic, versions, chunk CRCs, truncation, trailer), are its records sane
 * (known types of known sizes, each CPU's records in time order within their
 * ring), is it complete (drops, events the kernel skipped, records written
 * against records in the file), and is its kmem stream consistent (every free
 * pairs with an allocation of the same API, no pointer allocated twice
 * without a free between).  Each finding is one sentence.
 */
#ifndef __GTSC_KMEM_CHECK_H
#define __GTSC_KMEM_CHECK_H

#include <stdbool.h>
#include <linux/types.h>
#include "strbuf.h"

struct kmem_check {
	/* what was found, for the summary line and the tests */
	__u64 records;
	__u64 out_of_order; /* records earlier than the record before them in their ring */
	__u64 nested;	    /* of which explained by an interrupt: not findings */
	__u64 max_nested_ns;
	__u64 unknown_types; /* records of types this build does not know */
	__u64 bad_sizes;     /* known types of a size they cannot have */
	__u64 dropped;	     /* per the trailer */
	__u64 kmem_errors;   /* kmem records that do not pair up (errors, not oddities) */
	bool opened;	     /* the reader accepted the file */
	bool damaged;	     /* truncated, a bad CRC, no trailer */
	char format[96];     /* "format 1.0, record ABI 1.1, kernel ..., N cpus" */
	/* the findings, one sentence per line */
	struct strbuf findings;
	int nr_findings;
};

/* Checks PATH into K (zeroed by the caller).  0 when the check ran, -errno if it could not. */
int kmem_check__run(const char *path, struct kmem_check *k);
void kmem_check__free(struct kmem_check *k);

#endif
