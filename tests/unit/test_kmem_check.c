/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * gtsc-bpf check on synthetic traces: a clean one has no findings; a planted
 * out-of-order record, a flipped byte (bad CRC), a cut file, drop records
 * that disagree with the trailer, a trailer that counts more than the file
 * holds, a record of an unknown type or an impossible size are each found,
 * exactly once; printf and tracepoint records of their own sizes are sound.  Drops are warnings; an interrupt's nesting, a flight
 * channel's overwritten records, the channels a snapshot leaves out and kmem
 * records that do not pair up are notes, not findings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include "harness.h"
#include "kmem_check.h"
#include "test_kmem_trace.h"

#define K GTSC_KMEM_KMALLOC
#define PTR(n) (0xffff888100000000ULL + 0x100ULL * (n))

/* Well-paired traffic on both CPUs, in time order per CPU. */
static void clean_records(struct ktrace *t, int n)
{
	kt_cache_name(t, "test_cache", 64);
	for (int i = 0; i < n; i++) {
		kt_alloc(t, K, i % 2, 1 + i % 3, PTR(i), 40, 64);
		kt_free(t, K, (i + 1) % 2, 5, PTR(i));
	}
}

static void run_check(struct test_ctx *t, const char *path, struct kmem_check *k)
{
	memset(k, 0, sizeof(*k));
	CHECK(t, !gt_kmem_check__run(path, k), "check did not run");
}

/* Ends the trace, checks it into K and removes it. */
static void close_and_check(struct test_ctx *t, struct ktrace *kt, struct kmem_check *k)
{
	kt_close(kt);
	run_check(t, kt->path, k);
	unlink(kt->path);
}

static bool has_finding(const struct kmem_check *k, const char *needle)
{
	return k->findings.buf && strstr(k->findings.buf, needle);
}

/* K found exactly one thing, and it says NEEDLE. */
static void one_finding(struct test_ctx *t, const struct kmem_check *k, const char *needle)
{
	CHECK(t, k->s.nr_findings == 1 && has_finding(k, needle), "%d findings, want '%s': %s",
	      k->s.nr_findings, needle, k->findings.buf);
}

static bool has_note(const struct kmem_check *k, const char *needle)
{
	return k->notes.buf && strstr(k->notes.buf, needle);
}

static void test_clean(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;

	kt_open(&kt, "clean", NULL);
	clean_records(&kt, 500);
	close_and_check(t, &kt, &k);
	CHECK(t, k.s.nr_findings == 0, "%d findings: %s", k.s.nr_findings, k.findings.buf);
	CHECK(t, k.s.records == 1001, "records %llu", (unsigned long long)k.s.records);
	CHECK(t, strstr(k.s.format, "kernel 6.18.0, 2 cpus"), "format '%s'", k.s.format);
	gt_kmem_check__free(&k);
}

/* K found one record out of order, not explained by nesting, and says NEEDLE. */
static void misordered_once(struct test_ctx *t, const struct kmem_check *k, const char *needle)
{
	CHECK(t, k->s.out_of_order == 1 && k->s.nested == 0 && has_finding(k, needle),
	      "out of order %llu nested %llu, want '%s': %s", (unsigned long long)k->s.out_of_order,
	      (unsigned long long)k->s.nested, needle, k->findings.buf);
}

static void test_out_of_order(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;
	__u64 ts;

	kt_open(&kt, "order", NULL);
	clean_records(&kt, 100);
	ts = kt.ts;
	kt.ts = KT_START_NS + 10; /* a record far back in time on CPU 0 */
	kt_alloc(&kt, K, 0, 1, PTR(1000), 8, 8);
	kt.ts = ts;
	kt_free(&kt, K, 0, 5, PTR(1000));
	close_and_check(t, &kt, &k);
	misordered_once(t, &k, "CPU 0 of the kmem channel has 1 record earlier");
	one_finding(t, &k, "CPU 0 of the kmem channel has 1 record earlier");
	gt_kmem_check__free(&k);
}

