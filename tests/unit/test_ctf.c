// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CTF writer on a synthetic kmem trace: the TSDL it declares, an
 * event's bytes as that TSDL lays them out, drops as a stream's
 * events_discarded (after an empty first packet), and the output
 * directory's rules.  babeltrace2 reads real traces in the live lane.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtsc/gtsc.h>
#include "ctf_classes.h"
#include "harness.h"
#include "test_kmem_trace.h"

#define PTR 0xffff888000002000ULL

struct out {
	char dir[128];
	char *buf; /* a file of DIR, read whole */
	size_t len;
};

/* A kmalloc (no cache), a named cache's alloc, 7 drops on kmem's CPU 1, a page free. */
static void write_trace(struct ktrace *kt)
{
	struct gtsc_rec_drops d = { .since_ns = KT_START_NS, .count = 7,
				    .channel = KT_KMEM_CHANNEL };

	kt_open(kt, "ctf", NULL);
	kt_alloc(kt, GTSC_KMEM_KMALLOC, 0, 1, PTR, 100, 128);
	kt_cache_name(kt, "filp", 192);
	kt_alloc(kt, GTSC_KMEM_CACHE, 0, 2, PTR + 256, 184, 192);
	kt_hdr(kt, &d.hdr, GTSC_REC_DROPS, sizeof(d), 1, 0);
	gt_writer__add_record(kt->w, &d.hdr);
	kt_free_order(kt, GTSC_KMEM_PAGE, 1, 0, 0x1234, 2);
	kt_close(kt);
}

static int convert(struct ktrace *kt, const char *dir, struct gtsc_ctf_opts *o)
{
	struct gtsc_reader *r = gtsc_reader__open(kt->path, NULL);
	int err;

	if (!r)
		return -errno;
	err = gtsc_reader__write_ctf(r, dir, o);
	gtsc_reader__close(r);
	return err;
}

static void slurp(struct out *o, const char *name)
{
	char path[256];
	FILE *f;

	free(o->buf);
	o->buf = NULL;
	o->len = 0;
	snprintf(path, sizeof(path), "%s/%s", o->dir, name);
	f = fopen(path, "r");
	if (!f)
		return;
	o->buf = malloc(1 << 20);
	o->len = fread(o->buf, 1, (1 << 20) - 1, f);
	o->buf[o->len] = '\0';
	fclose(f);
}

static bool converted(struct test_ctx *t, struct ktrace *kt, struct out *o)
{
	GTSC_OPTS(gtsc_ctf_opts, opts);
	int err;

	snprintf(o->dir, sizeof(o->dir), "%s/ctf-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	write_trace(kt);
	CHECK(t, mkdtemp(o->dir), "mkdtemp");
	err = convert(kt, o->dir, &opts);
	CHECK(t, !err, "write_ctf: %d", err);
	CHECK(t, opts.events == 3 && opts.discarded == 7, "events %llu discarded %llu",
	      (unsigned long long)opts.events, (unsigned long long)opts.discarded);
	return !t->failed;
}

static void cleanup(struct ktrace *kt, struct out *o)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", o->dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", o->dir);
	unlink(kt->path);
	free(o->buf);
}

/* The declarations babeltrace2 reads: LTTng's names, '_' prefixes, the cache-less class. */
static void test_tsdl(struct test_ctx *t)
{
	static const char *const want[] = {
		"/* CTF 1.8 */",
		"\tbyte_order = le;",
		"\thostname = \"test\";",
		"\tdomain = \"kernel\";",
		"\tkernel_release = \"6.18.0\";",
		"\tname = \"monotonic\";",
		"\toffset_s = 0;",
		"\t\tuint64_clock_monotonic_t timestamp;",
		"\tunsigned long events_discarded;",
		"\tuint32_t cpu_id;",
		" _procname[17];",
		"\tname = \"kmem_kmalloc\";\n\tid = 0;",
		"\tname = \"kmem_cache_alloc\";\n\tid = 1;",
		"\tname = \"kmem_mm_page_free\";\n\tid = 2;",
		"\t\tstring _call_site;",
		"\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 16; } _ptr;",
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _node;",
		"\t\tstring _cache;",
	};
	struct ktrace kt;
	struct out o = {};

	if (converted(t, &kt, &o)) {
		slurp(&o, "metadata");
		CHECK(t, o.buf, "no metadata in %s", o.dir);
		for (size_t i = 0; o.buf && i < sizeof(want) / sizeof(want[0]); i++)
			CHECK(t, strstr(o.buf, want[i]), "metadata lacks '%s'", want[i]);
		/* kmalloc's class (id 0) has no cache: the trace named none for it */
		CHECK(t, o.buf && strstr(strstr(o.buf, "\tid = 0;"), "_cache;") >
				strstr(o.buf, "\tid = 1;"),
		      "kmem_kmalloc declares a cache");
	}
	cleanup(&kt, &o);
}

