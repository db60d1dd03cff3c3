// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "gtsc/gtsc.h"
#include "feature_probe.h"
#include "gtsc_shared.h"
#include "strbuf.h"

static const char *const feat_names[GTSC_FEAT_MAX] = {
	[GTSC_FEAT_BTF] = "btf",
	[GTSC_FEAT_RINGBUF] = "ringbuf",
	[GTSC_FEAT_RINGBUF_OVERWRITE] = "ringbuf_overwrite",
	[GTSC_FEAT_TP_BTF] = "tp_btf",
	[GTSC_FEAT_TP_BTF_VOID_ARG] = "tp_btf_void_arg",
	[GTSC_FEAT_TRACEFS] = "tracefs",
	[GTSC_FEAT_SYSCALL_EVENTS] = "syscall_events",
	[GTSC_FEAT_KPROBE] = "kprobe",
	[GTSC_FEAT_KPROBE_MULTI] = "kprobe_multi",
	[GTSC_FEAT_FENTRY] = "fentry",
	[GTSC_FEAT_BPF_PREEMPTIBLE] = "bpf_preemptible",
	[GTSC_FEAT_TRACEPOINT] = "tracepoint",
	[GTSC_FEAT_TASK_STORAGE] = "task_storage",
	[GTSC_FEAT_ARRAY_RING] = "array_ring",
	[GTSC_FEAT_SYSCALL_TP_CLASSIC] = "syscall_tp_classic",
	[GTSC_FEAT_SYS_DISPATCH] = "sys_dispatch",
};

/* Attach probes go here: traceable and in BTF on every kernel since 5.10. */
#define PROBE_FUNC "kernel_clone"
#define KPROBE_PMU_TYPE "/sys/bus/event_source/devices/kprobe/type"

const char *gt_feature_name(enum gtsc_feature feat)
{
	return feat < GTSC_FEAT_MAX ? feat_names[feat] : "?";
}

static void feat_set(struct gtsc_features *f, enum gtsc_feature feat, bool ok, const char *why)
{
	f->has[feat] = ok;
	snprintf(f->why[feat], sizeof(f->why[feat]), "%s", ok ? "" : why);
}

static bool path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

void gt_tracefs__find(char *buf, size_t size)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[96];

	buf[0] = '\0';
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events", dirs[i]);
		if (path_exists(p)) {
			snprintf(buf, size, "%s", dirs[i]);
			return;
		}
	}
	/* Mounting is what a user would do by hand; do it for them when root. */
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) == 0 &&
	    path_exists("/sys/kernel/tracing/events"))
		snprintf(buf, size, "%s", dirs[0]);
}

static void probe_tracefs(struct gtsc_features *f)
{
	char p[96];

	gt_tracefs__find(f->tracefs, sizeof(f->tracefs));
	feat_set(f, GTSC_FEAT_TRACEFS, f->tracefs[0],
		 "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	snprintf(p, sizeof(p), "%s/events/syscalls", f->tracefs);
	feat_set(f, GTSC_FEAT_SYSCALL_EVENTS, f->tracefs[0] && path_exists(p),
		 "no events/syscalls in tracefs (CONFIG_FTRACE_SYSCALLS off)");
}

static bool probe_rb_overwrite(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = GTSC_RB_OVERWRITE_FLAG);
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gtsc_probe", 0, 0, 4096, &o);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* A "return 0" program: fd or -errno. */
static int load_ret0(enum bpf_prog_type type, enum bpf_attach_type attach, int btf_id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = attach,
		    .attach_btf_id = btf_id);
	int fd = bpf_prog_load(type, "gtsc_probe", "GPL", insns, 2, &o);

	return fd < 0 ? -errno : fd;
}

/*
 * libbpf 1.1 cannot probe BPF_PROG_TYPE_TRACING without a target, so load a
 * real "return 0" tp_btf program against a tracepoint every kernel has.
 */
static bool probe_tp_btf_prog(const struct btf *vmlinux, const char *tp, const struct bpf_insn *insns,
			      size_t n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_RAW_TP);
	char name[96];
	int id, fd;

	if (!vmlinux)
		return false;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return false;
	o.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "gtsc_probe", "GPL", insns, n, &o);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool probe_tp_btf(const struct btf *vmlinux)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return probe_tp_btf_prog(vmlinux, "sched_process_fork", insns, 2);
}

/* kfree(call_site, const void *ptr): can the program load ptr from its context? */
static bool probe_tp_btf_void_arg(const struct btf *vmlinux)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_1,
		  .off = 8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return probe_tp_btf_prog(vmlinux, "kfree", insns, 3);
}

