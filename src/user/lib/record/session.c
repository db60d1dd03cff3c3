// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "session.h"
#include "dispatch.h"
#include "flight.h"
#include "gtsc.skel.h" /* after session.h: it needs gtsc_shared.h */
#include "log.h"
#include "metadata.h"
#include "opts.h"
#include "strbuf.h"
#include "syscall_capture.h"

/*
 * Default per-CPU ring: a 128th of RAM over the syscalls and kmem rings of
 * every CPU, a power of two between 8 and 32 MiB.  Bigger rings are cheaper
 * for the traced task, not only safer: an 8 MiB ring cycles inside the last
 * level cache, where the lines the programs write were just read by the
 * consumer's CPU, and a getppid loop paid +329 ns per call against +274
 * with 32 MiB (bare recorder, 64 MiB ring: +251).
 */
#define MIN_RING_BYTES (8ULL << 20)
#define MAX_RING_BYTES (32ULL << 20)
#define TASK_RING_BYTES (1ULL << 20)
#define TRIGGER_GAP_NS 1000000000ULL
#define GTSC_CAP_PERFMON 38
#define GTSC_CAP_BPF 39
/* Rescue programs of the syscall events built from raw_syscalls (tracepoint.bpf.c). */
#define TP_SYS_LEVELS GTSC_RESCUE_LEVELS

struct gtsc_session {
	struct gtsc_bpf *skel;
	struct gtsc_features feat;
	struct gtsc_channels chans;
	struct gtsc_source_plan plan;
	struct bpf_link *links[GTSC_MAX_SOURCES];
	struct bpf_link *rescue_links[GTSC_MAX_SOURCES][GTSC_RESCUE_LEVELS]; /* detached first */
	struct gtsc_func_links func_links;
	struct gtsc_tp_set tps; /* -e GROUP:NAME, resolved at open */
	struct gtsc_tp_links tp_links;
	/* syscall events from raw_syscalls (tracepoint.bpf.c): [enter/exit][first, _r, _r2, _r3] */
	struct bpf_link *tp_sys_links[2][1 + TP_SYS_LEVELS];
	int cgroup_fd; /* --cgroup, until load puts it in its map */
	struct gtsc_sink *sink;
	struct gtsc_engine_opts opts;
	struct gtsc_chan_counters *percpu; /* scratch: one map value for every CPU */
	__u64 *last_dropped;		   /* [channel * nr_cpus + cpu] at the previous poll */
	__u64 last_poll_ns;
	__u64 start_ns; /* the first start: where a trace of the session begins */
	int nr_cpus;
	struct gtsc_flight_map flight;
	__u64 *flight_cursor; /* per flight region: where a consuming read resumes */
	int *tracked;	      /* every pid of open and track_pid: whose comms a trace names */
	size_t nr_tracked;
	struct gtsc_func_set funcs; /* resolved by the public open's parse: ours to free */
	char trigger[64];	    /* "syscall=NAME" of opts.trigger_syscall */
	struct gtsc_dispatch disp;  /* the shared syscall dispatch: head, or a slot in its chain */
};

/* The class each default channel carries; index = enum gtsc_class. */
static const char *const class_channel[GTSC_CLASS_MAX] = {
	[GTSC_CLASS_TASK] = "task",
	[GTSC_CLASS_SYSCALLS] = "syscalls",
	[GTSC_CLASS_KMEM] = "kmem",
	[GTSC_CLASS_FUNCS] = "funcs",
	[GTSC_CLASS_EVENTS] = "events",
};

__attribute__((format(printf, 3, 4))) static void slog(const struct gtsc_session *s,
						       enum gtsc_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gt_vlog(s->opts.log, s->opts.log_ctx, lvl, fmt, ap);
	va_end(ap);
}

static bool may_record(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};
	__u64 eff;

	if (syscall(SYS_capget, &h, d))
		return geteuid() == 0;
	eff = d[0].effective | (__u64)d[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ULL << GTSC_CAP_PERFMON)) && (eff & (1ULL << GTSC_CAP_BPF));
}

static bool has_funcs(const struct gtsc_session *s)
{
	return s->opts.funcs && s->opts.funcs->n;
}

static __u64 default_ring_bytes(int nr_cpus)
{
	__u64 budget = (__u64)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) / 128;
	__u64 ring = MAX_RING_BYTES;

	while (ring > MIN_RING_BYTES && ring * 2 * nr_cpus > budget)
		ring /= 2;
	return ring;
}

/* Rings larger than half the memory would take the kernel minutes to fill, or the OOM killer. */
static int check_ring_memory(struct gtsc_session *s)
{
	__u64 ram = (__u64)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE), total = 0;

	for (int i = 0; i < s->chans.n; i++) {
		const struct gtsc_channel *ch = &s->chans.ch[i];

		total += ch->spec.ring_bytes * (ch->nr_rings + ch->nr_regions);
	}
	if (total <= ram / 2)
		return 0;
	slog(s, GTSC_LOG_WARN,
	     "the rings would take %llu MiB of the %llu MiB of memory: lower -b or --channel size=",
	     (unsigned long long)(total >> 20), (unsigned long long)(ram >> 20));
	return -ENOMEM;
}

/*
 * A discard channel's default ring is the per-CPU array ring where the
 * kernel has it (Linux 5.12: mmapable arrays, BPF cmpxchg) and the ring is
 * at least an array element: its reserve is a compare-and-swap, not the
 * ring buffer's spinlock with interrupts off.  A quiet bench (2026-11-26
 * 18:52 UTC, medians of 5) put it at 0.81-0.84x of the ring buffer's added
 * cost on getppid, 0.90x on open/read/close, 0.92x on the kmem loop, 0
 * lost.  A ring asked smaller than an element keeps the ring buffer, so
 * that -b 4K still means 4 KiB.  Kernels that preempt our programs
 * (bpf_preemptible: PREEMPT_RT, 7.x) have it too since the reserve's
 * compare-and-swap gets GTSC_ARR_TRIES 32 attempts, not 4: with 4, on
 * 7.3.4-rt, rtpair's low-priority task, preempted inside its programs
 * every 50 us, lost 4 swaps in a row for 1-3 of its 8,000 write events
 * (counted as drops) in 2 of 5 test_rt.sh runs; with 32, 0 drops in 24
 * runs, 15 claims won after a lost swap (2026-11-26).  GTSC_RING=array or
 * =ringbuf forces one on every discard channel, for a test lane or a bench
 * run (array where the kernel cannot is refused as --channel CH:ring=array
 * is).
 */
