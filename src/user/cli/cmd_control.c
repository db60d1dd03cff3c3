// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf list | status NAME | stop NAME | start NAME | snapshot NAME |
 * rewind NAME | kill NAME: talk to running sessions through their control
 * sockets (gtsc/control.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gtsc/buf.h>
#include <gtsc/gtsc.h>
#include "cli.h"

/*
 * How long `kill` waits for the recorder to finish its file.  Detaching is
 * the slow part: one tracepoint unregister and RCU grace period per link,
 * and the kmem rescue programs add 12 links where programs are
 * preemptible; 10 s was not enough on 6.12-rt under qemu TCG at load 15.
 */
#define KILL_WAIT_MS 30000

/*
 * A request line.  One that does not fit stays cut at the buffer's end,
 * longer than any request the library sends: it refuses it (-E2BIG).
 */
struct request {
	char line[8192];
	size_t len;
};

__attribute__((format(printf, 2, 3))) static void req_addf(struct request *q, const char *fmt, ...)
{
	size_t room = sizeof(q->line) - q->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(q->line + q->len, room, fmt, ap);
	va_end(ap);
	q->len += n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
}

/* The reply's text, or why there is none. */
static const char *reply_text(const char *r, int err)
{
	return r ? r : strerror(err < 0 ? -err : ENOMEM);
}

/* Value of KEY= in a status reply, copied into BUF. */
static const char *reply_value(const char *r, const char *key, char *buf, size_t sz)
{
	size_t klen = strlen(key);

	for (const char *p = r; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			snprintf(buf, sz, "%.*s", (int)strcspn(p + klen + 1, "\n"), p + klen + 1);
			return buf;
		}
	}
	snprintf(buf, sz, "?");
	return buf;
}

/* Sums the "cpu" lines of a status reply. */
static void reply_totals(const char *r, unsigned long long *ev, unsigned long long *dr)
{
	*ev = *dr = 0;
	for (const char *p = r; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		char chan[64];
		unsigned int cpu;
		unsigned long long w, d;

		if (sscanf(p, "cpu\t%63s\t%u\t%llu\t%llu", chan, &cpu, &w, &d) == 4)
			*ev += w, *dr += d;
	}
}

static int need_root(void)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "gtsc-bpf: controlling sessions needs root\n");
	return 1;
}

static int cmd_list(void)
{
	char **names, v[5][256], e[64], e2[256];
	int shown = 0;

	if (need_root())
		return 1;
	names = gtsc_control__names();
	if (!names) {
		fprintf(stderr, "gtsc-bpf: cannot read %s: %s\n", GTSC_RUN_DIR, strerror(errno));
		return 1;
	}
	for (int i = 0; names[i]; i++) {
		unsigned long long ev, dr;
		char *r = NULL;

		/* A dead recorder's socket is removed by the request itself. */
		if (gtsc_control__request(names[i], "status", &r) || !r) {
			free(r);
			continue;
		}
		if (!shown++)
			printf("%-16s %7s %-9s %10s %8s  %-24s %-16s %s\n", "NAME", "PID", "STATE",
			       "EVENTS", "DROPPED", "SOURCES", "FILTER", "OUTPUT");
		reply_totals(r, &ev, &dr);
		printf("%-16s %7s %-9s %10llu %8llu  %-24s %-16s ", gtsc_text(e, sizeof(e), names[i]),
		       reply_value(r, "pid", v[0], sizeof(v[0])),
		       reply_value(r, "state", v[1], sizeof(v[1])), ev, dr,
		       reply_value(r, "sources", v[4], sizeof(v[4])),
		       gtsc_text(e2, sizeof(e2), reply_value(r, "filter", v[2], sizeof(v[2]))));
		gtsc_fputs_text(stdout, reply_value(r, "output", v[3], sizeof(v[3])));
		putchar('\n');
		free(r);
	}
	if (!shown)
		printf("no sessions running\n");
	gtsc_control__free_names(names);
	return 0;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : "";
}

/* channel NAME SCOPE MODE BYTES BUFFERS SUB_SIZE NR_SUB */
static void print_channels(const char *r)
{
	printf("  %-10s %-7s %-9s %10s %5s %9s %9s\n", "channel", "scope", "mode", "size",
	       "bufs", "sub_size", "nr_sub");
	for (const char *p = r; p && *p; p = next_line(p)) {
		char chan[64], scope[16], mode[16];
		unsigned long long bytes, sub;
		unsigned int bufs, nr_sub;

		if (sscanf(p, "channel\t%63s\t%15s\t%15s\t%llu\t%u\t%llu\t%u", chan, scope, mode,
			   &bytes, &bufs, &sub, &nr_sub) == 7)
			printf("  %-10s %-7s %-9s %9lluK %5u %9llu %9u\n", chan, scope, mode,
			       bytes >> 10, bufs, sub, nr_sub);
	}
}

