// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf report: a header (host, kernel, duration, per-channel events and
 * drops), then every event in time order, as text or as one JSON object per
 * line.  Everything is decoded from the trace's own metadata.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gtsc/buf.h>
#include <gtsc/print.h>
#include "cli.h"
#include "progress.h"
#include "report_filter.h"
#include "report_header.h"

struct report_opts {
	struct report_inputs in;
	const char *input;
	bool json;
	bool header_only;
	struct report_filter filter;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gtsc-bpf report [-i FILE...] [MODE] [OPTIONS]\n"
		   "\n"
		   "Prints a trace: a header with the host, kernel, duration and each channel's\n"
		   "events and drops, then one line per event in time order.  A mode chooses\n"
		   "another view of the same trace; 'gtsc-bpf report MODE --help' lists its options.\n"
		   "\n"
		   "  -i, --input FILE   trace file (default " GTSC_DEFAULT_OUTPUT "); '-' reads a\n"
		   "                     stream (record -o -) from stdin as it comes; several -i,\n"
		   "                     or files after the options (-i trace.gtsc.*), are read\n"
		   "                     in recording order as one trace (record --switch-output)\n"
		   "      --json         one JSON object per line: a trace_info object, then events\n"
		   "      --header       only the header\n"
		   "filters (an event is kept if it passes all; lists are comma separated;\n"
		   "a drops line passes the task filters, as its losses may be the task's):\n"
		   REPORT_FILTER_USAGE
		   "      --since SECONDS    events at or after this time (seconds as printed)\n"
		   "      --until SECONDS    events before this time\n"
		   "\n"
		   "modes:\n"
		   "      --syscalls     strace-style lines, decoded (-T, -r, --failed, --pid, --comm,\n"
		   "                     --syscall GLOB, --since, --until, --json)\n"
		   "      --summary      per-syscall counts, errors and latency, like strace -c\n"
		   "                     (--per-process)\n"
		   "      --kmem         kernel memory: summary, call sites, caches, sizes, pages, GFP,\n"
		   "                     errors, --leaks, --folded stacks, --json\n"
		   "      --functions    per probed function (record -k): hits, pids, latency, --folded\n"
		   "\n"
		   "examples:\n"
		   "  gtsc-bpf report -i t.gtsc\n"
		   "  gtsc-bpf report -i t.gtsc --json | jq 'select(.event == \"kmalloc\")'\n"
		   "  gtsc-bpf report -i t.gtsc --comm 'kworker*' --since 1.5 --until 2\n"
		   "  gtsc-bpf report -i t.gtsc --syscalls -T --comm tar\n"
		   "  gtsc-bpf report -i t.gtsc --summary --per-process\n"
		   "  gtsc-bpf report -i t.gtsc --kmem --caller -n 10\n"
		   "  gtsc-bpf report -i t.gtsc --functions --folded | flamegraph.pl > f.svg\n"
		   "  gtsc-bpf record -a -o - | gtsc-bpf report -i - --syscalls\n"
		   "  gtsc-bpf report -i trace.gtsc.* --summary\n"
		   "\n"
		   "A stream's counts, drops and damage come with its trailer, at its end: they\n"
		   "are printed after the events.\n"
		   "Exit status: 0 a whole trace, 3 a damaged or truncated one (printed as far as\n"
		   "it goes), 1 an unreadable one, 2 a usage error.\n");
}

static int parse_args(struct report_opts *o, int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_HEADER };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "header", no_argument, NULL, OPT_HEADER },
		REPORT_FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, err;

	while ((c = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (report_inputs__add(&o->in, optarg))
				return -EINVAL;
			break;
		case OPT_JSON: o->json = true; break;
		case OPT_HEADER: o->header_only = true; break;
		case 'h': usage(stdout); exit(0);
		default:
			err = report_filter__option(&o->filter, c, optarg);
			if (!err)
				break;
			if (err != -ENOENT)
				return err;
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf report --help' lists the options\n");
			return -EINVAL;
		}
	}
	err = report_inputs__rest(&o->in, argc, argv, "report");
	o->input = report_inputs__name(&o->in);
	return err;
}

static const char *meta(const struct gtsc_reader *r, const char *key)
{
	const char *v = gtsc_reader__meta(r, key);

	return v ? v : "?";
}

static const char *scope_name(const struct gtsc_reader_channel *ch)
{
	return ch->scope == GTSC_SCOPE_PERCPU ? "percpu" : "global";
}

