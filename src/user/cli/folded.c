// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "folded.h"

struct folded {
	char *stack;
	__u64 weight;
};

/* A frame's function name: no offset, no " [module]" (flame graphs merge by name). */
static void add_frame(const struct gtsc_reader *r, __u64 ip, FILE *f)
{
	const char *name = gtsc_reader__ksym(r, ip, NULL);

	if (name)
		fprintf(f, "%.*s", (int)strcspn(name, " \t"), name);
	else
		fprintf(f, "0x%llx", (unsigned long long)ip);
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
	char *buf = NULL;
	size_t len = 0, n = 0;
	const __u64 *ips = gtsc_reader__stack(r, "kernel", id, &n);
	FILE *f = open_memstream(&buf, &len);
	bool bad;

	if (!f)
		return NULL;
	while (n && tracing_frame(r, ips[0]))
		ips++, n--;
	if (!n)
		fputs("[unknown stack]", f);
	for (size_t i = n; i-- > 0;) {
		add_frame(r, ips[i], f);
		if (i)
			fputc(';', f);
	}
	bad = ferror(f);
	if (fclose(f) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
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

int folded__print(const struct gtsc_reader *r, const struct folded_use *use, size_t n_use,
		  __u64 unstacked, FILE *out)
{
	struct folded *f = calloc(n_use + 1, sizeof(*f));
	size_t n = 0;
	int err = 0;

	if (!f)
		return -ENOMEM;
	for (; n < n_use; n++) {
		f[n].stack = fold_stack(r, use[n].stack_id);
		f[n].weight = use[n].weight;
		if (!f[n].stack) {
			err = -ENOMEM;
			break;
		}
	}
	/* a full stack map or a fifth nesting level: shown, so the weights add up */
	if (!err && unstacked) {
		f[n].stack = strdup("[no stack]");
		f[n].weight = unstacked;
		err = f[n++].stack ? 0 : -ENOMEM;
	}
	if (!err)
		err = print_merged(f, n, out);
	for (size_t i = 0; i < n; i++)
		free(f[i].stack);
	free(f);
	return err;
}