/*
 * ring=array (gtsc_shared.h): the largest element, GTSC_ARR_ELEM_MAX down
 * to GTSC_ARR_ELEM_MIN, of an mmapable array this kernel creates (6.18
 * takes up to 1 GiB; older kernels cap a value at KMALLOC_MAX_SIZE, 4 MiB
 * on x86-64), 0 if none; then whether a program may compare-and-swap.
 */
static __u32 probe_arr_elem(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);

	for (__u32 sz = GTSC_ARR_ELEM_MAX; sz >= GTSC_ARR_ELEM_MIN; sz /= 2) {
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gtsc_probe", 4, sz, 1, &o);

		if (fd >= 0) {
			close(fd);
			return sz;
		}
	}
	return 0;
}

static bool probe_cmpxchg(void)
{
	const struct bpf_insn insns[] = {
		/* *(u64 *)(r10 - 8) = 0; r0 = 0; r0 = cmpxchg(r10 - 8, r0, r1 = 1) */
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_CMPXCHG },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "gtsc_probe", "GPL", insns, 6, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void probe_array_ring(struct gtsc_features *f)
{
	f->arr_elem_max = probe_arr_elem();
	if (!f->arr_elem_max)
		feat_set(f, GTSC_FEAT_ARRAY_RING, false,
			 "no BPF_F_MMAPABLE arrays (needs Linux 5.5)");
	else
		feat_set(f, GTSC_FEAT_ARRAY_RING, probe_cmpxchg(),
			 "no BPF compare-and-exchange (needs Linux 5.12)");
}

/*
 * The attach probes below really attach a "return 0" program to PROBE_FUNC
 * and detach it at once: a kernel can have the program type and still
 * refuse the attachment (no kprobes, CONFIG_FPROBE off, ftrace locked down),
 * and only the attach error says so.  Each returns 0 or a phrase in WHY.
 */
static int probe_fail(char *why, size_t sz, const char *what, int err)
{
	snprintf(why, sz, "%s: %s", what, strerror(-err));
	return err;
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -1;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static int kprobe_open(int pmu_type)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = pmu_type,
		.config1 = (__u64)(unsigned long)PROBE_FUNC, /* kprobe_func */
	};
	int fd = syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int probe_kprobe(char *why, size_t sz)
{
	int type = read_int_file(KPROBE_PMU_TYPE), pfd, prog, link;

	if (type < 0) {
		snprintf(why, sz, "no kprobe PMU (CONFIG_KPROBES off)");
		return -ENOENT;
	}
	pfd = kprobe_open(type);
	if (pfd < 0)
		return probe_fail(why, sz, "creating a kprobe on " PROBE_FUNC " failed", pfd);
	prog = load_ret0(BPF_PROG_TYPE_KPROBE, 0, 0);
	if (prog < 0) {
		close(pfd);
		return probe_fail(why, sz, "kprobe programs do not load", prog);
	}
	link = bpf_link_create(prog, pfd, BPF_PERF_EVENT, NULL);
	if (link < 0)
		link = -errno;
	else
		close(link);
	close(prog);
	close(pfd);
	return link < 0 ? probe_fail(why, sz, "attaching to a kprobe failed", link) : 0;
}

static int probe_kprobe_multi(char *why, size_t sz)
{
	const char *syms[] = { PROBE_FUNC };
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int prog = load_ret0(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0), link;

	if (prog < 0)
		return probe_fail(why, sz, "kprobe.multi programs do not load (Linux 5.18)", prog);
	link = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	if (link < 0)
		link = -errno;
	else
		close(link);
	close(prog);
	if (link == -EOPNOTSUPP)
		snprintf(why, sz, "kprobe.multi attach not supported (CONFIG_FPROBE off)");
	else if (link < 0)
		probe_fail(why, sz, "kprobe.multi attach to " PROBE_FUNC " failed", link);
	return link < 0 ? link : 0;
}

static int probe_fentry(const struct btf *vmlinux, char *why, size_t sz)
{
	int id = vmlinux ? btf__find_by_name_kind(vmlinux, PROBE_FUNC, BTF_KIND_FUNC) : -ENOENT;
	int prog, link;

	if (id < 0) {
		snprintf(why, sz, "no kernel BTF for " PROBE_FUNC);
		return id;
	}
	prog = load_ret0(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, id);
	if (prog < 0)
		return probe_fail(why, sz, "fentry programs do not load", prog);
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0)
		link = -errno;
	else
		close(link);
	close(prog);
	return link < 0 ? probe_fail(why, sz, "fentry attach to " PROBE_FUNC " failed", link) : 0;
}