/* A kmem record on CPU 0 stamped BACK ns before BASE, then its free at BASE. */
static void plant_early_alloc(struct ktrace *kt, __u64 base, __u64 back)
{
	kt->ts = base - back;
	kt_alloc(kt, K, 0, 1, PTR(1000), 8, 8);
	kt->ts = base;
	kt_free(kt, K, 0, 5, PTR(1000));
}

/*
 * PREEMPT_RT runs programs preemptible: one preempted between its clock read
 * and its reserve lands after any number of later events (the 7.3.4-rt VM
 * saw 0.93 ms).  A note there, the finding above everywhere else.
 */
static void test_preempted_rt(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;

	kt_open_ex(&kt, "rt", "7.3.4+deb13-rt-amd64",
		   "kernel_version=#1 SMP PREEMPT_RT Debian 7.3.4-1\n", "discard");
	clean_records(&kt, 100);
	/* earlier than the last several records of CPU 0 */
	plant_early_alloc(&kt, kt.ts, 900000);
	close_and_check(t, &kt, &k);
	CHECK(t, k.s.out_of_order == 0 && k.s.nr_findings == 0, "out of order %llu: %s",
	      (unsigned long long)k.s.out_of_order, k.findings.buf);
	CHECK(t, has_note(&k, "CPU 0 of the kmem channel has 1 record earlier") &&
			 has_note(&k, "PREEMPT_RT"),
	      "notes: %s", k.notes.buf);
	gt_kmem_check__free(&k);
}

static void kt_sys_exit(struct ktrace *kt, __u16 cpu)
{
	struct gtsc_rec_sys_exit e = { .nr = 110 };

	kt_hdr(kt, &e.hdr, GTSC_REC_SYS_EXIT, sizeof(e), cpu, 7);
	kt_add(kt, &e.hdr);
}

/*
 * 7.x (not -rt) runs every tracepoint's programs preemptible: the 7.3.4 VM
 * saw a syscall record 3.1 ms early on one CPU, and two kmem_load tasks on
 * one CPU left 19-36 kmem records out of order by up to 26 ms a run (its
 * 6.19.6 none).  A note on both channels there; 6.19 keeps the finding.
 */
static void preempted_7x_one(struct test_ctx *t, const char *release, bool preemptible)
{
	struct ktrace kt;
	struct kmem_check k;
	__u64 ts;

	kt_open_ex(&kt, "7x", release, "kernel_version=#1 SMP PREEMPT_DYNAMIC Debian\n",
		   "discard");
	clean_records(&kt, 100);
	for (int i = 0; i < 10; i++)
		kt_sys_exit(&kt, 0);
	ts = kt.ts;
	kt.ts = ts - 3000000;
	kt_sys_exit(&kt, 0);
	plant_early_alloc(&kt, ts, 900000); /* and a kmem record out of order */
	close_and_check(t, &kt, &k);
	if (preemptible) {
		CHECK(t, has_note(&k, "CPU 0 of the syscalls channel has 1 record earlier") &&
				 has_note(&k, "CPU 0 of the kmem channel has 1 record earlier") &&
				 has_note(&k, "Linux 7.x"),
		      "%s: notes: %s", release, k.notes.buf);
		CHECK(t, k.s.out_of_order == 0 && !has_finding(&k, "earlier than"),
		      "%s: out of order %llu: %s",
		      release, (unsigned long long)k.s.out_of_order, k.findings.buf);
	} else {
		CHECK(t, k.s.out_of_order == 2 &&
				 has_finding(&k, "CPU 0 of the kmem channel has 1 record") &&
				 has_finding(&k, "CPU 0 of the syscalls channel has 1 record"),
		      "%s: out of order %llu: %s", release, (unsigned long long)k.s.out_of_order,
		      k.findings.buf);
	}
	gt_kmem_check__free(&k);
}

static void test_preempted_7x(struct test_ctx *t)
{
	preempted_7x_one(t, "7.3.4+deb13-amd64", true);
	preempted_7x_one(t, "6.19.6+deb13-amd64", false);
}

