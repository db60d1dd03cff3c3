// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf report --syscalls: one strace-style line per call, its sys_enter
 * and sys_exit joined per thread.  A call's line is held back until it
 * returns; if another thread's line must be printed first, the held call is
 * printed as "name(args <unfinished ...>" and its return later as
 * "<... name resumed>outputs) = ret", as strace -f does.  --json prints one
 * object per call when it returns, --failed only failed calls (whole lines).
 *
 * gtsc-bpf report --summary: strace -c / perf trace -s style table per
 * syscall (per process with --per-process), sorted by total time.
 *
 * Pairing and decoding are the library's (gtsc/syscalls.h); this file
 * filters, lays out lines and counts.  Memory is bounded by threads (one
 * held call each) and, for the summary, by distinct (process, syscall)
 * pairs: never by the trace's length.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gtsc/buf.h>
#include <gtsc/gtsc.h>
#include "progress.h"
#include "cli.h"
#include <gtsc/print.h>
#include "report_filter.h"
#include "report_header.h"
#include "syscall_lines.h"
#include "syscall_stats.h"

#define LINE_SZ (1 << 19) /* one output line, captured data included */
#define NR_CACHE 1024	  /* syscall numbers with a cached --syscall verdict */

struct sopts {
	struct report_inputs in;
	const char *input;
	bool summary, per_process, json, failed, relative, durations;
	unsigned int style;
	unsigned int max_data;
	struct report_filter filter; /* --pid, --tid, --comm, --since, --until */
	int nr_globs;
	char *globs[REPORT_FILTER_MAX];
	char *glob_copy;
};

struct sctx {
	const struct sopts *o;
	struct gtsc_reader *r;
	struct gtsc_syscall_decoder *dec;
	struct gtsc_comm_table *comms;
	struct sc_table *stats;
	__u64 t0;
	__u64 last_ts; /* -r: time of the previous line */
	bool have_last;
	__s32 syscalls_channel;	       /* -1 if the trace has none */
	signed char glob_ok[NR_CACHE]; /* 0 not matched yet, 1 wanted, -1 not */
	struct gtsc_buf line;
};