static void default_rings(struct gtsc_session *s)
{
	const char *env = getenv("GTSC_RING");
	struct gtsc_channels *c = &s->chans;

	for (int i = 0; i < c->n; i++) {
		struct gtsc_channel_spec *sp = &c->ch[i].spec;
		bool arr = s->feat.has[GTSC_FEAT_ARRAY_RING] && sp->ring_bytes >= GTSC_ARR_ELEM_MIN;

		if (env && *env)
			arr = !strcmp(env, "array");
		if (sp->ring == GTSC_RING_DEFAULT)
			sp->ring = sp->mode == GTSC_MODE_DISCARD && arr ? GTSC_RING_ARRAY
									: GTSC_RING_RINGBUF;
	}
}

/* ring=array where the kernel cannot: one sentence, not a load failure. */
static int check_arr_channels(struct gtsc_session *s)
{
	for (int i = 0; i < s->chans.n; i++) {
		if (s->chans.ch[i].spec.ring != GTSC_RING_ARRAY ||
		    s->feat.has[GTSC_FEAT_ARRAY_RING])
			continue;
		slog(s, GTSC_LOG_WARN, "channel %s: ring=array cannot be used on this kernel: %s",
		     s->chans.ch[i].spec.name, s->feat.why[GTSC_FEAT_ARRAY_RING]);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int setup_channels(struct gtsc_session *s)
{
	const struct gtsc_engine_opts *o = &s->opts;
	__u64 ring = o->ring_bytes ? o->ring_bytes : default_ring_bytes(s->nr_cpus);
	struct gtsc_channel_spec def[GTSC_CLASS_MAX] = {
		{ .name = "task", .global = true, .ring_bytes = TASK_RING_BYTES },
		{ .name = "syscalls", .ring_bytes = ring },
		{ .name = "kmem", .ring_bytes = ring },
		{ .name = "funcs", .ring_bytes = ring },
		{ .name = "events", .ring_bytes = ring },
	};
	int err;

	for (int i = 0; i < GTSC_CLASS_MAX; i++)
		/* their rings cost memory: only when asked for */
		if ((i != GTSC_CLASS_FUNCS || has_funcs(s)) && (i != GTSC_CLASS_EVENTS || s->tps.n))
			gt_channels__add(&s->chans, &def[i]);
	for (size_t i = 0; i < o->nr_channels; i++) {
		struct gtsc_channel_spec sp = o->channels[i];
		int id = gt_channels__find(&s->chans, sp.name);

		if (id < 0) {
			slog(s, GTSC_LOG_WARN,
			     "channel '%s' carries no events: the channels are task, syscalls and kmem",
			     o->channels[i].name);
			return -EINVAL;
		}
		/* What an override leaves out stays the channel's default. */
		if (!sp.ring_bytes)
			sp.ring_bytes = s->chans.ch[id].spec.ring_bytes;
		if (!sp.scope_set)
			sp.global = s->chans.ch[id].spec.global;
		err = gt_channels__add(&s->chans, &sp);
		if (err < 0)
			return err;
	}
	default_rings(s);
	err = check_arr_channels(s);
	if (err)
		return err;
	s->chans.native_flight = s->feat.has[GTSC_FEAT_RINGBUF_OVERWRITE];
	s->chans.arr_elem_max = s->feat.arr_elem_max;
	err = gt_channels__layout(&s->chans, s->nr_cpus);
	if (err)
		slog(s, GTSC_LOG_WARN, "the flight channels are too large (4G slots at most)");
	return err ?: check_ring_memory(s);
}

/*
 * The flight maps' sizes, and the trigger.  Where the kernel has
 * BPF_F_RB_OVERWRITE (feature ringbuf_overwrite, Linux 6.19) flight
 * channels are native rings in gtsc_orings, whose inner template must then
 * be an overwrite ring; elsewhere the slot arrays (5.5+, BPF_F_MMAPABLE).
 */
static int setup_flight(struct gtsc_session *s)
{
	struct gtsc_bpf__rodata *ro = s->skel->rodata;
	struct gtsc_channels *c = &s->chans;
	int fd;

	bpf_map__set_max_entries(s->skel->maps.gtsc_orings, c->nr_orings ?: 1);
	if (c->nr_orings) {
		fd = gt_channels__oring_template(c);
		fd = fd < 0 ? fd : bpf_map__set_inner_map_fd(s->skel->maps.gtsc_orings, fd);
		if (fd < 0) {
			slog(s, GTSC_LOG_WARN, "the native flight rings failed: %s", strerror(-fd));
			return fd;
		}
	}
	/* array rings: without any, gtsc_arr stays one page */
	if (c->nr_arr_heads) {
		bpf_map__set_value_size(s->skel->maps.gtsc_arr, c->arr_elem);
		ro->gtsc_arr_shift = __builtin_ctz(c->arr_elem);
	}
	bpf_map__set_max_entries(s->skel->maps.gtsc_arr, c->nr_arr_elems ?: 1);
	bpf_map__set_max_entries(s->skel->maps.gtsc_arr_heads, c->nr_arr_heads ?: 1);
	bpf_map__set_max_entries(s->skel->maps.gtsc_flight, c->nr_flight_slots ?: 1);
	bpf_map__set_max_entries(s->skel->maps.gtsc_flight_heads, c->nr_flight_heads ?: 1);
	/* per CPU and nesting level, a record's worth: not for sessions that never use it */
	bpf_map__set_max_entries(s->skel->maps.gtsc_flight_scratch,
				 c->nr_flight_heads ? GTSC_FLIGHT_NEST : 1);
	if (s->opts.trigger_syscall && gt_syscall_name(s->opts.trigger_nr))
		snprintf(s->trigger, sizeof(s->trigger), "syscall=%s",
			 gt_syscall_name(s->opts.trigger_nr));
	else if (s->opts.trigger_syscall)
		snprintf(s->trigger, sizeof(s->trigger), "syscall=%d", s->opts.trigger_nr);
	ro->gtsc_trigger_on = s->opts.trigger_syscall;
	ro->gtsc_trigger_nr = s->opts.trigger_nr;
	ro->gtsc_trigger_gap_ns = s->opts.trigger_gap_ns ?: TRIGGER_GAP_NS;
	return 0;
}

static int flight_map(struct gtsc_session *s)
{
	const struct gtsc_channels *c = &s->chans;
	int err;

	if (!c->nr_flight_regions)
		return 0;
	s->flight_cursor = calloc(c->nr_flight_regions, sizeof(*s->flight_cursor));
	if (!s->flight_cursor)
		return -ENOMEM;
	err = gt_flight__map(&s->flight, c, bpf_map__fd(s->skel->maps.gtsc_flight),
			     c->nr_flight_slots, bpf_map__fd(s->skel->maps.gtsc_flight_heads),
			     c->nr_flight_heads);
	if (err)
		slog(s, GTSC_LOG_WARN, "mapping the flight channels failed: %s", strerror(-err));
	return err;
}

static int setup_routes(struct gtsc_session *s)
{
	struct gtsc_bpf__rodata *ro = s->skel->rodata;

	for (int c = 0; c < GTSC_CLASS_MAX; c++) {
		int id = gt_channels__find(&s->chans, class_channel[c]);
		struct gtsc_class_route *r = (struct gtsc_class_route *)&ro->gtsc_routes[c];

		if (id < 0)
			continue; /* a class nothing records (funcs without -k) */
		gt_channel__route(&s->chans.ch[id], r);
	}
	ro->gtsc_self_tgid = getpid();
	ro->gtsc_void_arg_direct = s->feat.has[GTSC_FEAT_TP_BTF_VOID_ARG];
	ro->gtsc_filter_pids = !s->opts.system_wide;
	/* An array cannot be empty: a session without rings or flight channels gets one unused. */
	bpf_map__set_max_entries(s->skel->maps.gtsc_rings, s->chans.nr_rings ?: 1);
	return setup_flight(s);
}

/* The syscall filter and the capture table, into rodata (gtsc_syscalls.h). */
static int setup_syscalls(struct gtsc_session *s)
{
	struct gtsc_bpf__rodata *ro = s->skel->rodata;
	const struct gtsc_engine_opts *o = &s->opts;

	if (o->capture_size > GTSC_CAP_DATA_MAX) {
		slog(s, GTSC_LOG_WARN, "the capture size is at most %d bytes, not %u",
		     GTSC_CAP_DATA_MAX, o->capture_size);
		return -EINVAL;
	}
	ro->gtsc_cap_data = o->capture_size ? o->capture_size : GTSC_CAP_DATA_DEFAULT;
	if (!o->no_capture)
		gt_capture__fill(ro->gtsc_cap, ro->gtsc_sys_nr);
	ro->gtsc_sys_filter_on = o->syscall_filter != NULL;
	for (int nr = 0; nr < GTSC_NR_SYSCALLS && o->syscall_filter; nr++)
		if (!gtsc_sys_set__has(o->syscall_filter, nr))
			ro->gtsc_sys_nr[nr] = GTSC_SYS_SKIP;
	return 0;
}

/* -C names and the --cgroup flag into rodata; the cgroup's fd goes into its map after load. */
static int setup_filters(struct gtsc_session *s)
{
	struct gtsc_bpf__rodata *ro = s->skel->rodata;
	const struct gtsc_engine_opts *o = &s->opts;
	struct statfs sf;

	if (o->nr_comms > GTSC_MAX_COMMS) {
		slog(s, GTSC_LOG_WARN, "-C takes at most %d names", GTSC_MAX_COMMS);
		return -E2BIG;
	}
	for (size_t i = 0; i < o->nr_comms; i++)
		memcpy((void *)ro->gtsc_filter_comms[i], o->comms[i],
		       strnlen(o->comms[i], GTSC_COMM_LEN - 1));
	ro->gtsc_filter_nr_comms = o->nr_comms;
	if (!o->cgroup)
		return 0;
	s->cgroup_fd = open(o->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->cgroup_fd < 0 || fstatfs(s->cgroup_fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		slog(s, GTSC_LOG_WARN, "--cgroup: %s is not a cgroup v2 directory", o->cgroup);
		return -ENOTDIR;
	}
	ro->gtsc_filter_cgroup = 1;
	return 0;
}

static int load_cgroup(struct gtsc_session *s)
{
	__u32 key = 0;
	int err;

	if (s->cgroup_fd < 0)
		return 0;
	err = bpf_map__update_elem(s->skel->maps.gtsc_cgroup, &key, sizeof(key), &s->cgroup_fd,
				   sizeof(s->cgroup_fd), BPF_ANY)
		      ? -errno
		      : 0;
	if (err)
		slog(s, GTSC_LOG_WARN, "--cgroup %s: %s", s->opts.cgroup, strerror(-err));
	close(s->cgroup_fd); /* the map holds the cgroup now */
	s->cgroup_fd = -1;
	return err;
}

/* One sentence: which mechanisms are missing and what still records. */
static int check_funcs(struct gtsc_session *s)
{
	const struct gtsc_source_choice *c = &s->plan.funcs;
	struct strbuf ok = {};

	if (!c->wanted || c->prog)
		return 0;
	if (s->opts.allow_missing) {
		slog(s, GTSC_LOG_WARN, "function probes (-k) left out: %s", c->why);
		return 0;
	}
	gt_sources__recorded(&s->plan, ", ", &ok);
	slog(s, GTSC_LOG_WARN,
	     "function probes (-k) cannot be recorded on this kernel: %s; the other sources "
	     "(%s) still record, and --allow-missing records them without -k",
	     c->why, ok.buf ? ok.buf : "task");
	gt_strbuf_free(&ok);
	return -EOPNOTSUPP;
}

/* As check_funcs: the tracepoints need classic tracepoint programs and tracefs. */
static int check_events(struct gtsc_session *s)
{
	const struct gtsc_source_choice *c = &s->plan.events;

	if (!c->wanted || c->prog)
		return 0;
	if (s->opts.allow_missing) {
		slog(s, GTSC_LOG_WARN, "tracepoints (-e GROUP:NAME) left out: %s", c->why);
		return 0;
	}
	slog(s, GTSC_LOG_WARN,
	     "tracepoints (-e GROUP:NAME) cannot be recorded on this kernel: %s; --allow-missing "
	     "records the other sources without them",
	     c->why);
	return -EOPNOTSUPP;
}

/* -e GROUP:NAME against this kernel's tracefs, before the channels are laid out. */
static int resolve_tracepoints(struct gtsc_session *s)
{
	if (!s->opts.nr_tracepoints)
		return 0;
	return gt_tp__resolve(&s->tps, s->feat.tracefs, s->opts.tracepoints,
			      s->opts.nr_tracepoints, s->opts.allow_missing, s->opts.log,
			      s->opts.log_ctx);
}

static int check_plan(struct gtsc_session *s)
{
	int missing = 0;

	for (int i = 0; i < s->plan.n; i++) {
		const struct gtsc_source_choice *c = &s->plan.src[i];

		if (!c->wanted)
			continue;
		if (!c->prog) {
			slog(s, GTSC_LOG_WARN, "%s cannot be recorded on this kernel: %s", c->name,
			     c->why);
			missing++;
		} else if (c->why[0]) {
			slog(s, GTSC_LOG_INFO, "%s: using the %s fallback (%s)", c->name, c->how,
			     c->why);
		}
	}
	if (missing && !s->opts.allow_missing) {
		slog(s, GTSC_LOG_WARN, "%d event source%s missing; --allow-missing records the rest",
		     missing, missing > 1 ? "s are" : " is");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* --stacks: the flag in rodata; without it the stack map shrinks to one entry. */
static void setup_stacks(struct gtsc_session *s)
{
	s->skel->rodata->gtsc_stacks_on = s->opts.stacks;
	if (!s->opts.stacks)
		bpf_map__set_max_entries(s->skel->maps.gtsc_stacks, 1);
}

/*
 * The syscalls source's tp_btf pair joins the shared syscall dispatch
 * (dispatch.h) where the feature probe allows it: the first session
 * attaches it as the head, whose programs call the chain after their own
 * work (a session alone pays a word's read for it); every later one puts
 * it in a slot of the chain.  Anything else, or no free slot, attaches
 * directly, outside the chain.
 */
static int setup_dispatch(struct gtsc_session *s)
{
	const struct gtsc_source_choice *c[2] = {};
	int err;

	for (int i = 0; i < s->plan.n; i++)
		if (s->plan.src[i].mask & GTSC_SRC_SYSCALLS)
			c[!!strstr(s->plan.src[i].name, "exit")] = &s->plan.src[i];
	if (!c[0] || !c[1] || !c[0]->prog || !c[1]->prog || strcmp(c[0]->how, "tp_btf") ||
	    strcmp(c[1]->how, "tp_btf") || c[0]->rescue[0][0] || c[1]->rescue[0][0])
		return 0;
	if (!s->feat.has[GTSC_FEAT_SYS_DISPATCH]) {
		slog(s, GTSC_LOG_DEBUG, "syscalls: attached directly (%s)",
		     s->feat.why[GTSC_FEAT_SYS_DISPATCH]);
		return 0;
	}
	err = gt_dispatch__begin(&s->disp);
	if (s->disp.head) {
		s->skel->rodata->gtsc_sys_slot = GTSC_SYS_HEAD;
		return 0;
	}
	if (err || s->disp.slot < 0) {
		slog(s, GTSC_LOG_INFO, "syscalls: attached directly (%s)", s->disp.why);
		return err;
	}
	s->skel->rodata->gtsc_sys_slot = s->disp.slot;
	/* every map the head's programs and the chain share: the head's */
	err = bpf_map__reuse_fd(s->skel->maps.gtsc_sys_mchain_enter, s->disp.chain_fd[0]);
	err = err ?: bpf_map__reuse_fd(s->skel->maps.gtsc_sys_mchain_exit, s->disp.chain_fd[1]);
	err = err ?: bpf_map__reuse_fd(s->skel->maps.gtsc_sys_mask, s->disp.map_fd[GTSC_DISP_MASK]);
	err = err ?: bpf_map__reuse_fd(s->skel->maps.gtsc_sys_every, s->disp.map_fd[GTSC_DISP_EVERY]);
	err = err ?: bpf_map__reuse_fd(s->skel->maps.gtsc_sys_cur, s->disp.map_fd[GTSC_DISP_CUR]);
	if (err) {
		slog(s, GTSC_LOG_WARN, "sharing the syscall dispatch failed: %s", strerror(-err));
		gt_dispatch__leave(&s->disp);
	}
	return err;
}

/*
 * The head attaches its syscall pair at load, before its line is
 * published (dispatch.c: a joiner must find its links); gtsc_on is still
 * off, so until start its programs only call the chain.  On failure it
 * leaves the dispatch, and attach tries the pair again as a lone session's.
 */
static void publish_head(struct gtsc_session *s)
{
	int fd[2] = { -1, -1 }, err = 0;

	for (int i = 0; i < s->plan.n && !err; i++) {
		const struct gtsc_source_choice *c = &s->plan.src[i];

		if (!c->prog || !(c->mask & GTSC_SRC_SYSCALLS))
			continue;
		s->links[i] = bpf_program__attach(bpf_object__find_program_by_name(s->skel->obj,
										   c->prog));
		if (!s->links[i])
			err = -errno;
		else
			fd[!!strstr(c->name, "exit")] = bpf_link__fd(s->links[i]);
	}
	if (!err && (fd[0] < 0 || fd[1] < 0))
		err = -ENOENT;
	err = err ?: gt_dispatch__publish(&s->disp, s->skel->obj, fd);
	if (!err) {
		slog(s, GTSC_LOG_DEBUG, "syscalls: dispatch head");
		return;
	}
	gt_dispatch__leave(&s->disp);
	slog(s, GTSC_LOG_INFO, "syscalls: attached directly (the dispatch head's start failed: %s)",
	     strerror(-err));
}

/* Rescue programs (gtsc_shared.h) only where the plan has them: their marks cost 4 MiB. */
static void setup_rescue(struct gtsc_session *s)
{
	bool on = false, by_tid;
	int kmem = 0;

	for (int i = 0; i < s->plan.n; i++) {
		const struct gtsc_source_choice *c = &s->plan.src[i];

		on |= c->rescue[0][0] && (c->mask & GTSC_SRC_SYSCALLS);
		for (int l = 0; l < GTSC_RESCUE_LEVELS && (c->mask & GTSC_SRC_KMEM); l++)
			kmem = c->rescue[l][0] && l + 1 > kmem ? l + 1 : kmem;
	}
	s->skel->rodata->gtsc_sys_rescue = on;
	bpf_map__set_max_entries(s->skel->maps.gtsc_sys_mark, on ? GTSC_MARK_TIDS / 8 : 1);
	/* kmem: interrupts nest everywhere; task context keyed by thread where preempted */
	by_tid = kmem && s->feat.has[GTSC_FEAT_BPF_PREEMPTIBLE];
	s->skel->rodata->gtsc_kmem_rescue = kmem;
	s->skel->rodata->gtsc_kmem_by_tid = by_tid;
	bpf_map__set_max_entries(s->skel->maps.gtsc_kmem_mark, by_tid ? GTSC_MARK_TIDS / 8 : 1);
}

static const char *const tp_sys_progs[2][1 + TP_SYS_LEVELS] = {
	{ "gtsc_tp_sys_enter", "gtsc_tp_sys_enter_r", "gtsc_tp_sys_enter_r2", "gtsc_tp_sys_enter_r3" },
	{ "gtsc_tp_sys_exit", "gtsc_tp_sys_exit_r", "gtsc_tp_sys_exit_r2", "gtsc_tp_sys_exit_r3" },
};

/*
 * -e's syscall events, on a kernel whose classic programs on them are
 * skipped while another task is preempted in one (syscall_tp_classic=no):
 * built from raw_syscalls by tracepoint.bpf.c's tp_btf programs instead,
 * the same entries, with their rescue programs where bpf_preemptible.
 * Elsewhere those programs are not loaded and their marks shrink.
 */
/* The tracefs event name of syscall NR (sys_enter_<that>), from this build's table. */
static const char *sys_event_name(int nr)
{
	const char *name = nr < gt_syscall_count() ? gt_syscall_name(nr) : NULL;

	return name ? gt_syscall_event_name(name) : NULL;
}

static void setup_tp_sys(struct gtsc_session *s)
{
	bool classic = s->feat.has[GTSC_FEAT_SYSCALL_TP_CLASSIC];
	struct strbuf left = {};
	char why[160] = "";
	size_t n = 0;
	int levels = 0;

	if (!s->plan.events.prog || classic)
		;
	else if (!s->feat.has[GTSC_FEAT_TP_BTF])
		snprintf(why, sizeof(why), "%s", s->feat.why[GTSC_FEAT_TP_BTF]);
	else if (gt_features__tp_btf_matches(&s->feat, "sys_enter", "P:pt_regs,i", why,
					     sizeof(why)) &&
		 gt_features__tp_btf_matches(&s->feat, "sys_exit", "P:pt_regs,i", why, sizeof(why)))
		n = gt_tp__syscalls(&s->tps, sys_event_name,
				    (void *)s->skel->rodata->gtsc_tp_sys_ev,
				    (void *)s->skel->rodata->gtsc_tp_raw_ev, &left);
	/* what stays with the classic program where it loses */
	if (!n)
		gt_strbuf_free(&left);
	for (size_t i = 0; s->plan.events.prog && !classic && i < s->tps.n && !n; i++)
		if (!strcmp(s->tps.tp[i].group, "syscalls") ||
		    !strcmp(s->tps.tp[i].group, "raw_syscalls"))
			gt_strbuf_addf(&left, "%s%s:%s", left.len ? ", " : "", s->tps.tp[i].group,
				       s->tps.tp[i].name);
	if (n)
		levels = s->feat.has[GTSC_FEAT_BPF_PREEMPTIBLE] ? TP_SYS_LEVELS : 0;
	s->skel->rodata->gtsc_tp_sys_rescue = levels > 0;
	bpf_map__set_max_entries(s->skel->maps.gtsc_tp_sys_mark, levels ? GTSC_MARK_TIDS / 8 : 1);
	for (int h = 0; h < 2; h++)
		for (int l = 0; l <= TP_SYS_LEVELS; l++)
			bpf_program__set_autoload(
				bpf_object__find_program_by_name(s->skel->obj, tp_sys_progs[h][l]),
				n && l <= levels);
	/* the same entries: nothing the user sees changes */
	if (n)
		slog(s, GTSC_LOG_DEBUG, "%zu syscall event%s built from raw_syscalls (%s)", n,
		     n > 1 ? "s are" : " is", s->feat.why[GTSC_FEAT_SYSCALL_TP_CLASSIC]);
	if (left.len)
		slog(s, GTSC_LOG_WARN,
		     "%s: recorded by a classic tracepoint program, which this kernel skips while "
		     "another task is preempted in one (counted as skipped)%s%s",
		     left.buf, why[0] ? ": " : "", why);
	gt_strbuf_free(&left);
}

static int session_load(struct gtsc_session *s)
{
	int err;

	s->skel = gtsc_bpf__open();
	if (!s->skel) {
		err = -errno;
		slog(s, GTSC_LOG_WARN, "opening the BPF object failed: %s", strerror(-err));
		return err;
	}
	err = resolve_tracepoints(s);
	err = err ?: setup_channels(s);
	if (err)
		return err;
	err = setup_routes(s);
	err = err ?: setup_syscalls(s);
	err = err ?: setup_filters(s);
	setup_stacks(s);
	if (err)
		return err;
	gt_sources__plan(&s->plan, s->skel->obj, &s->feat,
			 s->opts.sources | GTSC_SRC_TASK | (has_funcs(s) ? GTSC_SRC_FUNCS : 0) |
				   (s->tps.n ? GTSC_SRC_EVENTS : 0));
	setup_rescue(s);
	setup_tp_sys(s);
	err = check_funcs(s);
	err = err ?: check_events(s);
	err = err ?: check_plan(s);
	if (err)
		return err;
	err = setup_dispatch(s);
	if (err)
		return err;
	/* outside the chain the mask is never used: no 65536 entries */
	if (s->disp.slot < 0 && !s->disp.head)
		bpf_map__set_max_entries(s->skel->maps.gtsc_sys_mask, 1);
	err = gtsc_bpf__load(s->skel);
	if (err) {
		gt_dispatch__leave(&s->disp);
	} else if (s->disp.head) {
		publish_head(s);
	} else if (s->disp.slot >= 0 && gt_dispatch__publish(&s->disp, s->skel->obj, NULL)) {
		/* the programs tail-call from their slot on: attached directly they would
		 * run the chain's later sessions twice */
		slog(s, GTSC_LOG_WARN, "%s", s->disp.why);
		return -EIO;
	}
	if (err) {
		slog(s, GTSC_LOG_WARN,
		     "the kernel refused the BPF programs (%s); run with -v for the verifier log",
		     strerror(-err));
		return err;
	}
	err = s->plan.events.prog ? gt_tp__fill(&s->tps, bpf_map__fd(s->skel->maps.gtsc_tp_infos))
				  : 0;
	if (err)
		slog(s, GTSC_LOG_WARN, "filling the tracepoint table failed: %s", strerror(-err));
	return err;
}

static int session_alloc_counters(struct gtsc_session *s)
{
	s->percpu = calloc(s->nr_cpus, sizeof(*s->percpu));
	s->last_dropped = calloc((size_t)GTSC_MAX_CHANNELS * s->nr_cpus, sizeof(__u64));
	return s->percpu && s->last_dropped ? 0 : -ENOMEM;
}

struct gtsc_session *gt_session__open_sink(const struct gtsc_engine_opts *opts,
					   struct gtsc_sink *sink)
{
	struct gtsc_session *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return errno = ENOMEM, NULL;
	s->cgroup_fd = -1;
	gt_dispatch__init(&s->disp);
	err = OPTS_COPY(&s->opts, opts, gtsc_engine_opts);
	if (err)
		goto fail;
	s->sink = sink;
	if (!may_record()) {
		slog(s, GTSC_LOG_WARN, "recording needs root, or CAP_BPF and CAP_PERFMON");
		err = -EPERM;
		goto fail;
	}
	gt_features__init(&s->feat);
	for (int f = GTSC_FEAT_BTF; f <= GTSC_FEAT_RINGBUF; f++) {
		if (!s->feat.has[f]) {
			slog(s, GTSC_LOG_WARN, "cannot record: %s", s->feat.why[f]);
			err = -EOPNOTSUPP;
			goto fail;
		}
	}
	s->nr_cpus = libbpf_num_possible_cpus();
	if (s->nr_cpus <= 0 || s->nr_cpus > GTSC_MAX_CPUS) {
		err = s->nr_cpus <= 0 ? s->nr_cpus : -E2BIG;
		goto fail;
	}
	err = session_alloc_counters(s);
	if (err)
		goto fail;
	err = session_load(s);
	err = err ?: load_cgroup(s);
	if (err)
		goto fail;
	s->chans.orings_fd = bpf_map__fd(s->skel->maps.gtsc_orings);
	s->chans.arr_fd = bpf_map__fd(s->skel->maps.gtsc_arr);
	s->chans.arr_heads_fd = bpf_map__fd(s->skel->maps.gtsc_arr_heads);
	s->chans.bell_fd = bpf_map__fd(s->skel->maps.gtsc_arr_bell);
	err = gt_channels__create(&s->chans, bpf_map__fd(s->skel->maps.gtsc_rings), sink);
	if (err) {
		slog(s, GTSC_LOG_WARN, "creating the ring buffers failed: %s (too large for memory?)",
		     strerror(-err));
		goto fail;
	}
	err = flight_map(s);
	if (err)
		goto fail;
	for (size_t i = 0; i < s->opts.nr_pids; i++) {
		err = gtsc_session__track_pid(s, s->opts.pids[i]);
		if (err)
			goto fail;
	}
	s->opts.pids = NULL; /* the caller's array need not outlive open */
	s->opts.channels = NULL;
	s->opts.syscall_filter = NULL;
	s->opts.comms = NULL;
	s->opts.cgroup = NULL;
	s->opts.tracepoints = NULL;
	return s;
fail:
	s->sink = NULL; /* a failed open leaves SINK to its caller */
	gtsc_session__destroy(s);
	return errno = -err, NULL;
}

int gtsc_session__track_pid(struct gtsc_session *s, int pid)
{
	__u32 key = pid;
	__u8 one = 1;
	int *t, err;

	if (bpf_map__update_elem(s->skel->maps.gtsc_pids, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	/* the head must call our slot for PID's syscalls (dispatch.h) */
	err = gt_dispatch__want(&s->disp, key);
	if (err) {
		slog(s, GTSC_LOG_WARN, "setting pid %d in the syscall dispatch's mask failed: %s",
		     pid, strerror(-err));
		return err;
	}
	/* after the update: a CPU's cached miss of PID is stale from here */
	__atomic_fetch_add(&s->skel->bss->gtsc_pid_gen, 1, __ATOMIC_SEQ_CST);
	t = realloc(s->tracked, (s->nr_tracked + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	s->tracked = t;
	s->tracked[s->nr_tracked++] = pid;
	return 0;
}

const int *gt_session__tracked(const struct gtsc_session *s, size_t *n)
{
	*n = s->nr_tracked;
	return s->tracked;
}

void gt_session__own_funcs(struct gtsc_session *s, struct gtsc_func_set *set)
{
	gt_funcs__free(&s->funcs);
	s->funcs = *set;
	*set = (struct gtsc_func_set){};
	s->opts.funcs = s->funcs.n ? &s->funcs : NULL;
}

const struct gtsc_tp_set *gt_session__tracepoints(const struct gtsc_session *s)
{
	return &s->tps;
}

const struct gtsc_func_set *gt_session__funcs(const struct gtsc_session *s)
{
	return s->opts.funcs;
}

const struct gtsc_engine_opts *gt_session__opts(const struct gtsc_session *s)
{
	return &s->opts;
}

/* kprobe.multi and kprobe programs name their functions at attach time, not in SEC(). */
static int attach_funcs(struct gtsc_session *s)
{
	const struct gtsc_source_plan *p = &s->plan;
	char why[256];
	int err;

	if (!p->funcs.prog)
		return 0;
	err = gt_funcs__attach(s->opts.funcs,
			       bpf_object__find_program_by_name(s->skel->obj, p->funcs.prog),
			       bpf_object__find_program_by_name(s->skel->obj, p->funcs_ret_prog),
			       !strcmp(p->funcs.how, "kprobe.multi"), &s->func_links, why,
			       sizeof(why));
	if (err)
		slog(s, GTSC_LOG_WARN, "%s", why);
	return err;
}

static int attach_events(struct gtsc_session *s)
{
	char why[256];
	int err;

	if (!s->plan.events.prog)
		return 0;
	err = gt_tp__attach(&s->tps,
			    bpf_object__find_program_by_name(s->skel->obj, s->plan.events.prog),
			    &s->tp_links, why, sizeof(why));
	if (err) {
		slog(s, GTSC_LOG_WARN, "%s", why);
		return err;
	}
	/* the first program of each hook, then its rescue programs: the hook runs them in order */
	for (int h = 0; h < 2; h++) {
		for (int l = 0; l <= TP_SYS_LEVELS; l++) {
			struct bpf_program *p =
				bpf_object__find_program_by_name(s->skel->obj, tp_sys_progs[h][l]);

			if (!p || !bpf_program__autoload(p))
				break;
			s->tp_sys_links[h][l] = bpf_program__attach(p);
			if (!s->tp_sys_links[h][l]) {
				err = -errno;
				slog(s, GTSC_LOG_WARN, "attaching %s failed: %s",
				     tp_sys_progs[h][l], strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

int gtsc_session__attach(struct gtsc_session *s)
{
	for (int i = 0; i < s->plan.n; i++) {
		const struct gtsc_source_choice *c = &s->plan.src[i];
		struct bpf_program *p;
		int err;

		if (!c->prog || s->links[i] || ((c->mask & GTSC_SRC_SYSCALLS) && s->disp.slot >= 0))
			continue; /* the head's, attached at load; in the chain: filled below */
		p = bpf_object__find_program_by_name(s->skel->obj, c->prog);
		s->links[i] = bpf_program__attach(p);
		if (!s->links[i]) {
			err = -errno;
			slog(s, GTSC_LOG_WARN, "attaching %s (%s) failed: %s", c->name, c->how,
			     strerror(-err));
			return err;
		}
		/* After the first: the hook runs its programs in attach order. */
		for (int l = 0; l < GTSC_RESCUE_LEVELS && c->rescue[l][0]; l++) {
			p = bpf_object__find_program_by_name(s->skel->obj, c->rescue[l]);
			s->rescue_links[i][l] = bpf_program__attach(p);
			if (!s->rescue_links[i][l]) {
				err = -errno;
				slog(s, GTSC_LOG_WARN, "attaching %s's rescue program failed: %s",
				     c->name, strerror(-err));
				return err;
			}
		}
	}
	if (s->disp.slot >= 0 && !s->disp.filled) {
		int err = gt_dispatch__fill(&s->disp,
					    bpf_program__fd(s->skel->progs.gtsc_sys_enter_btf),
					    bpf_program__fd(s->skel->progs.gtsc_sys_exit_btf),
					    !s->skel->rodata->gtsc_filter_pids);

		if (err) {
			slog(s, GTSC_LOG_WARN, "putting the syscall programs in slot %d failed: %s",
			     s->disp.slot, strerror(-err));
			return err;
		}
		slog(s, GTSC_LOG_DEBUG, "syscalls: dispatch slot %d", s->disp.slot);
	}
	return attach_funcs(s) ?: attach_events(s);
}

int gtsc_session__start(struct gtsc_session *s)
{
	s->last_poll_ns = gtsc_mono_ns();
	if (!s->start_ns)
		s->start_ns = s->last_poll_ns;
	__atomic_store_n(&s->skel->bss->gtsc_on, 1, __ATOMIC_RELEASE);
	return 0;
}

int gtsc_session__stop(struct gtsc_session *s)
{
	__atomic_store_n(&s->skel->bss->gtsc_on, 0, __ATOMIC_RELEASE);
	/* The flag is no barrier: a program may have read it just before. */
	return gt_channels__sync(&s->chans);
}

static int read_counters(struct gtsc_session *s, __u32 chan)
{
	return bpf_map__lookup_elem(s->skel->maps.gtsc_counters, &chan, sizeof(chan), s->percpu,
				    sizeof(*s->percpu) * s->nr_cpus, 0)
		       ? -errno
		       : 0;
}

/* Drops become records too, so a report can say when and where they happened. */
static int emit_drops(struct gtsc_session *s, __u64 now)
{
	for (int ch = 0; ch < s->chans.n; ch++) {
		int err = read_counters(s, ch);

		if (err)
			return err;
		for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
			__u64 *last = &s->last_dropped[ch * s->nr_cpus + cpu];
			struct gtsc_rec_drops r = {
				.hdr = { .type = GTSC_REC_DROPS, .size = sizeof(r), .cpu = cpu,
					 .ts_ns = now },
				.since_ns = s->last_poll_ns,
				.channel = ch,
			};

			if (s->percpu[cpu].dropped == *last)
				continue;
			r.count = s->percpu[cpu].dropped - *last;
			*last = s->percpu[cpu].dropped;
			err = s->sink->record(s->sink, &r.hdr);
			if (err)
				return err;
		}
	}
	return 0;
}

int gt_session__poll(struct gtsc_session *s, int timeout_ms)
{
	int n = gt_channels__drain(&s->chans, timeout_ms);
	__u64 now = gtsc_mono_ns();
	int err;

	if (n < 0)
		return n;
	gt_dispatch__reap(&s->disp, false); /* a SIGKILLed recorder's slot, once a second */
	err = emit_drops(s, now);
	if (err)
		return err;
	s->last_poll_ns = now;
	err = s->sink->round_end(s->sink);
	return err ? err : n;
}

static bool all_consumed(struct gtsc_session *s)
{
	for (int ch = 0; ch < s->chans.n; ch++) {
		__u64 written = 0;

		if (gtsc_channel__flight(&s->chans.ch[ch]))
			continue; /* read by gt_session__flight_read, never drained */
		if (read_counters(s, ch))
			return true;
		for (int cpu = 0; cpu < s->nr_cpus; cpu++)
			written += s->percpu[cpu].written;
		if (gt_channels__consumed(&s->chans, ch) < written)
			return false;
	}
	return true;
}

int gt_session__flush(struct gtsc_session *s, int timeout_ms)
{
	__u64 deadline = gtsc_mono_ns() + (__u64)timeout_ms * 1000000;
	int err;

	do {
		err = gt_session__poll(s, 0);
		if (err < 0)
			return err;
		if (all_consumed(s))
			return 0;
		usleep(1000);
	} while (gtsc_mono_ns() < deadline);
	slog(s, GTSC_LOG_WARN, "some records were still in flight when recording ended");
	return -ETIMEDOUT;
}

int gtsc_session__stats(struct gtsc_session *s, struct gtsc_session_stat *out, size_t max)
{
	size_t n = 0;

	for (int ch = 0; ch < s->chans.n; ch++) {
		int err = read_counters(s, ch);

		if (err)
			return err;
		for (int cpu = 0; cpu < s->nr_cpus && n < max; cpu++)
			out[n++] = (struct gtsc_session_stat){ .channel = ch, .cpu = cpu,
							       .written = s->percpu[cpu].written,
							       .dropped = s->percpu[cpu].dropped };
	}
	return n;
}

/* One region: counts read before the walk, so that once stopped written - retained is exact. */
static int flight_region(struct gtsc_session *s, const struct gtsc_channel *ch, __u32 region,
			 enum gtsc_flight_read how, struct gtsc_sink *sink,
			 struct gtsc_session_flight *out)
{
	__u64 *cursor = &s->flight_cursor[ch->region_base + region];
	struct gtsc_flight_walk w;
	int err;

	out->channel = ch->id;
	out->cpu = ch->spec.global ? GTSC_FLIGHT_ALL_CPUS : region;
	out->written = 0;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		if (ch->spec.global || cpu == (int)region)
			out->written += s->percpu[cpu].written;
	err = gt_flight__walk(&s->flight, ch, region, how == GTSC_FLIGHT_CONSUME ? *cursor : 0,
			      how == GTSC_FLIGHT_COUNT ? NULL : sink, &w);
	if (err)
		return err;
	if (how == GTSC_FLIGHT_CONSUME)
		*cursor = w.head;
	out->retained = w.retained;
	out->overwritten = out->written > w.retained ? out->written - w.retained : 0;
	out->torn = w.torn;
	out->read = w.read;
	return 0;
}

int gt_session__flight_read(struct gtsc_session *s, enum gtsc_flight_read how,
			    struct gtsc_sink *sink, struct gtsc_session_flight *out, size_t max)
{
	size_t n = 0;
	int err;

	for (int i = 0; i < s->chans.n; i++) {
		const struct gtsc_channel *ch = &s->chans.ch[i];

		if (!gtsc_channel__flight(ch))
			continue;
		err = read_counters(s, ch->id);
		if (err)
			return err;
		for (__u32 r = 0; r < ch->nr_regions && n < max; r++) {
			err = flight_region(s, ch, r, how, sink, &out[n++]);
			if (err)
				return err;
		}
	}
	if (sink && how != GTSC_FLIGHT_COUNT) {
		err = sink->round_end(sink);
		if (err)
			return err;
	}
	return n;
}

void gt_session__flight_rewind(struct gtsc_session *s)
{
	if (s->flight_cursor)
		memset(s->flight_cursor, 0,
		       s->chans.nr_flight_regions * sizeof(*s->flight_cursor));
}

const char *gtsc_session__trigger(const struct gtsc_session *s, __u64 *count)
{
	if (count)
		*count = s && s->opts.trigger_syscall
				 ? __atomic_load_n(&s->skel->bss->gtsc_trigger_hits, __ATOMIC_RELAXED)
				 : 0;
	return s && s->opts.trigger_syscall ? s->trigger : NULL;
}

/* Events SLOT's rescue programs recorded, over all CPUs. */
static __u64 rescued(struct gtsc_session *s, int slot)
{
	__u64 *v = calloc(s->nr_cpus, sizeof(*v)), sum = 0;
	__u32 key = slot;

	if (v && slot >= 0 && slot < GTSC_RESCUE_MAX &&
	    !bpf_map__lookup_elem(s->skel->maps.gtsc_rescued, &key, sizeof(key), v,
				  sizeof(*v) * s->nr_cpus, 0))
		for (int c = 0; c < s->nr_cpus; c++)
			sum += v[c];
	free(v);
	return sum;
}

/*
 * Events the kernel skipped (recursion protection) that no rescue program
 * recorded: a source's misses minus what its rescue program took.  The
 * rescue programs' own misses are not losses: the first program had the
 * event, unless it was skipped too, and then the difference counts it.
 */
static __u64 prog_misses(struct gtsc_session *s, const struct gtsc_source_choice *c, __u64 saved,
			 struct strbuf *lines)
{
	struct bpf_program *p = bpf_object__find_program_by_name(s->skel->obj, c->prog);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	__u64 lost;

	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return 0;
	lost = info.recursion_misses > saved ? info.recursion_misses - saved : 0;
	if (lines)
		gt_strbuf_addf(lines, "prog\t%s\t%llu\n", c->name, (unsigned long long)lost);
	return lost;
}

__u64 gt_session__prog_misses(struct gtsc_session *s, struct strbuf *lines)
{
	__u64 total = 0;

	for (int i = 0; i < s->plan.n; i++) {
		const struct gtsc_source_choice *c = &s->plan.src[i];

		if (s->links[i])
			total += prog_misses(s, c, s->rescue_links[i][0] ?
							   rescued(s, c->rescue_slot) : 0, lines);
	}
	/* classic tracepoint programs count what bpf_prog_active skipped (6.7+) */
	if (s->tp_links.n)
		total += prog_misses(s, &s->plan.events, 0, lines);
	for (int h = 0; h < 2; h++) {
		struct gtsc_source_choice c = { .name = h ? "events:sys_exit" : "events:sys_enter",
						.prog = tp_sys_progs[h][0] };
		int slot = h ? GTSC_RESCUE_TP_SYS_EXIT : GTSC_RESCUE_TP_SYS_ENTER;

		if (s->tp_sys_links[h][0])
			total += prog_misses(s, &c, s->tp_sys_links[h][1] ? rescued(s, slot) : 0,
					     lines);
	}
	return total;
}

/* The map is keyed by the frames themselves, zero-padded, and holds the id. */
int gt_session__stacks(struct gtsc_session *s, gtsc_stack_fn fn, void *ctx)
{
	const struct bpf_map *map = s->skel->maps.gtsc_stacks;
	size_t depth = bpf_map__key_size(map) / sizeof(__u64);
	__u64 *ips = calloc(2 * depth, sizeof(*ips));
	__u64 *next = ips + depth;
	int err = ips ? 0 : -ENOMEM;

	for (__u64 *prev = NULL; !err; prev = ips) {
		size_t n = 0;
		__u32 id;

		if (bpf_map__get_next_key(map, prev, next, depth * sizeof(*ips)))
			break; /* ENOENT: the last one */
		memcpy(ips, next, depth * sizeof(*ips));
		if (bpf_map__lookup_elem(map, ips, depth * sizeof(*ips), &id, sizeof(id), 0))
			continue;
		while (n < depth && ips[n])
			n++;
		err = fn(ctx, "kernel", id, ips, n);
	}
	free(ips);
	return err;
}

__u64 gt_session__consumed(const struct gtsc_session *s)
{
	__u64 sum = 0;

	for (int ch = 0; ch < s->chans.n; ch++)
		sum += gt_channels__consumed(&s->chans, ch);
	return sum;
}

const struct gtsc_features *gt_session__features(const struct gtsc_session *s)
{
	return &s->feat;
}

const struct gtsc_channels *gt_session__channels(const struct gtsc_session *s)
{
	return &s->chans;
}

const struct gtsc_source_plan *gt_session__plan(const struct gtsc_session *s)
{
	return &s->plan;
}

struct gtsc_sink *gt_session__sink(const struct gtsc_session *s)
{
	return s->sink;
}

struct bpf_object *gt_session__object(const struct gtsc_session *s)
{
	return s->skel->obj;
}

__u64 gt_session__start_ns(const struct gtsc_session *s)
{
	return s->start_ns;
}

bool gt_session__recording(const struct gtsc_session *s)
{
	return __atomic_load_n(&s->skel->bss->gtsc_on, __ATOMIC_ACQUIRE);
}

/*
 * The array regions' refused claims by reason (gtsc_arr_head: a full region,
 * or GTSC_ARR_TRIES swaps lost to other writers) and the claims that won
 * after a lost swap, for -v: the drops' causes, which the counts mix.
 */
static void arr_log_claims(const struct gtsc_session *s)
{
	const struct gtsc_channels *c = &s->chans;

	for (__u32 i = 0; c->arr_heads && i < c->nr_arr_heads; i++) {
		const struct gtsc_arr_head *h = &c->arr_heads[i];

		if (h->full || h->contended || h->retried)
			slog(s, GTSC_LOG_DEBUG,
			     "array region %u: %llu claims refused full, %llu after %u lost swaps, "
			     "%llu won after a lost swap", i, (unsigned long long)h->full,
			     (unsigned long long)h->contended, GTSC_ARR_TRIES,
			     (unsigned long long)h->retried);
	}
}

void gtsc_session__destroy(struct gtsc_session *s)
{
	if (!s)
		return;
	/* Out of the chain before anything of ours goes (gtsc_on is ours). */
	gt_dispatch__leave(&s->disp);
	/* Rescue programs first: alone, one would take every event for a skipped one. */
	for (int i = 0; i < GTSC_MAX_SOURCES; i++)
		for (int l = GTSC_RESCUE_LEVELS - 1; l >= 0; l--)
			bpf_link__destroy(s->rescue_links[i][l]);
	for (int h = 0; h < 2; h++)
		for (int l = TP_SYS_LEVELS; l >= 0; l--)
			bpf_link__destroy(s->tp_sys_links[h][l]);
	for (int i = 0; i < GTSC_MAX_SOURCES; i++)
		bpf_link__destroy(s->links[i]);
	gt_funcs__detach(&s->func_links);
	gt_tp__detach(&s->tp_links);
	gt_tp__free(&s->tps);
	if (s->cgroup_fd >= 0)
		close(s->cgroup_fd);
	gt_flight__unmap(&s->flight);
	free(s->flight_cursor);
	arr_log_claims(s);
	gt_channels__free(&s->chans);
	gtsc_bpf__destroy(s->skel);
	gt_features__fini(&s->feat);
	free(s->percpu);
	free(s->last_dropped);
	free(s->tracked);
	gt_funcs__free(&s->funcs);
	if (s->sink && s->sink->destroy) /* a sink the session owns (gtsc_session__open's) */
		s->sink->destroy(s->sink);
	free(s);
}
