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
 * Memory is bounded by threads (one held call each) and, for the summary,
 * by distinct (process, syscall) pairs: never by the trace's length.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "comm_table.h"
#include "syscall_decode.h"
#include "syscall_join.h"
#include "syscall_print.h"
#include "syscall_stats.h"
#include "trace_reader.h"

#define LINE_SZ (1 << 19) /* one output line, captured data included */
#define NR_CACHE 1024	  /* syscall numbers with a cached table lookup */
#define MAX_LIST 64	  /* --pid / --comm / --syscall entries */

struct sopts {
	const char *input;
	bool summary, per_process, json, failed, relative, durations;
	unsigned int style;
	unsigned int max_data;
	int nr_pids, nr_comms, nr_globs;
	__u32 pids[MAX_LIST];
	char *comms[MAX_LIST];
	char *globs[MAX_LIST];
	__s64 since_ns, until_ns; /* -1: unset */
};

struct sctx {
	const struct sopts *o;
	struct gtsc_reader *r;
	struct syscall_decoder *dec;
	struct syscall_joiner *join;
	struct comm_table *comms;
	struct sc_table *stats;
	__u64 t0;
	__u64 last_ts; /* -r: time of the previous line */
	bool have_last;
	__s32 syscalls_channel; /* -1 if the trace has none */
	const struct gtsc_syscall_info *si[NR_CACHE];
	signed char si_state[NR_CACHE]; /* 0 not looked up, 1 done */
	signed char glob_ok[NR_CACHE];	/* 0 not matched yet, 1 wanted, -1 not */
	struct sd_buf line;
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
		"  -i, --input FILE       trace file (default " GTSC_DEFAULT_OUTPUT ")\n"
		"  -r, --relative         time since the previous line instead of since the start\n"
		"  -T, --durations        append each call's duration, <0.000011>\n"
		"      --no-arg-names     strace's bare form: openat(AT_FDCWD, \"/x\", O_RDONLY)\n"
		"      --arg-types        C types too: openat(int dfd: AT_FDCWD, ...)\n"
		"  -s, --string-limit N   show at most N bytes of captured data (strace's -s)\n"
		"      --failed           only calls that returned an error\n"
		"      --json             one JSON object per call, decoded and raw values\n"
		"      --per-process      --summary: one table per process\n"
		"filters (a call is kept if it passes all; lists are comma separated):\n"
		"      --pid PID,...      process or thread ids\n"
		"      --comm COMM,...    command names (globs)\n"
		"      --syscall GLOB,... syscall names (globs: 'open*,*stat*')\n"
		"      --since SECONDS    calls entered at or after this time\n"
		"      --until SECONDS    calls entered before this time\n"
		"\n"
		"examples:\n"
		"  gtsc-bpf report -i t.gtsc --syscalls -T --syscall 'open*,read'\n"
		"  gtsc-bpf report -i t.gtsc --summary --per-process\n");
}

/* Splits a comma list (in place) into OUT; returns the count or -1 when too long. */
static int split_list(char *s, char **out)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (n == MAX_LIST)
			return -1;
		out[n++] = tok;
	}
	return n;
}

static int parse_pids(struct sopts *o, char *arg)
{
	char *items[MAX_LIST], *end;
	int n = split_list(arg, items);

	for (int i = 0; i < n; i++) {
		unsigned long v = strtoul(items[i], &end, 10);

		if (*end || !*items[i] || !v || v > 0xffffffffUL)
			n = -1;
		else
			o->pids[i] = v;
	}
	if (n <= 0) {
		fprintf(stderr, "gtsc-bpf: --pid wants process ids separated by commas\n");
		return -EINVAL;
	}
	o->nr_pids = n;
	return 0;
}

static int parse_seconds(const char *arg, const char *opt, __s64 *ns)
{
	char *end;
	double s = strtod(arg, &end);

	if (*end || !*arg || s < 0) {
		fprintf(stderr, "gtsc-bpf: %s wants seconds since the start, not '%s'\n", opt, arg);
		return -EINVAL;
	}
	*ns = (__s64)(s * 1e9 + 0.5);
	return 0;
}