static void probe_attach(struct gtsc_features *f)
{
	char why[sizeof(f->why[0])] = "";

	feat_set(f, GTSC_FEAT_KPROBE, !probe_kprobe(why, sizeof(why)), why);
	feat_set(f, GTSC_FEAT_KPROBE_MULTI, !probe_kprobe_multi(why, sizeof(why)), why);
	feat_set(f, GTSC_FEAT_FENTRY, !probe_fentry(f->vmlinux, why, sizeof(why)), why);
}

/*
 * Whether a task can be preempted inside our tracepoint programs, which
 * makes the kernel skip the next task's run of the same program on that CPU
 * and lets a later task's records land before the preempted one's.
 * PREEMPT_RT (/sys/kernel/realtime, or "PREEMPT_RT" in uname -v) runs every
 * BPF program with only migration disabled.  So does Linux 7.x, on every
 * tracepoint: Debian's 7.3.4 (not -rt) skipped 1,545 of 24,000 syscall
 * events of live/rt, and two kmem_load tasks on one CPU left 19-36 kmem
 * records out of order by up to 26 ms in each of three runs; its 6.19.6
 * did neither.
 */
bool gt_uts_bpf_preemptible(const char *release, const char *version)
{
	if (version && strstr(version, "PREEMPT_RT"))
		return true;
	return release && atoi(release) >= 7;
}

/*
 * Whether classic tracepoint programs on syscall events (syscalls:*,
 * raw_syscalls:*) run with preemption off, so that the per-CPU
 * bpf_prog_active skips none of them.  Linux 7.x runs those perf handlers
 * preemptible: three getppid storms on one CPU kept 118,214 of 300,000
 * sys_enter_getppid on 7.3.4 and 110,184 on 7.3.4-rt, while 6.1, 6.12-rt
 * and 6.18 kept all, and a non-syscall event (task:task_rename) kept all
 * on 7.3.4 too (test_tp_preempt.sh, 2026-11-26).  The kernel change was
 * not identified; the rule is the measured one.  Without it the session
 * builds those events from raw_syscalls (tracepoint.bpf.c).
 */
static bool probe_syscall_tp_classic(void)
{
	struct utsname u;

	return uname(&u) || atoi(u.release) < 7;
}

static bool probe_bpf_preemptible(void)
{
	struct utsname u;

	if (read_int_file("/sys/kernel/realtime") == 1)
		return true;
	if (uname(&u))
		return false;
	return gt_uts_bpf_preemptible(u.release, u.version);
}

/*
 * The shared syscall dispatch (dispatch.h): a tp_btf/sys_enter program
 * (the head's) that tail-calls through a prog array holding another (tail calls from
 * tracing programs; the array's owner check compares attach points since
 * 6.11's "bpf: Prevent tail call between progs attached to different
 * hooks"), and pidfd_getfd (5.6, 8649c322f75c) for a recorder to copy
 * another's fds.  Only where syscall programs are not preemptible:
 * elsewhere each session needs its own rescue programs after its first.
 */
static int probe_sys_dispatch(const struct gtsc_features *f, char *why, size_t sz)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_RAW_TP);
	struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_insn tail[] = {
		/* r2 = map (ld_imm64, pseudo map fd), r3 = 0, tail_call(r1, r2, r3) */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_PSEUDO_MAP_FD },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_tail_call },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int map = -1, caller = -1, callee = -1, pidfd = -1, fd, err = 0, id;
	__u32 key = 0;

	if (f->has[GTSC_FEAT_BPF_PREEMPTIBLE])
		return snprintf(why, sz, "syscall programs are preemptible: each session keeps "
			       "its own, with its rescue programs"), -EOPNOTSUPP;
	id = f->vmlinux ? btf__find_by_name_kind(f->vmlinux, "btf_trace_sys_enter",
						 BTF_KIND_TYPEDEF) : -ENOENT;
	if (id < 0)
		return snprintf(why, sz, "no tp_btf/sys_enter"), -EOPNOTSUPP;
	o.attach_btf_id = id;
	map = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "gtsc_probe", 4, 4, 1, NULL);
	if (map < 0)
		return probe_fail(why, sz, "a prog array", -errno);
	tail[0].imm = map;
	caller = bpf_prog_load(BPF_PROG_TYPE_TRACING, "gtsc_probe", "GPL", tail, 6, &o);
	if (caller < 0)
		err = probe_fail(why, sz, "a tp_btf tail call", -errno);
	callee = err ? -1 : bpf_prog_load(BPF_PROG_TYPE_TRACING, "gtsc_probe", "GPL", ret0, 2, &o);
	if (!err && callee < 0)
		err = probe_fail(why, sz, "a tp_btf program", -errno);
	if (!err && bpf_map_update_elem(map, &key, &callee, BPF_ANY))
		err = probe_fail(why, sz, "a tp_btf program in a prog array", -errno);
	pidfd = err ? -1 : syscall(434 /* pidfd_open */, getpid(), 0);
	if (!err && pidfd < 0)
		err = probe_fail(why, sz, "pidfd_open (5.3)", -errno);
	fd = err ? -1 : syscall(438 /* pidfd_getfd */, pidfd, map, 0);
	if (!err && fd < 0)
		err = probe_fail(why, sz, "pidfd_getfd (5.6)", -errno);
	for (int *c = (int[]){ fd, pidfd, callee, caller, map, -2 }; *c != -2; c++)
		if (*c >= 0)
			close(*c);
	return err;
}

