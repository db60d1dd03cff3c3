// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libgtsc's ABI promises that need no kernel: an opts struct from a caller
 * built against an older, smaller gtsc.h still works (fields past its sz
 * take defaults and are never read), one from a newer header is refused
 * only when it sets a field this library does not know; and the binary
 * printf, whose format ids and formatting are part of the trace format.
 * (The reader's and writer's own opts are in test_trace_file.c.)
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "gtsc/gtsc.h"
#include "opts.h"
#include "printf_fmt.h"
#include "session.h"
#include "trace_writer.h"

/* gtsc_session_opts as a first release might have had it: the fields up to pids. */
struct old_session_opts {
	size_t sz;
	unsigned int sources;
	bool system_wide;
	const int *pids;
};

/* ... and gtsc_channel_opts before sub_size and nr_sub. */
struct old_channel_opts {
	size_t sz;
	const char *name;
	__u64 size;
	enum gtsc_channel_scope scope;
	enum gtsc_channel_mode mode;
};

/* A newer caller's struct: one field past what this library knows. */
struct newer_session_opts {
	struct gtsc_session_opts o;
	long newer_field;
};

static void test_opts_macro(struct test_ctx *t)
{
	GTSC_OPTS(gtsc_session_opts, o, .system_wide = true);

	CHECK(t, o.sz == sizeof(struct gtsc_session_opts), "sz %zu", o.sz);
	CHECK(t, o.system_wide && !o.sources && !o.log && !o.channels, "fields not zeroed");
}

/* Bytes past the old struct hold garbage a newer field would read: they must not be. */
static void test_session_older_sz(struct test_ctx *t)
{
	struct {
		struct old_session_opts o;
		char garbage[sizeof(struct gtsc_session_opts)];
	} buf;
	struct gtsc_channel_spec specs[GTSC_MAX_CHANNELS];
	struct gtsc_engine_opts eo;
	int pid = 42, err;

	memset(&buf, 0xa5, sizeof(buf));
	buf.o = (struct old_session_opts){ .sz = sizeof(buf.o), .sources = GTSC_SOURCE_KMEM,
					   .system_wide = false, .pids = &pid };
	err = gt_session_opts__engine((const void *)&buf, &eo, specs);
	CHECK(t, !err, "older opts refused: %d", err);
	CHECK(t, eo.sources == GTSC_SOURCE_KMEM && !eo.system_wide, "known fields lost");
	/* nr_pids lies past the old sz: 0, so the pid array is not read */
	CHECK(t, eo.nr_pids == 0 && !eo.nr_channels && !eo.ring_bytes && !eo.allow_missing &&
			 !eo.log && !eo.log_ctx,
	      "a field past sz was read (nr_pids %zu, log %p)", eo.nr_pids, (void *)eo.log);
	CHECK(t, eo.sz == sizeof(eo), "engine sz %zu", eo.sz);
}

static void test_session_newer_sz(struct test_ctx *t)
{
	struct newer_session_opts n = { .o = { .sz = sizeof(n) }, .newer_field = 1 };
	struct gtsc_channel_spec specs[GTSC_MAX_CHANNELS];
	struct gtsc_engine_opts eo;
	struct gtsc_session *s;

	CHECK(t, gt_session_opts__engine(&n.o, &eo, specs) == -EINVAL,
	      "an unknown non-zero field accepted");
	/* refused before any permission or kernel check */
	errno = 0;
	s = gtsc_session__open(&n.o);
	CHECK(t, !s && errno == EINVAL, "open: errno %d", errno);
	gtsc_session__destroy(s);
	n.newer_field = 0;
	CHECK(t, !gt_session_opts__engine(&n.o, &eo, specs), "a zero tail refused");
	n.o.sz = 3;
	CHECK(t, gt_session_opts__engine(&n.o, &eo, specs) == -EINVAL, "sz 3 accepted");
	CHECK(t, !gt_session_opts__engine(NULL, &eo, specs) &&
			 eo.sources == (GTSC_SOURCE_SYSCALLS | GTSC_SOURCE_KMEM),
	      "NULL opts: not the defaults");
	n = (struct newer_session_opts){ .o = { .sz = sizeof(n.o), .sources = 1 << 9 } };
	CHECK(t, gt_session_opts__engine(&n.o, &eo, specs) == -EINVAL, "unknown source accepted");
}