static int parse_string_list(char **dst, int *n, char *arg, const char *opt)
{
	*n = split_list(arg, dst);
	if (*n > 0)
		return 0;
	fprintf(stderr, "gtsc-bpf: %s wants up to %d names separated by commas\n", opt, MAX_LIST);
	return -EINVAL;
}

static int parse_limit(struct sopts *o, const char *arg)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (*end || !*arg || !v || v > 1 << 20) {
		fprintf(stderr, "gtsc-bpf: -s wants a number of bytes, not '%s'\n", arg);
		return -EINVAL;
	}
	o->max_data = v;
	return 0;
}

/* The list options cut their argument (strtok): each gets its own copy, the last one given wins. */
static char *own(char **slot, const char *arg)
{
	free(*slot);
	*slot = strdup(arg);
	return *slot;
}

static int parse_args(struct sopts *o, int argc, char **argv, char *owned[3])
{
	enum {
		OPT_SYSCALLS = 256, OPT_SUMMARY, OPT_PER_PROCESS, OPT_JSON, OPT_FAILED,
		OPT_NO_NAMES, OPT_TYPES, OPT_PID, OPT_COMM, OPT_SYSCALL, OPT_SINCE, OPT_UNTIL,
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
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "syscall", required_argument, NULL, OPT_SYSCALL },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char *copy;
	int c, err = 0;

	o->input = GTSC_DEFAULT_OUTPUT;
	o->style = SD_ARG_NAMES;
	o->since_ns = o->until_ns = -1;
	optind = 1;
	while (!err && (c = getopt_long(argc, argv, "i:rTs:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case OPT_SYSCALLS: break;
		case OPT_SUMMARY: o->summary = true; break;
		case OPT_PER_PROCESS: o->per_process = true; break;
		case OPT_JSON: o->json = true; break;
		case OPT_FAILED: o->failed = true; break;
		case 'r': o->relative = true; break;
		case 'T': o->durations = true; break;
		case OPT_NO_NAMES: o->style &= ~SD_ARG_NAMES; break;
		case OPT_TYPES: o->style |= SD_ARG_TYPES | SD_ARG_NAMES; break;
		case 's': err = parse_limit(o, optarg); break;
		case OPT_PID:
			copy = own(&owned[0], optarg);
			err = copy ? parse_pids(o, copy) : -ENOMEM;
			break;
		case OPT_COMM:
			copy = own(&owned[1], optarg);
			err = copy ? parse_string_list(o->comms, &o->nr_comms, copy, "--comm")
				   : -ENOMEM;
			break;
		case OPT_SYSCALL:
			copy = own(&owned[2], optarg);
			err = copy ? parse_string_list(o->globs, &o->nr_globs, copy, "--syscall")
				   : -ENOMEM;
			break;
		case OPT_SINCE: err = parse_seconds(optarg, "--since", &o->since_ns); break;
		case OPT_UNTIL: err = parse_seconds(optarg, "--until", &o->until_ns); break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf report --syscalls --help' lists "
					"the options\n");
			return -EINVAL;
		}
	}
	if (!err && optind < argc) {
		fprintf(stderr, "gtsc-bpf: report takes no argument '%s' (use -i FILE)\n",
			argv[optind]);
		err = -EINVAL;
	}
	return err;
}

/* ---- the trace ---- */

static const struct gtsc_syscall_info *syscall_of(struct sctx *x, int nr)
{
	if (nr < 0 || nr >= NR_CACHE)
		return gtsc_reader__syscall(x->r, nr);
	if (!x->si_state[nr]) {
		x->si[nr] = gtsc_reader__syscall(x->r, nr);
		x->si_state[nr] = 1;
	}
	return x->si[nr];
}