/* ---- options ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gtsc-bpf report --syscalls [-i FILE] [OPTIONS]\n"
		"       gtsc-bpf report --summary [-i FILE] [--per-process] [FILTERS]\n"
		"\n"
		"--syscalls prints one line per syscall, strace-style, decoded from the trace's\n"
		"own syscall table: time (seconds since recording began), comm/pid[:tid], the\n"
		"call with named arguments, its return value.  A call another thread's line\n"
		"interrupts shows as <unfinished ...> and <... name resumed>.\n"
		"--summary prints calls, errors and time per syscall (like strace -c), sorted by\n"
		"total time; percentiles come from a histogram and are within 3.2%%.\n"
		"\n"
		"  -i, --input FILE       trace file (default " GTSC_DEFAULT_OUTPUT "), '-' a stream;\n"
		"                         several: the files of one recording, in order\n"
		"  -r, --relative         time since the previous line instead of since the start\n"
		"  -T, --durations        append each call's duration, <0.000011>\n"
		"      --no-arg-names     strace's bare form: openat(AT_FDCWD, \"/x\", O_RDONLY)\n"
		"      --arg-types        C types too: openat(int dfd: AT_FDCWD, ...)\n"
		"  -s, --string-limit N   show at most N bytes of captured data (strace's -s)\n"
		"      --failed           only calls that returned an error\n"
		"      --json             one JSON object per call, decoded and raw values\n"
		"      --per-process      --summary: one table per process\n"
		"filters (a call is kept if it passes all; lists are comma separated):\n"
		REPORT_FILTER_USAGE
		"      --syscall GLOB,... syscall names (globs: 'open*,*stat*')\n"
		"      --since SECONDS    calls entered at or after this time\n"
		"      --until SECONDS    calls entered before this time\n"
		"\n"
		"examples:\n"
		"  gtsc-bpf report -i t.gtsc --syscalls -T --syscall 'open*,read'\n"
		"  gtsc-bpf report -i t.gtsc --summary --per-process\n");
}

static int parse_limit(struct sopts *o, const char *arg)
{
	__u64 v;
	int err = cli_number("-s", CLI_SIZE, arg, 1, 1 << 20, &v);

	if (!err)
		o->max_data = v;
	return err;
}

static int parse_args(struct sopts *o, int argc, char **argv)
{
	enum {
		OPT_SYSCALLS = 256, OPT_SUMMARY, OPT_PER_PROCESS, OPT_JSON, OPT_FAILED,
		OPT_NO_NAMES, OPT_TYPES, OPT_SYSCALL,
	};
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "syscalls", no_argument, NULL, OPT_SYSCALLS },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "per-process", no_argument, NULL, OPT_PER_PROCESS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "failed", no_argument, NULL, OPT_FAILED },
		{ "relative", no_argument, NULL, 'r' },
		{ "durations", no_argument, NULL, 'T' },
		{ "no-arg-names", no_argument, NULL, OPT_NO_NAMES },
		{ "arg-types", no_argument, NULL, OPT_TYPES },
		{ "string-limit", required_argument, NULL, 's' },
		{ "syscall", required_argument, NULL, OPT_SYSCALL },
		REPORT_FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, err = 0;

	o->style = GTSC_SYSCALL_ARG_NAMES;
	optind = 1;
	while (!err && (c = getopt_long(argc, argv, "i:rTs:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': err = report_inputs__add(&o->in, optarg); break;
		case OPT_SYSCALLS: break;
		case OPT_SUMMARY: o->summary = true; break;
		case OPT_PER_PROCESS: o->per_process = true; break;
		case OPT_JSON: o->json = true; break;
		case OPT_FAILED: o->failed = true; break;
		case 'r': o->relative = true; break;
		case 'T': o->durations = true; break;
		case OPT_NO_NAMES: o->style &= ~GTSC_SYSCALL_ARG_NAMES; break;
		case OPT_TYPES: o->style |= GTSC_SYSCALL_ARG_TYPES | GTSC_SYSCALL_ARG_NAMES; break;
		case 's': err = parse_limit(o, optarg); break;
		case OPT_SYSCALL:
			err = report_filter__names(&o->glob_copy, o->globs, &o->nr_globs, optarg,
						   "--syscall");
			break;
		case 'h': usage(stdout); exit(0);
		default:
			err = report_filter__option(&o->filter, c, optarg);
			if (err != -ENOENT)
				break;
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf report --syscalls --help' lists "
					"the options\n");
			return -EINVAL;
		}
	}
	err = err ?: report_inputs__rest(&o->in, argc, argv, "report");
	o->input = report_inputs__name(&o->in);
	return err;
}

/* ---- the trace ---- */

/* The trace's name of syscall NR, else "syscall_NNN" in TMP. */
static const char *syscall_name(struct sctx *x, int nr, char tmp[24])
{
	return gtsc_syscall_decoder__name(x->dec, nr, tmp, 24);
}

/*
 * A record's number as the decoder's API names it: a 32-bit task's (i386)
 * with GTSC_SYSCALL_COMPAT set, so that filters and the summary never take
 * it for the x86-64 call of the same number.
 */
static int rec_nr(const struct gtsc_rec_hdr *h, int nr)
{
	return h->flags & GTSC_SYS_F_COMPAT ? nr | GTSC_SYSCALL_COMPAT : nr;
}

static int call_nr(const struct gtsc_syscall *c)
{
	return rec_nr(c->enter ? &c->enter->hdr : &c->exit->hdr, c->nr);
}

static bool glob_wanted(struct sctx *x, int nr)
{
	char tmp[24];
	const char *name = syscall_name(x, nr, tmp);
	bool ok = false;

	for (int i = 0; i < x->o->nr_globs && !ok; i++)
		ok = !fnmatch(x->o->globs[i], name, 0);
	return ok;
}

static bool syscall_wanted(struct sctx *x, int nr)
{
	if (!x->o->nr_globs)
		return true;
	if (nr < 0 || nr >= NR_CACHE)
		return glob_wanted(x, nr);
	if (!x->glob_ok[nr])
		x->glob_ok[nr] = glob_wanted(x, nr) ? 1 : -1;
	return x->glob_ok[nr] > 0;
}

/* The filters that do not depend on the call: process, thread, command, time. */
static bool task_wanted(struct sctx *x, const struct gtsc_rec_hdr *h)
{
	return report_filter__wanted(&x->o->filter, x->comms, h, x->t0);
}

