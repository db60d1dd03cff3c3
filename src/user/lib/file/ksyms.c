// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"
#include "strbuf.h"

struct ksym {
	__u64 addr;
	char *name;
};

struct ksym_table {
	struct ksym *syms;
	size_t n, cap;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static int table_add(struct ksym_table *t, __u64 addr, const char *name, const char *mod)
{
	struct ksym *s;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;

		s = realloc(t->syms, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->syms = s;
		t->cap = cap;
	}
	s = &t->syms[t->n];
	s->addr = addr;
	if (mod[0] && asprintf(&s->name, "%s %s", name, mod) < 0)
		return -ENOMEM;
	if (!mod[0] && !(s->name = strdup(name)))
		return -ENOMEM;
	t->n++;
	return 0;
}

static int table_load(struct ksym_table *t, const char *path)
{
	char line[512], name[256], mod[128];
	unsigned long long addr;
	char type;
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		if (sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod) < 3)
			continue;
		/* Call sites are code: data symbols would only shadow them. */
		if (type != 't' && type != 'T')
			continue;
		err = table_add(t, addr, name, mod);
	}
	fclose(f);
	if (!err)
		qsort(t->syms, t->n, sizeof(*t->syms), cmp_ksym);
	return err;
}

static const struct ksym *table_find(const struct ksym_table *t, __u64 addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->syms[lo - 1] : NULL;
}

struct ksym_table *gt_ksyms__load(const char *kallsyms)
{
	struct ksym_table *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return errno = ENOMEM, NULL;
	err = table_load(t, kallsyms ? kallsyms : "/proc/kallsyms");
	if (err) {
		gt_ksyms__free(t);
		return errno = -err, NULL;
	}
	return t;
}

void gt_ksyms__free(struct ksym_table *t)
{
	for (size_t i = 0; t && i < t->n; i++)
		free(t->syms[i].name);
	if (t)
		free(t->syms);
	free(t);
}

int gt_ksyms__name(const struct ksym_table *t, const __u64 *addrs, size_t n, struct strbuf *sb)
{
	__u64 *sorted = malloc(n * sizeof(*sorted) + 1);
	const struct ksym *last = NULL;

	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, addrs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		const struct ksym *s = table_find(t, sorted[i]);

		/* All-zero addresses mean kptr_restrict hid them: nothing to name. */
		if (!s || !s->addr || s == last)
			continue;
		gt_strbuf_addf(sb, "%llx %s\n", (unsigned long long)s->addr, s->name);
		last = s;
	}
	free(sorted);
	return 0;
}

int gt_ksyms__resolve(const char *kallsyms, const __u64 *addrs, size_t n, struct strbuf *sb)
{
	struct ksym_table *t = gt_ksyms__load(kallsyms);
	int err;

	if (!t)
		return -errno;
	err = gt_ksyms__name(t, addrs, n, sb);
	gt_ksyms__free(t);
	return err;
}