/*
 * Syscall events never happen in an interrupt: a syscall record earlier
 * than the ones before it is a finding where programs are not preempted,
 * though a kmem record in its place would be a nested interrupt's.
 */
static void test_syscall_not_nested(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;

	kt_open(&kt, "sysnest", NULL);
	clean_records(&kt, 10);
	for (int i = 0; i < 10; i++)
		kt_sys_exit(&kt, 0);
	kt.ts -= 3500; /* stamped before the last three, after the rest */
	kt_sys_exit(&kt, 0);
	close_and_check(t, &kt, &k);
	misordered_once(t, &k, "CPU 0 of the syscalls channel has 1 record earlier");
	gt_kmem_check__free(&k);
}

/* An interrupt's events recorded inside another event's: a note only. */
static void test_nested_interrupt(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;
	__u64 ts;

	kt_open(&kt, "nested", NULL);
	clean_records(&kt, 10);
	ts = kt.ts;
	kt.ts = ts + 5000; /* the interrupted event, stamped after the interrupt */
	kt_alloc(&kt, K, 0, 1, PTR(2000), 8, 8);
	kt.ts = ts + 1000; /* the interrupt's own event */
	kt_alloc(&kt, K, 0, 2, PTR(2001), 8, 8);
	kt.ts = ts + 6000;
	kt_free(&kt, K, 0, 5, PTR(2000));
	kt_free(&kt, K, 0, 5, PTR(2001));
	close_and_check(t, &kt, &k);
	CHECK(t, k.s.nested == 1 && k.s.out_of_order == 0, "nested %llu out of order %llu",
	      (unsigned long long)k.s.nested, (unsigned long long)k.s.out_of_order);
	CHECK(t, k.s.nr_findings == 0, "%d findings: %s", k.s.nr_findings, k.findings.buf);
	gt_kmem_check__free(&k);
}

/*
 * Records of CPU 0 as one ring may hold them (check_order): each an offset
 * from a base time in µs and a task.  A record's stamp and its place in the
 * ring are taken one after the other; an interrupt in between records its
 * own events (other hooks', or the rescue programs') inside that window,
 * as the interrupted task.  Ring channels and native overwrite rings take
 * the place first, so the interrupted record comes first and is later than
 * the interrupt's records; emulated flight channels stamp first, so it
 * comes after them and is earlier.  Anything else is a finding.
 */
struct order_case {
	const char *name;
	const char *mode;  /* the kmem channel's: discard or overwrite */
	bool native;	   /* FEATURES ringbuf_overwrite=yes */
	int n;
	struct {
		unsigned int us;
		__u32 tid;
	} rec[12];
	__u64 nested; /* records explained by an interrupt */
	int findings;
};

#define T1 100 /* the task of most records */