/* ---- lines ---- */

/* Starts a line with its time: since the start, or since the previous line (-r). */
static void line_time(struct sctx *x, __u64 ts)
{
	__s64 t = x->o->relative ? (x->have_last ? (__s64)(ts - x->last_ts) : 0)
				 : (__s64)(ts - x->t0);

	x->last_ts = ts;
	x->have_last = true;
	x->line.len = 0;
	gtsc_buf__put_secs(&x->line, t, 10);
	gtsc_buf__putc(&x->line, ' ');
}

static void line_head(struct sctx *x, __u64 ts, __u32 pid, __u32 tid)
{
	struct gtsc_buf *b = &x->line;
	const char *comm = gtsc_comm_table__get(x->comms, pid, tid);

	line_time(x, ts);
	gtsc_buf__put_text(b, comm, strlen(comm));
	gtsc_buf__putc(b, '/');
	gtsc_buf__putu(b, pid);
	if (tid != pid) {
		gtsc_buf__putc(b, ':');
		gtsc_buf__putu(b, tid);
	}
	gtsc_buf__putc(b, ' ');
}

static int line_end(struct sctx *x)
{
	gtsc_buf__putc(&x->line, '\n');
	return fwrite(x->line.p, 1, x->line.len, stdout) == x->line.len ? 0 : -EIO;
}

static void put_duration(struct gtsc_buf *b, const struct gtsc_syscall *c, bool json)
{
	if (!c->enter || !c->exit)
		return;
	gtsc_buf__puts(b, json ? ",\"duration\":" : " <");
	gtsc_buf__put_secs(b, (__s64)(c->exit->hdr.ts_ns - c->enter->hdr.ts_ns), 0);
	if (!json)
		gtsc_buf__putc(b, '>');
}

/*
 * strace's line after an execve that switched between 64 and 32 bits (its
 * exit record has the other ABI's flag): "[ Process PID=N runs in 32 bit
 * mode. ]", without time or comm as strace prints it.
 */
static int print_abi_switch(struct sctx *x, const struct gtsc_syscall *c)
{
	__u16 was, now;

	if (!c->enter || !c->exit || c->part == GTSC_SYSCALL_UNFINISHED)
		return 0;
	was = c->enter->hdr.flags & GTSC_SYS_F_COMPAT;
	now = c->exit->hdr.flags & GTSC_SYS_F_COMPAT;
	if (was == now)
		return 0;
	x->line.len = 0;
	gtsc_buf__puts(&x->line, "[ Process PID=");
	gtsc_buf__putu(&x->line, c->pid);
	gtsc_buf__puts(&x->line, now ? " runs in 32 bit mode. ]" : " runs in 64 bit mode. ]");
	return line_end(x);
}

static int print_text(struct sctx *x, const struct gtsc_syscall *c)
{
	struct gtsc_buf *b = &x->line;
	int err;

	line_head(x, c->ts, c->pid, c->tid);
	err = gtsc_buf__wrote(b, gtsc_syscall_decoder__text(x->dec, c, gtsc_buf__end(b),
							    gtsc_buf__room(b)));
	if (err)
		return err;
	if (x->o->durations && c->part != GTSC_SYSCALL_UNFINISHED)
		put_duration(b, c, false);
	err = line_end(x);
	return err ?: print_abi_switch(x, c);
}

static int print_json(struct sctx *x, const struct gtsc_syscall *c)
{
	struct gtsc_buf *b = &x->line;
	const char *comm = gtsc_comm_table__get(x->comms, c->pid, c->tid);
	int err;

	b->len = 0;
	gtsc_buf__puts(b, "{\"time\":");
	gtsc_buf__put_secs(b, (__s64)(c->ts - x->t0), 0);
	gtsc_buf__puts(b, ",\"ts_ns\":");
	gtsc_buf__putu(b, c->ts);
	gtsc_buf__puts(b, ",\"pid\":");
	gtsc_buf__putu(b, c->pid);
	gtsc_buf__puts(b, ",\"tid\":");
	gtsc_buf__putu(b, c->tid);
	gtsc_buf__puts(b, ",\"comm\":");
	gtsc_buf__put_json(b, comm, strlen(comm));
	gtsc_buf__putc(b, ',');
	err = gtsc_buf__wrote(b, gtsc_syscall_decoder__json(x->dec, c, gtsc_buf__end(b),
							    gtsc_buf__room(b)));
	if (err)
		return err;
	put_duration(b, c, true);
	gtsc_buf__putc(b, '}');
	return line_end(x);
}

