// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf report --functions: per probed function its hits, the processes
 * that made them and, for FUNC%return, entry->return latency percentiles.
 * Prototypes come from the trace's FUNCS chunk (the recording kernel's BTF).
 *
 *   kernel_clone hits=10 returns=10 p50_ns=41230 p99_ns=98000 max_ns=98000
 *     long kernel_clone(struct kernel_clone_args *args)
 *     pid 1234 (forker) 10
 *
 * With --folded, the entry hits' kernel stacks (record --stacks) instead,
 * weighted by hits, for flamegraph.pl.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gtsc/buf.h>
#include "cli.h"
#include <gtsc/print.h>
#include "folded.h"
#include "report_header.h"

struct u64_vec {
	__u64 *v;
	size_t n, cap;
};

struct func_stat {
	const struct gtsc_func_info *fi;
	__u64 hits, returns;
	struct u64_vec lat; /* return latencies, ns */
};

struct func_report {
	struct func_stat *st; /* by function id */
	size_t n;
	struct u64_vec hitters; /* func id << 32 | pid, one per entry */
	struct gtsc_comm_table *comms;
	bool folded;
	struct u64_vec stacks; /* --folded: the stack id of each entry that has one */
	__u64 unstacked;	/* entries without */
};

static int vec_push(struct u64_vec *v, __u64 x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 256;
		__u64 *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static int report_init(struct func_report *fr, const struct gtsc_reader *r)
{
	const struct gtsc_func_info *fi = gtsc_reader__funcs(r, &fr->n);
	size_t max_id = 0;

	for (size_t i = 0; i < fr->n; i++)
		if (fi[i].id >= max_id)
			max_id = fi[i].id + 1;
	fr->n = max_id;
	fr->st = calloc(max_id ? max_id : 1, sizeof(*fr->st));
	fr->comms = gtsc_comm_table__new();
	if (!fr->st || !fr->comms)
		return -ENOMEM;
	for (size_t i = 0; i < max_id; i++)
		fr->st[i].fi = gtsc_reader__func(r, i);
	return 0;
}

static void report_free(struct func_report *fr)
{
	for (size_t i = 0; fr->st && i < fr->n; i++)
		free(fr->st[i].lat.v);
	free(fr->st);
	free(fr->hitters.v);
	free(fr->stacks.v);
	gtsc_comm_table__free(fr->comms);
}

static int account(struct func_report *fr, const struct gtsc_rec_hdr *h)
{
	const struct gtsc_rec_func *e = (const void *)h;
	struct func_stat *st;

	if (h->type == GTSC_REC_TASK)
		gtsc_comm_table__update(fr->comms, h);
	if (h->type != GTSC_REC_FUNC || e->func_id >= fr->n)
		return 0;
	st = &fr->st[e->func_id];
	if (e->kind == GTSC_FUNC_RETURN) {
		st->returns++;
		/* 0: the entry was not seen (started before recording, or evicted). */
		return e->latency_ns ? vec_push(&st->lat, e->latency_ns) : 0;
	}
	st->hits++;
	if (fr->folded && e->stack_id)
		return vec_push(&fr->stacks, e->stack_id);
	if (fr->folded) {
		fr->unstacked++;
		return 0;
	}
	return vec_push(&fr->hitters, (__u64)e->func_id << 32 | h->pid);
}

/* "char *buf", "int fd": no space after a pointer's star. */
static const char *c_sep(const char *type)
{
	size_t n = strlen(type);

	return n && type[n - 1] == '*' ? "" : " ";
}

static void print_proto(const struct gtsc_func_info *fi)
{
	if (!strcmp(fi->ret_type, "?")) {
		printf("    %s(...)  (no BTF prototype)\n", fi->name);
		return;
	}
	printf("    %s%s%s(", fi->ret_type, c_sep(fi->ret_type), fi->name);
	for (int i = 0; i < fi->nr_args; i++)
		printf("%s%s%s%s", i ? ", " : "", fi->arg_type[i], c_sep(fi->arg_type[i]),
		       fi->arg_name[i]);
	printf("%s)\n", fi->nr_args ? "" : "void");
}

/* Hitters of function ID, from *pos in the sorted hitters, one line per pid. */
static void print_pids(struct func_report *fr, __u32 id, size_t *pos)
{
	const struct u64_vec *h = &fr->hitters;

	while (*pos < h->n && h->v[*pos] >> 32 == id) {
		__u32 pid = (__u32)h->v[*pos];
		size_t n = 0;

		for (; *pos < h->n && h->v[*pos] == ((__u64)id << 32 | pid); (*pos)++)
			n++;
		printf("    pid %u (", pid);
		gtsc_fputs_text(stdout, gtsc_comm_table__get(fr->comms, pid, pid));
		printf(") %zu\n", n);
	}
}

static void print_func(struct func_report *fr, struct func_stat *st, size_t *pos)
{
	const struct u64_vec *l = &st->lat;

	printf("%s hits=%llu", st->fi->name, (unsigned long long)st->hits);
	if (st->fi->has_return) {
		printf(" returns=%llu", (unsigned long long)st->returns);
		qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
		if (l->n)
			printf(" p50_ns=%llu p99_ns=%llu max_ns=%llu",
			       (unsigned long long)l->v[(l->n - 1) * 50 / 100],
			       (unsigned long long)l->v[(l->n - 1) * 99 / 100],
			       (unsigned long long)l->v[l->n - 1]);
	}
	printf("\n");
	print_proto(st->fi);
	print_pids(fr, st->fi->id, pos);
}

static int print_report(struct func_report *fr, const char *path)
{
	size_t pos = 0, hit = 0;
	__u64 entries = 0;

	qsort(fr->hitters.v, fr->hitters.n, sizeof(*fr->hitters.v), cmp_u64);
	for (size_t i = 0; i < fr->n; i++) {
		hit += fr->st[i].fi && fr->st[i].hits;
		entries += fr->st[i].hits;
	}
	printf("# functions: %zu probed, %zu hit, %llu hits in all (%s)\n", fr->n, hit,
	       (unsigned long long)entries, path);
	for (size_t i = 0; i < fr->n; i++)
		if (fr->st[i].fi)
			print_func(fr, &fr->st[i], &pos);
	return ferror(stdout) ? -EIO : 0;
}

/* The entries' stacks, each weighted by its hits; -ENODATA when none has one. */
static int print_folded(struct func_report *fr, const struct gtsc_reader *r)
{
	struct u64_vec *v = &fr->stacks;
	struct folded_use *use;
	size_t n = 0;
	int err;

	if (!v->n)
		return -ENODATA;
	use = calloc(v->n, sizeof(*use));
	if (!use)
		return -ENOMEM;
	qsort(v->v, v->n, sizeof(*v->v), cmp_u64);
	for (size_t i = 0; i < v->n; i++) {
		if (!n || use[n - 1].stack_id != v->v[i])
			use[n++].stack_id = v->v[i];
		use[n - 1].weight++;
	}
	err = folded__print(r, use, n, fr->unstacked, stdout);
	free(use);
	return err;
}

static int parse_args(int argc, char **argv, struct report_inputs *in, bool *folded)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "folded", no_argument, NULL, 'f' },
		{ "functions", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (report_inputs__add(in, optarg))
				return -EINVAL;
			break;
		case 'f': *folded = true; break;
		case 'F': break;
		case 'h':
			printf("usage: gtsc-bpf report --functions [--folded] [-i FILE...]\n\n"
			       "Per probed function (record -k): hits, the processes that made\n"
			       "them, and for FUNC%%return the entry->return latency p50/p99/max.\n"
			       "--folded prints the hits' kernel stacks (record --stacks) for\n"
			       "flamegraph.pl, weighted by hits.\n\n"
			       "  -i, --input FILE   trace file (default " GTSC_DEFAULT_OUTPUT "), '-' a stream;\n"
			       "                     several: the files of one recording, in order\n"
			       "      --folded       the hits' kernel stacks, folded\n\n"
			       "examples:\n"
			       "  gtsc-bpf report -i t.gtsc --functions\n"
			       "  gtsc-bpf report -i t.gtsc --functions --folded | flamegraph.pl > f.svg\n");
			exit(0);
		default:
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf report --functions --help' lists the "
					"options\n");
			return -EINVAL;
		}
	}
	return report_inputs__rest(in, argc, argv, "report");
}

