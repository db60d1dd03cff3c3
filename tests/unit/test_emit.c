// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The field layer without a kernel: the text and JSON emitters over every
 * field type a tracepoint's format can have (as the class a format builds
 * would describe it), and the registry's lookup of built-in classes,
 * fixed and built from a trace's syscall table.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include "harness.h"
#include "emit.h"
#include "emit_line.h"
#include "events.h"
#include "trace_writer.h"
#include "xlat.h"

/* A raw entry at 32 (after the header and 8 bytes), its dynamic data at 96. */
#define ENTRY 32
struct tp_rec {
	struct gtsc_rec_hdr hdr;
	__u64 pad;
	__u16 common_type;
	__u8 pad2[6];
	char prev_comm[16];
	__s32 prev_pid;
	__u32 prot;
	__s64 prev_state;
	__u32 msg_loc, ids_loc;
	__u8 bytes[4];
	__s8 small;
	__u8 pad3[3];
	__s32 err;
	__u32 pad4;
	char data[24];
};

#define F(m, nm, t, p, ...)                                                                        \
	{ .name = nm, .offset = offsetof(struct tp_rec, m), .size = sizeof(((struct tp_rec *)0)->m), \
	  .type = t, .print = p, __VA_ARGS__ }

static const struct gtsc_field tp_fields[] = {
	F(common_type, "common_type", GTSC_FT_UINT, GTSC_FP_DEFAULT),
	F(prev_comm, "prev_comm", GTSC_FT_CHARS, GTSC_FP_DEFAULT),
	F(prev_pid, "prev_pid", GTSC_FT_INT, GTSC_FP_DEFAULT),
	F(prot, "prot", GTSC_FT_UINT, GTSC_FP_FLAGS, .xlat = &gt_xlat_mmap_prot),
	F(prev_state, "prev_state", GTSC_FT_INT, GTSC_FP_HEX),
	F(msg_loc, "msg", GTSC_FT_DYN_STR, GTSC_FP_DEFAULT),
	F(ids_loc, "ids", GTSC_FT_DYN_ARRAY, GTSC_FP_DEFAULT, .elem_size = 4,
	  .flags = GTSC_FF_SIGNED),
	F(bytes, "bytes", GTSC_FT_ARRAY, GTSC_FP_DEFAULT, .elem_size = 1),
	F(small, "small", GTSC_FT_INT, GTSC_FP_DEFAULT),
	F(err, "err", GTSC_FT_INT, GTSC_FP_ERRNO),
};

static const struct gtsc_event_class tp_class = {
	.group = "sched", .name = "sched_test", .fields = tp_fields,
	.nr_fields = sizeof(tp_fields) / sizeof(tp_fields[0]), .data_offset = ENTRY,
};

static void make_tp(struct tp_rec *r)
{
	static const __s32 ids[3] = { 1, -2, 3 };

	memset(r, 0, sizeof(*r));
	r->hdr = (struct gtsc_rec_hdr){ .type = 250, .size = sizeof(*r), .cpu = 1, .pid = 7,
					.tid = 7, .ts_ns = 1500000000 };
	r->common_type = 316;
	memcpy(r->prev_comm, "ba\x1bsh\xff", 6);
	r->prev_pid = -5;
	r->prot = 3 | 0x40;
	r->prev_state = 0x402;
	memcpy(r->data, "hello", 6);
	r->msg_loc = 6 << 16 | (offsetof(struct tp_rec, data) - ENTRY);
	memcpy(r->data + 8, ids, sizeof(ids));
	r->ids_loc = sizeof(ids) << 16 | (offsetof(struct tp_rec, data) + 8 - ENTRY);
	memcpy(r->bytes, "\x01\x02\xfe\xff", 4);
	r->small = -3;
	r->err = -2;
}

static char *emit(bool json, const struct gtsc_event_class *c, const struct gtsc_rec_hdr *rec)
{
	struct gtsc_event_printer p = { .t0_ns = 1000000000 };
	char *text = NULL;
	size_t len = 0;

	p.out = open_memstream(&text, &len);
	p.comms = gtsc_comm_table__new();
	if (p.out && p.comms)
		(json ? gt_emit_json : gt_emit_text)(&p, c, rec);
	if (p.out)
		fclose(p.out);
	gtsc_comm_table__free(p.comms);
	return text;
}

