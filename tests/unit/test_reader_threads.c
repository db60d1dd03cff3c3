// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader's prefetch worker (chunk_unpack.c) changes nothing a caller
 * sees: over traces of every codec, several files, files cut at many
 * offsets and a flipped byte, the records (bytes, order), their count,
 * the damage sentence and next()'s last answer are the same as one
 * thread's (GTSC_READER_THREADS=1).  And the worker does run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtsc/gtsc.h>
#include "harness.h"
#include "trace_writer.h"

#define NREC 6000

static const char channels_text[] = "0\tsyscalls\tpercpu\t2\t65536\tdiscard\n";
static const char trailer_text[] = "stat\t0\t0\t3000\t0\nstat\t0\t1\t3000\t0\n";

/* What a caller sees of a trace. */
struct seen {
	__u64 hash, count;
	int last; /* next()'s last answer */
	bool truncated;
	char damage[256];
	int open_err; /* errno of a refused open, else 0 */
};

/*
 * N records of two CPUs in chunks of up to CHUNK bytes, each CPU's late by
 * up to a round: the merge has work.  A round ends every 50 records, or
 * with MIXED at 40,000 and 100 records in turn: chunks of ~1.6 MB, which
 * the reader puts in huge-page buffers, between chunks of 4 KB.
 */
static int write_shaped(const char *path, long codec, bool none, __u64 seed, int n,
			size_t chunk, bool mixed)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = chunk, .data_codec = codec,
				       .zlib_level = none ? 0 : 1 };
	struct gtsc_writer *w = gt_writer__create(path, &wo);
	struct gtsc_rec_sys_enter e = { .hdr = { .type = GTSC_REC_SYS_ENTER, .size = sizeof(e) } };
	int err;

	if (!w)
		return -errno;
	err = gt_writer__add_chunk(w, GTSC_CHUNK_META, "start_ns=1\n", 11);
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_CHANNELS, channels_text,
					  strlen(channels_text));
	for (int i = 0; i < n && !err; i++) {
		e.hdr.cpu = i & 1;
		e.hdr.pid = e.hdr.tid = 100 + (i % 7);
		e.hdr.ts_ns = seed + (__u64)i * 1000 + (i & 1 ? 0 : 1700); /* cpu 0 runs late */
		e.nr = i % 300;
		e.args[0] = seed * 0x9e3779b97f4a7c15ull + (__u64)i * 4096;
		e.args[1] = (__u64)i;
		err = gt_writer__add_record(w, &e.hdr);
		if (!err && (mixed ? i % 40100 == 39999 || i % 40100 == 40099 : i % 50 == 49))
			err = gt_writer__end_round(w);
	}
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_TRAILER, trailer_text,
					  strlen(trailer_text));
	return gt_writer__close(w) ?: err;
}

static int write_trace(const char *path, long codec, bool none, __u64 seed)
{
	return write_shaped(path, codec, none, seed, NREC, 8192, false);
}

static void set_threads(bool one)
{
	if (one)
		setenv("GTSC_READER_THREADS", "1", 1);
	else
		unsetenv("GTSC_READER_THREADS");
}

static void read_all(const char *const *paths, size_t n, bool one, struct seen *s)
{
	const struct gtsc_rec_hdr *rec;
	struct gtsc_reader *r;

	memset(s, 0, sizeof(*s));
	s->hash = 14695981039346656037ull;
	set_threads(one);
	r = gtsc_reader__open_files(paths, n, NULL);
	set_threads(false);
	if (!r) {
		s->open_err = errno;
		return;
	}
	while ((s->last = gtsc_reader__next(r, &rec)) > 0) {
		for (unsigned int i = 0; i < rec->size; i++)
			s->hash = (s->hash ^ ((const unsigned char *)rec)[i]) * 1099511628211ull;
		s->count++;
	}
	s->truncated = gtsc_reader__truncated(r);
	snprintf(s->damage, sizeof(s->damage), "%s", gtsc_reader__damage(r));
	gtsc_reader__close(r);
}

/* Both ways of reading PATHS agree; WHAT names the case. */
static void same(struct test_ctx *t, const char *const *paths, size_t n, const char *what)
{
	struct seen one, two;

	read_all(paths, n, true, &one);
	read_all(paths, n, false, &two);
	CHECK(t, one.open_err == two.open_err, "%s: open %d vs %d", what, one.open_err,
	      two.open_err);
	CHECK(t, one.count == two.count && one.hash == two.hash, "%s: %llu records vs %llu",
	      what, (unsigned long long)one.count, (unsigned long long)two.count);
	CHECK(t, one.last == two.last && one.truncated == two.truncated, "%s: next %d/%d", what,
	      one.last, two.last);
	CHECK(t, !strcmp(one.damage, two.damage), "%s: damage '%s' vs '%s'", what, one.damage,
	      two.damage);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* PATH's first LEN bytes, with byte FLIP (if >= 0) inverted, into OUT. */
static int copy_cut(const char *path, const char *out, long len, long flip)
{
	char *buf = malloc(len > 0 ? len : 1);
	int in = open(path, O_RDONLY), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int err = !buf || in < 0 || fd < 0 || read(in, buf, len) != len;

	if (!err && flip >= 0 && flip < len)
		buf[flip] ^= 0xff;
	err = err || write(fd, buf, len) != len;
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
	free(buf);
	return err ? -EIO : 0;
}

static const struct {
	const char *name;
	long codec;
	bool none;
} codecs[] = {
	{ "zstd", GTSC_WRITER_ZSTD, false }, { "zstd-1.2", GTSC_WRITER_ZSTD_FRAME, false },
	{ "zstd-rows", GTSC_WRITER_ZSTD_ROWS, false },
	{ "lz4", GTSC_WRITER_LZ4, false },   { "zlib", GTSC_WRITER_ZLIB, false },
	{ "none", GTSC_WRITER_LZ4, true },
};

static void test_codecs(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-threads.XXXXXX";
	const char *p = path;
	int fd = mkstemp(path);

	CHECK(t, fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]) && !t->failed; i++) {
		struct seen s;

		CHECK(t, !write_trace(path, codecs[i].codec, codecs[i].none, 1000000), "write %s",
		      codecs[i].name);
		same(t, &p, 1, codecs[i].name);
		read_all(&p, 1, false, &s);
		CHECK(t, s.count == NREC && !s.truncated, "%s: %llu records, %s", codecs[i].name,
		      (unsigned long long)s.count, s.damage);
	}
	unlink(path);
}