static const char *mode_name(const struct gtsc_reader_channel *ch)
{
	return ch->mode == GTSC_CHANNEL_OVERWRITE ? "overwrite" : "discard";
}

static double duration_s(const struct gtsc_reader *r)
{
	const char *s = gtsc_reader__meta(r, "start_ns"), *e = gtsc_reader__meta(r, "end_ns");

	return s && e ? (strtod(e, NULL) - strtod(s, NULL)) / 1e9 : -1;
}

static void text_channels(const struct gtsc_reader *r);

static void text_header(const struct gtsc_reader *r, const char *path)
{
	double dur = duration_s(r);
	char when[64];

	report_wall_time(r, when, sizeof(when));
	printf("# trace: ");
	gtsc_fputs_text(stdout, path);
	printf("\n# host: ");
	gtsc_fputs_text(stdout, meta(r, "hostname"));
	printf("  kernel: ");
	gtsc_fputs_text(stdout, meta(r, "kernel"));
	printf("  arch: ");
	gtsc_fputs_text(stdout, meta(r, "arch"));
	printf("  cpus: ");
	gtsc_fputs_text(stdout, meta(r, "nr_cpus"));
	printf("\n# recorded: %s", when);
	if (dur >= 0)
		printf(", duration %.3f s", dur);
	printf("  by: ");
	gtsc_fputs_text(stdout, meta(r, "cmdline"));
	putchar('\n');
	text_channels(r);
	/* a stream's counts, drops and damage are known at its end: they follow the events */
	if (!gtsc_reader__streaming(r))
		report_warnings(r, REPORT_EVENTS);
}

/* The end of a stream: what its trailer said, as a file's header says it. */
static void text_footer(const struct gtsc_reader *r)
{
	double dur = duration_s(r);

	printf("# end of the stream");
	if (dur >= 0)
		printf(": duration %.3f s", dur);
	printf("\n");
	text_channels(r);
	report_warnings(r, REPORT_EVENTS);
}

static void text_channels(const struct gtsc_reader *r)
{
	GTSC_OPTS(gtsc_reader_channel, ch);
	bool have_stats = gtsc_reader__has_counts(r);

	printf("# %-10s %-7s %6s %10s %12s %12s\n", "channel", "scope", "rings", "ring size",
	       "events", "dropped");
	for (size_t i = 0; !gtsc_reader__channel(r, i, &ch); i++) {
		printf("# %-10s %-7s %6u %9lluK ", ch.name, scope_name(&ch), ch.nr_rings,
		       (unsigned long long)(ch.ring_bytes >> 10));
		if (have_stats)
			printf("%12llu %12llu\n", (unsigned long long)ch.written,
			       (unsigned long long)ch.dropped);
		else
			printf("%12s %12s\n", "?", "?");
	}
	for (size_t i = 0; !gtsc_reader__channel(r, i, &ch); i++) {
		if (ch.flight)
			printf("# %-10s overwrite: %llu records retained (in this file), %llu "
			       "overwritten, %llu torn\n",
			       ch.name, (unsigned long long)ch.retained,
			       (unsigned long long)ch.overwritten, (unsigned long long)ch.torn);
	}
}

static void json_header(const struct gtsc_reader *r, const char *path)
{
	GTSC_OPTS(gtsc_reader_channel, ch);
	bool have_stats = gtsc_reader__has_counts(r);

	printf("{\"event\":\"trace_info\",\"file\":");
	gtsc_fputs_json(stdout, path);
	printf(",\"hostname\":");
	gtsc_fputs_json(stdout, meta(r, "hostname"));
	printf(",\"kernel\":");
	gtsc_fputs_json(stdout, meta(r, "kernel"));
	printf(",\"arch\":");
	gtsc_fputs_json(stdout, meta(r, "arch"));
	printf(",\"duration_s\":%.9f,\"truncated\":%s,\"channels\":[", duration_s(r),
	       gtsc_reader__truncated(r) ? "true" : "false");
	for (size_t i = 0; !gtsc_reader__channel(r, i, &ch); i++) {
		printf("%s{\"name\":", i ? "," : "");
		gtsc_fputs_json(stdout, ch.name);
		printf(",\"scope\":\"%s\",\"rings\":%u,\"ring_bytes\":%llu", scope_name(&ch),
		       ch.nr_rings, (unsigned long long)ch.ring_bytes);
		if (have_stats)
			printf(",\"events\":%llu,\"dropped\":%llu", (unsigned long long)ch.written,
			       (unsigned long long)ch.dropped);
		printf(",\"mode\":");
		gtsc_fputs_json(stdout, mode_name(&ch));
		if (ch.flight)
			printf(",\"retained\":%llu,\"overwritten\":%llu,\"torn\":%llu",
			       (unsigned long long)ch.retained, (unsigned long long)ch.overwritten,
			       (unsigned long long)ch.torn);
		printf("}");
	}
	printf("],\"recursion_misses\":%llu,\"recursion_misses_by\":",
	       (unsigned long long)gtsc_reader__prog_misses(r));
	gtsc_fputs_json(stdout, gtsc_reader__prog_skips(r));
	printf("}\n");
}

