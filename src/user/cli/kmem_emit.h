/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tables for the kmem report, written once and printed either as
 * aligned text or as JSON lines (one object per row, "table" naming the
 * table) with the same keys, so that --json covers every table by design.
 */
#ifndef __GTSC_KMEM_EMIT_H
#define __GTSC_KMEM_EMIT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

enum kmem_col_type {
	KCOL_U64,
	KCOL_S64,
	KCOL_STR,
	KCOL_HEX, /* a JSON string: addresses pass 2^53 */
	KCOL_PCT, /* a percentage, 3 decimals */
	KCOL_SEC, /* seconds, 6 decimals */
};

struct kmem_col {
	const char *key;   /* JSON key */
	const char *title; /* text column title or summary label */
	int width;	   /* text width; negative: left aligned */
	enum kmem_col_type type;
};

union kmem_cell {
	__u64 u;
	__s64 i;
	const char *s;
	double d;
};

struct kmem_emit {
	FILE *out;
	bool json;
	const char *table; /* of the rows being written */
	int kv;		   /* key-value items written in the current object */
};

/* A table: its title and column titles in text; nothing in JSON. */
void kmem_emit__table(struct kmem_emit *e, const char *table, const char *title,
		      const struct kmem_col *cols, int n);
void kmem_emit__row(struct kmem_emit *e, const struct kmem_col *cols, int n,
		    const union kmem_cell *v);
/* Text only: says that HIDDEN rows were left out. */
void kmem_emit__more(struct kmem_emit *e, size_t hidden);
/* Text only: a line of prose under a table (a note, an explanation). */
__attribute__((format(printf, 2, 3))) void kmem_emit__note(struct kmem_emit *e, const char *fmt,
							   ...);

/* A record of labelled values: "  label: value" lines, or one JSON object. */
void kmem_emit__kv_begin(struct kmem_emit *e, const char *table, const char *title);
void kmem_emit__kv(struct kmem_emit *e, const struct kmem_col *c, union kmem_cell v);
void kmem_emit__kv_end(struct kmem_emit *e);

#endif