static __u64 u64_at(const struct out *o, size_t off)
{
	__u64 v = 0;

	if (off + 8 <= o->len)
		memcpy(&v, o->buf + off, 8);
	return v;
}

static __u32 u32_at(const struct out *o, size_t off)
{
	__u32 v = 0;

	if (off + 4 <= o->len)
		memcpy(&v, o->buf + off, 4);
	return v;
}

/* The kmalloc event's bytes, as the TSDL lays them out after the 84-byte packet start. */
static void test_event_bytes(struct test_ctx *t)
{
	struct ktrace kt;
	struct out o = {};
	size_t e = 84, f;

	if (converted(t, &kt, &o)) {
		slurp(&o, "kmem_0");
		CHECK(t, u32_at(&o, 0) == 0xC1FC1FC1, "magic %x", u32_at(&o, 0));
		CHECK(t, u64_at(&o, 48) == o.len * 8, "content_size %llu bits, file %zu bytes",
		      (unsigned long long)u64_at(&o, 48), o.len);
		CHECK(t, u32_at(&o, 80) == 0, "cpu_id %u", u32_at(&o, 80));
		CHECK(t, u32_at(&o, e) == 0, "class id %u", u32_at(&o, e));
		CHECK(t, u64_at(&o, e + 4) == KT_START_NS + 1000, "timestamp %llu",
		      (unsigned long long)u64_at(&o, e + 4));
		CHECK(t, u32_at(&o, e + 12) == 100 && u32_at(&o, e + 16) == 100, "pid/tid");
		CHECK(t, o.len > e + 20 && !strcmp(o.buf + e + 20, "?"), "procname");
		f = e + 20 + 17;
		CHECK(t, o.len > f && !strcmp(o.buf + f, "site_1+0x0"), "call_site '%s'",
		      o.len > f ? o.buf + f : "");
		f += strlen("site_1+0x0") + 1;
		CHECK(t, u64_at(&o, f) == PTR, "ptr %llx", (unsigned long long)u64_at(&o, f));
		CHECK(t, u32_at(&o, f + 8) == 100 && u32_at(&o, f + 12) == 128, "bytes");
		CHECK(t, u32_at(&o, f + 16) == 0xcc0 && u32_at(&o, f + 20) == 0xffffffff,
		      "gfp_flags, node");
		/* the next event: kmem_cache_alloc of "filp", class 1, with its cache */
		f += 24;
		CHECK(t, u32_at(&o, f) == 1, "second event's class %u", u32_at(&o, f));
		CHECK(t, o.len > 8 && !strcmp(o.buf + o.len - 5, "filp"), "cache name last");
	}
	cleanup(&kt, &o);
}

/* Drops on CPU 1: an empty first packet counting none, then the packet they end with 7. */
static void test_drops(struct test_ctx *t)
{
	struct ktrace kt;
	struct out o = {};
	size_t second;

	if (converted(t, &kt, &o)) {
		slurp(&o, "kmem_1");
		second = u64_at(&o, 48) / 8;
		CHECK(t, second == 84, "first packet of %zu bytes, not an empty one", second);
		CHECK(t, u64_at(&o, 72) == 0 && u64_at(&o, 64) == 0, "first packet: discarded %llu seq %llu",
		      (unsigned long long)u64_at(&o, 72), (unsigned long long)u64_at(&o, 64));
		CHECK(t, u64_at(&o, second + 72) == 7 && u64_at(&o, second + 64) == 1,
		      "second packet: discarded %llu seq %llu",
		      (unsigned long long)u64_at(&o, second + 72),
		      (unsigned long long)u64_at(&o, second + 64));
		CHECK(t, u32_at(&o, second + 80) == 1, "cpu_id %u", u32_at(&o, second + 80));
	}
	cleanup(&kt, &o);
}