/* flight NAME CPU|all WRITTEN RETAINED OVERWRITTEN TORN: of CHAN and CPU, into V[4]. */
static bool flight_line(const char *r, const char *chan, const char *cpu, unsigned long long *v)
{
	for (const char *p = r; p && *p; p = next_line(p)) {
		char c[64], region[16];

		if (sscanf(p, "flight\t%63s\t%15s\t%llu\t%llu\t%llu\t%llu", c, region, &v[0], &v[1],
			   &v[2], &v[3]) == 6 &&
		    !strcmp(c, chan) && !strcmp(region, cpu))
			return true;
	}
	return false;
}

static void print_cpu_row(const char *r, const char *chan, const char *cpu,
			  unsigned long long w, const char *dropped)
{
	unsigned long long fl[4];

	printf("  %-10s %4s %12llu %12s", chan, cpu, w, dropped);
	if (flight_line(r, chan, cpu, fl))
		printf(" %12llu %12llu\n", fl[2], fl[1]);
	else
		printf(" %12s %12s\n", "-", "-");
}

/* Per channel and CPU; a global flight channel's counts are its one region's ("all"). */
static void print_cpus(const char *r)
{
	unsigned long long fl[4];
	char num[32];

	printf("  %-10s %4s %12s %12s %12s %12s\n", "channel", "cpu", "events", "dropped",
	       "overwritten", "retained");
	for (const char *p = r; p && *p; p = next_line(p)) {
		char chan[64], cpu[16];
		unsigned long long w, d;

		if (sscanf(p, "cpu\t%63s\t%15s\t%llu\t%llu", chan, cpu, &w, &d) != 4)
			continue;
		snprintf(num, sizeof(num), "%llu", d);
		print_cpu_row(r, chan, cpu, w, num);
	}
	for (const char *p = r; p && *p; p = next_line(p)) {
		char chan[64];

		if (sscanf(p, "flight\t%63s\tall\t%llu", chan, &fl[0]) == 2)
			print_cpu_row(r, chan, "all", fl[0], "-");
	}
}

/* A line of key=value items the recorder separates by tabs, values escaped. */
static void put_status_line(const char *p, size_t len)
{
	for (size_t n; (n = strcspn(p, "\t\n")) < len; p += n + 1, len -= n + 1) {
		gtsc_fput_text(stdout, p, n);
		putchar('\t');
	}
	gtsc_fput_text(stdout, p, len);
	putchar('\n');
}

static void print_status(const char *name, const char *r)
{
	printf("session ");
	gtsc_fputs_text(stdout, name);
	putchar('\n');
	for (const char *p = r; p && *p; p = next_line(p)) {
		if (strncmp(p, "cpu\t", 4) && strncmp(p, "channel\t", 8) && strncmp(p, "flight\t", 7)) {
			fputs("  ", stdout);
			put_status_line(p, strcspn(p, "\n"));
		}
	}
	print_channels(r);
	print_cpus(r);
}

/* `kill` returns once the recorder has finished its file and removed its socket. */
static int wait_gone(const char *name)
{
	if (!gtsc_control__wait_ended(name, KILL_WAIT_MS))
		return 0;
	fprintf(stderr, "gtsc-bpf: session '%s' did not end within %d s\n", name,
		KILL_WAIT_MS / 1000);
	return 1;
}

/*
 * The recorder writes the file, so it gets an absolute path, and one without
 * blanks: the protocol splits a request at them.
 */
static int absolute_path(const char *path, struct request *out)
{
	char cwd[4096];

	if (strpbrk(path, " \t\n")) {
		fprintf(stderr, "gtsc-bpf: snapshot: the path may not contain blanks: '%s'\n", path);
		return -EINVAL;
	}
	if (path[0] == '/') {
		req_addf(out, "%s", path);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)) || strpbrk(cwd, " \t\n")) {
		fprintf(stderr, "gtsc-bpf: snapshot: cannot make '%s' absolute\n", path);
		return -EINVAL;
	}
	req_addf(out, "%s/%s", cwd, path);
	return 0;
}