/*
 * Big chunks and small ones in turn: the worker's buffers go back and forth
 * between the reader and it (gt_prefetch__give()), big ones to big chunks.
 */
static void test_chunk_sizes(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-threads.XXXXXX";
	const char *p = path;
	int fd = mkstemp(path), n = 6 * 40100;

	CHECK(t, fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	for (size_t i = 0; i < 2 && !t->failed; i++) {
		struct seen s;

		CHECK(t, !write_shaped(path, codecs[i].codec, false, 1000000, n, 4 << 20, true),
		      "write %s", codecs[i].name);
		same(t, &p, 1, codecs[i].name);
		read_all(&p, 1, false, &s);
		CHECK(t, s.count == (__u64)n && !s.truncated, "%s: %llu records, %s",
		      codecs[i].name, (unsigned long long)s.count, s.damage);
	}
	unlink(path);
}

/* Two files of one recording read as one trace, and the second cut short. */
static void test_files(struct test_ctx *t)
{
	char a[] = "/tmp/gtsc-threads-a.XXXXXX", b[] = "/tmp/gtsc-threads-b.XXXXXX";
	char cut[] = "/tmp/gtsc-threads-c.XXXXXX";
	const char *paths[2] = { a, b };
	int fa = mkstemp(a), fb = mkstemp(b), fc = mkstemp(cut);
	struct seen s;

	CHECK(t, fa >= 0 && fb >= 0 && fc >= 0, "mkstemp");
	if (t->failed)
		goto out;
	CHECK(t, !write_trace(a, GTSC_WRITER_ZSTD, false, 1000000), "write a");
	CHECK(t, !write_trace(b, GTSC_WRITER_ZSTD, false, 1000000 + NREC * 1000ull), "write b");
	same(t, paths, 2, "two files");
	read_all(paths, 2, false, &s);
	CHECK(t, s.count == 2 * NREC, "two files: %llu records", (unsigned long long)s.count);
	CHECK(t, !copy_cut(b, cut, file_size(b) / 2, -1), "cut b");
	paths[1] = cut;
	same(t, paths, 2, "the second file cut");
out:
	close(fa), close(fb), close(fc);
	unlink(a), unlink(b), unlink(cut);
}

/* Cut at offsets all over the file (in headers, in payloads, between chunks), and flipped. */
static void test_damage(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-threads.XXXXXX", cut[] = "/tmp/gtsc-threads-cut.XXXXXX";
	const char *p = cut;
	int fd = mkstemp(path), fc = mkstemp(cut);
	long size;
	char what[64];

	CHECK(t, fd >= 0 && fc >= 0, "mkstemp");
	if (t->failed)
		goto out;
	CHECK(t, !write_trace(path, GTSC_WRITER_ZSTD, false, 1000000), "write");
	size = file_size(path);
	for (long len = 0; len <= size && !t->failed; len += 1 + len / 40) {
		snprintf(what, sizeof(what), "cut at %ld of %ld", len, size);
		CHECK(t, !copy_cut(path, cut, len, -1), "%s", what);
		same(t, &p, 1, what);
	}
	for (long at = size / 3; at < size && !t->failed; at += size / 5) {
		snprintf(what, sizeof(what), "byte %ld flipped", at);
		CHECK(t, !copy_cut(path, cut, size, at), "%s", what);
		same(t, &p, 1, what);
	}
out:
	close(fd), close(fc);
	unlink(path), unlink(cut);
}

static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/*
 * A trace of many chunks gets a worker while it is read; one thread when
 * told so, or when the reader may run on one CPU only.
 */
static void test_worker_runs(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-threads.XXXXXX";
	const struct gtsc_rec_hdr *rec;
	int fd = mkstemp(path), before = threads();
	cpu_set_t cpus;
	bool worker = !sched_getaffinity(0, sizeof(cpus), &cpus) && CPU_COUNT(&cpus) > 1;

	CHECK(t, fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	CHECK(t, !write_trace(path, GTSC_WRITER_ZSTD, false, 1000000), "write");
	for (int one = 0; one < 2 && !t->failed; one++) {
		struct gtsc_reader *r;

		set_threads(one);
		r = gtsc_reader__open(path, NULL);
		set_threads(false);
		CHECK(t, r && gtsc_reader__next(r, &rec) == 1, "read");
		/* the worker waits for a free slot: a file of 8 KiB chunks has many more */
		CHECK(t, threads() == before + (!one && worker), "%d threads while reading (%s, %s)",
		      threads(), one ? "one thread asked" : "the default",
		      worker ? "several CPUs" : "one CPU");
		gtsc_reader__close(r);
	}
	CHECK(t, threads() == before, "%d threads after close", threads());
	unlink(path);
}

static const struct test_case cases[] = {
	{ "codecs", test_codecs },
	{ "chunk_sizes", test_chunk_sizes },
	{ "files", test_files },
	{ "damage", test_damage },
	{ "worker_runs", test_worker_runs },
};

int main(void)
{
	return RUN_TESTS("reader_threads", cases);
}