int report_functions_main(int argc, char **argv)
{
	struct func_report fr = {};
	const struct gtsc_rec_hdr *rec;
	struct gtsc_reader *r;
	struct report_inputs in = {};
	const char *input;
	int n = 0, err;

	if (parse_args(argc, argv, &in, &fr.folded))
		return 2;
	input = report_inputs__name(&in);
	r = report_open(&in);
	if (!r)
		return 1;
	err = report_init(&fr, r);
	while (!err && (n = gtsc_reader__next(r, &rec)) > 0)
		err = account(&fr, rec);
	if (!err && n < 0)
		err = n;
	if (!err && !fr.n)
		printf("# no function probes in %s (record -k FUNC)\n", input);
	else if (!err && fr.folded)
		err = print_folded(&fr, r);
	else if (!err)
		err = print_report(&fr, input);
	if (err == -ENODATA)
		fprintf(stderr, "gtsc-bpf: %s has no function stacks: record it with --stacks\n",
			input);
	else if (err)
		fprintf(stderr, "gtsc-bpf: reading %s failed: %s\n", input, strerror(-err));
	else if (gtsc_reader__truncated(r))
		fprintf(stderr, "gtsc-bpf: %s: %s\n", input, gtsc_reader__damage(r));
	report_free(&fr);
	n = err ? 1 : gtsc_reader__truncated(r) ? 3 : 0;
	gtsc_reader__close(r);
	return n;
}
