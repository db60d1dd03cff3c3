/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names call sites from /proc/kallsyms, keeping only the symbols a trace needs. */
#ifndef __GTSC_KSYMS_H
#define __GTSC_KSYMS_H

#include <stddef.h>
#include <linux/types.h>

struct strbuf;

/* Appends "hexaddr name" lines (sorted, unique) of the text symbols containing ADDRS. */
int gtsc_ksyms__resolve(const char *kallsyms, const __u64 *addrs, size_t n, struct strbuf *sb);

#endif
