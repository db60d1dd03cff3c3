// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fork_probe [SECONDS]: prints one line per fork (kernel_clone) on the
 * system, from a gtsc channel: time, pid/tid of the forking task, clone
 * flags.  The engine parts used: a channel (per-CPU BPF rings with exact
 * written/dropped counters, src/user/lib/channel.h) drained into a sink
 * (sink.h).  The BPF side is fork_probe.bpf.c linked with gtsc-bpf's
 * channel.bpf.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "channel.h"
#include "sink.h"
#include "fork_probe.skel.h"

struct print_sink {
	struct gtsc_sink sink;
	unsigned long long forks;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static int print_record(struct gtsc_sink *sink, const struct gtsc_rec_hdr *h)
{
	struct print_sink *ps = container_of(sink, struct print_sink, sink);
	const struct gtsc_rec_func *e = (const void *)h;

	if (h->type != GTSC_REC_FUNC)
		return 0;
	ps->forks++;
	printf("%llu.%09llu cpu=%u pid=%u tid=%u clone_flags=0x%llx\n",
	       (unsigned long long)(h->ts_ns / 1000000000), (unsigned long long)(h->ts_ns % 1000000000),
	       h->cpu, h->pid, h->tid, (unsigned long long)e->args[0]);
	return 0;
}

static int round_end(struct gtsc_sink *sink)
{
	return fflush(stdout) ? -errno : 0;
}

/* One per-CPU channel, "fork", and the class the program writes routed to it. */
static void setup_channel(struct fork_probe_bpf *skel, struct gtsc_channels *chans, int ncpu)
{
	struct gtsc_channel_spec spec = { .name = "fork", .ring_bytes = 1 << 20 };
	struct gtsc_class_route *r = (void *)&skel->rodata->gtsc_routes[GTSC_CLASS_FUNCS];

	gtsc_channels__add(chans, &spec);
	gtsc_channels__layout(chans, ncpu);
	r->channel = chans->ch[0].id;
	r->ring_base = chans->ch[0].ring_base;
	r->percpu = 1;
	r->wake_bytes = chans->ch[0].spec.ring_bytes / 2;
	skel->rodata->gtsc_self_tgid = getpid();
	bpf_map__set_max_entries(skel->maps.gtsc_rings, chans->nr_rings);
}

static unsigned long long dropped(struct fork_probe_bpf *skel, int ncpu)
{
	struct gtsc_chan_counters c[ncpu];
	unsigned long long sum = 0;
	__u32 key = 0;

	if (bpf_map__lookup_elem(skel->maps.gtsc_counters, &key, sizeof(key), c, sizeof(c), 0))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += c[i].dropped;
	return sum;
}

static int run(struct fork_probe_bpf *skel, struct gtsc_channels *chans, double secs)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	skel->bss->gtsc_on = 1;
	while (!stop) {
		n = gtsc_channels__drain(chans, 100);
		if (n < 0)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (secs > 0 && t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			break;
	}
	skel->bss->gtsc_on = 0;
	n = gtsc_channels__drain(chans, 0);
	return n < 0 ? n : 0;
}

int main(int argc, char **argv)
{
	struct print_sink ps = { .sink = { .record = print_record, .round_end = round_end } };
	struct gtsc_channels chans = {};
	struct fork_probe_bpf *skel;
	int ncpu = libbpf_num_possible_cpus(), err;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = fork_probe_bpf__open();
	if (!skel || ncpu <= 0) {
		fprintf(stderr, "fork_probe: opening the BPF object failed\n");
		return 1;
	}
	setup_channel(skel, &chans, ncpu);
	err = fork_probe_bpf__load(skel);
	err = err ?: gtsc_channels__create(&chans, bpf_map__fd(skel->maps.gtsc_rings), &ps.sink);
	err = err ?: fork_probe_bpf__attach(skel);
	if (err)
		fprintf(stderr, "fork_probe: %s (kprobes need root and a kernel with CONFIG_KPROBES; "
				"'gtsc-bpf features' says)\n", strerror(-err));
	else
		err = run(skel, &chans, argc > 1 ? atof(argv[1]) : 0);
	if (!err)
		fprintf(stderr, "fork_probe: %llu forks, %llu dropped\n", ps.forks,
			dropped(skel, ncpu));
	gtsc_channels__free(&chans);
	fork_probe_bpf__destroy(skel);
	return err ? 1 : 0;
}