static void test_tracepoint_json(struct test_ctx *t)
{
	struct tp_rec r;
	char *s;

	make_tp(&r);
	s = emit(true, &tp_class, &r.hdr);
	CHECK(t, s && !strcmp(s,
		"{\"time\":0.500000000,\"ts_ns\":1500000000,\"cpu\":1,\"pid\":7,\"tid\":7,"
		"\"comm\":\"?\",\"event\":\"sched_test\",\"common_type\":316,"
		"\"prev_comm\":\"ba\\u001bsh\\udcff\",\"prev_pid\":-5,\"prot\":67,"
		"\"prot_text\":\"PROT_READ|PROT_WRITE|0x40\",\"prev_state\":\"0x402\","
		"\"msg\":\"hello\",\"ids\":[1,-2,3],\"bytes\":[1,2,254,255],\"small\":-3,"
		"\"err\":-2,\"err_text\":\"-ENOENT\"}\n"),
	      "got %s", s);
	free(s);
}

static void test_tracepoint_text(struct test_ctx *t)
{
	struct tp_rec r;
	char *s;

	make_tp(&r);
	s = emit(false, &tp_class, &r.hdr);
	CHECK(t, s && !strcmp(s,
		"   0.500000000 [001] ?/7 sched_test: common_type=316 prev_comm=ba\\33sh\\377 "
		"prev_pid=-5 prot=PROT_READ|PROT_WRITE|0x40 prev_state=0x402 msg=hello "
		"ids=[1,-2,3] bytes=[1,2,254,255] small=-3 err=-ENOENT\n"),
	      "got %s", s);
	free(s);
}

/* A __data_loc pointing past the record is left out, not read. */
static void test_data_loc_bounds(struct test_ctx *t)
{
	struct tp_rec r;
	char *s;

	make_tp(&r);
	r.msg_loc = 200 << 16 | 60;
	r.ids_loc = 4 << 16 | 0xfff0;
	s = emit(true, &tp_class, &r.hdr);
	CHECK(t, s && !strstr(s, "\"msg\"") && !strstr(s, "\"ids\"") && strstr(s, "\"small\":-3"),
	      "got %s", s);
	free(s);
}

/* A tracepoint's print fmt decodes prev_state (__print_flags): the class's own text. */
static int state_text(const struct gtsc_event_class *c, const struct gtsc_field *f,
		      const struct gtsc_rec_hdr *rec, char *buf, size_t size)
{
	const struct tp_rec *r = (const void *)rec;

	return strcmp(f->name, "prev_state") ? -1 : snprintf(buf, size, "D|W(%d)", (int)r->prev_state);
}

static const struct gtsc_field fmt_fields[] = {
	F(prev_state, "prev_state", GTSC_FT_INT, GTSC_FP_FLAGS),
	F(prev_pid, "prev_pid", GTSC_FT_INT, GTSC_FP_XLAT),
	F(msg_loc, "msg", GTSC_FT_DYN_STR, GTSC_FP_DEFAULT, .flags = GTSC_FF_REL_LOC),
};

static const struct gtsc_event_class fmt_class = {
	.group = "sched", .name = "sched_fmt", .fields = fmt_fields,
	.nr_fields = sizeof(fmt_fields) / sizeof(fmt_fields[0]), .data_offset = ENTRY,
	.field_text = state_text,
};

/* Flags the class decodes itself, a number it cannot name, a __rel_loc string. */
static void test_class_field_text(struct test_ctx *t)
{
	struct tp_rec r;
	char *s, *j;

	make_tp(&r);
	r.msg_loc = 6 << 16 | (offsetof(struct tp_rec, data) - offsetof(struct tp_rec, ids_loc));
	s = emit(false, &fmt_class, &r.hdr);
	CHECK(t, s && strstr(s, " sched_fmt: prev_state=D|W(1026) prev_pid=-5 msg=hello\n"),
	      "text: %s", s);
	j = emit(true, &fmt_class, &r.hdr);
	CHECK(t, j && strstr(j, ",\"prev_state\":1026,\"prev_state_text\":\"D|W(1026)\","
				"\"prev_pid\":-5,\"msg\":\"hello\"}"),
	      "json: %s", j);
	free(s);
	free(j);
}

static const char syscalls_text[] = "0\tread\tunsigned int\tfd\tchar *\tbuf\tsize_t\tcount\n"
				    "39\tgetpid\n";

static struct gtsc_reader *syscall_trace(struct test_ctx *t, char *path)
{
	struct gtsc_writer *w;
	int fd = mkstemp(path), err;

	CHECK(t, fd >= 0, "mkstemp");
	if (fd < 0)
		return NULL;
	close(fd);
	w = gt_writer__create(path, NULL);
	if (!w)
		return NULL;
	err = gt_writer__add_chunk(w, GTSC_CHUNK_META, "start_ns=0\n", 11);
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_SYSCALLS, syscalls_text,
					  sizeof(syscalls_text) - 1);
	err = gt_writer__close(w) ?: err;
	CHECK(t, !err, "write");
	return gtsc_reader__open(path, NULL);
}