static void snapshot_usage(FILE *f)
{
	fprintf(f, "usage: gtsc-bpf snapshot NAME [-o FILE] [--consume]\n"
		   "\n"
		   "Writes what session NAME's overwrite (flight) channels hold now into a\n"
		   "complete trace file, and keeps recording.  Nothing is consumed: the same\n"
		   "records can be written again.  Default FILE: the session's OUTPUT.N.\n"
		   "\n"
		   "  -o, --output FILE  the trace file to write\n"
		   "      --consume      only records no --consume snapshot wrote yet ('gtsc-bpf\n"
		   "                     rewind NAME' starts again at the oldest retained one)\n"
		   "\n"
		   "example:\n"
		   "  gtsc-bpf snapshot mem -o /tmp/before-crash.gtsc\n");
}

static int cmd_snapshot(int argc, char **argv)
{
	struct request q = {};
	char v[3][4096], *r = NULL;
	int err = 0;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		snapshot_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	req_addf(&q, "snapshot");
	for (int i = 2; i < argc && !err; i++) {
		if (!strcmp(argv[i], "--consume")) {
			req_addf(&q, " --consume");
		} else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
			req_addf(&q, " ");
			err = absolute_path(argv[++i], &q);
		} else {
			snapshot_usage(stderr);
			err = -EINVAL;
		}
	}
	if (err)
		return 2;
	/* The session decides who may ask (root or its owner): not a uid check here. */
	err = gtsc_control__request(argv[1], q.line, &r);
	if (err)
		fprintf(stderr, "gtsc-bpf: %s\n", reply_text(r, err));
	else
		printf("gtsc-bpf: %s records (%s torn) from the flight channels to %s\n",
		       reply_value(r, "records", v[0], sizeof(v[0])),
		       reply_value(r, "torn", v[1], sizeof(v[1])),
		       reply_value(r, "file", v[2], sizeof(v[2])));
	free(r);
	return err ? 1 : 0;
}

/* What each one-name command does, for its --help. */
static const struct {
	const char *cmd;
	const char *what;
} control_help[] = {
	{ "status", "Prints session NAME's state, filter, sources and per-channel, per-CPU\n"
		    "events, drops and overwritten counts; for an ended session, how it ended." },
	{ "stop", "Pauses session NAME: its programs stay attached and its channels keep\n"
		  "their records, but nothing new is recorded until 'gtsc-bpf start NAME'." },
	{ "start", "Resumes a session paused by 'gtsc-bpf stop NAME'." },
	{ "rewind", "Makes the next 'gtsc-bpf snapshot NAME --consume' start again at the\n"
		    "oldest record the flight channels still hold." },
	{ "kill", "Ends session NAME: its recorder finishes the trace file (trailer and\n"
		  "all), detaches its programs and removes its state; waits until it is gone." },
};

static void control_usage(FILE *f, const char *cmd)
{
	fprintf(f, "usage: gtsc-bpf %s NAME\n", cmd);
	for (size_t i = 0; i < sizeof(control_help) / sizeof(control_help[0]); i++)
		if (!strcmp(control_help[i].cmd, cmd))
			fprintf(f, "\n%s\n\nexample:\n  gtsc-bpf %s mem   "
				   "# the session started by 'record --name mem'\n",
				control_help[i].what, cmd);
}

static int control_one(const char *cmd, int argc, char **argv)
{
	struct request q = {};
	char *r = NULL;
	int err;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		control_usage(argc < 2 ? stderr : stdout, cmd);
		return argc < 2 ? 2 : 0;
	}
	req_addf(&q, "%s", cmd); /* the session decides who may ask (root or its owner) */
	for (int i = 2; i < argc; i++)
		req_addf(&q, " %s", argv[i]);
	err = gtsc_control__request(argv[1], q.line, &r);
	if (err)
		fprintf(stderr, "gtsc-bpf: %s\n", reply_text(r, err));
	else if (!strcmp(cmd, "status"))
		print_status(argv[1], r);
	else if (r)
		fputs(r, stdout);
	if (!err && !strcmp(cmd, "kill"))
		err = wait_gone(argv[1]);
	free(r);
	return err ? 1 : 0;
}

int cmd_control(int argc, char **argv)
{
	if (!strcmp(argv[0], "list")) {
		if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			printf("usage: gtsc-bpf list\n\nRunning sessions: name, recorder pid, "
			       "state, events, dropped, sources, filter, output file.\n"
			       "\nexample:\n  gtsc-bpf list\n");
			return 0;
		}
		return cmd_list();
	}
	if (!strcmp(argv[0], "snapshot"))
		return cmd_snapshot(argc, argv);
	return control_one(argv[0], argc, argv);
}
