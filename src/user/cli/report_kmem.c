// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf report --kmem: kmemtrace-style analysis.  The trace is streamed
 * once, in time order, through the library's kmem analysis (gtsc/kmem.h);
 * then the tables are printed as text or JSON lines (kmem_emit.h).  Names
 * come from the trace: call sites from its KSYMS, caches from its cache
 * records, GFP flags from its tracefs formats.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "kmem_emit.h"
#include "folded.h"
#include "report_header.h"

enum table_bit {
	T_CALLER = 1 << 0,
	T_CACHES = 1 << 1,
	T_SIZES = 1 << 2,
	T_PAGES = 1 << 3,
	T_GFP = 1 << 4,
	T_ERRORS = 1 << 5,
	T_LEAKS = 1 << 6,
	T_ALL = (1 << 7) - 1,
};

enum sort_key { K_CALLSITE, K_HITS, K_BYTES, K_REQ, K_FRAG, K_PINGPONG, K_FREES, K_LIVE };

#define MAX_SORT_KEYS 8
#define MAX_PIDS 64
#define NAME_LEN 160
#define DEFAULT_LINES 20

struct kopts {
	struct report_inputs in;
	const char *input;
	bool json, raw_ip;
	unsigned int tables;
	enum sort_key sort[MAX_SORT_KEYS];
	int nr_sort;
	long lines; /* -1: the default (20 in text, all in JSON); 0: all */
	__u32 pids[MAX_PIDS];
	size_t nr_pids;
	enum fold_weight folded;
};

struct kctx {
	struct gtsc_reader *r;
	const struct gtsc_kmem_analysis *a;
	const struct gtsc_kmem_summary *sum;
	const struct kopts *o;
	struct gtsc_kmem_gfp *gfp;
	struct kmem_emit e;
	char (*names)[NAME_LEN]; /* of the call sites, by index */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gtsc-bpf report --kmem [-i FILE] [TABLES] [-s KEYS] [-n N]\n"
		   "                              [--pid PIDS] [--raw-ip] [--json]\n"
		   "       gtsc-bpf report --kmem --folded[=bytes|count] [-i FILE]\n"
		   "\n"
		   "Kernel memory analysis of a trace recorded with -e kmem: a summary (bytes\n"
		   "requested, allocated, freed, internal fragmentation, cross-CPU frees,\n"
		   "failures, drops), then the tables asked for; by default the call sites and\n"
		   "the errors.\n"
		   "\n"
		   "  -i, --input FILE   trace file (default " GTSC_DEFAULT_OUTPUT "), '-' a stream;\n"
		   "                     several: the files of one recording, in order\n"
		   "      --caller       allocations by call site (perf kmem's name; a default)\n"
		   "      --caches       by slab cache (--slab); kmalloc by its size class\n"
		   "      --sizes        power-of-two histogram: requested against allocated\n"
		   "      --pages        page allocations by order and migrate type (--page)\n"
		   "      --gfp          by GFP flags, named as the recording kernel names them\n"
		   "      --errors       frees that do not pair up (wrong API, double, unknown)\n"
		   "                     and failures (a default)\n"
		   "      --leaks        allocations still live at the end, by call site:\n"
		   "                     count, bytes, age\n"
		   "      --all          every table\n"
		   "  -s, --sort KEYS    call sites by callsite, hits, bytes, req, frag,\n"
		   "                     pingpong, frees, live (comma separated; default\n"
		   "                     bytes,hits)\n"
		   "  -n, --lines N      rows per table (20 in text, all in JSON; 0: all)\n"
		   "      --pid PIDS     only these processes (comma separated)\n"
		   "      --raw-ip       call sites as addresses\n"
		   "      --json         one JSON object per line: {\"table\":\"summary\",...},\n"
		   "                     then the rows of each table\n"
		   "      --folded[=W]   folded stacks for flamegraph.pl, weighted by bytes\n"
		   "                     (default) or count; needs a trace recorded with --stacks\n"
		   "\n"
		   "examples:\n"
		   "  gtsc-bpf report -i k.gtsc --kmem\n"
		   "  gtsc-bpf report -i k.gtsc --kmem --sort frag,bytes --caller -n 20\n"
		   "  gtsc-bpf report -i k.gtsc --kmem --leaks\n"
		   "  gtsc-bpf report -i k.gtsc --kmem --folded > k.folded\n");
}

static int parse_sort(struct kopts *o, const char *arg)
{
	static const struct {
		const char *name;
		enum sort_key key;
	} keys[] = {
		{ "callsite", K_CALLSITE },
		{ "hit", K_HITS },
		{ "hits", K_HITS },
		{ "bytes", K_BYTES },
		{ "alloc", K_BYTES },
		{ "req", K_REQ },
		{ "frag", K_FRAG },
		{ "pingpong", K_PINGPONG },
		{ "frees", K_FREES },
		{ "live", K_LIVE },
	};
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	o->nr_sort = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(tok, keys[i].name))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]) || o->nr_sort == MAX_SORT_KEYS) {
			fprintf(stderr,
				"gtsc-bpf: unknown sort key '%s' (keys: callsite, hits, bytes, "
				"req, frag, pingpong, frees, live)\n",
				tok);
			return -EINVAL;
		}
		o->sort[o->nr_sort++] = keys[i].key;
	}
	return o->nr_sort ? 0 : -EINVAL;
}