static const struct order_case order_cases[] = {
	/* ring: a softirq (RCU frees) in the window of a task's record */
	{ "ring_softirq", "discard", false, 7,
	  { { 0, T1 }, { 50, T1 }, { 10, T1 }, { 11, T1 }, { 12, T1 }, { 13, T1 }, { 60, T1 } },
	  1, 0 },
	/* ring: task, then softirq in its window, then a hardirq in the softirq's */
	{ "ring_three_levels", "discard", false, 8,
	  { { 0, T1 }, { 90, T1 }, { 50, T1 }, { 10, T1 }, { 11, T1 }, { 60, T1 }, { 61, T1 },
	    { 100, T1 } },
	  2, 0 },
	/* an interrupt runs as the task it interrupted: another task cannot be in the window */
	{ "ring_other_task", "discard", false, 4,
	  { { 0, T1 }, { 50, T1 }, { 10, 200 }, { 60, T1 } }, 0, 1 },
	/* earlier than the record before the one before it, which no window holds */
	{ "ring_misordered", "discard", false, 5,
	  { { 10, T1 }, { 20, T1 }, { 30, T1 }, { 15, T1 }, { 40, T1 } }, 0, 1 },
	/* five levels: deeper than task, softirq, hardirq and NMI */
	{ "ring_five_levels", "discard", false, 7,
	  { { 0, T1 }, { 90, T1 }, { 80, T1 }, { 70, T1 }, { 60, T1 }, { 50, T1 }, { 100, T1 } },
	  3, 1 },
	/* the flight order in a ring channel: the kernel cannot write it */
	{ "ring_flight_order", "discard", false, 6,
	  { { 0, T1 }, { 20, T1 }, { 21, T1 }, { 22, T1 }, { 10, T1 }, { 50, T1 } }, 0, 1 },
	/* native overwrite rings reserve first, as ring channels do */
	{ "native_softirq", "overwrite", true, 5,
	  { { 0, T1 }, { 50, T1 }, { 10, T1 }, { 11, T1 }, { 60, T1 } }, 1, 0 },
	{ "native_flight_order", "overwrite", true, 6,
	  { { 0, T1 }, { 20, T1 }, { 21, T1 }, { 22, T1 }, { 10, T1 }, { 50, T1 } }, 0, 1 },
	/* emulated flight: four interrupt records before the one they interrupted (seen live) */
	{ "flight_softirq", "overwrite", false, 7,
	  { { 0, T1 }, { 20, T1 }, { 21, T1 }, { 22, T1 }, { 23, T1 }, { 10, T1 }, { 50, T1 } },
	  1, 0 },
	/* emulated flight: hardirq records in a softirq's window, in a task record's */
	{ "flight_three_levels", "overwrite", false, 7,
	  { { 0, T1 }, { 3, T1 }, { 4, T1 }, { 2, T1 }, { 5, T1 }, { 1, T1 }, { 10, T1 } }, 2, 0 },
	/* stamped inside a record's window, but placed after it */
	{ "flight_misordered", "overwrite", false, 5,
	  { { 10, T1 }, { 30, T1 }, { 20, T1 }, { 25, T1 }, { 40, T1 } }, 1, 1 },
	{ "flight_other_task", "overwrite", false, 4,
	  { { 0, T1 }, { 20, 200 }, { 10, T1 }, { 50, T1 } }, 0, 1 },
	/* the ring order in an emulated flight channel */
	{ "flight_ring_order", "overwrite", false, 5,
	  { { 0, T1 }, { 50, T1 }, { 10, T1 }, { 11, T1 }, { 60, T1 } }, 1, 1 },
	/* a window longer than 10 ms */
	{ "flight_long_window", "overwrite", false, 4,
	  { { 0, T1 }, { 20000, T1 }, { 5, T1 }, { 30000, T1 } }, 0, 1 },
};

/* Each case's records on CPU 0, their frees on CPU 1 long after. */
static void test_nesting_orders(struct test_ctx *t)
{
	for (size_t c = 0; c < sizeof(order_cases) / sizeof(order_cases[0]); c++) {
		const struct order_case *oc = &order_cases[c];
		struct ktrace kt;
		struct kmem_check k;
		__u64 base;

		kt_open_ex(&kt, oc->name, NULL, "", oc->mode);
		if (oc->native)
			kt_chunk(&kt, GTSC_CHUNK_FEATURES, "ringbuf_overwrite=yes\n");
		clean_records(&kt, 10);
		base = kt.ts + 1000000;
		for (int i = 0; i < oc->n; i++) {
			kt.ts = base + oc->rec[i].us * 1000ULL;
			kt_alloc_pid(&kt, K, 0, oc->rec[i].tid, 1, PTR(3000 + i), 8, 8);
		}
		kt.ts = base + 100000000;
		for (int i = 0; i < oc->n; i++)
			kt_free(&kt, K, 1, 5, PTR(3000 + i));
		close_and_check(t, &kt, &k);
		CHECK(t, k.s.nested == oc->nested && k.s.nr_findings == oc->findings &&
				 k.s.out_of_order == (__u64)oc->findings,
		      "%s: nested %llu (want %llu), %d findings (want %d): %s", oc->name,
		      (unsigned long long)k.s.nested, (unsigned long long)oc->nested,
		      k.s.nr_findings, oc->findings, k.findings.buf);
		if (oc->findings)
			CHECK(t, has_finding(&k, "CPU 0 of the kmem channel has 1 record earlier"),
			      "%s: %s", oc->name, k.findings.buf);
		gt_kmem_check__free(&k);
	}
}

