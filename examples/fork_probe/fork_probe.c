// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fork_probe [SECONDS]: prints one line per fork on the system, from a gtsc
 * channel, until Ctrl-C or SECONDS.  The BPF object is fork_probe.bpf.c
 * linked with gtsc's channel.bpf.o; libgtsc's tool API lays out the channel,
 * drains it into a callback and counts what was dropped.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gtsc/gtsc.h>
#include <gtsc/gtsc_shared.h> /* types of the channel globals the skeleton shows */
#include "fork_probe.skel.h"

struct state {
	struct gtsc_tool *tool;
	unsigned long long forks;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void on_log(void *ctx, enum gtsc_log_level level, const char *msg)
{
	if (level == GTSC_LOG_WARN)
		fprintf(stderr, "fork_probe: %s\n", msg);
}

static int print_record(void *ctx, const struct gtsc_rec_hdr *h)
{
	struct state *st = ctx;
	char text[128];

	if (h->type != GTSC_REC_PRINTF || gtsc_tool__format(st->tool, h, text, sizeof(text)) < 0)
		return 0;
	st->forks++;
	printf("%llu.%09llu cpu=%u %s\n", (unsigned long long)(h->ts_ns / 1000000000),
	       (unsigned long long)(h->ts_ns % 1000000000), h->cpu, text);
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int run(struct state *st, double secs)
{
	double end = now_s() + secs;
	int n = gtsc_tool__start(st->tool);

	if (!n)
		fprintf(stderr, "fork_probe: recording forks\n");
	while (!n && !stop && (secs <= 0 || now_s() < end)) {
		n = gtsc_tool__consume(st->tool, 100, print_record, st);
		n = n < 0 ? n : 0;
		fflush(stdout);
	}
	gtsc_tool__stop(st->tool);
	/* after stop: every record written before it, in flight ones included */
	return n ?: gtsc_tool__consume(st->tool, 1000, print_record, st) < 0;
}

int main(int argc, char **argv)
{
	GTSC_OPTS(gtsc_tool_opts, opts, .channel = "fork", .log = on_log);
	struct sigaction sa = { .sa_handler = on_signal };
	struct fork_probe_bpf *skel = fork_probe_bpf__open();
	struct state st = {};
	unsigned long long dropped = 0;
	int err;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	st.tool = skel ? gtsc_tool__open(skel->obj, &opts) : NULL;
	err = st.tool ? 0 : -errno;
	err = err ?: fork_probe_bpf__load(skel);
	err = err ?: gtsc_tool__attach(st.tool);
	err = err ?: run(&st, argc > 1 ? atof(argv[1]) : 0);
	err = err ?: gtsc_tool__dropped(st.tool, &dropped);
	if (err)
		fprintf(stderr, "fork_probe: %s (needs root and a kernel with BTF)\n",
			strerror(err < 0 ? -err : EIO));
	else
		printf("fork_probe: %llu forks, %llu dropped\n", st.forks, dropped);
	gtsc_tool__destroy(st.tool);
	fork_probe_bpf__destroy(skel);
	return err ? 1 : 0;
}