/*
 * Whether REC passes the filters; COMMS follows every record, kept or not,
 * so that --comm sees the comm the printed line shows.  A drops record is a
 * ring's, not a task's: only the time window applies to it.
 */
static bool event_wanted(const struct report_filter *f, struct gtsc_comm_table *comms,
			 const struct gtsc_rec_hdr *rec, __u64 t0)
{
	gtsc_comm_table__update(comms, rec);
	if (rec->type == GTSC_REC_DROPS)
		return report_filter__time(f, rec->ts_ns, t0);
	return report_filter__wanted(f, comms, rec, t0);
}

static int print_events(struct gtsc_reader *r, const struct report_filter *f, bool json)
{
	GTSC_OPTS(gtsc_event_printer_opts, o, .json = json);
	struct gtsc_event_printer *p = gtsc_event_printer__new(r, stdout, &o);
	struct gtsc_comm_table *comms = gtsc_comm_table__new();
	const char *start = gtsc_reader__meta(r, "start_ns");
	__u64 t0 = start ? strtoull(start, NULL, 10) : 0;
	const struct gtsc_rec_hdr *rec;
	struct read_progress prog;
	int n = 0, err = p && comms ? 0 : -ENOMEM;

	read_progress_init(&prog, r, "report", true);
	while (!err && (n = gtsc_reader__next(r, &rec)) > 0) {
		if (event_wanted(f, comms, rec, t0))
			err = gtsc_event_printer__print(p, rec);
		else
			err = gtsc_event_printer__skip(p, rec);
		read_progress_tick(&prog);
	}
	read_progress_end(&prog);
	if (!err && n < 0)
		err = n;
	gtsc_comm_table__free(comms);
	gtsc_event_printer__free(p);
	return err;
}

/* Analysis modes live in their own files; this one prints events. */
static int report_mode(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--kmem"))
			return report_kmem_main(argc, argv);
		if (!strcmp(argv[i], "--functions"))
			return report_functions_main(argc, argv);
		if (!strcmp(argv[i], "--syscalls") || !strcmp(argv[i], "--summary"))
			return report_syscalls_main(argc, argv);
	}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {};
	struct gtsc_reader *r = NULL;
	bool damaged;
	int err, rc;

	err = report_mode(argc, argv);
	if (err >= 0)
		return err;
	report_filter__init(&o.filter);
	rc = parse_args(&o, argc, argv) ? 2 : 0;
	r = rc ? NULL : report_open(&o.in);
	if (!rc && !r)
		rc = 1;
	if (rc)
		goto out;
	/* Big buffer: millions of lines go out through here. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (o.json)
		json_header(r, o.input);
	else
		text_header(r, o.input);
	err = o.header_only ? 0 : print_events(r, &o.filter, o.json);
	/* a stream's trailer came last: its counts too (JSON: a last trace_info) */
	if (!err && !o.header_only && gtsc_reader__streaming(r)) {
		if (o.json)
			json_header(r, o.input);
		else
			text_footer(r);
	}
	fflush(stdout);
	damaged = gtsc_reader__truncated(r);
	if (err == -EPIPE || (err == -EIO && errno == EPIPE))
		err = 0; /* `report | head` */
	if (err)
		fprintf(stderr, "gtsc-bpf: reading %s failed: %s\n", o.input, strerror(-err));
	else if (damaged)
		fprintf(stderr, "gtsc-bpf: %s: %s\n", o.input, gtsc_reader__damage(r));
	/* A damaged trace is printed as far as it goes, but the exit code says so. */
	rc = err ? 1 : damaged ? 3 : 0;
out:
	if (r)
		gtsc_reader__close(r);
	report_filter__free(&o.filter);
	return rc;
}