/* Offset of the first DATA chunk's header, walking the chunk headers. */
static off_t first_data_chunk(int fd, __u32 *len)
{
	struct gtsc_chunk_hdr h;
	off_t pos = sizeof(struct gtsc_file_hdr);

	while (pread(fd, &h, sizeof(h), pos) == sizeof(h)) {
		if (h.type == GTSC_CHUNK_DATA) {
			*len = h.len;
			return pos;
		}
		pos += sizeof(h) + h.len;
	}
	return -1;
}

static void test_bad_crc(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;
	__u32 len = 0;
	off_t pos;
	char c;
	int fd;

	kt_open(&kt, "crc", NULL);
	clean_records(&kt, 500);
	kt_close(&kt);
	fd = open(kt.path, O_RDWR);
	pos = first_data_chunk(fd, &len);
	CHECK(t, pos > 0, "no DATA chunk");
	pos += sizeof(struct gtsc_chunk_hdr) + len / 2;
	if (pread(fd, &c, 1, pos) == 1) {
		c ^= 0x40;
		CHECK(t, pwrite(fd, &c, 1, pos) == 1, "flip failed");
	}
	close(fd);
	run_check(t, kt.path, &k);
	CHECK(t, k.s.damaged && has_finding(&k, "fails its CRC check"), "findings: %s",
	      k.findings.buf);
	/* the records after the damage are gone, and the check says no more than that */
	CHECK(t, !has_finding(&k, "records were lost"), "counted the damage twice: %s",
	      k.findings.buf);
	gt_kmem_check__free(&k);
	unlink(kt.path);
}

static void test_truncated(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;
	struct stat st;

	kt_open(&kt, "cut", NULL);
	clean_records(&kt, 500);
	kt_close(&kt);
	CHECK(t, !stat(kt.path, &st) && !truncate(kt.path, st.st_size * 2 / 3), "truncate");
	run_check(t, kt.path, &k);
	CHECK(t, k.s.damaged && has_finding(&k, "truncated"), "findings: %s", k.findings.buf);
	gt_kmem_check__free(&k);
	unlink(kt.path);
}

static void test_drops(struct test_ctx *t)
{
	struct gtsc_rec_drops d = { .count = 7, .channel = KT_KMEM_CHANNEL };
	struct ktrace kt;
	struct kmem_check k;

	kt_open(&kt, "drops", NULL);
	clean_records(&kt, 50);
	kt_hdr(&kt, &d.hdr, GTSC_REC_DROPS, sizeof(d), 0, 0);
	kt_add(&kt, &d.hdr);
	kt.dropped = 9; /* two drops after the last drop record */
	close_and_check(t, &kt, &k);
	CHECK(t, k.s.dropped == 9, "dropped %llu", (unsigned long long)k.s.dropped);
	CHECK(t,
	      k.s.nr_warnings == 1 && k.warnings.buf &&
		      strstr(k.warnings.buf, "The kmem channel dropped 9 events"),
	      "%d warnings: %s", k.s.nr_warnings, k.warnings.buf);
	CHECK(t, has_finding(&k, "drop records count 7 drops, but its trailer 9"), "findings: %s",
	      k.findings.buf);
	CHECK(t, k.s.nr_findings == 1, "%d findings: %s", k.s.nr_findings, k.findings.buf);
	gt_kmem_check__free(&k);
}

static void test_records_lost(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;

	kt_open(&kt, "lost", NULL);
	clean_records(&kt, 50);
	kt.extra_written = 3;
	close_and_check(t, &kt, &k);
	one_finding(t, &k, "counts 104 records written by the kernel, but the file holds 101");
	gt_kmem_check__free(&k);
}