/* An array of old channel structs: elements are their sz apart, not sizeof(gtsc_channel_opts). */
static void test_channel_older_stride(struct test_ctx *t)
{
	struct old_channel_opts ch[2] = {
		{ .sz = sizeof(ch[0]), .name = "kmem", .size = 1 << 20,
		  .scope = GTSC_SCOPE_GLOBAL },
		{ .sz = sizeof(ch[0]), .name = "syscalls", .mode = GTSC_CHANNEL_OVERWRITE },
	};
	struct gtsc_session_opts o = { .sz = sizeof(o), .channels = (const void *)ch,
				       .nr_channels = 2 };
	struct gtsc_channel_spec specs[GTSC_MAX_CHANNELS];
	struct gtsc_engine_opts eo;
	int err = gt_session_opts__engine(&o, &eo, specs);

	CHECK(t, !err, "old channel array refused: %d", err);
	CHECK(t, eo.nr_channels == 2 && eo.channels == specs, "channels not passed on");
	CHECK(t, !strcmp(specs[0].name, "kmem") && specs[0].ring_bytes == 1 << 20 &&
			 specs[0].global && specs[0].scope_set && !specs[0].sub_size,
	      "first channel wrong");
	CHECK(t, !strcmp(specs[1].name, "syscalls") && specs[1].mode == GTSC_MODE_OVERWRITE &&
			 !specs[1].scope_set && !specs[1].nr_sub,
	      "second channel wrong: indexed by sizeof, not sz? name '%s'", specs[1].name);
	ch[1].name = NULL;
	CHECK(t, gt_session_opts__engine(&o, &eo, specs) == -EINVAL, "nameless channel accepted");
}

static void test_opts_copy(struct test_ctx *t)
{
	struct gtsc_engine_opts dst;
	struct {
		struct gtsc_engine_opts o;
		int tail;
	} big = { .o = { .sz = sizeof(big), .ring_bytes = 7 }, .tail = 1 };

	CHECK(t, OPTS_COPY(&dst, &big.o, gtsc_engine_opts) == -EINVAL, "non-zero tail copied");
	big.tail = 0;
	CHECK(t, !OPTS_COPY(&dst, &big.o, gtsc_engine_opts) && dst.ring_bytes == 7 &&
			 dst.sz == sizeof(dst),
	      "zero tail: copy wrong");
	big.o.sz = offsetof(struct gtsc_engine_opts, ring_bytes);
	CHECK(t, !OPTS_COPY(&dst, &big.o, gtsc_engine_opts) && dst.ring_bytes == 0,
	      "a field past sz copied");
}

/* What the compiler folds for BPF programs is what the loader computes. */
static void test_printf_ids(struct test_ctx *t)
{
	CHECK(t, GTSC_PRINTF_ID("") == gtsc_printf_hash(""), "empty");
	CHECK(t, GTSC_PRINTF_ID("fork parent=%d child=%d") ==
			 gtsc_printf_hash("fork parent=%d child=%d"),
	      "short");
#define LONG_FMT "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef+tail %d"
	CHECK(t, GTSC_PRINTF_ID(LONG_FMT) == gtsc_printf_hash(LONG_FMT), "longer than 64");
	CHECK(t, gtsc_printf_hash("a") != gtsc_printf_hash("b"), "collision");
}

static int render(const char *lines, const char *fmt_id_of, const __u64 *args, int n, char *out,
		  size_t size)
{
	struct {
		struct gtsc_rec_printf r;
		__u64 args[GTSC_PRINTF_MAX_ARGS];
	} rec = { .r = { .hdr = { .type = GTSC_REC_PRINTF, .size = sizeof(rec.r) + n * 8 },
			 .fmt_id = gtsc_printf_hash(fmt_id_of),
			 .nr_args = n } };

	memcpy(rec.args, args, n * sizeof(*args));
	return gt_printf__render(lines, strlen(lines), &rec.r.hdr, out, size);
}