static int parse_pids(struct kopts *o, const char *arg)
{
	const char *p = arg;
	char *end;

	while (*p) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || v == 0 || v > 0xffffffffUL || (*end && *end != ',') ||
		    o->nr_pids == MAX_PIDS) {
			fprintf(stderr,
				"gtsc-bpf: --pid takes process ids separated by commas, not '%s'\n",
				arg);
			return -EINVAL;
		}
		o->pids[o->nr_pids++] = v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_folded(struct kopts *o, const char *arg)
{
	if (!arg || !strcmp(arg, "bytes"))
		o->folded = FOLD_BYTES;
	else if (!strcmp(arg, "count"))
		o->folded = FOLD_COUNT;
	else
		return fprintf(stderr, "gtsc-bpf: --folded weighs by bytes or count, not '%s'\n",
			       arg),
		       -EINVAL;
	return 0;
}

static int parse_lines(struct kopts *o, const char *arg)
{
	__u64 v;
	int err = cli_number("-n (rows per table)", CLI_COUNT, arg, 0, 1 << 30, &v);

	if (!err)
		o->lines = v;
	return err;
}

static int parse_args(struct kopts *o, int argc, char **argv)
{
	enum {
		O_KMEM = 256,
		O_CALLER,
		O_CACHES,
		O_SIZES,
		O_PAGES,
		O_GFP,
		O_ERRORS,
		O_LEAKS,
		O_ALL,
		O_PID,
		O_RAW,
		O_JSON,
		O_FOLDED
	};
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "kmem", no_argument, NULL, O_KMEM },
		{ "caller", no_argument, NULL, O_CALLER },
		{ "caches", no_argument, NULL, O_CACHES },
		{ "slab", no_argument, NULL, O_CACHES },
		{ "sizes", no_argument, NULL, O_SIZES },
		{ "pages", no_argument, NULL, O_PAGES },
		{ "page", no_argument, NULL, O_PAGES },
		{ "gfp", no_argument, NULL, O_GFP },
		{ "errors", no_argument, NULL, O_ERRORS },
		{ "leaks", no_argument, NULL, O_LEAKS },
		{ "all", no_argument, NULL, O_ALL },
		{ "sort", required_argument, NULL, 's' },
		{ "lines", required_argument, NULL, 'n' },
		{ "line", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, O_PID },
		{ "raw-ip", no_argument, NULL, O_RAW },
		{ "json", no_argument, NULL, O_JSON },
		{ "folded", optional_argument, NULL, O_FOLDED },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	static const unsigned int bits[] = {
		[O_CALLER - O_CALLER] = T_CALLER, [O_CACHES - O_CALLER] = T_CACHES,
		[O_SIZES - O_CALLER] = T_SIZES,	  [O_PAGES - O_CALLER] = T_PAGES,
		[O_GFP - O_CALLER] = T_GFP,	  [O_ERRORS - O_CALLER] = T_ERRORS,
		[O_LEAKS - O_CALLER] = T_LEAKS,	  [O_ALL - O_CALLER] = T_ALL,
	};
	int c, err = 0;

	o->lines = -1;
	o->sort[0] = K_BYTES;
	o->sort[1] = K_HITS;
	o->nr_sort = 2;
	while (!err && (c = getopt_long(argc, argv, "i:s:n:l:h", longopts, NULL)) != -1) {
		if (c >= O_CALLER && c <= O_ALL) {
			o->tables |= bits[c - O_CALLER];
			continue;
		}
		switch (c) {
		case 'i':
			err = report_inputs__add(&o->in, optarg);
			break;
		case 's':
			err = parse_sort(o, optarg);
			break;
		case 'n':
		case 'l':
			err = parse_lines(o, optarg);
			break;
		case O_PID:
			err = parse_pids(o, optarg);
			break;
		case O_FOLDED:
			err = parse_folded(o, optarg);
			break;
		case O_RAW:
			o->raw_ip = true;
			break;
		case O_JSON:
			o->json = true;
			break;
		case O_KMEM:
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			err = -EINVAL;
			break;
		}
	}
	err = err ?: report_inputs__rest(&o->in, argc, argv, "report");
	o->input = report_inputs__name(&o->in);
	if (err)
		fprintf(stderr, "gtsc-bpf: 'gtsc-bpf report --kmem --help' lists the options\n");
	if (!o->tables)
		o->tables = T_CALLER | T_ERRORS;
	return err;
}

/* ---- helpers ---- */

static const char *kind_name(__u8 kind)
{
	static const char *const names[] = { "kmalloc", "kmem_cache", "page" };

	return kind < GTSC_KMEM_KINDS ? names[kind] : "?";
}

static const struct gtsc_kmem_site *site_at(const struct kctx *c, size_t i)
{
	return gtsc_kmem_analysis__site(c->a, i);
}

static const struct gtsc_kmem_kind_stats *kind_stats(const struct kctx *c, int kind)
{
	return gtsc_kmem_analysis__kind(c->a, kind);
}