static void test_unknown_and_bad_size(struct test_ctx *t)
{
	struct {
		struct gtsc_rec_hdr hdr;
		__u64 data[2];
	} unknown = {};
	struct {
		struct gtsc_rec_kmem_free f;
		__u64 extra;
	} big = {};
	struct ktrace kt;
	struct kmem_check k;

	kt_open(&kt, "types", NULL);
	clean_records(&kt, 20);
	kt_hdr(&kt, &unknown.hdr, 200, sizeof(unknown), 0, 100);
	gt_writer__add_record(kt.w, &unknown.hdr);
	big.f.kind = K;
	big.f.ptr = PTR(5000);
	kt_hdr(&kt, &big.f.hdr, GTSC_REC_KMEM_FREE, sizeof(big), 1, 100);
	gt_writer__add_record(kt.w, &big.f.hdr);
	close_and_check(t, &kt, &k);
	CHECK(t, k.s.unknown_types == 1 && k.s.bad_sizes == 1, "unknown %llu bad %llu",
	      (unsigned long long)k.s.unknown_types, (unsigned long long)k.s.bad_sizes);
	CHECK(t,
	      has_finding(&k, "type this gtsc-bpf does not know (the first is type 200, 40 bytes)"),
	      "findings: %s", k.findings.buf);
	CHECK(t, has_finding(&k, "type 4 of 64 bytes, where 56 are expected"), "findings: %s",
	      k.findings.buf);
	gt_kmem_check__free(&k);
}

/*
 * printf and tracepoint records are as long as their arguments and raw
 * entry say: each is sound at that size (a tracepoint's rounded up to 8),
 * and a finding at any other.
 */
static void test_variable_sizes(struct test_ctx *t)
{
	struct {
		struct gtsc_rec_printf p;
		__u64 args[2];
	} pr = { .p.nr_args = 2, .args = { 1, 2 } };
	struct {
		struct gtsc_rec_tracepoint tp;
		__u8 data[24];
	} tp = { .tp.event_id = 300, .tp.data_len = 13 };
	struct ktrace kt;
	struct kmem_check k;

	kt_open(&kt, "varsize", NULL);
	clean_records(&kt, 20);
	kt_hdr(&kt, &pr.p.hdr, GTSC_REC_PRINTF, sizeof(pr), 0, 100);
	kt_add(&kt, &pr.p.hdr);
	kt_hdr(&kt, &tp.tp.hdr, GTSC_REC_TRACEPOINT, 48, 1, 100);
	kt_add(&kt, &tp.tp.hdr);
	close_and_check(t, &kt, &k);
	CHECK(t, k.s.nr_findings == 0 && k.s.bad_sizes == 0, "%d findings: %s", k.s.nr_findings,
	      k.findings.buf);
	gt_kmem_check__free(&k);

	kt_open(&kt, "varsize_bad", NULL);
	clean_records(&kt, 20);
	kt_hdr(&kt, &tp.tp.hdr, GTSC_REC_TRACEPOINT, sizeof(tp), 1, 100);
	kt_add(&kt, &tp.tp.hdr);
	close_and_check(t, &kt, &k);
	one_finding(t, &k, "type 10 of 56 bytes, where 48 are expected");
	gt_kmem_check__free(&k);
}

