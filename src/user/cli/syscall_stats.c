// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "syscall_stats.h"

struct sc_table {
	struct sc_stat **e; /* open addressing on key */
	size_t cap, n;
	struct sc_stat **all; /* scratch for sc_table__all */
};

static unsigned int bucket_of(__u64 v)
{
	int e;

	if (v < 16)
		return v;
	e = 63 - __builtin_clzll(v); /* >= 4 */
	return (e - 3) * 16 + (v >> (e - 4) & 15);
}

/* Lowest value of bucket B and its width. */
static __u64 bucket_low(unsigned int b, __u64 *width)
{
	int e;

	if (b < 16) {
		*width = 1;
		return b;
	}
	e = b / 16 + 3;
	*width = 1ULL << (e - 4);
	return (16ULL + b % 16) << (e - 4);
}

void sc_stat__add(struct sc_stat *s, __s64 ns, int failed)
{
	s->calls++;
	s->errors += !!failed;
	if (ns < 0)
		return;
	if (!s->timed || (__u64)ns < s->min_ns)
		s->min_ns = ns;
	if ((__u64)ns > s->max_ns)
		s->max_ns = ns;
	s->timed++;
	s->total_ns += ns;
	s->hist[bucket_of(ns)]++;
}

__u64 sc_stat__quantile(const struct sc_stat *s, double q)
{
	__u64 rank, seen = 0, width, v;

	if (!s->timed)
		return 0;
	rank = (__u64)(q * (double)(s->timed - 1)) + 1; /* 1-based, nearest rank below */
	for (unsigned int b = 0; b < SC_HIST_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen < rank)
			continue;
		v = bucket_low(b, &width) + width / 2;
		return v < s->min_ns ? s->min_ns : v > s->max_ns ? s->max_ns : v;
	}
	return s->max_ns;
}

struct sc_table *sc_table__new(void)
{
	return calloc(1, sizeof(struct sc_table));
}

void sc_table__free(struct sc_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->e[i]);
	free(t->e);
	free(t->all);
	free(t);
}

static size_t slot_of(__u64 key, size_t cap)
{
	return (key * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
}

static int grow(struct sc_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct sc_stat **e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t h;

		if (!t->e[i])
			continue;
		for (h = slot_of(t->e[i]->key, cap); e[h]; h = (h + 1) & (cap - 1))
			;
		e[h] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

struct sc_stat *sc_table__get(struct sc_table *t, __u64 key)
{
	size_t h;

	if (t->cap) {
		for (h = slot_of(key, t->cap); t->e[h]; h = (h + 1) & (t->cap - 1))
			if (t->e[h]->key == key)
				return t->e[h];
	}
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return NULL;
	for (h = slot_of(key, t->cap); t->e[h]; h = (h + 1) & (t->cap - 1))
		;
	t->e[h] = calloc(1, sizeof(struct sc_stat));
	if (!t->e[h])
		return NULL;
	t->e[h]->key = key;
	t->n++;
	return t->e[h];
}

struct sc_stat **sc_table__all(struct sc_table *t, size_t *n)
{
	struct sc_stat **all = realloc(t->all, (t->n + 1) * sizeof(*all));
	size_t k = 0;

	*n = 0;
	if (!all)
		return NULL;
	t->all = all;
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i])
			all[k++] = t->e[i];
	*n = k;
	return all;
}