/*
 * GTSC_FEATURES_OFF=name[,name...] turns probed features off, so that a
 * kernel that has a feature also runs the code for kernels that do not:
 * ringbuf_overwrite=no forces the emulated flight channels (the flight
 * tests run both ways on 6.19+), kprobe_multi=no the single kprobes.
 */
static void features_off(struct gtsc_features *f)
{
	const char *off = getenv("GTSC_FEATURES_OFF"), *p = off;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		for (int i = 0; i < GTSC_FEAT_MAX; i++)
			if (strlen(feat_names[i]) == n && !strncmp(p, feat_names[i], n))
				feat_set(f, i, false, "turned off by GTSC_FEATURES_OFF");
		p += n + (p[n] == ',');
	}
}

int gt_features__init(struct gtsc_features *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->vmlinux = btf__load_vmlinux_btf();
	err = f->vmlinux ? 0 : -errno;
	feat_set(f, GTSC_FEAT_BTF, !err,
		 "the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
	feat_set(f, GTSC_FEAT_RINGBUF, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1,
		 "no BPF ring buffer (needs Linux 5.8)");
	feat_set(f, GTSC_FEAT_RINGBUF_OVERWRITE, probe_rb_overwrite(),
		 "no BPF_F_RB_OVERWRITE (needs Linux 6.19)");
	feat_set(f, GTSC_FEAT_TP_BTF, probe_tp_btf(f->vmlinux),
		 "tp_btf programs do not load (needs kernel BTF, Linux 5.5)");
	feat_set(f, GTSC_FEAT_TP_BTF_VOID_ARG, probe_tp_btf_void_arg(f->vmlinux),
		 "the verifier refuses `void *` tracepoint arguments: read with a probe instead");
	feat_set(f, GTSC_FEAT_BPF_PREEMPTIBLE, probe_bpf_preemptible(),
		 "syscall programs run with preemption off (not PREEMPT_RT, before 7.0)");
	probe_tracefs(f);
	/*
	 * Classic tracepoint programs, the only kind that sees the raw entry,
	 * told which event fired by the perf link's cookie (5.15): the entry's
	 * own common_type is overwritten before they run.
	 */
	feat_set(f, GTSC_FEAT_TRACEPOINT,
		 f->has[GTSC_FEAT_TRACEFS] &&
			 libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
						 BPF_FUNC_get_attach_cookie, NULL) == 1,
		 f->has[GTSC_FEAT_TRACEFS]
			 ? "classic tracepoint programs cannot read an attach cookie (needs Linux 5.15)"
			 : f->why[GTSC_FEAT_TRACEFS]);
	probe_attach(f);
	feat_set(f, GTSC_FEAT_TASK_STORAGE,
		 libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1,
		 "no BPF task storage (needs Linux 5.11)");
	probe_array_ring(f);
	feat_set(f, GTSC_FEAT_SYSCALL_TP_CLASSIC, probe_syscall_tp_classic(),
		 "classic programs on syscall events run preemptible (7.x)");
	err = probe_sys_dispatch(f, f->why[GTSC_FEAT_SYS_DISPATCH],
				 sizeof(f->why[GTSC_FEAT_SYS_DISPATCH]));
	f->has[GTSC_FEAT_SYS_DISPATCH] = !err;
	features_off(f);
	return 0;
}

void gt_features__fini(struct gtsc_features *f)
{
	btf__free(f->vmlinux);
	f->vmlinux = NULL;
}