static void test_printf_render(struct test_ctx *t)
{
	const char *fmt = "d=%d u=%u x=%#x ll=%lld hh=%hhd c=%c w=[%5d] l=[%-3x] %% s=%s";
	const __u64 args[] = {
		(__u64)-5, 0xffffffffULL, 255, (__u64)-1, 0x1ff, 'A', 42, 10, 0xabc,
	};
	char lines[256], out[256], small[8];
	int n;

	snprintf(lines, sizeof(lines), "%08x\tnot this one\n%08x\t%s\\ttab\\n\n",
		 gtsc_printf_hash("other"), gtsc_printf_hash(fmt), fmt);
	n = render(lines, fmt, args, 9, out, sizeof(out));
	CHECK(t, n > 0 && !strcmp(out, "d=-5 u=4294967295 x=0xff ll=-1 hh=-1 c=A w=[   42] "
				       "l=[a  ] % s=0xabc\ttab\n"),
	      "got %d '%s'", n, out);
	/* snprintf's contract: the whole length, a cut and terminated text */
	CHECK(t, render(lines, fmt, args, 9, small, sizeof(small)) == n && strlen(small) == 7,
	      "small buffer");
	/* fewer arguments than conversions: the rest printed as written */
	render(lines, fmt, args, 1, out, sizeof(out));
	CHECK(t, !strncmp(out, "d=-5 u=%u", 9), "missing args: '%s'", out);
	CHECK(t, render(lines, "unknown", args, 1, out, sizeof(out)) == -ENOENT, "unknown id");
	CHECK(t, gt_printf__render(lines, strlen(lines), NULL, out, sizeof(out)) == -EINVAL,
	      "NULL record");
}