/* An earlier conversion is replaced; a directory with anything else is not ours to write. */
static void test_directory(struct test_ctx *t)
{
	struct ktrace kt;
	struct out o = {};
	char path[200];
	int fd, err;

	if (converted(t, &kt, &o)) {
		write_trace(&kt);
		err = convert(&kt, o.dir, NULL);
		CHECK(t, !err, "converting again: %d", err);
		snprintf(path, sizeof(path), "%s/notes.txt", o.dir);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		close(fd);
		err = convert(&kt, o.dir, NULL);
		CHECK(t, err == -EEXIST, "into a directory with notes.txt: %d", err);
		CHECK(t, access(path, F_OK) == 0, "notes.txt removed");
		err = convert(&kt, path, NULL);
		CHECK(t, err == -EEXIST, "onto a file: %d", err);
	}
	cleanup(&kt, &o);
}

static void test_opts(struct test_ctx *t)
{
	struct {
		struct gtsc_ctf_opts o;
		__u64 future;
	} big = { .o.sz = sizeof(big), .future = 1 };
	struct ktrace kt;
	int err;

	write_trace(&kt);
	err = convert(&kt, "/nonexistent-dir/x", (struct gtsc_ctf_opts *)&big);
	CHECK(t, err == -EINVAL, "an unknown option set: %d", err);
	unlink(kt.path);
}

/*
 * A record the reader yields late (older than one before it: rounds of a
 * recorder may) goes to a second stream of its channel and CPU, as
 * babeltrace2 stops at a stream whose time goes back.
 */
static void test_late_record(struct test_ctx *t)
{
	static const __u64 order[] = { 1000, 3000, 0, 5000, 0, 2000 }; /* 0: a round ends */
	struct ktrace kt;
	struct out o = {};
	int err;

	kt_open(&kt, "ctf-late", NULL);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		kt.ts = KT_START_NS + order[i];
		if (order[i])
			kt_alloc(&kt, GTSC_KMEM_KMALLOC, 0, 1, PTR + i * 64, 8, 8);
		else
			gt_writer__end_round(kt.w);
	}
	kt_close(&kt);
	snprintf(o.dir, sizeof(o.dir), "%s/ctf-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	CHECK(t, mkdtemp(o.dir), "mkdtemp");
	err = convert(&kt, o.dir, NULL);
	CHECK(t, !err, "write_ctf: %d", err);
	slurp(&o, "kmem_0");
	CHECK(t, o.len == 84 + 3 * 72, "kmem_0 has %zu bytes, not 3 events", o.len);
	CHECK(t, u64_at(&o, 32) == KT_START_NS + 1000 && u64_at(&o, 40) == KT_START_NS + 5000,
	      "kmem_0 from %llu to %llu", (unsigned long long)u64_at(&o, 32),
	      (unsigned long long)u64_at(&o, 40));
	slurp(&o, "kmem_0_1");
	CHECK(t, o.len == 84 + 72 && u64_at(&o, 84 + 4) == KT_START_NS + 2000,
	      "kmem_0_1: %zu bytes, first event at %llu", o.len,
	      (unsigned long long)u64_at(&o, 88));
	CHECK(t, u64_at(&o, 24) != 0, "stream_instance_id of lane 1 is lane 0's");
	cleanup(&kt, &o);
}

/*
 * A tracepoint's class as the layer will describe it (sched:sched_switch):
 * LTTng's field names (a thread is a tid), typed by the layer's layout; an
 * array becomes a sequence.
 */