/*
 * A new child's first record is its return from fork (clone ... = 0): no
 * call of its own, strace does not show it and the summary does not count it.
 */
static bool fork_child_return(struct sctx *x, const struct gtsc_syscall *c)
{
	char tmp[24];
	const char *name;

	if (c->enter || !c->exit || c->exit->ret)
		return false;
	name = syscall_name(x, call_nr(c), tmp);
	return !strcmp(name, "clone") || !strcmp(name, "clone3") || !strcmp(name, "fork") ||
	       !strcmp(name, "vfork");
}

static int add_to_summary(struct sctx *x, const struct gtsc_syscall *c)
{
	__u64 key = (__u64)(x->o->per_process ? c->pid : 0) << 32 | (__u32)call_nr(c);
	struct sc_stat *s;
	__s64 ns = -1;

	if (fork_child_return(x, c))
		return 0;
	s = sc_table__get(x->stats, key);
	if (!s)
		return -ENOMEM;
	if (c->enter && c->exit)
		ns = (__s64)(c->exit->hdr.ts_ns - c->enter->hdr.ts_ns);
	sc_stat__add(s, ns, c->failed);
	return 0;
}

/* The decoder's output: a call, or a part of one. */
static int on_call(void *ctx, const struct gtsc_syscall *c)
{
	struct sctx *x = ctx;

	if (x->o->summary)
		return add_to_summary(x, c);
	if (x->o->failed && !c->failed)
		return 0;
	if (x->o->json)
		return print_json(x, c);
	return print_text(x, c);
}

/* ---- records ---- */

static int on_sys_enter(struct sctx *x, const struct gtsc_rec_sys_enter *e)
{
	if (!task_wanted(x, &e->hdr) || !syscall_wanted(x, rec_nr(&e->hdr, e->nr)))
		return 0;
	return gtsc_syscall_decoder__push(x->dec, &e->hdr);
}

static int on_sys_exit(struct sctx *x, const struct gtsc_rec_sys_exit *e)
{
	/* The enter passed the filters: so does its exit (the comm changes at execve). */
	if (!gtsc_syscall_decoder__in_call(x->dec, e->hdr.tid) &&
	    (!task_wanted(x, &e->hdr) || !syscall_wanted(x, rec_nr(&e->hdr, e->nr))))
		return 0;
	return gtsc_syscall_decoder__push(x->dec, &e->hdr);
}

/* strace -f's interleaving of threads; the other outputs take whole calls. */
static bool streaming(const struct sopts *o)
{
	return !o->summary && !o->json && !o->failed;
}

/* strace's "+++ exited with 0 +++" / "+++ killed by SIGKILL +++" for a process. */
static int print_exit_line(struct sctx *x, const struct gtsc_rec_task *tk)
{
	struct gtsc_buf *b = &x->line;
	int err;

	line_head(x, tk->hdr.ts_ns, tk->hdr.pid, tk->hdr.tid);
	err = gtsc_buf__wrote(b, gtsc_syscall_decoder__task_exit(x->dec, tk, gtsc_buf__end(b), gtsc_buf__room(b)));
	return err ?: line_end(x);
}

static int on_task(struct sctx *x, const struct gtsc_rec_task *tk)
{
	int err;

	if (tk->event != GTSC_TASK_EXIT) {
		gtsc_comm_table__update(x->comms, &tk->hdr);
		return 0;
	}
	/* exit, exit_group, or killed in a call: "= ?" */
	err = gtsc_syscall_decoder__push(x->dec, &tk->hdr);
	if (!err && streaming(x->o) && !x->o->nr_globs && tk->hdr.pid == tk->hdr.tid &&
	    task_wanted(x, &tk->hdr)) {
		err = gtsc_syscall_decoder__interrupt(x->dec);
		err = err ?: print_exit_line(x, tk);
	}
	return err;
}

