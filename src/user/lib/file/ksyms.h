/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names call sites from /proc/kallsyms, keeping only the symbols a trace needs. */
#ifndef __GTSC_KSYMS_H
#define __GTSC_KSYMS_H

#include <stddef.h>
#include <linux/types.h>

struct strbuf;
struct ksym_table;

/* Appends "hexaddr name" lines (sorted, unique) of the text symbols containing ADDRS. */
int gt_ksyms__resolve(const char *kallsyms, const __u64 *addrs, size_t n, struct strbuf *sb);

/* The text symbols of KALLSYMS (NULL: /proc/kallsyms), to name call sites as they come. */
struct ksym_table *gt_ksyms__load(const char *kallsyms);
/* As gt_ksyms__resolve, from a table loaded once. */
int gt_ksyms__name(const struct ksym_table *t, const __u64 *addrs, size_t n, struct strbuf *sb);
void gt_ksyms__free(struct ksym_table *t);

#endif