/* A trace saves the formats (PRINTF chunk); the reader formats from them. */
static void test_reader_format(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-api-XXXXXX", lines[128], out[64];
	struct {
		struct gtsc_rec_printf r;
		__u64 args[2];
	} rec = { .r = { .hdr = { .type = GTSC_REC_PRINTF, .size = sizeof(rec), .ts_ns = 1 },
			 .fmt_id = GTSC_PRINTF_ID("pid %d of %u"),
			 .nr_args = 2 },
		  .args = { 7, 9 } };
	const struct gtsc_rec_hdr *h = NULL;
	struct gtsc_writer *w;
	struct gtsc_reader *r;
	int fd = mkstemp(path);

	CHECK(t, fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	snprintf(lines, sizeof(lines), "%08x\tpid %%d of %%u\n", gtsc_printf_hash("pid %d of %u"));
	w = gt_writer__create(path, NULL);
	CHECK(t, w && !gt_writer__add_chunk(w, GTSC_CHUNK_PRINTF, lines, strlen(lines)) &&
			 !gt_writer__add_record(w, &rec.r.hdr),
	      "write");
	CHECK(t, w && !gt_writer__close(w), "close");
	r = gtsc_reader__open(path, NULL);
	CHECK(t, r && gtsc_reader__next(r, &h) == 1, "read");
	CHECK(t, h && gtsc_reader__format(r, h, out, sizeof(out)) > 0 && !strcmp(out, "pid 7 of 9"),
	      "formatted '%s'", out);
	gtsc_reader__close(r);
	unlink(path);
}


/* A log sink for the parse tests: the last sentence. */
static void keep_msg(void *ctx, enum gtsc_log_level level, const char *msg)
{
	snprintf(ctx, 256, "%s", msg);
}

/* The strings record's options take, parsed by the library as record parsed them. */
static void test_session_strings(struct test_ctx *t)
{
	const char *chans[] = { "syscalls:mode=overwrite,size=64K", "kmem:size=16M,scope=global" };
	const char *bad_chan[] = { "kmem:size=lots" };
	char msg[256] = "";
	GTSC_OPTS(gtsc_session_opts, o, .events = "kmem,syscalls=openat,%net", .channel_specs = chans,
		  .nr_channel_specs = 2, .snapshot_on = "syscall=exit_group", .log = keep_msg,
		  .log_ctx = msg);
	struct gtsc_session_parse p;
	int err = gt_session_opts__parse(&o, &p);

	CHECK(t, !err, "refused: %d %s", err, msg);
	CHECK(t, (p.eo.sources & GTSC_SRC_KMEM) && (p.eo.sources & GTSC_SRC_SYSCALLS) &&
			 p.eo.syscall_filter && p.eo.nr_channels == 2 && p.eo.trigger_syscall &&
			 p.specs[0].mode == GTSC_MODE_OVERWRITE && p.specs[1].global,
	      "parsed wrong");
	gt_session_parse__free(&p);
	o.events = "bogus";
	CHECK(t, gt_session_opts__parse(&o, &p) == -EINVAL &&
			 strstr(msg, "unknown event source 'bogus'"),
	      "bad source: '%s'", msg);
	o.events = "kmem";
	CHECK(t, gt_session_opts__parse(&o, &p) == -EINVAL &&
			 strstr(msg, "needs the syscalls source"),
	      "trigger without syscalls: '%s'", msg);
	o.events = NULL;
	o.nr_channel_specs = 0;
	CHECK(t, gt_session_opts__parse(&o, &p) == -EINVAL &&
			 strstr(msg, "needs an overwrite channel"),
	      "trigger without flight: '%s'", msg);
	o.snapshot_on = NULL;
	o.channel_specs = bad_chan;
	o.nr_channel_specs = 1;
	CHECK(t, gt_session_opts__parse(&o, &p) == -EINVAL && strstr(msg, "size 'lots' is not a size"),
	      "bad channel: '%s'", msg);
	o.nr_channel_specs = 0;
	o.events = "syscalls";
	o.stacks = true;
	CHECK(t, gt_session_opts__parse(&o, &p) == -EINVAL && strstr(msg, "needs -e kmem"),
	      "stacks without kmem: '%s'", msg);
}

/* A GTSC_0.1 caller's struct ends at log_ctx: the newer string fields are never read. */
static void test_session_v01_sz(struct test_ctx *t)
{
	struct {
		struct gtsc_session_opts o;
	} buf;
	struct gtsc_session_parse p;
	int err;

	memset(&buf, 0xa5, sizeof(buf));
	buf.o.sz = offsetofend(struct gtsc_session_opts, log_ctx);
	buf.o.sources = GTSC_SOURCE_SYSCALLS;
	buf.o.system_wide = true;
	buf.o.pids = NULL;
	buf.o.nr_pids = 0;
	buf.o.channels = NULL;
	buf.o.nr_channels = 0;
	buf.o.ring_bytes = 0;
	buf.o.allow_missing = false;
	buf.o.log = NULL;
	buf.o.log_ctx = NULL;
	err = gt_session_opts__parse(&buf.o, &p);
	CHECK(t, !err, "0.1 opts refused: %d", err);
	CHECK(t, !p.eo.syscall_filter && !p.eo.funcs && !p.eo.nr_comms && !p.eo.cgroup &&
			 !p.eo.trigger_syscall && !p.eo.stacks && !p.eo.capture_size,
	      "a field past sz was read");
	gt_session_parse__free(&p);
}

static const struct test_case cases[] = {
	{ "session_strings", test_session_strings },
	{ "session_v01_sz", test_session_v01_sz },
	{ "opts_macro", test_opts_macro },
	{ "session_older_sz", test_session_older_sz },
	{ "session_newer_sz", test_session_newer_sz },
	{ "channel_older_stride", test_channel_older_stride },
	{ "opts_copy", test_opts_copy },
	{ "printf_ids", test_printf_ids },
	{ "printf_render", test_printf_render },
	{ "reader_format", test_reader_format },
};

int main(void)
{
	return RUN_TESTS("api_opts", cases);
}