static bool glob_wanted(struct sctx *x, int nr)
{
	char tmp[24];
	struct sd_call c = { .nr = nr, .si = syscall_of(x, nr) };
	const char *name = sd_call_name(&c, tmp);
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

/* The filters that do not depend on the call: process, command, time. */
static bool task_wanted(struct sctx *x, const struct gtsc_rec_hdr *h)
{
	const struct sopts *o = x->o;
	__s64 t = (__s64)(h->ts_ns - x->t0);
	bool ok = !o->nr_pids;

	for (int i = 0; i < o->nr_pids && !ok; i++)
		ok = o->pids[i] == h->pid || o->pids[i] == h->tid;
	if (!ok || (o->since_ns >= 0 && t < o->since_ns) || (o->until_ns >= 0 && t >= o->until_ns))
		return false;
	if (!o->nr_comms)
		return true;
	for (int i = 0; i < o->nr_comms; i++)
		if (!fnmatch(o->comms[i], comm_table__get(x->comms, h->pid, h->tid), 0))
			return true;
	return false;
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
	sd_put_secs(&x->line, t, 10);
	sd_putc(&x->line, ' ');
}

static void line_head(struct sctx *x, __u64 ts, __u32 pid, __u32 tid)
{
	struct sd_buf *b = &x->line;

	line_time(x, ts);
	sd_puts(b, comm_table__get(x->comms, pid, tid));
	sd_putc(b, '/');
	sd_putu(b, pid);
	if (tid != pid) {
		sd_putc(b, ':');
		sd_putu(b, tid);
	}
	sd_putc(b, ' ');
}

static int line_end(struct sctx *x)
{
	sd_putc(&x->line, '\n');
	return fwrite(x->line.p, 1, x->line.len, stdout) == x->line.len ? 0 : -EIO;
}

static void put_duration(struct sd_buf *b, const struct sj_call *c, bool json)
{
	if (!c->enter || !c->exit)
		return;
	sd_puts(b, json ? ",\"duration\":" : " <");
	sd_put_secs(b, (__s64)(c->exit->hdr.ts_ns - c->enter->hdr.ts_ns), 0);
	if (!json)
		sd_putc(b, '>');
}

static void decoder_call(struct sctx *x, const struct sj_call *c, struct sd_call *sc)
{
	*sc = (struct sd_call){
		.nr = c->nr,
		.si = syscall_of(x, c->nr),
		.enter = c->enter,
		.exit = c->exit,
	};
}

static int print_text(struct sctx *x, const struct sj_call *c)
{
	struct sd_call sc;

	decoder_call(x, c, &sc);
	line_head(x, c->ts, c->pid, c->tid);
	syscall_decoder__text(x->dec, &x->line, &sc, c->part);
	if (x->o->durations && c->part != SD_ENTER_PART)
		put_duration(&x->line, c, false);
	return line_end(x);
}

static int print_json(struct sctx *x, const struct sj_call *c)
{
	struct sd_buf *b = &x->line;
	const char *comm = comm_table__get(x->comms, c->pid, c->tid);
	struct sd_call sc;

	decoder_call(x, c, &sc);
	b->len = 0;
	sd_puts(b, "{\"time\":");
	sd_put_secs(b, (__s64)(c->ts - x->t0), 0);
	sd_puts(b, ",\"ts_ns\":");
	sd_putu(b, c->ts);
	sd_puts(b, ",\"pid\":");
	sd_putu(b, c->pid);
	sd_puts(b, ",\"tid\":");
	sd_putu(b, c->tid);
	sd_puts(b, ",\"comm\":");
	sd_put_json_str(b, comm, strlen(comm));
	sd_putc(b, ',');
	syscall_decoder__json(x->dec, b, &sc);
	put_duration(b, c, true);
	sd_putc(b, '}');
	return line_end(x);
}

/*
 * A new child's first record is its return from fork (clone ... = 0): no
 * call of its own, strace does not show it and the summary does not count it.
 */
static bool fork_child_return(struct sctx *x, const struct sj_call *c)
{
	const struct gtsc_syscall_info *si = syscall_of(x, c->nr);

	return !c->enter && c->exit && !c->exit->ret && si &&
	       (!strcmp(si->name, "clone") || !strcmp(si->name, "clone3") ||
		!strcmp(si->name, "fork") || !strcmp(si->name, "vfork"));
}

static int add_to_summary(struct sctx *x, const struct sj_call *c)
{
	__u64 key = (__u64)(x->o->per_process ? c->pid : 0) << 32 | (__u32)c->nr;
	struct sd_call sc = { .nr = c->nr, .exit = c->exit };
	struct sc_stat *s;
	__s64 ns = -1;

	if (fork_child_return(x, c))
		return 0;
	s = sc_table__get(x->stats, key);
	if (!s)
		return -ENOMEM;
	if (c->enter && c->exit)
		ns = (__s64)(c->exit->hdr.ts_ns - c->enter->hdr.ts_ns);
	sc_stat__add(s, ns, sd_call_failed(&sc));
	return 0;
}

/* The joiner's output: a call, or a part of one. */
static int on_call(void *ctx, const struct sj_call *c)
{
	struct sctx *x = ctx;
	struct sd_call sc = { .nr = c->nr, .exit = c->exit };

	if (x->o->summary)
		return add_to_summary(x, c);
	if (x->o->failed && !sd_call_failed(&sc))
		return 0;
	if (x->o->json)
		return print_json(x, c);
	return print_text(x, c);
}

/* ---- records ---- */

static int on_sys_enter(struct sctx *x, const struct gtsc_rec_sys_enter *e)
{
	if (!task_wanted(x, &e->hdr) || !syscall_wanted(x, e->nr))
		return 0;
	return syscall_joiner__enter(x->join, e);
}

static int on_sys_exit(struct sctx *x, const struct gtsc_rec_sys_exit *e)
{
	/* The enter passed the filters: so does its exit (the comm changes at execve). */
	if (!syscall_joiner__in_call(x->join, e->hdr.tid) &&
	    (!task_wanted(x, &e->hdr) || !syscall_wanted(x, e->nr)))
		return 0;
	return syscall_joiner__exit(x->join, e);
}

static bool streaming(const struct sctx *x)
{
	return !x->o->summary && !x->o->json && !x->o->failed;
}

/* strace's "+++ exited with 0 +++" / "+++ killed by SIGKILL +++" for a process. */
static int print_exit_line(struct sctx *x, const struct gtsc_rec_task *tk)
{
	int s = tk->exit_code & 0x7f;

	line_head(x, tk->hdr.ts_ns, tk->hdr.pid, tk->hdr.tid);
	if (!s) {
		sd_puts(&x->line, "+++ exited with ");
		sd_putu(&x->line, (tk->exit_code >> 8) & 0xff);
	} else {
		sd_puts(&x->line, "+++ killed by ");
		sp_signal(&x->line, s);
		if (tk->exit_code & 0x80)
			sd_puts(&x->line, " (core dumped)");
	}
	sd_puts(&x->line, " +++");
	return line_end(x);
}

static int on_task(struct sctx *x, const struct gtsc_rec_task *tk)
{
	int err;

	if (tk->event != GTSC_TASK_EXIT) {
		comm_table__update(x->comms, &tk->hdr);
		return 0;
	}
	/* exit, exit_group, or killed in a call: "= ?" */
	err = syscall_joiner__thread_exit(x->join, tk->hdr.tid, tk->hdr.ts_ns);
	if (!err && streaming(x) && !x->o->nr_globs && tk->hdr.pid == tk->hdr.tid &&
	    task_wanted(x, &tk->hdr)) {
		err = syscall_joiner__interrupt(x->join);
		err = err ?: print_exit_line(x, tk);
	}
	return err;
}

static int on_drops(struct sctx *x, const struct gtsc_rec_drops *d)
{
	int err;

	if (!streaming(x) || (__s32)d->channel != x->syscalls_channel)
		return 0;
	err = syscall_joiner__interrupt(x->join);
	if (err)
		return err;
	line_time(x, d->hdr.ts_ns);
	sd_puts(&x->line, "--- ");
	sd_putu(&x->line, d->count);
	sd_puts(&x->line, " syscall events lost on CPU ");
	sd_putu(&x->line, d->hdr.cpu);
	sd_puts(&x->line, " (ring full): calls around here may be missing or unfinished ---");
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

static __s32 channel_id(const struct gtsc_reader *r, const char *name)
{
	size_t n = 0;
	const struct gtsc_channel_info *ch = gtsc_reader__channels(r, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(ch[i].name, name))
			return ch[i].id;
	return -1;
}

/* Syscall events the trace lacks: dropped (rings full) or overwritten (flight mode). */
static __u64 syscall_losses(const struct sctx *x, bool *known)
{
	size_t n = 0, nf = 0;
	const struct gtsc_chan_stat *st = gtsc_reader__stats(x->r, &n);
	const struct gtsc_flight_stat *fl = gtsc_reader__flight_stats(x->r, &nf);
	__u64 lost = 0;

	*known = st != NULL;
	for (size_t i = 0; st && i < n; i++)
		if ((__s32)st[i].channel == x->syscalls_channel)
			lost += st[i].dropped;
	for (size_t i = 0; fl && i < nf; i++)
		if ((__s32)fl[i].channel == x->syscalls_channel)
			lost += fl[i].overwritten + fl[i].torn;
	return lost;
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
	bool known;
	__u64 lost = syscall_losses(x, &known), misses = gtsc_reader__prog_misses(r);

	printf("# trace: %s  host: %s  kernel: %s  arch: %s\n", x->o->input,
	       meta_or(r, "hostname", "?"), meta_or(r, "kernel", "?"), meta_or(r, "arch", "?"));
	if (!strcmp(table, "tracefs"))
		why = "names and argument types from the recording kernel";
	else if (!strcmp(table, "builtin"))
		why = "no tracefs when recorded: gtsc-bpf's compiled-in table";
	printf("# syscall table: %s (%s)  decode tables: v%u (trace recorded with v%s)\n", table,
	       why, decode_tables_version, meta_or(r, "decode_tables", "?"));
	if (x->syscalls_channel < 0)
		printf("# WARNING: the trace has no syscalls channel (no -e syscalls)\n");
	if (lost)
		printf("# WARNING: %llu syscall events were lost (rings full): some calls are "
		       "missing or show as unfinished\n",
		       (unsigned long long)lost);
	if (misses)
		printf("# WARNING: the kernel skipped %llu events (BPF recursion protection)\n",
		       (unsigned long long)misses);
	if (gtsc_reader__truncated(r))
		printf("# WARNING: %s: the trace is incomplete\n", gtsc_reader__damage(r));
	else if (!known)
		printf("# WARNING: the trace has no drop counts (no trailer)\n");
}

static void json_header(const struct sctx *x)
{
	const struct gtsc_reader *r = x->r;
	bool known;
	__u64 lost = syscall_losses(x, &known);
	char buf[4096];
	struct sd_buf b = { buf, 0, sizeof(buf) - 1 };
	const char *table = meta_or(r, "syscall_table", "unknown");

	sd_puts(&b, "{\"event\":\"trace_info\",\"file\":");
	sd_put_json_str(&b, x->o->input, strlen(x->o->input));
	sd_puts(&b, ",\"syscall_table\":");
	sd_put_json_str(&b, table, strlen(table));
	sd_puts(&b, ",\"decode_tables\":");
	sd_putu(&b, decode_tables_version);
	sd_puts(&b, ",\"recorded_decode_tables\":");
	sd_puts(&b, gtsc_reader__meta(r, "decode_tables") ? gtsc_reader__meta(r, "decode_tables")
							 : "null");
	sd_puts(&b, known ? ",\"lost\":" : ",\"lost\":null");
	if (known)
		sd_putu(&b, lost);
	sd_puts(&b, ",\"truncated\":");
	sd_puts(&b, gtsc_reader__truncated(r) ? "true}\n" : "false}\n");
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
	int nr = (__s32)(__u32)s->key;
	struct sd_call c = { .nr = nr, .si = syscall_of(x, nr) };

	return sd_call_name(&c, tmp);
}

static void summary_row_json(struct sctx *x, const struct sc_stat *s)
{
	char tmp[24];
	const char *name = stat_name(x, s, tmp);

	printf("{\"syscall\":\"%s\",\"nr\":%d,", name, (__s32)(__u32)s->key);
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
		       " %10.3f %10.3f %10.3f %10.3f %10.3f  %s\n",
		       total ? 100.0 * (double)s->total_ns / (double)total : 0.0,
		       (double)s->total_ns / 1e6, (uint64_t)s->calls, (uint64_t)s->errors,
		       us(s->timed ? s->total_ns / s->timed : 0), us(s->min_ns),
		       us(sc_stat__quantile(s, 0.5)), us(sc_stat__quantile(s, 0.99)), us(s->max_ns),
		       stat_name(x, s, tmp));
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
		printf("\n %s (%u), %zu syscalls\n\n", comm_table__get(x->comms, pid, pid), pid,
		       j - i);
		summary_table(x, all + i, j - i);
	}
	return 0;
}