static int on_drops(struct sctx *x, const struct gtsc_rec_drops *d)
{
	int err;

	if (!streaming(x->o) || (__s32)d->channel != x->syscalls_channel)
		return 0;
	err = gtsc_syscall_decoder__interrupt(x->dec);
	if (err)
		return err;
	line_time(x, d->hdr.ts_ns);
	gtsc_buf__puts(&x->line, "--- ");
	gtsc_buf__putu(&x->line, d->count);
	gtsc_buf__puts(&x->line, " syscall events lost on CPU ");
	gtsc_buf__putu(&x->line, d->hdr.cpu);
	gtsc_buf__puts(&x->line, " (ring full): calls around here may be missing or unfinished ---");
	return line_end(x);
}

static int on_record(struct sctx *x, const struct gtsc_rec_hdr *h)
{
	switch (h->type) {
	case GTSC_REC_SYS_ENTER: return on_sys_enter(x, (const void *)h);
	case GTSC_REC_SYS_EXIT: return on_sys_exit(x, (const void *)h);
	case GTSC_REC_TASK: return on_task(x, (const void *)h);
	case GTSC_REC_DROPS: return on_drops(x, (const void *)h);
	default: return 0;
	}
}

/* ---- header ---- */

static __s32 syscalls_channel(const struct gtsc_reader *r)
{
	GTSC_OPTS(gtsc_reader_channel, ch);

	return gtsc_reader__channel_by_name(r, "syscalls", &ch) ? -1 : (__s32)ch.id;
}

static const char *meta_or(const struct gtsc_reader *r, const char *key, const char *dflt)
{
	const char *v = gtsc_reader__meta(r, key);

	return v ? v : dflt;
}

static void text_header(const struct sctx *x)
{
	const struct gtsc_reader *r = x->r;
	const char *table = meta_or(r, "syscall_table", "unknown");
	const char *why = "the recorder did not say";

	printf("# trace: ");
	gtsc_fputs_text(stdout, x->o->input);
	printf("  host: ");
	gtsc_fputs_text(stdout, meta_or(r, "hostname", "?"));
	printf("  kernel: ");
	gtsc_fputs_text(stdout, meta_or(r, "kernel", "?"));
	printf("  arch: ");
	gtsc_fputs_text(stdout, meta_or(r, "arch", "?"));
	putchar('\n');
	if (!strcmp(table, "tracefs"))
		why = "names and argument types from the recording kernel";
	else if (!strcmp(table, "builtin"))
		why = "no tracefs when recorded: gtsc-bpf's compiled-in table";
	printf("# syscall table: %s (%s)  decode tables: v%u (trace recorded with v%s)\n", table,
	       why, gtsc_decode_tables_version(), meta_or(r, "decode_tables", "?"));
	if (x->syscalls_channel < 0)
		printf("# WARNING: the trace has no syscalls channel (no -e syscalls)\n");
	/* a stream's losses are known at its end: run() says them there */
	if (!gtsc_reader__streaming(r))
		report_warnings(r, REPORT_SYSCALLS);
}

static void json_header(const struct sctx *x)
{
	const struct gtsc_reader *r = x->r;
	bool known;
	__u64 lost = report_lost(r, REPORT_SYSCALLS, &known);
	char buf[4096];
	struct gtsc_buf b = { buf, 0, sizeof(buf) - 1 };
	const char *table = meta_or(r, "syscall_table", "unknown");

	gtsc_buf__puts(&b, "{\"event\":\"trace_info\",\"file\":");
	gtsc_buf__put_json(&b, x->o->input, strlen(x->o->input));
	gtsc_buf__puts(&b, ",\"syscall_table\":");
	gtsc_buf__put_json(&b, table, strlen(table));
	gtsc_buf__puts(&b, ",\"decode_tables\":");
	gtsc_buf__putu(&b, gtsc_decode_tables_version());
	gtsc_buf__puts(&b, ",\"recorded_decode_tables\":");
	gtsc_buf__puts(&b, gtsc_reader__meta(r, "decode_tables") ? gtsc_reader__meta(r, "decode_tables")
							 : "null");
	gtsc_buf__puts(&b, known ? ",\"lost\":" : ",\"lost\":null");
	if (known)
		gtsc_buf__putu(&b, lost);
	gtsc_buf__puts(&b, ",\"truncated\":");
	gtsc_buf__puts(&b, gtsc_reader__truncated(r) ? "true}\n" : "false}\n");
	fwrite(buf, 1, b.len, stdout);
}