/* "kmalloc", "kmem_cache", or "kmalloc+kmem_cache" for a site that did both. */
static const char *kinds_name(__u8 kinds)
{
	static const char *const names[] = {
		"-",	"kmalloc",	"kmem_cache",	   "kmalloc+kmem_cache",
		"page", "kmalloc+page", "kmem_cache+page", "all" };

	return names[kinds & 7];
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* perf kmem's: the share of allocated bytes not requested. */
static double frag(__u64 req, __u64 alloc)
{
	return alloc ? 100.0 - 100.0 * (double)req / (double)alloc : 0.0;
}

static double secs(__u64 ns)
{
	return (double)ns / 1e9;
}

static size_t row_limit(const struct kctx *c, size_t n)
{
	long lines = c->o->lines < 0 ? (c->o->json ? 0 : DEFAULT_LINES) : c->o->lines;

	return lines && (size_t)lines < n ? (size_t)lines : n;
}

static void name_addr(const struct kctx *c, __u64 addr, char *buf, size_t sz)
{
	const char *s = NULL;
	__u64 off = 0;

	if (!c->o->raw_ip)
		s = gtsc_reader__ksym(c->r, addr, &off);
	if (s)
		snprintf(buf, sz, "%s+0x%llx", s, (unsigned long long)off);
	else
		snprintf(buf, sz, "0x%llx", (unsigned long long)addr);
}

static int name_sites(struct kctx *c)
{
	c->names = calloc(c->sum->nr_sites + 1, sizeof(*c->names));
	if (!c->names)
		return -ENOMEM;
	for (size_t i = 0; i < c->sum->nr_sites; i++) {
		__u64 addr = site_at(c, i)->call_site;

		if (!addr)
			snprintf(c->names[i], NAME_LEN, "%s",
				 site_at(c, i)->kinds == 1 << GTSC_KMEM_PAGE ? "(page allocator)"
									     : "(unknown)");
		else
			name_addr(c, addr, c->names[i], NAME_LEN);
	}
	return 0;
}

/* Index of the site at ADDR, for its name. */
static const char *site_name(const struct kctx *c, __u64 addr, char *buf, size_t sz)
{
	for (size_t i = 0; addr && i < c->sum->nr_sites; i++)
		if (site_at(c, i)->call_site == addr)
			return c->names[i];
	if (!addr)
		return "-";
	name_addr(c, addr, buf, sz);
	return buf;
}

/* ---- summary ---- */

static void kv_u(struct kctx *c, const char *key, const char *label, __u64 v)
{
	kmem_emit__kv(&c->e, &(struct kmem_col){ key, label, 0, KCOL_U64 },
		      (union kmem_cell){ .u = v });
}

static void kv_d(struct kctx *c, const char *key, const char *label, enum kmem_col_type t, double v)
{
	kmem_emit__kv(&c->e, &(struct kmem_col){ key, label, 0, t }, (union kmem_cell){ .d = v });
}

static void kv_s(struct kctx *c, const char *key, const char *label, const char *v)
{
	kmem_emit__kv(&c->e, &(struct kmem_col){ key, label, 0, KCOL_STR },
		      (union kmem_cell){ .s = v });
}

static __u64 meta_u64(const struct gtsc_reader *r, const char *key)
{
	const char *v = gtsc_reader__meta(r, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

static void summary_trace(struct kctx *c)
{
	const struct gtsc_kmem_summary *res = c->sum;
	__u64 start = meta_u64(c->r, "start_ns"), end = meta_u64(c->r, "end_ns");
	const char *kernel = gtsc_reader__meta(c->r, "kernel");

	kv_s(c, "file", "trace:", c->o->input);
	kv_s(c, "kernel", "recorded on kernel:", kernel ? kernel : "?");
	kv_d(c, "duration_s", "recording duration (s):", KCOL_SEC,
	     end > start ? secs(end - start) : 0);
	kv_d(c, "events_span_s", "first to last kmem event (s):", KCOL_SEC,
	     res->events ? secs(res->last_ts - res->first_ts) : 0);
	kv_u(c, "events", "kmem events analysed:", res->events);
	kv_u(c, "dropped", "kmem events dropped (rings full):",
	     report_lost(c->r, REPORT_KMEM, NULL));
	kv_u(c, "recursion_misses",
	     "events the kernel skipped (recursion):", gtsc_reader__prog_misses(c->r));
	kv_u(c, "truncated", "trace truncated or damaged (1 = yes):", gtsc_reader__truncated(c->r));
	kv_u(c, "live_objects", "objects live at the end:", res->live_objects);
	kv_u(c, "table_slots", "analysis table slots (memory):", res->table_slots);
}

static void summary_kinds(struct kctx *c)
{
	static const char *const keys[GTSC_KMEM_KINDS][2] = {
		{ "kmalloc_allocs", "kmalloc_frees" },
		{ "cache_allocs", "cache_frees" },
		{ "page_allocs", "page_frees" },
	};
	char label[64];

	for (int k = 0; k < GTSC_KMEM_KINDS; k++) {
		snprintf(label, sizeof(label), "%s allocations:", kind_name(k));
		kv_u(c, keys[k][0], label, kind_stats(c, k)->allocs);
		snprintf(label, sizeof(label), "%s frees:", kind_name(k));
		kv_u(c, keys[k][1], label, kind_stats(c, k)->frees);
	}
	kv_u(c, "null_frees", "frees of NULL or ZERO_SIZE_PTR (no-ops):",
	     kind_stats(c, GTSC_KMEM_KMALLOC)->frees_null +
		     kind_stats(c, GTSC_KMEM_CACHE)->frees_null);
}

/* perf kmem stat's slab summary, with its labels, over kmalloc and kmem_cache. */
static void summary_slab(struct kctx *c)
{
	const struct gtsc_kmem_kind_stats k[] = { *kind_stats(c, GTSC_KMEM_KMALLOC),
						  *kind_stats(c, GTSC_KMEM_CACHE) };
	__u64 req = k[0].bytes_req + k[1].bytes_req, alloc = k[0].bytes_alloc + k[1].bytes_alloc;
	__u64 freed = k[0].bytes_freed + k[1].bytes_freed;
	__u64 matched = k[0].frees_matched + k[1].frees_matched;
	__u64 pingpong = k[0].pingpong + k[1].pingpong;

	kv_u(c, "bytes_req", "Total bytes requested:", req);
	kv_u(c, "bytes_alloc", "Total bytes allocated:", alloc);
	kv_u(c, "bytes_freed", "Total bytes freed:", freed);
	kmem_emit__kv(&c->e,
		      &(struct kmem_col){ "net_bytes", "Net total bytes allocated:", 0, KCOL_S64 },
		      (union kmem_cell){ .i = (__s64)(alloc - freed) });
	kv_u(c, "frag_bytes", "Total bytes wasted on internal fragmentation:", alloc - req);
	kv_d(c, "frag_pct", "Internal fragmentation:", KCOL_PCT, frag(req, alloc));
	kv_u(c, "frees_matched", "Frees of allocations made in the trace:", matched);
	kv_u(c, "pingpong", "Cross-CPU frees (ping-pong):", pingpong);
	kv_d(c, "pingpong_pct", "Cross-CPU frees, share of those frees:", KCOL_PCT,
	     pct(pingpong, matched));
	kv_u(c, "failed", "Failed allocations:", k[0].failed + k[1].failed);
}

static void summary_pages(struct kctx *c)
{
	const struct gtsc_kmem_kind_stats *p = kind_stats(c, GTSC_KMEM_PAGE);

	kv_u(c, "page_bytes_alloc", "Page bytes allocated:", p->bytes_alloc);
	kv_u(c, "page_bytes_freed", "Page bytes freed (allocated in the trace):", p->bytes_freed);
	kv_u(c, "page_failed", "Failed page allocations:", p->failed);
	kv_u(c, "page_pingpong", "Pages freed on another CPU:", p->pingpong);
}

static void summary_errors(struct kctx *c)
{
	char key[64], label[128];

	for (int cls = 0; cls < GTSC_KMEM_ERR_MAX; cls++) {
		__u64 n = 0;

		for (size_t i = 0; i < c->sum->nr_errs; i++)
			if (gtsc_kmem_analysis__err(c->a, i)->cls == cls)
				n += gtsc_kmem_analysis__err(c->a, i)->count;
		snprintf(key, sizeof(key), "err_%s", gtsc_kmem_err_name(cls));
		snprintf(label, sizeof(label), "%s:", gtsc_kmem_err_title(cls));
		kv_u(c, key, label, n);
	}
}

static void print_warnings(struct kctx *c)
{
	if (!c->o->json)
		report_warnings(c->r, REPORT_KMEM);
}

static void print_summary(struct kctx *c)
{
	print_warnings(c);
	kmem_emit__kv_begin(&c->e, "summary", "SUMMARY");
	summary_trace(c);
	summary_kinds(c);
	if (!c->o->json)
		printf(" slab allocator (kmalloc + kmem_cache):\n");
	summary_slab(c);
	if (!c->o->json)
		printf(" page allocator:\n");
	summary_pages(c);
	if (!c->o->json)
		printf(" errors and oddities (--errors for the call sites):\n");
	summary_errors(c);
	kmem_emit__kv_end(&c->e);
}

/* ---- call sites ---- */

static int cmp_key(const struct kctx *c, enum sort_key key, size_t ia, size_t ib)
{
	const struct gtsc_kmem_site *a = site_at(c, ia), *b = site_at(c, ib);
	double fa, fb;
	__u64 x, y;

	switch (key) {
	case K_CALLSITE:
		return strcmp(c->names[ia], c->names[ib]);
	case K_FRAG:
		fa = frag(a->bytes_req, a->bytes_alloc);
		fb = frag(b->bytes_req, b->bytes_alloc);
		return fa < fb ? 1 : fa > fb ? -1 : 0;
	case K_HITS:
		x = a->allocs, y = b->allocs;
		break;
	case K_BYTES:
		x = a->bytes_alloc, y = b->bytes_alloc;
		break;
	case K_REQ:
		x = a->bytes_req, y = b->bytes_req;
		break;
	case K_PINGPONG:
		x = a->pingpong, y = b->pingpong;
		break;
	case K_FREES:
		x = a->frees, y = b->frees;
		break;
	default:
		x = a->live_bytes_alloc, y = b->live_bytes_alloc;
		break;
	}
	return x < y ? 1 : x > y ? -1 : 0; /* largest first */
}

static int cmp_sites(const void *pa, const void *pb, void *arg)
{
	const struct kctx *c = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int r = 0;

	for (int i = 0; !r && i < c->o->nr_sort; i++)
		r = cmp_key(c, c->o->sort[i], a, b);
	return r ?: (a > b) - (a < b);
}

/* Indexes of the sites that pass KEEP, sorted by the user's keys; NULL on ENOMEM. */
static size_t *sorted_sites(struct kctx *c, bool (*keep)(const struct gtsc_kmem_site *),
			    size_t *n)
{
	size_t *idx = malloc((c->sum->nr_sites + 1) * sizeof(*idx));

	*n = 0;
	if (!idx)
		return NULL;
	for (size_t i = 0; i < c->sum->nr_sites; i++)
		if (keep(site_at(c, i)))
			idx[(*n)++] = i;
	qsort_r(idx, *n, sizeof(*idx), cmp_sites, c);
	return idx;
}

static bool slab_allocs(const struct gtsc_kmem_site *s)
{
	return s->allocs && !(s->kinds & 1 << GTSC_KMEM_PAGE);
}

static int print_callers(struct kctx *c)
{
	static const struct kmem_col cols[] = {
		{ "call_site", "call site", -44, KCOL_STR },
		{ "kind", "kind", -10, KCOL_STR },
		{ "allocs", "allocs", 9, KCOL_U64 },
		{ "frees", "frees", 9, KCOL_U64 },
		{ "bytes_req", "bytes_req", 12, KCOL_U64 },
		{ "bytes_alloc", "bytes_alloc", 12, KCOL_U64 },
		{ "avg_req", "avg_req", 8, KCOL_U64 },
		{ "frag_pct", "frag", 8, KCOL_PCT },
		{ "pingpong", "x-cpu", 7, KCOL_U64 },
		{ "pingpong_pct", "x-cpu%", 8, KCOL_PCT },
		{ "failed", "failed", 6, KCOL_U64 },
	};
	const int nc = sizeof(cols) / sizeof(cols[0]);
	size_t n, shown, *idx = sorted_sites(c, slab_allocs, &n);

	if (!idx)
		return -ENOMEM;
	shown = row_limit(c, n);
	kmem_emit__table(&c->e, "callsite", "BY CALL SITE (slab)", cols, nc);
	for (size_t i = 0; i < shown; i++) {
		const struct gtsc_kmem_site *s = site_at(c, idx[i]);
		union kmem_cell v[] = {
			{ .s = c->names[idx[i]] },
			{ .s = kinds_name(s->kinds) },
			{ .u = s->allocs },
			{ .u = s->frees },
			{ .u = s->bytes_req },
			{ .u = s->bytes_alloc },
			{ .u = s->allocs ? s->bytes_req / s->allocs : 0 },
			{ .d = frag(s->bytes_req, s->bytes_alloc) },
			{ .u = s->pingpong },
			{ .d = pct(s->pingpong, s->frees) },
			{ .u = s->failed },
		};

		kmem_emit__row(&c->e, cols, nc, v);
	}
	kmem_emit__more(&c->e, n - shown);
	free(idx);
	return 0;
}

static bool has_live(const struct gtsc_kmem_site *s)
{
	return s->live;
}

static int print_leaks(struct kctx *c)
{
	static const struct kmem_col cols[] = {
		{ "call_site", "call site", -44, KCOL_STR },
		{ "kind", "kind", -10, KCOL_STR },
		{ "count", "live", 9, KCOL_U64 },
		{ "bytes_req", "bytes_req", 12, KCOL_U64 },
		{ "bytes_alloc", "bytes_alloc", 12, KCOL_U64 },
		{ "avg_age_s", "avg age s", 12, KCOL_SEC },
		{ "max_age_s", "max age s", 12, KCOL_SEC },
	};
	const int nc = sizeof(cols) / sizeof(cols[0]);
	struct kopts o = *c->o;
	const struct kopts *saved = c->o;
	size_t n, shown, *idx;

	/* the biggest suspects first, whatever --sort says for the call sites */
	o.sort[0] = K_LIVE;
	o.nr_sort = 1;
	c->o = &o;
	idx = sorted_sites(c, has_live, &n);
	c->o = saved;
	if (!idx)
		return -ENOMEM;
	shown = row_limit(c, n);
	kmem_emit__table(&c->e, "leaks",
			 "LEAK SUSPECTS: allocations still live at the end, by call site", cols,
			 nc);
	for (size_t i = 0; i < shown; i++) {
		const struct gtsc_kmem_site *s = site_at(c, idx[i]);
		union kmem_cell v[] = {
			{ .s = c->names[idx[i]] },
			{ .s = kinds_name(s->kinds) },
			{ .u = s->live },
			{ .u = s->live_bytes_req },
			{ .u = s->live_bytes_alloc },
			{ .d = secs(s->live_age_sum / s->live) },
			{ .d = secs(c->sum->end_ts - s->live_oldest_ts) },
		};

		kmem_emit__row(&c->e, cols, nc, v);
	}
	kmem_emit__more(&c->e, n - shown);
	kmem_emit__note(&c->e, " (ages up to the trace's last event; frees the kernel does not "
			       "trace, such as kfree_bulk, leave objects looking live)");
	free(idx);
	return 0;
}

/* ---- caches, sizes, pages, gfp ---- */

static void group_name(const struct gtsc_kmem_group *g, char *buf, size_t sz)
{
	if (g->kind == GTSC_KMEM_KMALLOC)
		snprintf(buf, sz, "kmalloc-%llu", (unsigned long long)g->id);
	else if (g->named)
		snprintf(buf, sz, "%s", g->name);
	else if (g->id >> 56)
		snprintf(buf, sz, "cache@0x%llx", (unsigned long long)g->id);
	else /* the tracepoint fallback does not say which cache: known by size */
		snprintf(buf, sz, "(a %llu-byte cache)", (unsigned long long)g->id);
}

static int cmp_groups(const void *pa, const void *pb)
{
	const struct gtsc_kmem_group *a = *(const struct gtsc_kmem_group *const *)pa;
	const struct gtsc_kmem_group *b = *(const struct gtsc_kmem_group *const *)pb;

	if (a->bytes_alloc != b->bytes_alloc)
		return a->bytes_alloc < b->bytes_alloc ? 1 : -1;
	return (a->allocs < b->allocs) - (a->allocs > b->allocs);
}

static int print_caches(struct kctx *c)
{
	static const struct kmem_col cols[] = {
		{ "cache", "cache", -28, KCOL_STR },
		{ "kind", "kind", -10, KCOL_STR },
		{ "object_size", "obj_size", 8, KCOL_U64 },
		{ "size", "size", 7, KCOL_U64 },
		{ "allocs", "allocs", 9, KCOL_U64 },
		{ "frees", "frees", 9, KCOL_U64 },
		{ "bytes_req", "bytes_req", 12, KCOL_U64 },
		{ "bytes_alloc", "bytes_alloc", 12, KCOL_U64 },
		{ "frag_pct", "frag", 8, KCOL_PCT },
		{ "live", "live", 8, KCOL_U64 },
	};
	const int nc = sizeof(cols) / sizeof(cols[0]);
	const struct gtsc_kmem_group **g = malloc((c->sum->nr_groups + 1) * sizeof(*g));
	size_t n = 0, shown;
	char name[64];

	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < c->sum->nr_groups; i++)
		if (gtsc_kmem_analysis__group(c->a, i)->allocs)
			g[n++] = gtsc_kmem_analysis__group(c->a, i);
	qsort(g, n, sizeof(*g), cmp_groups);
	shown = row_limit(c, n);
	kmem_emit__table(&c->e, "cache", "BY SLAB CACHE (kmalloc by the size it was served from)",
			 cols, nc);
	for (size_t i = 0; i < shown; i++) {
		bool km = g[i]->kind == GTSC_KMEM_KMALLOC;
		union kmem_cell v[] = {
			{ .s = name },
			{ .s = kind_name(g[i]->kind) },
			{ .u = km ? g[i]->id : g[i]->object_size },
			{ .u = km ? g[i]->id : g[i]->size },
			{ .u = g[i]->allocs },
			{ .u = g[i]->frees },
			{ .u = g[i]->bytes_req },
			{ .u = g[i]->bytes_alloc },
			{ .d = frag(g[i]->bytes_req, g[i]->bytes_alloc) },
			{ .u = g[i]->live },
		};

		group_name(g[i], name, sizeof(name));
		kmem_emit__row(&c->e, cols, nc, v);
	}
	kmem_emit__more(&c->e, n - shown);
	free(g);
	return 0;
}

static int print_sizes(struct kctx *c)
{
	static const struct kmem_col cols[] = {
		{ "size", "requested size", -22, KCOL_STR },
		{ "allocs_by_req", "allocs by req", 14, KCOL_U64 },
		{ "allocs_by_alloc", "allocs by alloc", 16, KCOL_U64 },
		{ "bytes_req", "bytes_req", 12, KCOL_U64 },
		{ "bytes_alloc", "bytes_alloc", 12, KCOL_U64 },
		{ "waste", "waste", 12, KCOL_U64 },
		{ "frag_pct", "frag", 8, KCOL_PCT },
	};
	const int nc = sizeof(cols) / sizeof(cols[0]);
	char label[48];

	kmem_emit__table(&c->e, "size",
			 "BY SIZE CLASS (slab): requested sizes against allocated sizes", cols, nc);
	for (int k = 0; k < GTSC_KMEM_SIZE_CLASSES; k++) {
		const struct gtsc_kmem_size_class *s = gtsc_kmem_analysis__size_class(c->a, k);
		union kmem_cell v[] = {
			{ .s = label },
			{ .u = s->by_req },
			{ .u = s->by_alloc },
			{ .u = s->bytes_req },
			{ .u = s->bytes_alloc },
			{ .u = s->bytes_alloc - s->bytes_req },
			{ .d = frag(s->bytes_req, s->bytes_alloc) },
		};

		if (!s->by_req && !s->by_alloc)
			continue;
		if (k <= 1)
			snprintf(label, sizeof(label), "%d", k);
		else
			snprintf(label, sizeof(label), "%llu-%llu", (1ULL << (k - 1)) + 1,
				 1ULL << k);
		kmem_emit__row(&c->e, cols, nc, v);
	}
	kmem_emit__note(
		&c->e,
		" (\"allocs by alloc\" counts each allocation in the class of its allocated size)");
	return 0;
}

static int print_pages(struct kctx *c)
{
	/* enum migratetype since Linux 4.4; 4 and up depend on CONFIG_CMA/MEMORY_ISOLATION */
	static const struct kmem_col cols[] = {
		{ "order", "order", 5, KCOL_U64 },
		{ "allocs", "allocs", 9, KCOL_U64 },
		{ "failed", "failed", 7, KCOL_U64 },
		{ "frees", "frees", 9, KCOL_U64 },
		{ "frees_matched", "matched", 9, KCOL_U64 },
		{ "live", "live", 8, KCOL_U64 },
		{ "unmovable", "unmovable", 10, KCOL_U64 },
		{ "movable", "movable", 9, KCOL_U64 },
		{ "reclaimable", "reclaimable", 12, KCOL_U64 },
		{ "highatomic", "highatomic", 11, KCOL_U64 },
		{ "other", "other", 7, KCOL_U64 },
	};
	const int nc = sizeof(cols) / sizeof(cols[0]);

	kmem_emit__table(&c->e, "page_order", "PAGES BY ORDER AND MIGRATE TYPE", cols, nc);
	for (int k = 0; k < GTSC_KMEM_ORDERS; k++) {
		const struct gtsc_kmem_order *o = gtsc_kmem_analysis__order(c->a, k);
		union kmem_cell v[] = {
			{ .u = k },
			{ .u = o->allocs },
			{ .u = o->failed },
			{ .u = o->frees },
			{ .u = o->frees_matched },
			{ .u = o->live },
			{ .u = o->by_migratetype[0] },
			{ .u = o->by_migratetype[1] },
			{ .u = o->by_migratetype[2] },
			{ .u = o->by_migratetype[3] },
			{ .u = 0 },
		};

		for (int m = 4; m < GTSC_KMEM_MIGRATETYPES; m++)
			v[nc - 1].u += o->by_migratetype[m];
		if (o->allocs || o->frees)
			kmem_emit__row(&c->e, cols, nc, v);
	}
	kmem_emit__note(&c->e, " (matched: frees of pages allocated in the trace; order-0 pages "
			       "freed in batches are not traced by the kernel)");
	return 0;
}

static int cmp_gfps(const void *pa, const void *pb)
{
	const struct gtsc_kmem_gfp_use *a = *(const struct gtsc_kmem_gfp_use *const *)pa;
	const struct gtsc_kmem_gfp_use *b = *(const struct gtsc_kmem_gfp_use *const *)pb;
	__u64 x = a->allocs[0] + a->allocs[1] + a->allocs[2];
	__u64 y = b->allocs[0] + b->allocs[1] + b->allocs[2];

	return x != y ? (x < y ? 1 : -1)
		      : (a->gfp_flags > b->gfp_flags) - (a->gfp_flags < b->gfp_flags);
}

static int print_gfp(struct kctx *c)
{
	static const struct kmem_col cols[] = {
		{ "gfp_flags", "gfp_flags", 10, KCOL_HEX },
		{ "kmalloc", "kmalloc", 9, KCOL_U64 },
		{ "kmem_cache", "kmem_cache", 10, KCOL_U64 },
		{ "page", "page", 9, KCOL_U64 },
		{ "bytes_alloc", "bytes_alloc", 12, KCOL_U64 },
		{ "flags", "flags", -1, KCOL_STR },
	};
	const int nc = sizeof(cols) / sizeof(cols[0]);
	size_t n = c->sum->nr_gfps, shown = row_limit(c, n);
	const struct gtsc_kmem_gfp_use **g = malloc((n + 1) * sizeof(*g));
	char flags[512];

	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		g[i] = gtsc_kmem_analysis__gfp(c->a, i);
	qsort(g, n, sizeof(*g), cmp_gfps);
	kmem_emit__table(&c->e, "gfp", "BY GFP FLAGS", cols, nc);
	for (size_t i = 0; i < shown; i++) {
		union kmem_cell v[] = {
			{ .u = g[i]->gfp_flags },
			{ .u = g[i]->allocs[0] },
			{ .u = g[i]->allocs[1] },
			{ .u = g[i]->allocs[2] },
			{ .u = g[i]->bytes_alloc },
			{ .s = flags },
		};

		gtsc_kmem_gfp__decode(c->gfp, g[i]->gfp_flags, flags, sizeof(flags));
		kmem_emit__row(&c->e, cols, nc, v);
	}
	kmem_emit__more(&c->e, n - shown);
	kmem_emit__note(&c->e, " (names from %s)",
			gtsc_kmem_gfp__from_formats(c->gfp)
				? "the recording kernel's tracefs formats"
				: "Linux 6.18's values: the trace has no formats");
	free(g);
	return 0;
}

/* ---- errors ---- */

/* Worst first: what is a bug before what only says the trace is partial. */
static const enum gtsc_kmem_err_class err_order[] = {
	GTSC_KMEM_ERR_KMALLOC_CACHE_FREE, GTSC_KMEM_ERR_DOUBLE_FREE, GTSC_KMEM_ERR_FREE_AFTER_FREE,
	GTSC_KMEM_ERR_CACHE_KFREE,	  GTSC_KMEM_ERR_ALLOC_LIVE,  GTSC_KMEM_ERR_PAGE_ORDER,
	GTSC_KMEM_ERR_NULL_ALLOC,	  GTSC_KMEM_ERR_PRETRACE_FREE,
};

static int cmp_errs(const void *pa, const void *pb)
{
	const struct gtsc_kmem_err *a = *(const struct gtsc_kmem_err *const *)pa;
	const struct gtsc_kmem_err *b = *(const struct gtsc_kmem_err *const *)pb;

	return (a->count < b->count) - (a->count > b->count);
}

/* What the user must know besides the count: legality, or another cause. */
static void err_explain(const struct kctx *c, enum gtsc_kmem_err_class cls, __u8 kind,
			char *buf, size_t sz)
{
	const char *kernel = gtsc_reader__meta(c->r, "kernel");
	int legal;

	if (cls != GTSC_KMEM_ERR_CACHE_KFREE) {
		snprintf(buf, sz, "%s", gtsc_kmem_err_cause(cls, kind));
		return;
	}
	legal = gtsc_kmem_kfree_cache_legal(kernel);
	snprintf(buf, sz,
		 "documented legal since Linux 6.4 (commit ae65a5211d90); the recording kernel %s "
		 "%s",
		 kernel ? kernel : "(unknown)",
		 legal > 0   ? "allows it"
		 : legal < 0 ? "cannot be told"
			     : "predates that: it worked with SLAB and SLUB, not with SLOB");
}

static void err_row(struct kctx *c, const struct kmem_col *cols, int nc,
		    const struct gtsc_kmem_err *e)
{
	char b1[NAME_LEN], b2[NAME_LEN];
	__u64 t0 = meta_u64(c->r, "start_ns");
	/* a free of an object from before the trace has no first site; a failure no second */
	bool first = e->cls != GTSC_KMEM_ERR_PRETRACE_FREE;
	bool second = e->cls != GTSC_KMEM_ERR_NULL_ALLOC;
	union kmem_cell v[] = {
		{ .s = gtsc_kmem_err_name(e->cls) },
		{ .s = kind_name(e->kind) },
		{ .s = kind_name(e->free_kind) },
		{ .u = e->count },
		{ .s = first ? site_name(c, e->site, b1, sizeof(b1)) : "-" },
		{ .s = second ? site_name(c, e->site2, b2, sizeof(b2)) : "-" },
		{ .u = e->first_ptr },
		{ .d = e->first_ts > t0 ? secs(e->first_ts - t0) : 0 },
	};

	kmem_emit__row(&c->e, cols, nc, v);
}

static int print_err_class(struct kctx *c, enum gtsc_kmem_err_class cls,
			   const struct gtsc_kmem_err **rows)
{
	static const struct kmem_col cols[] = {
		{ "class", "class", -18, KCOL_STR },
		{ "kind", "alloc", -10, KCOL_STR },
		{ "free_kind", "event", -10, KCOL_STR },
		{ "count", "count", 8, KCOL_U64 },
		{ "site", "first site", -40, KCOL_STR },
		{ "site2", "second site", -40, KCOL_STR },
		{ "first_ptr", "first ptr", 18, KCOL_HEX },
		{ "first_s", "at s", 12, KCOL_SEC },
	};
	const int nc = sizeof(cols) / sizeof(cols[0]);
	size_t n = 0, shown;
	__u64 total = 0;
	__u8 kind = 0;
	char why[256], title[512];

	for (size_t i = 0; i < c->sum->nr_errs; i++) {
		const struct gtsc_kmem_err *e = gtsc_kmem_analysis__err(c->a, i);

		if (e->cls != cls)
			continue;
		rows[n++] = e;
		total += e->count;
		kind = e->kind;
	}
	if (!n)
		return 0;
	qsort(rows, n, sizeof(*rows), cmp_errs);
	err_explain(c, cls, kind, why, sizeof(why));
	snprintf(title, sizeof(title), " %s: %llu%s%s", gtsc_kmem_err_title(cls),
		 (unsigned long long)total, why[0] ? " -- " : "", why);
	kmem_emit__table(&c->e, "errors", title, cols, nc);
	shown = row_limit(c, n);
	for (size_t i = 0; i < shown; i++)
		err_row(c, cols, nc, rows[i]);
	kmem_emit__more(&c->e, n - shown);
	return 1;
}

static int print_errors(struct kctx *c)
{
	const struct gtsc_kmem_err **rows = malloc((c->sum->nr_errs + 1) * sizeof(*rows));
	int any = 0;

	if (!rows)
		return -ENOMEM;
	if (!c->o->json)
		printf("\nERRORS AND ODDITIES (first/second site: allocation then free, or the two "
		       "events involved)\n");
	for (size_t i = 0; i < sizeof(err_order) / sizeof(err_order[0]); i++)
		any |= print_err_class(c, err_order[i], rows);
	if (!any)
		kmem_emit__note(&c->e,
				" none: every free paired with an allocation of the same API");
	free(rows);
	return 0;
}

/* ---- driver ---- */

static int print_tables(struct kctx *c)
{
	static const struct {
		unsigned int bit;
		int (*fn)(struct kctx *c);
	} tables[] = {
		{ T_CALLER, print_callers },
		{ T_CACHES, print_caches },
		{ T_SIZES, print_sizes },
		{ T_PAGES, print_pages },
		{ T_GFP, print_gfp },
		{ T_LEAKS, print_leaks },
		{ T_ERRORS, print_errors },
	};
	int err = name_sites(c);

	if (err)
		return err;
	if (!c->o->json)
		printf("# kmem report of %s\n", c->o->input);
	print_summary(c);
	if (!c->sum->events && !c->o->json)
		printf("\n# the trace has no kmem events%s (record with -e kmem)\n",
		       c->o->nr_pids ? " of these processes" : "");
	for (size_t i = 0; !err && i < sizeof(tables) / sizeof(tables[0]); i++)
		if (c->o->tables & tables[i].bit)
			err = tables[i].fn(c);
	return err;
}

/* --folded: each allocation stack weighed by bytes or count; -ENODATA without stacks. */
static int print_folded(const struct gtsc_reader *r, const struct gtsc_kmem_analysis *a,
			enum fold_weight w)
{
	const struct gtsc_kmem_summary *sum = gtsc_kmem_analysis__summary(a);
	struct folded_use *use;
	int err;

	if (!sum)
		return -errno;
	if (!sum->nr_stacks)
		return -ENODATA;
	use = calloc(sum->nr_stacks, sizeof(*use));
	if (!use)
		return -ENOMEM;
	for (size_t i = 0; i < sum->nr_stacks; i++) {
		const struct gtsc_kmem_stack_use *s = gtsc_kmem_analysis__stack(a, i);

		use[i].stack_id = s->stack_id;
		use[i].weight = w == FOLD_COUNT ? s->allocs : s->bytes_alloc;
	}
	err = folded__print(r, use, sum->nr_stacks,
			    w == FOLD_COUNT ? sum->unstacked_allocs : sum->unstacked_bytes, stdout);
	free(use);
	return err;
}

static int run(struct kctx *c)
{
	GTSC_OPTS(gtsc_kmem_analysis_opts, ao, .pids = c->o->pids, .nr_pids = c->o->nr_pids);
	struct gtsc_kmem_analysis *a = gtsc_kmem_analysis__new(&ao);
	size_t len = 0;
	const char *fmt = gtsc_reader__chunk_text(c->r, GTSC_CHUNK_EVENT_FORMATS, &len);
	int err;

	if (!a)
		return -errno;
	/* streamed: memory stays at the live objects, whatever the trace's length */
	err = gtsc_kmem_analysis__read(a, c->r);
	if (!err) {
		c->gfp = gtsc_kmem_gfp__new(fmt, len);
		err = c->gfp ? 0 : -errno;
	}
	if (!err) {
		c->a = a;
		c->sum = gtsc_kmem_analysis__summary(a);
		if (c->o->folded)
			err = print_folded(c->r, a, c->o->folded);
		else
			err = print_tables(c);
	}
	gtsc_kmem_analysis__free(a);
	return err;
}

int report_kmem_main(int argc, char **argv)
{
	struct kopts o = {};
	struct kctx c = { .o = &o };
	bool damaged;
	int err;

	if (parse_args(&o, argc, argv))
		return 2;
	c.r = report_open(&o.in);
	if (!c.r)
		return 1;
	c.e = (struct kmem_emit){ .out = stdout, .json = o.json };
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	err = run(&c);
	fflush(stdout);
	damaged = gtsc_reader__truncated(c.r);
	if (err == -EPIPE || (err == -EIO && errno == EPIPE))
		err = 0;
	if (err == -ENODATA)
		fprintf(stderr, "gtsc-bpf: %s has no allocation stacks: record it with --stacks\n",
			o.input);
	else if (err)
		fprintf(stderr, "gtsc-bpf: analysing %s failed: %s\n", o.input, strerror(-err));
	else if (damaged)
		fprintf(stderr, "gtsc-bpf: %s: %s\n", o.input, gtsc_reader__damage(c.r));
	gtsc_kmem_gfp__free(c.gfp);
	free(c.names);
	gtsc_reader__close(c.r);
	return err ? 1 : damaged ? 3 : 0;
}