static void test_tracepoint_names(struct test_ctx *t)
{
	static const struct gtsc_field f[] = {
		{ .name = "prev_comm", .offset = 24, .size = 16, .type = GTSC_FT_CHARS },
		{ .name = "prev_pid", .offset = 40, .size = 4, .type = GTSC_FT_INT },
		{ .name = "prev_state", .offset = 48, .size = 8, .type = GTSC_FT_INT,
		  .print = GTSC_FP_FLAGS },
		{ .name = "next_pid", .offset = 56, .size = 4, .type = GTSC_FT_INT },
		{ .name = "cpus", .offset = 60, .size = 4, .type = GTSC_FT_DYN_ARRAY,
		  .elem_size = 2 },
	};
	static const struct gtsc_event_class ec = { .group = "sched", .name = "sched_switch",
						    .fields = f, .nr_fields = 5 };
	static const struct gtsc_event_class kec = { .group = "kmem", .name = "mm_page_alloc_zone_locked",
						     .fields = f, .nr_fields = 1 };
	static const char *const want[] = { "prev_comm", "prev_tid", "prev_state", "next_tid", "cpus" };
	struct gtsc_rec_hdr rec = { .type = 200, .size = 64 };
	struct ctf_classes *c = gt_ctf_classes__new(NULL);
	const struct ctf_class *cc = c ? gt_ctf_classes__of(c, &ec, &rec) : NULL;
	const struct ctf_class *kc = c ? gt_ctf_classes__of(c, &kec, &rec) : NULL;

	CHECK(t, cc && kc, "no class");
	CHECK(t, !cc || (!strcmp(cc->name, "sched_switch") && cc->nr_fields == 5), "sched_switch: %s, %u fields",
	      cc ? cc->name : "", cc ? cc->nr_fields : 0);
	for (unsigned int i = 0; cc && i < cc->nr_fields && i < 5; i++)
		CHECK(t, !strcmp(cc->fields[i].name, want[i]), "field %u is %s, not %s", i,
		      cc->fields[i].name, want[i]);
	CHECK(t, !cc || (cc->fields[0].type == CTF_STRING && cc->fields[1].type == CTF_INT &&
			 cc->fields[1].size == 4 && cc->fields[1].is_signed && cc->fields[2].hex &&
			 cc->fields[4].type == CTF_SEQ && cc->fields[4].size == 2),
	      "types");
	CHECK(t, !kc || !strcmp(kc->name, "kmem_mm_page_alloc_zone_locked"), "kmem event named %s",
	      kc ? kc->name : "");
	CHECK(t, c && gt_ctf_classes__id(c, cc, 0) == 0 && gt_ctf_classes__id(c, cc, 1ULL << 4) == 1 &&
			 gt_ctf_classes__get(c, 1)->nr_fields == 4 && gt_ctf_classes__id(c, cc, 0) == 0,
	      "ids of the full class and of one without cpus");
	gt_ctf_classes__free(c);
}

/*
 * The task channel's fork as LTTng's sched_process_fork, with the parent_tid
 * Trace Compass's fork handler reads (the parent process's id: the record
 * does not say which of its threads forked).
 */
static void test_fork_names(struct test_ctx *t)
{
	static const struct gtsc_field f[] = {
		{ .name = "parent_pid", .offset = 32, .size = 4, .type = GTSC_FT_UINT },
		{ .name = "new_comm", .offset = 48, .size = 16, .type = GTSC_FT_CHARS },
	};
	static const struct gtsc_event_class ec = { .group = "task", .name = "task_fork",
						    .fields = f, .nr_fields = 2 };
	static const char *const want[] = { "parent_pid", "child_comm", "child_tid", "child_pid",
					    "parent_tid" };
	struct gtsc_rec_hdr rec = { .type = GTSC_REC_TASK, .size = 64 };
	struct ctf_classes *c = gt_ctf_classes__new(NULL);
	const struct ctf_class *cc = c ? gt_ctf_classes__of(c, &ec, &rec) : NULL;

	CHECK(t, cc && !strcmp(cc->name, "sched_process_fork") && cc->nr_fields == 5,
	      "fork: %s, %u fields", cc ? cc->name : "", cc ? cc->nr_fields : 0);
	for (unsigned int i = 0; cc && i < cc->nr_fields && i < 5; i++)
		CHECK(t, !strcmp(cc->fields[i].name, want[i]), "field %u is %s, not %s", i,
		      cc->fields[i].name, want[i]);
	CHECK(t, !cc || cc->nr_fields < 5 || (cc->fields[4].f == &f[0] && cc->fields[4].type == CTF_INT),
	      "parent_tid is not the record's parent_pid");
	gt_ctf_classes__free(c);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "tsdl", test_tsdl },
		{ "event_bytes", test_event_bytes },
		{ "drops", test_drops },
		{ "directory", test_directory },
		{ "opts", test_opts },
		{ "tracepoint_names", test_tracepoint_names },
		{ "fork_names", test_fork_names },
		{ "late_record", test_late_record },
	};

	return RUN_TESTS("ctf", cases);
}