/* ---- summary ---- */

static int cmp_total(const void *a, const void *b)
{
	const struct sc_stat *x = *(const struct sc_stat *const *)a;
	const struct sc_stat *y = *(const struct sc_stat *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static double us(__u64 ns)
{
	return (double)ns / 1e3;
}

static const char *stat_name(struct sctx *x, const struct sc_stat *s, char tmp[24])
{
	return syscall_name(x, (__s32)(__u32)s->key, tmp);
}

static bool stat_compat(const struct sc_stat *s)
{
	return (__u32)s->key & GTSC_SYSCALL_COMPAT;
}

static void summary_row_json(struct sctx *x, const struct sc_stat *s)
{
	char tmp[24];
	const char *name = stat_name(x, s, tmp);

	printf("{\"syscall\":\"%s\",\"nr\":%d,%s", name,
	       (__s32)((__u32)s->key & ~(__u32)GTSC_SYSCALL_COMPAT),
	       stat_compat(s) ? "\"compat\":true,\"abi\":\"i386\"," : "");
	if (x->o->per_process)
		printf("\"pid\":%u,", (__u32)(s->key >> 32));
	printf("\"calls\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"timed\":%" PRIu64
	       ",\"total_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64 ",\"min_ns\":%" PRIu64
	       ",\"max_ns\":%" PRIu64 ",\"p50_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 "}\n",
	       (uint64_t)s->calls, (uint64_t)s->errors, (uint64_t)s->timed, (uint64_t)s->total_ns,
	       (uint64_t)(s->timed ? s->total_ns / s->timed : 0), (uint64_t)s->min_ns,
	       (uint64_t)s->max_ns, (uint64_t)sc_stat__quantile(s, 0.5),
	       (uint64_t)sc_stat__quantile(s, 0.99));
}

/* One table: the rows of one process (or all), already sorted. */
static void summary_table(struct sctx *x, struct sc_stat **rows, size_t n)
{
	__u64 total = 0, calls = 0, errors = 0;
	char tmp[24];

	for (size_t i = 0; i < n; i++)
		total += rows[i]->total_ns, calls += rows[i]->calls, errors += rows[i]->errors;
	printf("%6s %12s %10s %8s %10s %10s %10s %10s %10s  %s\n", "%time", "total(ms)", "calls",
	       "errors", "avg(us)", "min(us)", "p50(us)", "p99(us)", "max(us)", "syscall");
	for (size_t i = 0; i < n; i++) {
		const struct sc_stat *s = rows[i];

		printf("%6.2f %12.3f %10" PRIu64 " %8" PRIu64
		       " %10.3f %10.3f %10.3f %10.3f %10.3f  %s%s\n",
		       total ? 100.0 * (double)s->total_ns / (double)total : 0.0,
		       (double)s->total_ns / 1e6, (uint64_t)s->calls, (uint64_t)s->errors,
		       us(s->timed ? s->total_ns / s->timed : 0), us(s->min_ns),
		       us(sc_stat__quantile(s, 0.5)), us(sc_stat__quantile(s, 0.99)), us(s->max_ns),
		       stat_name(x, s, tmp), stat_compat(s) ? " [i386]" : "");
	}
	printf("%6s %12.3f %10" PRIu64 " %8" PRIu64 "  %s\n", "100.00", (double)total / 1e6,
	       (uint64_t)calls, (uint64_t)errors, "total");
}

static int cmp_pid_then_total(const void *a, const void *b)
{
	const struct sc_stat *x = *(const struct sc_stat *const *)a;
	const struct sc_stat *y = *(const struct sc_stat *const *)b;

	if (x->key >> 32 != y->key >> 32)
		return x->key >> 32 < y->key >> 32 ? -1 : 1;
	return cmp_total(a, b);
}

static int print_summary(struct sctx *x)
{
	size_t n = 0, i, j;
	struct sc_stat **all = sc_table__all(x->stats, &n);

	if (!all && n)
		return -ENOMEM;
	qsort(all, n, sizeof(*all), x->o->per_process ? cmp_pid_then_total : cmp_total);
	if (x->o->json) {
		for (i = 0; i < n; i++)
			summary_row_json(x, all[i]);
		return 0;
	}
	if (!x->o->per_process) {
		summary_table(x, all, n);
		return 0;
	}
	for (i = 0; i < n; i = j) {
		__u32 pid = all[i]->key >> 32;

		for (j = i; j < n && all[j]->key >> 32 == pid; j++)
			;
		printf("\n ");
		gtsc_fputs_text(stdout, gtsc_comm_table__get(x->comms, pid, pid));
		printf(" (%u), %zu syscalls\n\n", pid, j - i);
		summary_table(x, all + i, j - i);
	}
	return 0;
}

/* ---- main ---- */

static int run(struct sctx *x)
{
	const struct gtsc_rec_hdr *rec;
	struct read_progress prog;
	const char *start = gtsc_reader__meta(x->r, "start_ns");
	int n, err = 0;

	x->t0 = start ? strtoull(start, NULL, 10) : 0;
	x->syscalls_channel = syscalls_channel(x->r);
	if (x->o->json)
		json_header(x);
	else
		text_header(x);
	read_progress_init(&prog, x->r, "report", !x->o->summary);
	while (!err && (n = gtsc_reader__next(x->r, &rec)) > 0) {
		err = on_record(x, rec);
		read_progress_tick(&prog);
	}
	read_progress_end(&prog);
	if (!err && n < 0)
		err = n;
	err = err ?: gtsc_syscall_decoder__finish(x->dec);
	if (!err && x->o->summary)
		err = print_summary(x);
	if (!err && !x->o->json && gtsc_reader__streaming(x->r))
		report_warnings(x->r, REPORT_SYSCALLS);
	return err;
}

/* What open_view made. */
static void sctx_release(struct sctx *x)
{
	free(x->line.p);
	sc_table__free(x->stats);
	gtsc_comm_table__free(x->comms);
	gtsc_syscall_decoder__free(x->dec);
}

static void sctx_free(struct sctx *x)
{
	sctx_release(x);
	if (x->r)
		gtsc_reader__close(x->r);
	free(x);
}

/* The decoder, names and line of X, which reads R. */
static int open_view(struct sctx *x, const struct sopts *o, struct gtsc_reader *r)
{
	GTSC_OPTS(gtsc_syscall_decoder_opts, so, .style = o->style, .max_data = o->max_data,
		  .whole_calls = !streaming(o),
		  .fn = on_call, .ctx = x);

	x->o = o;
	x->r = r;
	x->dec = gtsc_syscall_decoder__new(x->r, &so);
	x->comms = gtsc_comm_table__new();
	x->stats = sc_table__new();
	x->line = (struct gtsc_buf){ malloc(LINE_SZ + 1), 0, LINE_SZ };
	if (!x->dec || !x->comms || !x->stats || !x->line.p) {
		fprintf(stderr, "gtsc-bpf: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

#define PART(t, rec, field)                                                                        \
	{ .type = t, .off = offsetof(struct rec, field), .size = sizeof(((struct rec *)0)->field) }

/*
 * What --summary reads of records (on_record(), the filters, the decoder's
 * joining, add_to_summary()): the headers of calls but their cpu, their
 * numbers and results, task records whole but their cpu; not the arguments
 * nor the captured memory, nor drops records (on_drops() prints only in
 * strace's interleaving).  Measured (bench/read_speed.sh's openread trace,
 * 2.2 M records, one thread, 9 alternating runs, load ~2.4): the 1.2 file
 * 0.112 -> 0.096 s CPU (median; the LZ4 file 0.086); the cpus skipped too:
 * within noise (0.096).
 */
static const struct gtsc_rec_part summary_reads[] = {
	{ .type = GTSC_REC_SYS_ENTER, .size = offsetof(struct gtsc_rec_hdr, cpu) },
	{ .type = GTSC_REC_SYS_EXIT, .size = offsetof(struct gtsc_rec_hdr, cpu) },
	{ .type = GTSC_REC_TASK, .size = offsetof(struct gtsc_rec_hdr, cpu) },
	{ .type = GTSC_REC_SYS_ENTER, .off = offsetof(struct gtsc_rec_hdr, flags),
	  .size = sizeof(struct gtsc_rec_hdr) - offsetof(struct gtsc_rec_hdr, flags) },
	{ .type = GTSC_REC_SYS_EXIT, .off = offsetof(struct gtsc_rec_hdr, flags),
	  .size = sizeof(struct gtsc_rec_hdr) - offsetof(struct gtsc_rec_hdr, flags) },
	{ .type = GTSC_REC_TASK, .off = offsetof(struct gtsc_rec_hdr, flags), .size = 0xffff },
	PART(GTSC_REC_SYS_ENTER, gtsc_rec_sys_enter, nr),
	PART(GTSC_REC_SYS_EXIT, gtsc_rec_sys_exit, nr),
	PART(GTSC_REC_SYS_EXIT, gtsc_rec_sys_exit, ret),
};

static int open_all(struct sctx *x, const struct sopts *o)
{
	struct gtsc_reader *r =
		o->summary ? report_open_reading(&o->in, summary_reads,
						 sizeof(summary_reads) / sizeof(summary_reads[0]))
			   : report_open(&o->in);

	return r ? open_view(x, o, r) : -ENOENT;
}

/* ---- record --live ---- */

struct syscall_lines {
	struct sopts o;
	struct sctx x;
};

struct syscall_lines *syscall_lines__new(struct gtsc_reader *r, bool json)
{
	struct syscall_lines *l = calloc(1, sizeof(*l));
	const char *start = gtsc_reader__meta(r, "start_ns");

	if (!l)
		return NULL;
	l->o.json = json;
	l->o.style = GTSC_SYSCALL_ARG_NAMES;
	report_filter__init(&l->o.filter);
	l->x.t0 = start ? strtoull(start, NULL, 10) : 0;
	l->x.syscalls_channel = syscalls_channel(r);
	if (open_view(&l->x, &l->o, r)) {
		syscall_lines__free(l);
		return NULL;
	}
	return l;
}

int syscall_lines__record(struct syscall_lines *l, const struct gtsc_rec_hdr *h)
{
	const struct gtsc_rec_task *tk = (const void *)h;
	const struct gtsc_rec_drops *d = (const void *)h;
	int err = on_record(&l->x, h);

	if (err)
		return err;
	switch (h->type) {
	case GTSC_REC_SYS_ENTER:
	case GTSC_REC_SYS_EXIT:
		return 1;
	case GTSC_REC_TASK: /* a process's exit is strace's "+++ exited" line */
		return tk->event == GTSC_TASK_EXIT && streaming(&l->o) && h->pid == h->tid;
	case GTSC_REC_DROPS:
		return streaming(&l->o) && (__s32)d->channel == l->x.syscalls_channel;
	default:
		return 0;
	}
}

int syscall_lines__finish(struct syscall_lines *l)
{
	return gtsc_syscall_decoder__finish(l->x.dec);
}

void syscall_lines__free(struct syscall_lines *l)
{
	if (!l)
		return;
	sctx_release(&l->x); /* the reader is the caller's */
	free(l);
}

int report_syscalls_main(int argc, char **argv)
{
	struct sopts o = {};
	struct sctx *x = calloc(1, sizeof(*x));
	int err, rc;

	if (!x)
		return 1;
	report_filter__init(&o.filter);
	err = parse_args(&o, argc, argv);
	if (err) {
		rc = 2;
		goto out;
	}
	err = open_all(x, &o);
	if (err) {
		rc = 1;
		goto out;
	}
	/* Big buffer: millions of lines go out through here. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	err = run(x);
	if (fflush(stdout) && !err)
		err = -errno;
	if (err == -EPIPE || (err == -EIO && errno == EPIPE))
		err = 0; /* `report | head` */
	if (err)
		fprintf(stderr, "gtsc-bpf: reading %s failed: %s\n", o.input, strerror(-err));
	else if (gtsc_reader__truncated(x->r))
		fprintf(stderr, "gtsc-bpf: %s: %s\n", o.input, gtsc_reader__damage(x->r));
	/* A damaged trace is printed as far as it goes, but the exit code says so. */
	rc = err ? 1 : gtsc_reader__truncated(x->r) ? 3 : 0;
out:
	sctx_free(x);
	report_filter__free(&o.filter);
	free(o.glob_copy);
	return rc;
}
