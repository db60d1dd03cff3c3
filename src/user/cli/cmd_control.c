// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf list | status NAME | stop NAME | start NAME | kill NAME: talk to
 * running sessions through their control sockets (control.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "control.h"
#include "strbuf.h"

#define KILL_WAIT_MS 10000

/* Value of KEY= in a status reply, copied into BUF. */
static const char *reply_value(const struct strbuf *r, const char *key, char *buf, size_t sz)
{
	size_t klen = strlen(key);

	for (const char *p = r->buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			snprintf(buf, sz, "%.*s", (int)strcspn(p + klen + 1, "\n"), p + klen + 1);
			return buf;
		}
	}
	snprintf(buf, sz, "?");
	return buf;
}

/* Sums the "cpu" lines of a status reply. */
static void reply_totals(const struct strbuf *r, unsigned long long *ev, unsigned long long *dr)
{
	*ev = *dr = 0;
	for (const char *p = r->buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
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
	char **names, v[4][256];
	int err, shown = 0;

	if (need_root())
		return 1;
	names = gtsc_ctl__names(&err);
	if (err) {
		fprintf(stderr, "gtsc-bpf: cannot read %s: %s\n", GTSC_RUN_DIR, strerror(-err));
		gtsc_ctl__free_names(names);
		return 1;
	}
	for (int i = 0; names && names[i]; i++) {
		struct strbuf r = {};
		unsigned long long ev, dr;

		/* A dead recorder's socket is removed by the request itself. */
		if (gtsc_ctl__request(names[i], "status", &r)) {
			strbuf_free(&r);
			continue;
		}
		if (!shown++)
			printf("%-20s %8s %-10s %-8s %12s %10s  %s\n", "NAME", "PID", "STATE",
			       "FILTER", "EVENTS", "DROPPED", "OUTPUT");
		reply_totals(&r, &ev, &dr);
		printf("%-20s %8s %-10s %-8s %12llu %10llu  %s\n", names[i],
		       reply_value(&r, "pid", v[0], sizeof(v[0])),
		       reply_value(&r, "state", v[1], sizeof(v[1])),
		       reply_value(&r, "filter", v[2], sizeof(v[2])), ev, dr,
		       reply_value(&r, "output", v[3], sizeof(v[3])));
		strbuf_free(&r);
	}
	if (!shown)
		printf("no sessions running\n");
	gtsc_ctl__free_names(names);
	return 0;
}

static void print_status(const char *name, const struct strbuf *r)
{
	printf("session %s\n", name);
	for (const char *p = r->buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		int len = strcspn(p, "\n");

		if (strncmp(p, "cpu\t", 4) && strncmp(p, "channel\t", 8))
			printf("  %.*s\n", len, p);
	}
	printf("  %-10s %-7s %-8s %10s %5s\n", "channel", "scope", "mode", "ring", "rings");
	for (const char *p = r->buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		char chan[64], scope[16], mode[16];
		unsigned long long bytes;
		unsigned int rings;

		if (sscanf(p, "channel\t%63s\t%15s\t%15s\t%llu\t%u", chan, scope, mode, &bytes,
			   &rings) == 5)
			printf("  %-10s %-7s %-8s %9lluK %5u\n", chan, scope, mode, bytes >> 10,
			       rings);
	}
	printf("  %-10s %4s %12s %12s\n", "channel", "cpu", "events", "dropped");
	for (const char *p = r->buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		char chan[64];
		unsigned int cpu;
		unsigned long long w, d;

		if (sscanf(p, "cpu\t%63s\t%u\t%llu\t%llu", chan, &cpu, &w, &d) == 4)
			printf("  %-10s %4u %12llu %12llu\n", chan, cpu, w, d);
	}
}

/* `kill` returns once the recorder has finished its file and removed its socket. */
static int wait_gone(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s.sock", GTSC_RUN_DIR, name);
	for (int ms = 0; ms < KILL_WAIT_MS; ms += 20) {
		if (access(path, F_OK))
			return 0;
		usleep(20000);
	}
	fprintf(stderr, "gtsc-bpf: session '%s' did not end within %d s\n", name,
		KILL_WAIT_MS / 1000);
	return 1;
}

static int control_one(const char *cmd, int argc, char **argv)
{
	struct strbuf r = {}, line = {};
	int err;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout, "usage: gtsc-bpf %s NAME\n", cmd);
		return argc < 2 ? 2 : 0;
	}
	if (need_root())
		return 1;
	strbuf_addf(&line, "%s", cmd);
	for (int i = 2; i < argc; i++)
		strbuf_addf(&line, " %s", argv[i]);
	err = gtsc_ctl__request(argv[1], line.buf, &r);
	if (err)
		fprintf(stderr, "gtsc-bpf: %s\n", r.buf ? r.buf : strerror(-err));
	else if (!strcmp(cmd, "status"))
		print_status(argv[1], &r);
	else if (r.buf && r.len)
		fputs(r.buf, stdout);
	if (!err && !strcmp(cmd, "kill"))
		err = wait_gone(argv[1]);
	strbuf_free(&r);
	strbuf_free(&line);
	return err ? 1 : 0;
}

int cmd_control(int argc, char **argv)
{
	if (!strcmp(argv[0], "list")) {
		if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			printf("usage: gtsc-bpf list\n\nRunning sessions: name, recorder pid, "
			       "state, filter, events, dropped, output file.\n");
			return 0;
		}
		return cmd_list();
	}
	return control_one(argv[0], argc, argv);
}