/* ---- main ---- */

static int run(struct sctx *x)
{
	const struct gtsc_rec_hdr *rec;
	const char *start = gtsc_reader__meta(x->r, "start_ns");
	int n, err = 0;

	x->t0 = start ? strtoull(start, NULL, 10) : 0;
	x->syscalls_channel = channel_id(x->r, "syscalls");
	if (x->o->json)
		json_header(x);
	else
		text_header(x);
	while (!err && (n = gtsc_reader__next(x->r, &rec)) > 0)
		err = on_record(x, rec);
	if (!err && n < 0)
		err = n;
	err = err ?: syscall_joiner__finish(x->join);
	if (!err && x->o->summary)
		err = print_summary(x);
	return err;
}

static void sctx_free(struct sctx *x)
{
	syscall_joiner__free(x->join);
	free(x->line.p);
	sc_table__free(x->stats);
	comm_table__free(x->comms);
	syscall_decoder__free(x->dec);
	if (x->r)
		gtsc_reader__close(x->r);
	free(x);
}

static int open_all(struct sctx *x, const struct sopts *o)
{
	char errbuf[256] = "";
	struct gtsc_reader_opts ro = { .sz = sizeof(ro), .errbuf = errbuf,
				       .errbuf_sz = sizeof(errbuf) };
	struct sd_opts so = { .style = o->style, .max_data = o->max_data };

	x->o = o;
	x->r = gtsc_reader__open(o->input, &ro);
	if (!x->r) {
		fprintf(stderr, "gtsc-bpf: %s: %s\n", o->input,
			errbuf[0] ? errbuf : strerror(errno));
		return -ENOENT;
	}
	x->dec = syscall_decoder__new(&so);
	x->join = syscall_joiner__new(streaming(x) ? SJ_STREAM : SJ_COMPLETE, on_call, x);
	x->comms = comm_table__new();
	x->stats = sc_table__new();
	x->line = (struct sd_buf){ malloc(LINE_SZ), 0, LINE_SZ };
	if (!x->dec || !x->join || !x->comms || !x->stats || !x->line.p) {
		fprintf(stderr, "gtsc-bpf: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

int report_syscalls_main(int argc, char **argv)
{
	struct sopts o = {};
	struct sctx *x = calloc(1, sizeof(*x));
	char *owned[3] = {};
	int err, rc;

	if (!x)
		return 1;
	err = parse_args(&o, argc, argv, owned);
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
	for (int i = 0; i < 3; i++)
		free(owned[i]);
	return rc;
}