/* sys_enter's class is built once per syscall, from the trace's own table. */
static void test_syscall_classes(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-emit.XXXXXX";
	struct gtsc_reader *r = syscall_trace(t, path);
	struct gtsc_rec_sys_enter e = { .hdr = { .type = GTSC_REC_SYS_ENTER, .size = sizeof(e) } };
	const struct gtsc_event_class *c, *again, *raw, *compat;

	CHECK(t, r, "open");
	if (!r)
		goto out;
	c = gt_event_class__of(r, &e.hdr);
	again = gt_event_class__of(r, &e.hdr);
	CHECK(t, c && c == again, "read's class not built once (%p, %p)", c, again);
	CHECK(t, c && c->style == GTSC_CLASS_CALL && c->nr_fields == 6, "read: %u fields",
	      c ? c->nr_fields : 0);
	if (c && c->nr_fields == 6) {
		CHECK(t, !strcmp(c->fields[2].name, "fd") && c->fields[2].size == 4 &&
				 c->fields[2].type == GTSC_FT_UINT,
		      "fd: %s size %u", c->fields[2].name, c->fields[2].size);
		CHECK(t, !strcmp(c->fields[3].name, "buf") && c->fields[3].print == GTSC_FP_HEX,
		      "buf");
		CHECK(t, !strcmp(c->fields[4].name, "count") && c->fields[4].size == 8, "count");
		CHECK(t, c->fields[5].type == GTSC_FT_PAYLOAD, "no data field last");
	}
	e.nr = 39;
	c = gt_event_class__of(r, &e.hdr);
	CHECK(t, c && c->nr_fields == 3, "getpid: %u fields, expected name, nr, data",
	      c ? c->nr_fields : 0);
	e.nr = 999;
	raw = gt_event_class__of(r, &e.hdr);
	CHECK(t, raw && raw->nr_fields == 9 && !strcmp(raw->fields[2].name, "arg0"),
	      "an unknown syscall has no raw arguments");
	e.nr = 0;
	e.hdr.flags = GTSC_SYS_F_COMPAT;
	compat = gt_event_class__of(r, &e.hdr);
	CHECK(t, compat && compat != again && !strcmp(compat->fields[2].name, "compat"),
	      "an i386 read shares the native class");
out:
	gtsc_reader__close(r);
	unlink(path);
}

/* Fixed classes by flavour; records that only name things have none. */
static void test_fixed_classes(struct test_ctx *t)
{
	static const char *const allocs[] = { "kmalloc", "kmem_cache_alloc", "mm_page_alloc" };
	char path[] = "/tmp/gtsc-emit.XXXXXX";
	struct gtsc_reader *r = syscall_trace(t, path);
	struct gtsc_rec_kmem_alloc a = { .hdr = { .type = GTSC_REC_KMEM_ALLOC, .size = sizeof(a) } };
	struct gtsc_rec_task k = { .hdr = { .type = GTSC_REC_TASK, .size = sizeof(k) } };
	struct gtsc_rec_hdr other = { .type = 200, .size = sizeof(other) };
	const struct gtsc_event_class *c;

	if (!r)
		goto out;
	for (a.kind = 0; a.kind < 3; a.kind++) {
		c = gt_event_class__of(r, &a.hdr);
		CHECK(t, c && !strcmp(c->name, allocs[a.kind]) && !strcmp(c->group, "kmem"),
		      "kind %u: %s", a.kind, c ? c->name : "none");
	}
	CHECK(t, !gt_event_class__of(r, &a.hdr), "kmem kind 3 has a class");
	k.event = GTSC_TASK_EXEC;
	c = gt_event_class__of(r, &k.hdr);
	CHECK(t, c && !strcmp(c->name, "task_exec"), "exec");
	k.event = GTSC_TASK_COMM;
	CHECK(t, !gt_event_class__of(r, &k.hdr), "a task comm record has a class");
	CHECK(t, !gt_event_class__of(r, &other), "an unknown record type has a class");
out:
	gtsc_reader__close(r);
	unlink(path);
}

/*
 * The lines' seconds (emit_line.c) against printf("%*.9f") of the double
 * gt_emit_secs() gives, as the emitters printed them before: around every
 * power of ten, both signs, the last nanosecond before 2^22 s and after
 * (where the double's digits take over), and far beyond.
 */