/* kmem consistency: each planted error is one note with its count, and why it proves nothing. */
static void test_kmem_errors(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;

	kt_open(&kt, "kmemerr", "6.1.0-28-amd64"); /* before kfree of cache objects was legal */
	clean_records(&kt, 20);
	kt_alloc(&kt, K, 0, 4, PTR(100), 30, 32); /* double free, twice */
	kt_free(&kt, K, 0, 9, PTR(100));
	kt_free(&kt, K, 0, 10, PTR(100));
	kt_alloc(&kt, K, 0, 4, PTR(101), 30, 32);
	kt_free(&kt, K, 0, 9, PTR(101));
	kt_free(&kt, K, 1, 10, PTR(101));
	kt_alloc(&kt, K, 0, 6, PTR(102), 8, 8); /* allocated twice */
	kt_alloc(&kt, K, 0, 6, PTR(102), 8, 8);
	kt_alloc(&kt, GTSC_KMEM_CACHE, 0, 7, PTR(103), 64, 64); /* cache object kfree'd */
	kt_free(&kt, K, 0, 8, PTR(103));
	kt_free(&kt, K, 0, 11, PTR(104)); /* allocated before the trace: fine */
	close_and_check(t, &kt, &k);
	CHECK(t, has_note(&k, "2 double frees"), "notes: %s", k.notes.buf);
	CHECK(t, has_note(&k, "between site_4+0x0 and site_10+0x0"), "notes: %s", k.notes.buf);
	CHECK(t, has_note(&k, "1 allocations of a pointer still live"), "notes: %s", k.notes.buf);
	CHECK(t, has_note(&k, "1 kmem_cache_alloc'd objects freed by kfree"), "notes: %s",
	      k.notes.buf);
	CHECK(t, has_note(&k, "Not a finding: the kernel also allocates and frees through paths"),
	      "notes: %s", k.notes.buf);
	CHECK(t, !has_note(&k, "filter"), "a system-wide trace blames a filter: %s", k.notes.buf);
	CHECK(t, !has_note(&k, "before the trace"), "a pre-trace free is noted: %s", k.notes.buf);
	CHECK(t, k.s.nr_notes == 3 && k.s.nr_findings == 0 && k.s.kmem_errors == 4,
	      "%d notes, %d findings, %llu errors: %s%s", k.s.nr_notes, k.s.nr_findings,
	      (unsigned long long)k.s.kmem_errors, k.notes.buf, k.findings.buf);
	gt_kmem_check__free(&k);
}

static void test_not_a_trace(struct test_ctx *t)
{
	char path[64];
	struct kmem_check k;
	int fd;

	snprintf(path, sizeof(path), "/tmp/kt-junk-%d", (int)getpid());
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	CHECK(t, fd >= 0 && write(fd, "hello, world, not a trace\n", 26) == 26, "write");
	close(fd);
	run_check(t, path, &k);
	CHECK(t, !k.s.opened && k.s.nr_findings == 1 && has_finding(&k, "is not a gtsc trace file"),
	      "findings: %s", k.findings.buf);
	gt_kmem_check__free(&k);
	unlink(path);
}

/* The public gtsc_check: the same counts, and the findings as one text. */
static void test_public_check(struct test_ctx *t)
{
	GTSC_OPTS(gtsc_check_opts, o);
	const struct gtsc_check_stats *st;
	struct gtsc_check *k;
	struct ktrace kt;

	kt_open(&kt, "public", NULL);
	clean_records(&kt, 100);
	kt_free(&kt, K, 0, 9, PTR(1)); /* a double free */
	kt_close(&kt);
	k = gtsc_check__run(kt.path, &o);
	unlink(kt.path);
	CHECK(t, k, "check did not run");
	if (!k)
		return;
	st = gtsc_check__stats(k);
	CHECK(t, st->opened && st->records == 202 && st->nr_findings == 0 && st->kmem_errors == 1,
	      "records %llu, %d findings: %s", (unsigned long long)st->records, st->nr_findings,
	      gtsc_check__findings(k));
	CHECK(t, strstr(gtsc_check__notes(k), "double frees") && st->nr_notes == 1,
	      "%d notes: %s", st->nr_notes, gtsc_check__notes(k));
	CHECK(t, !*gtsc_check__warnings(k) && !*gtsc_check__findings(k), "warnings '%s'",
	      gtsc_check__warnings(k));
	gtsc_check__free(k);
	CHECK(t, !gtsc_check__run(NULL, NULL) && errno == EINVAL, "NULL path accepted");
}

