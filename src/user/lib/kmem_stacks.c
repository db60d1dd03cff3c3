// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "kmem_stacks.h"
#include "strbuf.h"
#include "trace_reader.h"

struct folded {
	char *stack;
	__u64 weight;
};

/* A frame's function name: no offset, no " [module]" (flame graphs merge by name). */
static void add_frame(const struct gtsc_reader *r, __u64 ip, struct strbuf *sb)
{
	const char *name = gtsc_reader__ksym(r, ip, NULL);

	if (name)
		strbuf_add(sb, name, strcspn(name, " \t"));
	else
		strbuf_addf(sb, "0x%llx", (unsigned long long)ip);
}

/* The recorder's own frames at the top of a stack: the BPF program and what ran it. */
static bool tracing_frame(const struct gtsc_reader *r, __u64 ip)
{
	static const char *const prefixes[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
					       "perf_trace_", "trace_event_raw_event_" };
	const char *name = gtsc_reader__ksym(r, ip, NULL);

	for (size_t i = 0; name && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static char *fold_stack(const struct gtsc_reader *r, __u32 id)
{
	struct strbuf sb = {};
	size_t n = 0;
	const __u64 *ips = gtsc_reader__stack(r, "kmem", id, &n);

	while (n && tracing_frame(r, ips[0]))
		ips++, n--;
	if (!n)
		strbuf_addf(&sb, "[unknown stack]");
	for (size_t i = n; i-- > 0;) {
		add_frame(r, ips[i], &sb);
		if (i)
			strbuf_add(&sb, ";", 1);
	}
	if (strbuf_err(&sb)) {
		strbuf_free(&sb);
		return NULL;
	}
	return sb.buf;
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

/* Sorted, so that stacks equal once named print as one line. */
static int print_merged(struct folded *f, size_t n, FILE *out)
{
	qsort(f, n, sizeof(*f), cmp_folded);
	for (size_t i = 0; i < n;) {
		__u64 w = 0;
		size_t j;

		for (j = i; j < n && !strcmp(f[j].stack, f[i].stack); j++)
			w += f[j].weight;
		fprintf(out, "%s %llu\n", f[i].stack, (unsigned long long)w);
		i = j;
	}
	return ferror(out) ? -EIO : 0;
}

int kmem_stacks__print_folded(const struct gtsc_reader *r, const struct kmem_results *res,
			      enum kmem_fold weight, FILE *out)
{
	struct folded *f;
	size_t n = 0;
	int err = 0;

	if (!res->nr_stacks)
		return -ENODATA;
	f = calloc(res->nr_stacks + 1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (; n < res->nr_stacks; n++) {
		const struct kmem_stack_use *s = &res->stacks[n];

		f[n].stack = fold_stack(r, s->stack_id);
		f[n].weight = weight == KMEM_FOLD_COUNT ? s->allocs : s->bytes_alloc;
		if (!f[n].stack) {
			err = -ENOMEM;
			break;
		}
	}
	/* a full stack map or a fifth nesting level: shown, so the weights add up */
	if (!err && res->unstacked.allocs) {
		f[n].stack = strdup("[no stack]");
		f[n].weight = weight == KMEM_FOLD_COUNT ? res->unstacked.allocs :
							  res->unstacked.bytes_alloc;
		err = f[n++].stack ? 0 : -ENOMEM;
	}
	if (!err)
		err = print_merged(f, n, out);
	for (size_t i = 0; i < n; i++)
		free(f[i].stack);
	free(f);
	return err;
}