static void test_line_secs(struct test_ctx *t)
{
	const __s64 edge = (1ll << 22) * 1000000000ll;
	__s64 vals[64];
	size_t n = 0;
	struct gtsc_event_printer p = { .t0_ns = 1ull << 62 };

	for (__s64 pw = 1; pw <= 1000000000000000000ll / 10 && n < 40; pw *= 10) {
		vals[n++] = pw - 1;
		vals[n++] = pw * 7 + 3;
	}
	vals[n++] = 0;
	vals[n++] = edge - 1;
	vals[n++] = edge;
	vals[n++] = edge + 123456789;
	vals[n++] = 4611686018427387903ll;
	for (size_t i = 0; i < n && !t->failed; i++) {
		for (int sign = 1; sign >= -1 && !t->failed; sign -= 2) {
			for (int w = 0; w <= 30 && !t->failed; w += 14) {
				__u64 ts = p.t0_ns + (__u64)(vals[i] * sign);
				char want[64], *got = NULL;
				size_t len = 0;
				struct emit_line l;
				FILE *f = open_memstream(&got, &len);

				if (!f) {
					CHECK(t, false, "open_memstream: %s", strerror(errno));
					return;
				}
				emit_line__init(&l, f);
				gt_emit_line__secs(&l, &p, ts, w);
				emit_line__flush(&l);
				fclose(f);
				snprintf(want, sizeof(want), "%*.9f", w, gt_emit_secs(&p, ts));
				CHECK(t, got && !strcmp(got, want), "%lld ns, width %d: '%s', printf '%s'",
				      (long long)(vals[i] * sign), w, got ? got : "", want);
				free(got);
			}
		}
	}
}

/* A record with a string of N bytes (every 7th an escape) at the raw entry's data. */
struct big_rec {
	struct gtsc_rec_hdr hdr;
	__u64 pad;
	__u32 loc;
	__u32 pad2;
	char data[12000];
};

static const struct gtsc_field big_fields[] = {
	{ .name = "msg", .offset = offsetof(struct big_rec, loc), .size = 4,
	  .type = GTSC_FT_DYN_STR, .print = GTSC_FP_DEFAULT },
};

static const struct gtsc_event_class big_class = {
	.group = "test", .name = "big", .fields = big_fields, .nr_fields = 1,
	.data_offset = offsetof(struct big_rec, loc),
};

static char *escaped(bool json, const char *s, size_t n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f) {
		(json ? gtsc_fput_json : gtsc_fput_text)(f, s, n);
		fclose(f);
	}
	return out;
}

/*
 * Lines longer than the emitters' buffer (4 KiB) leave whole and in order:
 * strings of 100 to 11999 bytes, up to 6 bytes each escaped.
 */
static void test_long_lines(struct test_ctx *t)
{
	static struct big_rec r;
	static const size_t sizes[] = { 100, 4000, 4090, 4097, 8191, 11999 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && !t->failed; k++) {
		size_t n = sizes[k];

		memset(&r, 0, sizeof(r));
		r.hdr = (struct gtsc_rec_hdr){ .type = 250, .size = sizeof(r), .cpu = 1, .pid = 7,
						.tid = 7, .ts_ns = 1500000000 };
		for (size_t i = 0; i < n; i++)
			r.data[i] = i % 7 ? (char)('a' + i % 26) : '\x1b';
		r.loc = (__u32)n << 16 | (offsetof(struct big_rec, data) - big_class.data_offset);
		for (int json = 0; json <= 1 && !t->failed; json++) {
			char *got = emit(json, &big_class, &r.hdr), *esc = escaped(json, r.data, n);
			char *want = NULL;

			if (esc && asprintf(&want,
					    json ? "{\"time\":0.500000000,\"ts_ns\":1500000000,\"cpu\":1,"
						   "\"pid\":7,\"tid\":7,\"comm\":\"?\",\"event\":\"big\","
						   "\"msg\":%s}\n"
						 : "   0.500000000 [001] ?/7 big: msg=%s\n",
					    esc) < 0)
				want = NULL;
			CHECK(t, got && want && !strcmp(got, want), "%s line of a %zu-byte string: %zu bytes, expected %zu",
			      json ? "JSON" : "text", n, got ? strlen(got) : 0, want ? strlen(want) : 0);
			free(got);
			free(esc);
			free(want);
		}
	}
}

static const struct test_case cases[] = {
	{ "line_secs", test_line_secs },
	{ "long_lines", test_long_lines },
	{ "tracepoint_json", test_tracepoint_json },
	{ "tracepoint_text", test_tracepoint_text },
	{ "data_loc_bounds", test_data_loc_bounds },
	{ "class_field_text", test_class_field_text },
	{ "syscall_classes", test_syscall_classes },
	{ "fixed_classes", test_fixed_classes },
};

int main(void)
{
	return RUN_TESTS("emit", cases);
}