/* A pid-filtered trace: a free by a task outside the filter reads as a double free. */
static void test_filtered(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;

	kt_open_ex(&kt, "filtered", NULL, "filter=pids\n", "discard");
	clean_records(&kt, 20);
	kt_free(&kt, K, 0, 9, PTR(3));
	close_and_check(t, &kt, &k);
	CHECK(t, k.s.nr_findings == 0 && has_note(&k, "1 double frees"), "findings: %s notes: %s",
	      k.findings.buf, k.notes.buf);
	CHECK(t, has_note(&k, "only the tasks of its filter (pids): a task outside it"),
	      "notes: %s", k.notes.buf);
	gt_kmem_check__free(&k);
}

/*
 * A kmem flight channel that overwrote 100 records: its trailer's flight
 * lines say so, the file holds what they retained.  SNAPSHOT adds the meta
 * line a snapshot's trailer has, and 500 syscall records the session wrote
 * to its main file.  RETAINED_LIE makes the flight lines claim more.
 */
static void flight_trace(struct ktrace *kt, const char *name, bool snapshot, int retained_lie)
{
	kt_open_ex(kt, name, NULL, "", "overwrite");
	clean_records(kt, 50);
	kt->extra_written = 100;
	snprintf(kt->trailer, sizeof(kt->trailer),
		 "flight\t2\t0\t%llu\t%llu\t100\t0\nflight\t2\t1\t%llu\t%llu\t0\t0\n%s",
		 (unsigned long long)kt->written[0] + 100,
		 (unsigned long long)kt->written[0] + retained_lie,
		 (unsigned long long)kt->written[1], (unsigned long long)kt->written[1],
		 snapshot ? "stat\t1\t0\t500\t0\nmeta\tsnapshot\tall\n" : "");
}

/* No finding, COUNT (of what is left out by design) is WANT, and a note says NEEDLE. */
static void sound_with_note(struct test_ctx *t, const struct kmem_check *k, __u64 count,
			    __u64 want, const char *needle)
{
	CHECK(t, k->s.nr_findings == 0 && count == want, "%d findings, %llu left out: %s",
	      k->s.nr_findings, (unsigned long long)count, k->findings.buf);
	CHECK(t, has_note(k, needle), "notes: %s", k->notes.buf);
}

/* A flight trace, one whose flight lines lie, and a snapshot. */
static void test_flight(struct test_ctx *t)
{
	struct ktrace kt;
	struct kmem_check k;

	flight_trace(&kt, "flight", false, 0);
	close_and_check(t, &kt, &k);
	sound_with_note(t, &k, k.s.overwritten, 100,
			"kmem channel is a flight channel: it kept the newest 101 of the 201");
	gt_kmem_check__free(&k);

	flight_trace(&kt, "flight-lie", false, 3);
	close_and_check(t, &kt, &k);
	one_finding(t, &k, "its rings retained 104 records, but the file holds 101");
	gt_kmem_check__free(&k);

	/* a snapshot holds the flight channels only: the others are accounted, not lost */
	flight_trace(&kt, "snapshot", true, 0);
	close_and_check(t, &kt, &k);
	sound_with_note(t, &k, k.s.not_covered, 500,
			"syscalls channel (discard) is not in this snapshot");
	gt_kmem_check__free(&k);
}

static const struct test_case cases[] = {
	{ "clean", test_clean },
	{ "out_of_order", test_out_of_order },
	{ "nested_interrupt", test_nested_interrupt },
	{ "nesting_orders", test_nesting_orders },
	{ "syscall_not_nested", test_syscall_not_nested },
	{ "preempted_rt", test_preempted_rt },
	{ "preempted_7x", test_preempted_7x },
	{ "bad_crc", test_bad_crc },
	{ "truncated", test_truncated },
	{ "drops", test_drops },
	{ "records_lost", test_records_lost },
	{ "unknown_and_bad_size", test_unknown_and_bad_size },
	{ "variable_sizes", test_variable_sizes },
	{ "kmem_errors", test_kmem_errors },
	{ "not_a_trace", test_not_a_trace },
	{ "public_check", test_public_check },
	{ "filtered", test_filtered },
	{ "flight", test_flight },
};

int main(void)
{
	return RUN_TESTS("kmem-check", cases);
}