/* Kind of a resolved BTF type for the spec: 'i', 'p', or 0 for anything else. */
static char btf_arg_kind(const struct btf *btf, __u32 id, const char **ptr_struct)
{
	const struct btf_type *t;
	int rid = btf__resolve_type(btf, id);

	*ptr_struct = NULL;
	if (rid < 0)
		return 0;
	t = btf__type_by_id(btf, rid);
	if (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t))
		return 'i';
	if (!btf_is_ptr(t))
		return 0;
	rid = btf__resolve_type(btf, t->type);
	t = rid >= 0 ? btf__type_by_id(btf, rid) : NULL;
	if (t && (btf_is_struct(t) || btf_is_union(t)))
		*ptr_struct = btf__name_by_offset(btf, t->name_off);
	return 'p';
}

static bool spec_arg_matches(const char *spec, size_t len, char kind, const char *ptr_struct)
{
	if (len == 1 && spec[0] == 'i')
		return kind == 'i';
	if (len == 1 && spec[0] == 'p')
		return kind == 'p';
	if (len > 2 && spec[0] == 'P' && spec[1] == ':')
		return kind == 'p' && ptr_struct && strlen(ptr_struct) == len - 2 &&
		       !strncmp(ptr_struct, spec + 2, len - 2);
	return false;
}

bool gt_features__tp_btf_matches(const struct gtsc_features *f, const char *tp, const char *spec,
				 char *why, size_t why_sz)
{
	const struct btf_param *params;
	const struct btf_type *t;
	char name[128];
	int id, n, i;

	if (!f->vmlinux || !f->has[GTSC_FEAT_TP_BTF]) {
		snprintf(why, why_sz, "no tp_btf support");
		return false;
	}
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(f->vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0) {
		snprintf(why, why_sz, "the kernel has no tracepoint %s", tp);
		return false;
	}
	t = btf__type_by_id(f->vmlinux, btf__resolve_type(f->vmlinux, id));
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(f->vmlinux, t->type);
	if (!t || !btf_is_func_proto(t)) {
		snprintf(why, why_sz, "%s has no prototype in BTF", name);
		return false;
	}
	params = btf_params(t);
	n = btf_vlen(t);
	/* params[0] is the tracepoint's void *__data. */
	for (i = 1; *spec; i++) {
		const char *end = strchrnul(spec, ',');
		const char *ps;
		char kind;

		if (i >= n) {
			snprintf(why, why_sz, "%s takes %d arguments, expected more", tp, n - 1);
			return false;
		}
		kind = btf_arg_kind(f->vmlinux, params[i].type, &ps);
		if (!spec_arg_matches(spec, end - spec, kind, ps)) {
			snprintf(why, why_sz, "%s argument %d differs from %.*s", tp, i,
				 (int)(end - spec), spec);
			return false;
		}
		spec = *end ? end + 1 : end;
	}
	return true;
}

bool gt_features__tracepoint_exists(const struct gtsc_features *f, const char *category,
				    const char *name)
{
	char p[256];

	if (!f->tracefs[0])
		return false;
	snprintf(p, sizeof(p), "%s/events/%s/%s/id", f->tracefs, category, name);
	return path_exists(p);
}

void gt_features__lines(const struct gtsc_features *f, struct strbuf *sb)
{
	for (int i = 0; i < GTSC_FEAT_MAX; i++) {
		gt_strbuf_addf(sb, "%s=%s", feat_names[i], f->has[i] ? "yes" : "no");
		if (!f->has[i])
			gt_strbuf_addf(sb, " (%s)", f->why[i]);
		gt_strbuf_addf(sb, "\n");
	}
}

/* ---- the public API (gtsc/control.h): an allocated gtsc_features ---- */

struct gtsc_features *gtsc_features__probe(void)
{
	struct gtsc_features *f = calloc(1, sizeof(*f));

	if (!f)
		return errno = ENOMEM, NULL;
	gt_features__init(f);
	return f;
}

int gtsc_features__describe(const struct gtsc_features *f, char *buf, size_t size)
{
	struct strbuf sb = {};
	int err;

	if (!f || (!buf && size))
		return -EINVAL;
	gt_features__lines(f, &sb);
	err = strbuf_err(&sb) ?: (int)sb.len;
	if (err >= 0 && size)
		snprintf(buf, size, "%s", sb.buf ? sb.buf : "");
	gt_strbuf_free(&sb);
	return err;
}

void gtsc_features__free(struct gtsc_features *f)
{
	if (!f)
		return;
	gt_features__fini(f);
	free(f);
}
