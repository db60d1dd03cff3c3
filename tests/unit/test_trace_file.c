/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The .gtsc writer and reader: round trips in time and file order, a cut at
 * every byte, a flipped byte anywhere, refused headers, record damage, opts
 * ABI, file mode, and writes through short writes and EINTR.  The checks
 * parse the files with their own code (zlib only), so writer and reader
 * cannot agree on a mistake.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <lz4.h>
#include <zstd.h>
#include <zlib.h>

#include "harness.h"
#include "trace_reader.h"
#include "trace_writer.h"

#define HDR_SZ sizeof(struct gtsc_file_hdr)
#define CHDR_SZ sizeof(struct gtsc_chunk_hdr)
#define UNKNOWN_REC_TYPE 200

/* ---- records ---- */

/* Records back to back in the order written, each found by its offset. */
struct recs {
	char *buf;
	size_t len, cap;
	size_t *off;
	size_t n, cap_n;
};

static void recs_add(struct recs *rs, const void *rec, size_t size)
{
	if (rs->len + size > rs->cap) {
		rs->cap = (rs->len + size) * 2;
		rs->buf = realloc(rs->buf, rs->cap);
	}
	if (rs->n == rs->cap_n) {
		rs->cap_n = rs->cap_n ? rs->cap_n * 2 : 256;
		rs->off = realloc(rs->off, rs->cap_n * sizeof(*rs->off));
	}
	if (!rs->buf || !rs->off)
		abort();
	memcpy(rs->buf + rs->len, rec, size);
	rs->off[rs->n++] = rs->len;
	rs->len += size;
}

static const struct gtsc_rec_hdr *recs_at(const struct recs *rs, size_t i)
{
	return (const struct gtsc_rec_hdr *)(rs->buf + rs->off[i]);
}

static void recs_free(struct recs *rs)
{
	free(rs->buf);
	free(rs->off);
	memset(rs, 0, sizeof(*rs));
}

/* Builds record number SEQ of CPU at TS into OUT (>= 256 bytes); returns its size. */
static size_t make_rec(void *out, unsigned int seq, __u16 cpu, __u64 ts)
{
	struct gtsc_rec_hdr h = {
		.cpu = cpu,
		.pid = 1000 + seq % 7,
		.tid = 2000 + seq % 11,
		.ts_ns = ts,
	};
	size_t size;

	memset(out, 0, 256);
	switch (seq % 6) {
	case 0: {
		struct gtsc_rec_sys_enter *e = out;

		e->nr = seq % 300;
		e->payload_len = 8 * (seq % 5);
		for (int i = 0; i < 6; i++)
			e->args[i] = (__u64)seq * 31 + i;
		memset(e + 1, 'a' + seq % 26, e->payload_len);
		h.type = GTSC_REC_SYS_ENTER;
		size = sizeof(*e) + e->payload_len;
		break;
	}
	case 1: {
		struct gtsc_rec_sys_exit *x = out;

		x->nr = seq % 300;
		x->ret = -(__s64)(seq % 40);
		h.type = GTSC_REC_SYS_EXIT;
		size = sizeof(*x);
		break;
	}
	case 2: {
		struct gtsc_rec_kmem_alloc *a = out;

		a->call_site = 0xffffffff81000000ull + seq;
		a->ptr = 0xffff888000000000ull + 64ull * seq;
		a->bytes_req = seq % 4096;
		a->bytes_alloc = 4096;
		a->migratetype = -1;
		h.type = GTSC_REC_KMEM_ALLOC;
		size = sizeof(*a);
		break;
	}
	case 3: {
		struct gtsc_rec_task *k = out;

		k->event = GTSC_TASK_EXEC;
		snprintf(k->comm, sizeof(k->comm), "worker-%u", seq % 100000);
		h.type = GTSC_REC_TASK;
		size = sizeof(*k);
		break;
	}
	case 4:
		/* a type from a newer recorder: skipped by size */
		h.type = UNKNOWN_REC_TYPE;
		size = sizeof(h) + 8 * (seq % 3);
		memset((char *)out + sizeof(h), 0x5a, size - sizeof(h));
		break;
	default: {
		struct gtsc_rec_drops *d = out;

		d->since_ns = ts - 1;
		d->count = seq;
		h.type = GTSC_REC_DROPS;
		size = sizeof(*d);
		break;
	}
	}
	h.size = (__u16)size;
	memcpy(out, &h, sizeof(h));
	return size;
}

/* ---- trace files ---- */

struct gen {
	int rounds;
	int per_round; /* records per CPU per round */
	int late;      /* CPU 1's last records of a round reach the file a round late */
	size_t chunk_size;
	int zlib_level;
	long data_codec;    /* enum gtsc_writer_codec */
	size_t frames_min;  /* gtsc_writer_opts.frames_min: 1, every zstd chunk 1.3's */
	bool meta;	    /* metadata chunks and trailer */
	bool unknown_chunk; /* a chunk type from the future among the metadata */
};

static const char meta_text[] = "host=testhost\nkernel=6.1.0-test\nclock=monotonic\n"
				"options=-e syscalls -e kmem\n";
static const char features_text[] = "btf=1\nringbuf=1\nringbuf_overwrite=0\n";
static const char channels_text[] = "0\tsyscalls\tpercpu\t2\t1048576\tdiscard\n"
				    "1\tkmem\tglobal\t1\t4194304\tdiscard\n"
				    "garbage line\n";
static const char syscalls_text[] = "0\tread\tunsigned int\tfd\tchar *\tbuf\tsize_t\tcount\n"
				    /* as recorders before 6.19's fix wrote 6.19+'s user-memory field */
				    "1\twrite\tunsigned int\tfd\tconst char *\tbuf\tsize_t\tcount"
				    "\t__data_loc char[]\t__buf_val\n"
				    "231\texit_group\tint\terror_code\n"
				    "500\tmany\ta\t1\tb\t2\tc\t3\td\t4\te\t5\tf\t6\tg\t7\n";
static const char formats_text[] = "name: sys_enter\nID: 17\nformat:\n\tfield:int nr;\n";
static const char ksyms_text[] = "ffffffff81200000 kmalloc_trace\n"
				 "ffffffff81000000 _stext\n"
				 "ffffffff81100000 do_sys_openat2\n";

#define FUTURE_CHUNK_TYPE 42

static int write_meta(struct gtsc_writer *w, bool unknown_chunk)
{
	static const struct {
		int type;
		const char *text;
	} chunks[] = {
		{GTSC_CHUNK_META, meta_text},
		{GTSC_CHUNK_FEATURES, features_text},
		{FUTURE_CHUNK_TYPE, "from a newer recorder"},
		{GTSC_CHUNK_CHANNELS, channels_text},
		{GTSC_CHUNK_SYSCALLS, syscalls_text},
		{GTSC_CHUNK_EVENT_FORMATS, formats_text},
	};

	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		const char *text = chunks[i].text;
		int err;

		if (chunks[i].type == FUTURE_CHUNK_TYPE && !unknown_chunk)
			continue;
		err = gt_writer__add_chunk(w, chunks[i].type, text, strlen(text));
		if (err)
			return err;
	}
	return 0;
}

static int write_tail(struct gtsc_writer *w, __u64 records)
{
	char trailer[512];
	int n, err;

	n = snprintf(trailer, sizeof(trailer),
		     "stat\t0\t0\t100\t1\nstat\t0\t1\t200\t2\nprog\tsys_enter\t3\nprog\tkmem\t4\n"
		     "meta\tend_ns\t999\nmeta\trecords\t%llu\n",
		     (unsigned long long)records);
	err = gt_writer__add_chunk(w, GTSC_CHUNK_KSYMS, ksyms_text, strlen(ksyms_text));
	return err ?: gt_writer__add_chunk(w, GTSC_CHUNK_TRAILER, trailer, n);
}

static int add(struct gtsc_writer *w, struct recs *rs, unsigned int seq, __u16 cpu, __u64 ts)
{
	char rec[256];
	size_t size = make_rec(rec, seq, cpu, ts);

	recs_add(rs, rec, size);
	return gt_writer__add_record(w, (const struct gtsc_rec_hdr *)rec);
}

/*
 * Two simulated CPUs, drained ring by ring each round.  CPU 1 sometimes
 * shares a timestamp with CPU 0 (ties must keep file order), and its last
 * LATE records of a round are drained in the next one: one round late, the
 * most the reader's merge promises to put in order.
 */
static int write_rounds(struct gtsc_writer *w, const struct gen *g, struct recs *rs)
{
	unsigned int seq = 0;
	int err = 0;

	for (int r = 0; r <= g->rounds && !err; r++) {
		__u64 base = 1000000ull + 100000ull * r, prev = base - 100000;

		for (int i = 0; i < g->per_round && r < g->rounds && !err; i++)
			err = add(w, rs, seq++, 0, base + 100ull * i);
		/* the ring's older records come first: drained late */
		for (int i = g->per_round - g->late; i < g->per_round && r && !err; i++)
			err = add(w, rs, seq++, 1, prev + 100ull * i + (i % 7 ? 50 : 0));
		for (int i = 0; i < g->per_round - g->late && r < g->rounds && !err; i++)
			err = add(w, rs, seq++, 1, base + 100ull * i + (i % 7 ? 50 : 0));
		err = err ?: gt_writer__end_round(w);
	}
	return err;
}

static int write_trace(const char *path, const struct gen *g, struct recs *rs)
{
	struct gtsc_writer_opts o = {
		.sz = sizeof(o),
		.zlib_level = g->zlib_level,
		.chunk_size = g->chunk_size,
		.data_codec = g->data_codec,
		.frames_min = g->frames_min,
	};
	struct gtsc_writer *w;
	int err = 0;

	w = gt_writer__create(path, &o);
	if (!w)
		return -errno;
	if (g->meta)
		err = write_meta(w, g->unknown_chunk);
	err = err ?: write_rounds(w, g, rs);
	if (g->meta)
		err = err ?: write_tail(w, rs->n);
	if (!err && gt_writer__records(w) != rs->n)
		err = -EPROTO;
	return gt_writer__close(w) ?: err;
}

static int make_tmp(char *path, size_t sz)
{
	int fd;

	snprintf(path, sz, "/tmp/gtsc-test-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static char *read_file(const char *path, size_t *size)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		goto out;
	buf = malloc(st.st_size + 1);
	if (buf && pread(fd, buf, st.st_size, 0) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	*size = st.st_size;
out:
	if (fd >= 0)
		close(fd);
	return buf;
}

/* A new file each time: ext4 flushes a file truncated and rewritten in place. */
static int write_file(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -errno;
	n = len ? write(fd, buf, len) : 0;
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* ---- an independent parse of the format ---- */

struct chunk_info {
	size_t pos, end;
	struct gtsc_chunk_hdr h;
	size_t nrec; /* DATA: records in it */
	bool crc_ok;
};

static size_t count_records(const char *raw, size_t len)
{
	size_t n = 0;

	for (size_t off = 0; off + sizeof(struct gtsc_rec_hdr) <= len; n++) {
		struct gtsc_rec_hdr h;

		memcpy(&h, raw + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		off += h.size;
	}
	return n;
}

/*
 * A zstd DATA chunk: the records into RAW (room for RAW_LEN), or with
 * GTSC_CHUNK_COLS the count the column header starts with (a version byte,
 * a timestamp byte, then the count as a LEB128 varint) into *NREC.
 */
static size_t unzstd_count(const char *in, size_t len, __u16 flags, char *raw, size_t raw_len,
			   size_t *nrec)
{
	unsigned long long clen = ZSTD_getFrameContentSize(in, len);
	unsigned char *cols;
	size_t n = 0;

	if (!(flags & GTSC_CHUNK_COLS))
		return ZSTD_decompress(raw, raw_len, in, len);
	/* 1.3: the stream table, record count included, is before the frames */
	if (flags & GTSC_CHUNK_STREAMS)
		clen = len;
	cols = clen < 1 << 26 ? calloc(1, clen + 12) : NULL;
	if (cols && (flags & GTSC_CHUNK_STREAMS))
		memcpy(cols, in, len);
	else if (cols && ZSTD_isError(ZSTD_decompress(cols, clen, in, len)))
		clen = 0;
	if (cols && clen)
		for (int i = 2, shift = 0; i < 12; i++, shift += 7) {
			n |= (size_t)(cols[i] & 0x7f) << shift;
			if (!(cols[i] & 0x80))
				break;
		}
	free(cols);
	*nrec = n;
	return 0;
}

/* Chunks of a well-formed file BUF, CRCs and records checked by zlib alone. */
static size_t scan_chunks(const char *buf, size_t size, struct chunk_info *out, size_t max)
{
	size_t n = 0, pos = HDR_SZ;

	while (pos + CHDR_SZ <= size && n < max) {
		struct chunk_info *c = &out[n];
		struct gtsc_chunk_hdr tmp;
		uLong crc;

		memcpy(&c->h, buf + pos, CHDR_SZ);
		if (pos + CHDR_SZ + c->h.len > size)
			break;
		c->pos = pos;
		c->end = pos + CHDR_SZ + c->h.len;
		tmp = c->h;
		tmp.crc = 0;
		crc = crc32(0, (const Bytef *)&tmp, CHDR_SZ);
		crc = crc32(crc, (const Bytef *)buf + pos + CHDR_SZ, c->h.len);
		c->crc_ok = crc == c->h.crc;
		c->nrec = 0;
		if (c->h.type == GTSC_CHUNK_DATA) {
			uLongf raw_len = c->h.raw_len;
			char *raw = malloc(raw_len + 1);

			if (c->h.flags & GTSC_CHUNK_ZLIB)
				uncompress((Bytef *)raw, &raw_len,
					   (const Bytef *)buf + pos + CHDR_SZ, c->h.len);
			else if (c->h.flags & GTSC_CHUNK_LZ4)
				raw_len = LZ4_decompress_safe(buf + pos + CHDR_SZ, raw, c->h.len,
							      c->h.raw_len);
			else if (c->h.flags & GTSC_CHUNK_ZSTD)
				raw_len = unzstd_count(buf + pos + CHDR_SZ, c->h.len, c->h.flags, raw,
						       c->h.raw_len, &c->nrec);
			else
				memcpy(raw, buf + pos + CHDR_SZ, raw_len);
			if (!(c->h.flags & GTSC_CHUNK_COLS))
				c->nrec = count_records(raw, raw_len);
			free(raw);
		}
		pos = c->end;
		n++;
	}
	return n;
}

/* ---- reading ---- */

static struct gtsc_reader *open_reader(const char *path, bool unordered, char *errbuf,
				       size_t errbuf_sz)
{
	struct gtsc_reader_opts o = {
		.sz = sizeof(o),
		.unordered = unordered,
		.errbuf = errbuf,
		.errbuf_sz = errbuf_sz,
	};

	if (errbuf)
		errbuf[0] = '\0';
	return gtsc_reader__open(path, &o);
}

static int read_all(struct gtsc_reader *r, struct recs *got)
{
	const struct gtsc_rec_hdr *rec;
	int ret;

	while ((ret = gtsc_reader__next(r, &rec)) == 1)
		recs_add(got, rec, rec->size);
	return ret;
}

/* GOT must be the first N records of WANT, byte for byte (IDX maps got i -> want). */
static bool same_recs(struct test_ctx *t, const struct recs *got, const struct recs *want,
		      const size_t *idx, size_t n, const char *what)
{
	CHECK(t, got->n == n, "%s: %zu records, want %zu", what, got->n, n);
	for (size_t i = 0; i < got->n && i < n && !t->failed; i++) {
		const struct gtsc_rec_hdr *a = recs_at(got, i),
					  *b = recs_at(want, idx ? idx[i] : i);

		CHECK(t, a->size == b->size && !memcmp(a, b, b->size),
		      "%s: record %zu differs (ts %llu type %u, want ts %llu type %u)", what, i,
		      (unsigned long long)a->ts_ns, a->type, (unsigned long long)b->ts_ns, b->type);
	}
	return !t->failed;
}

/* qsort is not stable; the index breaks ties, as the file order must. */
static int cmp_ts_idx(const void *a, const void *b, void *ctx)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	__u64 tx = recs_at(ctx, x)->ts_ns, ty = recs_at(ctx, y)->ts_ns;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

static size_t *time_order(const struct recs *rs)
{
	size_t *idx = malloc((rs->n + 1) * sizeof(*idx));

	for (size_t i = 0; i < rs->n; i++)
		idx[i] = i;
	qsort_r(idx, rs->n, sizeof(*idx), cmp_ts_idx, (void *)rs);
	return idx;
}

/* ---- tests ---- */

static void test_file_abi(struct test_ctx *t)
{
	static const char magic[8] = GTSC_FILE_MAGIC;
	const __u32 chunk_magic = GTSC_CHUNK_MAGIC;

	CHECK(t, !memcmp(magic, "GTSCBPF\0", 8), "file magic changed");
	CHECK(t, !memcmp(&chunk_magic, "GCHK", 4), "chunk magic is not \"GCHK\" in file order");
	CHECK(t, offsetof(struct gtsc_file_hdr, version_major) == 8, "version_major moved");
	CHECK(t, offsetof(struct gtsc_file_hdr, rec_abi_major) == 12, "rec_abi_major moved");
	CHECK(t, offsetof(struct gtsc_file_hdr, byte_order) == 16, "byte_order moved");
	CHECK(t, offsetof(struct gtsc_file_hdr, hdr_size) == 18, "hdr_size moved");
	CHECK(t, offsetof(struct gtsc_file_hdr, flags) == 20, "flags moved");
	CHECK(t, offsetof(struct gtsc_file_hdr, crc) == 28, "file crc moved");
	CHECK(t, offsetof(struct gtsc_chunk_hdr, type) == 4, "chunk type moved");
	CHECK(t, offsetof(struct gtsc_chunk_hdr, flags) == 6, "chunk flags moved");
	CHECK(t, offsetof(struct gtsc_chunk_hdr, len) == 8, "chunk len moved");
	CHECK(t, offsetof(struct gtsc_chunk_hdr, raw_len) == 12, "chunk raw_len moved");
	CHECK(t, offsetof(struct gtsc_chunk_hdr, seq) == 16, "chunk seq moved");
	CHECK(t, offsetof(struct gtsc_chunk_hdr, crc) == 20, "chunk crc moved");
	CHECK(t, GTSC_CHUNK_META == 1 && GTSC_CHUNK_DATA == 6 && GTSC_CHUNK_TRAILER == 8,
	      "chunk types renumbered");
	CHECK(t, GTSC_CHUNK_ZLIB == 1 && GTSC_CHUNK_ROUND_END == 2 && GTSC_CHUNK_LZ4 == 256,
	      "chunk flags renumbered");
}

static void check_metadata(struct test_ctx *t, struct gtsc_reader *r, size_t nrec)
{
	const struct trace_channel *ch;
	const struct gtsc_chan_stat *st;
	const struct gtsc_syscall_info *sc;
	const char *text, *s;
	char want[32];
	size_t n, len;
	__u64 off = 0;

	s = gtsc_reader__meta(r, "host");
	CHECK(t, s && !strcmp(s, "testhost"), "meta host: %s", s ?: "(null)");
	s = gtsc_reader__meta(r, "options");
	CHECK(t, s && !strcmp(s, "-e syscalls -e kmem"), "meta options: %s", s ?: "(null)");
	s = gtsc_reader__meta(r, "end_ns");
	CHECK(t, s && !strcmp(s, "999"), "trailer meta end_ns: %s", s ?: "(null)");
	snprintf(want, sizeof(want), "%zu", nrec);
	s = gtsc_reader__meta(r, "records");
	CHECK(t, s && !strcmp(s, want), "trailer meta records: %s", s ?: "(null)");
	CHECK(t, !gtsc_reader__meta(r, "nope"), "absent meta key found");
	s = gt_reader__feature(r, "ringbuf_overwrite");
	CHECK(t, s && !strcmp(s, "0"), "feature ringbuf_overwrite: %s", s ?: "(null)");
	CHECK(t, !gt_reader__feature(r, "host"), "META key seen as a feature");

	ch = gt_reader__channels(r, &n);
	CHECK(t, n == 2, "%zu channels", n);
	if (n == 2) {
		CHECK(t,
		      ch[0].id == 0 && !strcmp(ch[0].name, "syscalls") && ch[0].percpu &&
			      ch[0].nr_rings == 2 && ch[0].ring_bytes == 1048576 &&
			      !strcmp(ch[0].mode, "discard"),
		      "channel 0 misparsed");
		CHECK(t, ch[1].id == 1 && !ch[1].percpu && ch[1].ring_bytes == 4194304,
		      "channel 1 misparsed");
	}

	sc = gtsc_reader__syscall(r, 1);
	CHECK(t,
	      sc && !strcmp(sc->name, "write") && sc->nr_args == 3 &&
		      !strcmp(sc->arg_type[1], "const char *") && !strcmp(sc->arg_name[2], "count"),
	      "syscall 1 misparsed");
	sc = gtsc_reader__syscall(r, 500);
	CHECK(t, sc && sc->nr_args == 6 && !strcmp(sc->arg_name[5], "6"), "7 args not capped at 6");
	CHECK(t, !gtsc_reader__syscall(r, 2), "unknown syscall found");

	s = gtsc_reader__ksym(r, 0xffffffff81100010ull, &off);
	CHECK(t, s && !strcmp(s, "do_sys_openat2") && off == 0x10, "ksym inside: %s+%llx",
	      s ?: "(null)", (unsigned long long)off);
	s = gtsc_reader__ksym(r, 0xffffffff81200000ull, &off);
	CHECK(t, s && !strcmp(s, "kmalloc_trace") && !off, "ksym exact: %s", s ?: "(null)");
	CHECK(t, !gtsc_reader__ksym(r, 0xffffffff80ffffffull, &off), "ksym below the first");

	st = gt_reader__stats(r, &n);
	CHECK(t, st && n == 2 && st[1].cpu == 1 && st[1].written == 200 && st[1].dropped == 2,
	      "trailer stats misparsed (%zu)", n);
	CHECK(t, gtsc_reader__prog_misses(r) == 7, "prog misses %llu",
	      (unsigned long long)gtsc_reader__prog_misses(r));

	text = gtsc_reader__chunk_text(r, GTSC_CHUNK_EVENT_FORMATS, &len);
	CHECK(t, text && len == strlen(formats_text) && !memcmp(text, formats_text, len),
	      "EVENT_FORMATS text differs");
	text = gtsc_reader__chunk_text(r, GTSC_CHUNK_DATA, &len);
	CHECK(t, !text && !len, "DATA has no text");
}

static void round_trip(struct test_ctx *t, const struct gen *g)
{
	struct recs want = {}, got = {};
	struct gtsc_reader *r = NULL;
	char path[64], err[256];
	size_t *idx = NULL, size = 0;
	char *file = NULL;
	int ret;

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp: %s", strerror(errno));
		return;
	}
	ret = write_trace(path, g, &want);
	CHECK(t, !ret, "write: %s", strerror(-ret));
	if (t->failed)
		goto out;
	idx = time_order(&want);

	r = open_reader(path, false, err, sizeof(err));
	CHECK(t, r, "open: %s", err);
	if (!r)
		goto out;
	CHECK(t, !gtsc_reader__truncated(r), "intact file damaged: %s", gtsc_reader__damage(r));
	ret = read_all(r, &got);
	CHECK(t, !ret, "next: %d", ret);
	same_recs(t, &got, &want, idx, want.n, "time order");
	CHECK(t, gtsc_reader__count(r) == want.n, "count %llu",
	      (unsigned long long)gtsc_reader__count(r));
	CHECK(t, !gtsc_reader__truncated(r) && !*gtsc_reader__damage(r),
	      "damaged after reading: %s", gtsc_reader__damage(r));
	if (g->meta)
		check_metadata(t, r, want.n);
	gtsc_reader__close(r);

	recs_free(&got);
	r = open_reader(path, true, err, sizeof(err));
	CHECK(t, r, "open unordered: %s", err);
	if (!r)
		goto out;
	ret = read_all(r, &got);
	CHECK(t, !ret, "next unordered: %d", ret);
	same_recs(t, &got, &want, NULL, want.n, "file order");

	file = read_file(path, &size);
	CHECK(t, file && size > HDR_SZ, "cannot read back");
out:
	gtsc_reader__close(r);
	free(file);
	free(idx);
	recs_free(&want);
	recs_free(&got);
	unlink(path);
}

static void test_round_trip(struct test_ctx *t)
{
	struct gen g = {.rounds = 40,
			.per_round = 150,
			.late = 20,
			.chunk_size = 2048,
			.zlib_level = 1,
			.meta = true};

	round_trip(t, &g);
}

/* DATA chunks deflated, as format 1.0 wrote them: still read. */
static void test_round_trip_zlib(struct test_ctx *t)
{
	struct gen g = {.rounds = 40,
			.per_round = 150,
			.late = 20,
			.chunk_size = 2048,
			.zlib_level = 1,
			.data_codec = GTSC_WRITER_ZLIB,
			.meta = true};

	round_trip(t, &g);
}

/*
 * Columns then zstd, chunks of several rounds (the writer holds them):
 * chunks this small keep one frame, as format 1.2 wrote them; with
 * FRAMES_MIN 1, every chunk is 1.3's, a zstd frame per column stream.
 */
static void round_trip_zstd(struct test_ctx *t, size_t frames_min)
{
	struct gen g = {.rounds = 40,
			.per_round = 150,
			.late = 20,
			.chunk_size = 2048,
			.zlib_level = 1,
			.data_codec = GTSC_WRITER_ZSTD,
			.frames_min = frames_min,
			.meta = true};

	round_trip(t, &g);
}

static void test_round_trip_zstd(struct test_ctx *t)
{
	round_trip_zstd(t, 0);
}

static void test_round_trip_zstd_frames(struct test_ctx *t)
{
	round_trip_zstd(t, 1);
}

/* zstd of the records themselves (no columns): what the columns are measured against. */
static void test_round_trip_zstd_rows(struct test_ctx *t)
{
	struct gen g = {.rounds = 40,
			.per_round = 150,
			.late = 20,
			.chunk_size = 4096,
			.zlib_level = 1,
			.data_codec = GTSC_WRITER_ZSTD_ROWS,
			.meta = true};

	round_trip(t, &g);
}

static void test_round_trip_raw(struct test_ctx *t)
{
	struct gen g = {.rounds = 30,
			.per_round = 100,
			.late = 30,
			.chunk_size = 777,
			.zlib_level = 0,
			.meta = true};

	round_trip(t, &g);
}

/* One chunk per round and more: the round end is then its own empty chunk or not. */
static void test_round_trip_big_chunks(struct test_ctx *t)
{
	struct gen g = {.rounds = 25,
			.per_round = 400,
			.late = 100,
			.chunk_size = 1 << 20,
			.zlib_level = 6,
			.meta = true};

	round_trip(t, &g);
}

/*
 * The writer's file, parsed by the test: framing, seq, CRCs, byte count, and
 * one ROUND_END chunk closing each round, empty when a metadata chunk had
 * already pushed the round's records out.
 */
static void test_writer_format(struct test_ctx *t)
{
	struct gtsc_writer_opts o = {.sz = sizeof(o), .zlib_level = 1};
	const int rounds = 12, per_round = 20, empty_round = 5;
	struct chunk_info chunks[256];
	struct gtsc_file_hdr fh;
	struct recs want = {};
	struct gtsc_writer *w;
	size_t n, size = 0, nrec = 0, ends = 0;
	char path[64], *file = NULL;
	char rec[256];
	__u64 bytes = 0;

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	o.chunk_size = make_rec(rec, 1, 0, 1) * 8; /* 8 sys_exit records of 40 bytes */
	w = gt_writer__create(path, &o);
	CHECK(t, w, "create: %s", strerror(errno));
	if (!w)
		goto out;
	CHECK(t, !write_meta(w, false), "meta");
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < per_round; i++) {
			make_rec(rec, 1, 0, 1000 * r + i);
			recs_add(&want, rec, 40);
			CHECK(t, !gt_writer__add_record(w, (void *)rec), "add");
		}
		if (r == empty_round)
			CHECK(t, !gt_writer__add_chunk(w, FUTURE_CHUNK_TYPE, "x", 1),
			      "add_chunk");
		CHECK(t, !gt_writer__end_round(w), "end_round");
		CHECK(t, !gt_writer__end_round(w), "second end_round");
	}
	CHECK(t, !write_tail(w, want.n), "tail");
	bytes = gt_writer__bytes(w);
	CHECK(t, gt_writer__records(w) == want.n, "records %llu",
	      (unsigned long long)gt_writer__records(w));
	CHECK(t, !gt_writer__close(w), "close");

	file = read_file(path, &size);
	CHECK(t, file && size == bytes, "file is %zu bytes, writer counted %llu", size,
	      (unsigned long long)bytes);
	if (t->failed)
		goto out;
	memcpy(&fh, file, sizeof(fh));
	CHECK(t,
	      !memcmp(fh.magic, "GTSCBPF", 8) && fh.version_major == GTSC_FILE_VERSION_MAJOR &&
		      fh.rec_abi_major == GTSC_REC_ABI_MAJOR &&
		      fh.byte_order == GTSC_LITTLE_ENDIAN && fh.ptr_size == sizeof(void *) &&
		      fh.hdr_size == HDR_SZ,
	      "file header fields");
	CHECK(t, fh.crc == crc32(0, (const Bytef *)file, 28), "file header CRC");
	CHECK(t, fh.version_minor == GTSC_FILE_VERSION_MINOR && fh.version_minor >= 1,
	      "format minor %u", fh.version_minor);
	n = scan_chunks(file, size, chunks, 256);
	for (size_t i = 0; i < n; i++) {
		const struct chunk_info *c = &chunks[i];

		CHECK(t, c->h.magic == GTSC_CHUNK_MAGIC && c->h.seq == i && c->crc_ok,
		      "chunk %zu: magic %x seq %u crc %d", i, c->h.magic, c->h.seq, c->crc_ok);
		nrec += c->nrec;
		if (c->h.type != GTSC_CHUNK_DATA)
			continue;
		CHECK(t, c->h.raw_len <= o.chunk_size, "chunk %zu holds %u > %zu", i, c->h.raw_len,
		      o.chunk_size);
		if (!(c->h.flags & GTSC_CHUNK_ROUND_END))
			continue;
		ends++;
		CHECK(t, nrec == ends * per_round, "round %zu ends after %zu records", ends, nrec);
		CHECK(t, !c->h.raw_len == (ends == empty_round + 1),
		      "round %zu: end chunk of %u bytes", ends, c->h.raw_len);
	}
	CHECK(t, n && chunks[n - 1].end == size, "chunks do not end at %zu", size);
	CHECK(t, n && chunks[n - 1].h.type == GTSC_CHUNK_TRAILER, "last chunk is not the trailer");
	CHECK(t, chunks[0].h.type == GTSC_CHUNK_META, "first chunk is not META");
	CHECK(t, nrec == want.n, "%zu records in chunks, wrote %zu", nrec, want.n);
	CHECK(t, ends == (size_t)rounds, "%zu round ends for %d rounds", ends, rounds);
	/* compressed only where it paid: records do, the short META text does not */
	for (size_t i = 0; i < n; i++) {
		const struct gtsc_chunk_hdr *h = &chunks[i].h;

		CHECK(t,
		      h->flags & (GTSC_CHUNK_ZLIB | GTSC_CHUNK_LZ4) ? h->len < h->raw_len
								 : h->len == h->raw_len,
		      "chunk %zu: %u bytes stored for %u", i, h->len, h->raw_len);
		/* records are LZ4 by default, metadata stays zlib */
		CHECK(t, h->type != GTSC_CHUNK_DATA || !h->raw_len || h->flags & GTSC_CHUNK_LZ4,
		      "DATA chunk %zu was not compressed with LZ4", i);
		CHECK(t, h->type == GTSC_CHUNK_DATA || !(h->flags & GTSC_CHUNK_LZ4),
		      "metadata chunk %zu is LZ4", i);
	}
	CHECK(t, !(chunks[0].h.flags & GTSC_CHUNK_ZLIB), "META grew and was still compressed");
out:
	free(file);
	recs_free(&want);
	unlink(path);
}

/* Records every complete DATA chunk before CUT holds. */
static size_t records_before(const struct chunk_info *c, size_t n, size_t cut)
{
	size_t nrec = 0;

	for (size_t i = 0; i < n && c[i].end <= cut; i++)
		nrec += c[i].nrec;
	return nrec;
}

/* Cuts the file at each offset the step selects and checks what the reader makes of it. */
/*
 * STREAM: the cut bytes come through a pipe (/dev/fd/N), which the reader
 * reads in order, without its index; what the trailer or damage says is
 * known once it read to the end.  Returns the pipe's read end or -1.
 */
static int stream_of(const char *file, size_t cut, char *path, size_t path_sz)
{
	int p[2];

	if (cut > 65536 || pipe(p))
		return -1;
	if (write(p[1], file, cut) != (ssize_t)cut) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	snprintf(path, path_sz, "/dev/fd/%d", p[0]);
	return p[0];
}

static void check_truncated(struct test_ctx *t, const struct gtsc_reader *r, size_t cut, bool cut_short)
{
	CHECK(t, gtsc_reader__truncated(r) == cut_short, "cut at %zu: truncated() %d", cut,
	      gtsc_reader__truncated(r));
	CHECK(t, !gtsc_reader__truncated(r) || strlen(gtsc_reader__damage(r)) > 20,
	      "cut at %zu: no sentence", cut);
}

static void truncate_at(struct test_ctx *t, const char *path, const char *file, size_t size,
			const struct recs *want, const struct chunk_info *chunks, size_t n,
			size_t cut, bool stream)
{
	char err[256], what[64], fd_path[32];
	struct recs got = {};
	struct gtsc_reader *r;
	bool has_trailer = chunks[n - 1].h.type == GTSC_CHUNK_TRAILER;
	bool ordered = cut % 3 == 0;
	int ret, fd = -1;

	if (stream && (fd = stream_of(file, cut, fd_path, sizeof(fd_path))) < 0) {
		CHECK(t, 0, "cannot make the stream of %zu bytes", cut);
		return;
	}
	if (!stream && write_file(path, file, cut)) {
		CHECK(t, 0, "cannot write the cut file");
		return;
	}
	errno = 0;
	r = open_reader(stream ? fd_path : path, !ordered, err, sizeof(err));
	if (fd >= 0)
		close(fd);
	if (!r) {
		CHECK(t, cut < HDR_SZ, "cut at %zu refused: %s", cut, err);
		CHECK(t, *err && errno, "cut at %zu: refused without a reason", cut);
		return;
	}
	CHECK(t, cut >= HDR_SZ, "cut at %zu inside the header opened", cut);
	CHECK(t, gtsc_reader__streaming(r) == stream, "cut at %zu: streaming() %d", cut, stream);
	/* a file knows at open, a stream once read to its end */
	if (!stream)
		check_truncated(t, r, cut, cut < size || !has_trailer);
	ret = read_all(r, &got);
	CHECK(t, !ret, "cut at %zu: next %d", cut, ret);
	if (stream)
		check_truncated(t, r, cut, cut < size || !has_trailer);
	snprintf(what, sizeof(what), "cut at %zu", cut);
	if (ordered) {
		CHECK(t, got.n == records_before(chunks, n, cut), "%s: %zu records, want %zu", what,
		      got.n, records_before(chunks, n, cut));
		for (size_t i = 1; i < got.n && !t->failed; i++)
			CHECK(t, recs_at(&got, i)->ts_ns >= recs_at(&got, i - 1)->ts_ns,
			      "%s: out of order at %zu", what, i);
	} else {
		same_recs(t, &got, want, NULL, records_before(chunks, n, cut), what);
	}
	gtsc_reader__close(r);
	recs_free(&got);
}

static void truncation(struct test_ctx *t, const struct gen *g, size_t step, bool stream)
{
	struct chunk_info chunks[4096];
	char path[64], cut_path[64];
	struct recs want = {};
	char *file = NULL;
	size_t size = 0, n;

	if (make_tmp(path, sizeof(path)) || make_tmp(cut_path, sizeof(cut_path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	CHECK(t, !write_trace(path, g, &want), "write");
	file = read_file(path, &size);
	CHECK(t, file, "read back");
	if (t->failed)
		goto out;
	n = scan_chunks(file, size, chunks, 4096);
	CHECK(t, n < 4096 && chunks[n - 1].end == size, "scan");
	/* an odd step, so the cuts fall at every offset within a chunk */
	if (!step)
		step = (size / 300) | 1;
	for (size_t cut = 0; cut <= size && !t->failed; cut += step)
		truncate_at(t, cut_path, file, size, &want, chunks, n, cut, stream);
	/* around every chunk boundary, whatever the step */
	for (size_t i = 0; i < n && step > 1 && !t->failed; i++) {
		for (size_t d = 0; d < 3; d++)
			truncate_at(t, cut_path, file, size, &want, chunks, n,
				    chunks[i].end - 1 + d > size ? size : chunks[i].end - 1 + d,
				    stream);
	}
	truncate_at(t, cut_path, file, size, &want, chunks, n, size, stream);
out:
	free(file);
	recs_free(&want);
	unlink(path);
	unlink(cut_path);
}

/* Cut at every byte: small enough that each cut is a whole read. */
static const struct gen every_byte = {.rounds = 3,
				      .per_round = 6,
				      .late = 2,
				      .chunk_size = 300,
				      .zlib_level = 1,
				      .meta = true};

static void test_truncate_every_byte(struct test_ctx *t)
{
	truncation(t, &every_byte, 1, false);
}

/* The same cuts read as a stream (record -o - | report -i -). */
static void test_stream_truncate_every_byte(struct test_ctx *t)
{
	truncation(t, &every_byte, 1, true);
}

static void test_truncate_every_byte_raw(struct test_ctx *t)
{
	struct gen g = {.rounds = 3,
			.per_round = 8,
			.late = 2,
			.chunk_size = 256,
			.zlib_level = 0,
			.meta = false};

	truncation(t, &g, 1, false);
}

/* FRAMES_MIN: gtsc_writer_opts.frames_min (1: every chunk a frame per stream, 1.3's) */
static void truncate_every_byte_zstd(struct test_ctx *t, size_t frames_min)
{
	struct gen g = {.rounds = 3,
			.per_round = 6,
			.late = 2,
			.chunk_size = 300,
			.zlib_level = 1,
			.data_codec = GTSC_WRITER_ZSTD,
			.frames_min = frames_min,
			.meta = true};

	truncation(t, &g, 1, false);
}

static void truncate_large_zstd(struct test_ctx *t, size_t frames_min)
{
	struct gen g = {.rounds = 30,
			.per_round = 200,
			.late = 40,
			.chunk_size = 16384,
			.zlib_level = 1,
			.data_codec = GTSC_WRITER_ZSTD,
			.frames_min = frames_min,
			.meta = true};

	truncation(t, &g, 0, false);
}

static void test_truncate_every_byte_zstd(struct test_ctx *t)
{
	truncate_every_byte_zstd(t, 0);
}

static void test_truncate_every_byte_frames(struct test_ctx *t)
{
	truncate_every_byte_zstd(t, 1);
}

static void test_truncate_large_zstd(struct test_ctx *t)
{
	truncate_large_zstd(t, 0);
}

static void test_truncate_large_frames(struct test_ctx *t)
{
	truncate_large_zstd(t, 1);
}

static void test_truncate_large(struct test_ctx *t)
{
	struct gen g = {.rounds = 30,
			.per_round = 200,
			.late = 40,
			.chunk_size = 16384,
			.zlib_level = 1,
			.meta = true};

	truncation(t, &g, 0, false); /* a few hundred cuts */
}

/*
 * Flips byte POS and reads: the file is refused (a header byte) or opens and
 * yields a prefix of the records, byte-identical, and then says it is damaged.
 */
static void flip_at(struct test_ctx *t, const char *path, char *file, size_t size,
		    const struct recs *want, size_t pos, const char *expect)
{
	struct recs got = {};
	struct gtsc_reader *r;
	char err[256], what[64];
	int ret;

	file[pos] ^= 0x20;
	ret = write_file(path, file, size);
	file[pos] ^= 0x20;
	if (ret) {
		CHECK(t, 0, "write");
		return;
	}
	snprintf(what, sizeof(what), "flip at %zu", pos);
	errno = 0;
	r = open_reader(path, true, err, sizeof(err));
	if (!r) {
		CHECK(t, pos < HDR_SZ, "%s: refused: %s", what, err);
		CHECK(t, *err && errno, "%s: refused without a reason", what);
		return;
	}
	CHECK(t, pos >= HDR_SZ, "%s: a damaged header opened", what);
	ret = read_all(r, &got);
	CHECK(t, !ret, "%s: next %d", what, ret);
	CHECK(t, got.n <= want->n, "%s: %zu records out of %zu", what, got.n, want->n);
	same_recs(t, &got, want, NULL, got.n, what);
	CHECK(t, gtsc_reader__truncated(r), "%s: not seen", what);
	CHECK(t, !expect || strstr(gtsc_reader__damage(r), expect),
	      "%s: damage \"%s\", want \"%s\"", what, gtsc_reader__damage(r), expect);
	gtsc_reader__close(r);
	recs_free(&got);
}

static void flips(struct test_ctx *t, const struct gen *g)
{
	char path[64], bad_path[64];
	struct recs want = {};
	char *file = NULL;
	size_t size = 0;

	if (make_tmp(path, sizeof(path)) || make_tmp(bad_path, sizeof(bad_path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	CHECK(t, !write_trace(path, g, &want), "write");
	file = read_file(path, &size);
	CHECK(t, file, "read back");
	for (size_t pos = 0; file && pos < size && !t->failed; pos++)
		flip_at(t, bad_path, file, size, &want, pos, NULL);
	free(file);
	recs_free(&want);
	unlink(path);
	unlink(bad_path);
}

/* Every single byte: CRC32 catches each one, so every flip must be noticed. */
static void test_flip_every_byte(struct test_ctx *t)
{
	struct gen g = {.rounds = 3,
			.per_round = 8,
			.late = 2,
			.chunk_size = 400,
			.zlib_level = 1,
			.meta = true};

	flips(t, &g);
}

static void test_flip_every_byte_zlib(struct test_ctx *t)
{
	struct gen g = {.rounds = 3,
			.per_round = 8,
			.late = 2,
			.chunk_size = 400,
			.zlib_level = 1,
			.data_codec = GTSC_WRITER_ZLIB,
			.meta = true};

	flips(t, &g);
}

static void flip_every_byte_zstd(struct test_ctx *t, size_t frames_min)
{
	struct gen g = {.rounds = 3,
			.per_round = 8,
			.late = 2,
			.chunk_size = 400,
			.zlib_level = 1,
			.data_codec = GTSC_WRITER_ZSTD,
			.frames_min = frames_min,
			.meta = true};

	flips(t, &g);
}

static void test_flip_every_byte_zstd(struct test_ctx *t)
{
	flip_every_byte_zstd(t, 0);
}

static void test_flip_every_byte_frames(struct test_ctx *t)
{
	flip_every_byte_zstd(t, 1);
}

static void test_flip_every_byte_raw(struct test_ctx *t)
{
	struct gen g = {.rounds = 3,
			.per_round = 6,
			.late = 2,
			.chunk_size = 300,
			.zlib_level = 0,
			.meta = true};

	flips(t, &g);
}

/* Named places: a data chunk's payload, a metadata chunk, the trailer. */
static void test_flip_named(struct test_ctx *t)
{
	struct gen g = {.rounds = 6,
			.per_round = 50,
			.late = 5,
			.chunk_size = 1024,
			.zlib_level = 0,
			.meta = true};
	struct chunk_info chunks[1024];
	char path[64], bad_path[64];
	struct recs want = {};
	size_t size = 0, n, data = 0;
	char *file = NULL;

	if (make_tmp(path, sizeof(path)) || make_tmp(bad_path, sizeof(bad_path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	CHECK(t, !write_trace(path, &g, &want), "write");
	file = read_file(path, &size);
	CHECK(t, file, "read back");
	if (t->failed)
		goto out;
	n = scan_chunks(file, size, chunks, 1024);
	for (size_t i = 0, seen = 0; i < n; i++) {
		if (chunks[i].h.type == GTSC_CHUNK_DATA && ++seen == 5)
			data = i;
	}
	CHECK(t, data, "no 5th DATA chunk");
	if (t->failed)
		goto out;
	/* in the middle of a record of the 5th DATA chunk: the 4 before stay */
	flip_at(t, bad_path, file, size, &want, chunks[data].pos + CHDR_SZ + 100, "CRC");
	flip_at(t, bad_path, file, size, &want, chunks[1].pos + CHDR_SZ + 3, "CRC");
	flip_at(t, bad_path, file, size, &want, chunks[n - 1].pos + CHDR_SZ + 1, "CRC");
	flip_at(t, bad_path, file, size, &want, chunks[data].pos + 1, "magic");
	flip_at(t, bad_path, file, size, &want, chunks[data].pos + 16, "numbered");
	flip_at(t, bad_path, file, size, &want, chunks[data].pos + 4, "CRC");
	/* and how many records survive the payload flip */
	{
		struct gtsc_reader *r;
		struct recs got = {};

		file[chunks[data].pos + CHDR_SZ + 100] ^= 1;
		write_file(bad_path, file, size);
		file[chunks[data].pos + CHDR_SZ + 100] ^= 1;
		r = open_reader(bad_path, false, NULL, 0);
		CHECK(t, r && !gtsc_reader__truncated(r), "payload damage is found on reading");
		if (r) {
			read_all(r, &got);
			CHECK(t, got.n == records_before(chunks, n, chunks[data].pos),
			      "%zu records before the bad chunk, want %zu", got.n,
			      records_before(chunks, n, chunks[data].pos));
			CHECK(t, strstr(gtsc_reader__damage(r), "CRC"), "damage: %s",
			      gtsc_reader__damage(r));
		}
		gtsc_reader__close(r);
		recs_free(&got);
	}
out:
	free(file);
	recs_free(&want);
	unlink(path);
	unlink(bad_path);
}

/* Rewrites the header of PATH with EDIT applied, CRC fixed when FIX_CRC. */
static void refuse(struct test_ctx *t, const char *path, const char *file, size_t size,
		   void (*edit)(struct gtsc_file_hdr *), bool fix_crc, int want_errno,
		   const char *want_text)
{
	char *copy = malloc(size), err[256];
	struct gtsc_file_hdr h;
	struct gtsc_reader *r;

	memcpy(copy, file, size);
	memcpy(&h, copy, sizeof(h));
	edit(&h);
	if (fix_crc)
		h.crc = crc32(0, (const Bytef *)&h, offsetof(struct gtsc_file_hdr, crc));
	memcpy(copy, &h, sizeof(h));
	write_file(path, copy, size);
	free(copy);
	errno = 0;
	r = open_reader(path, false, err, sizeof(err));
	CHECK(t, !r, "opened (%s)", want_text);
	CHECK(t, errno == want_errno, "errno %d for \"%s\", want %d", errno, want_text, want_errno);
	CHECK(t, strstr(err, want_text), "errbuf \"%s\", want \"%s\"", err, want_text);
	gtsc_reader__close(r);
}

static void edit_magic(struct gtsc_file_hdr *h)
{
	memcpy(h->magic, "PERFILE2", 8);
}

static void edit_major(struct gtsc_file_hdr *h)
{
	h->version_major = GTSC_FILE_VERSION_MAJOR + 1;
}

static void edit_abi(struct gtsc_file_hdr *h)
{
	h->rec_abi_major = GTSC_REC_ABI_MAJOR + 1;
}

static void edit_big_endian(struct gtsc_file_hdr *h)
{
	h->byte_order = GTSC_BIG_ENDIAN;
}

static void edit_hdr_size(struct gtsc_file_hdr *h)
{
	h->hdr_size = 8;
}

static void edit_nothing(struct gtsc_file_hdr *h)
{
	h->crc ^= 1;
}

static void test_refused_headers(struct test_ctx *t)
{
	struct gen g = {.rounds = 1, .per_round = 5, .chunk_size = 0, .zlib_level = 1};
	struct recs want = {};
	char path[64], bad_path[64], err[256];
	char *file = NULL;
	size_t size = 0;

	if (make_tmp(path, sizeof(path)) || make_tmp(bad_path, sizeof(bad_path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	CHECK(t, !write_trace(path, &g, &want), "write");
	file = read_file(path, &size);
	if (!file)
		goto out;
	refuse(t, bad_path, file, size, edit_magic, true, EBADMSG, "is not a gtsc trace file");
	refuse(t, bad_path, file, size, edit_major, false, ENOTSUP,
	       "trace format version 2 is newer than this gtsc-bpf understands (1)");
	refuse(t, bad_path, file, size, edit_major, true, ENOTSUP, "version 2 is newer");
	refuse(t, bad_path, file, size, edit_abi, true, ENOTSUP,
	       "ABI version 2, newer than this gtsc-bpf understands (1)");
	refuse(t, bad_path, file, size, edit_big_endian, false, ENOTSUP,
	       "recorded on a big-endian machine");
	refuse(t, bad_path, file, size, edit_hdr_size, true, EBADMSG, "not valid");
	refuse(t, bad_path, file, size, edit_nothing, false, EBADMSG, "CRC");
	/* and files that are no trace at all */
	write_file(bad_path, "", 0);
	errno = 0;
	CHECK(t,
	      !open_reader(bad_path, false, err, sizeof(err)) && errno == EBADMSG &&
		      strstr(err, "empty"),
	      "empty file: %s", err);
	write_file(bad_path, "#!/bin/sh\necho hello, this is long enough to be a header\n", 56);
	CHECK(t, !open_reader(bad_path, false, err, sizeof(err)) && strstr(err, "not a gtsc"),
	      "script: %s", err);
	errno = 0;
	CHECK(t,
	      !open_reader("/nonexistent/x.gtsc", false, err, sizeof(err)) && errno == ENOENT &&
		      strstr(err, "cannot open"),
	      "missing file: %s", err);
	CHECK(t, !open_reader("/tmp", false, err, sizeof(err)), "a directory opened");
out:
	free(file);
	recs_free(&want);
	unlink(path);
	unlink(bad_path);
}

/* ---- hand-made files, for what the writer refuses to produce ---- */

struct craft {
	int fd;
	__u32 seq;
};

static void craft_chunk(struct craft *c, __u16 type, __u16 flags, const void *data, size_t len)
{
	struct gtsc_chunk_hdr h = {
		.magic = GTSC_CHUNK_MAGIC,
		.type = type,
		.flags = flags,
		.len = len,
		.raw_len = len,
		.seq = c->seq++,
	};
	uLong crc = crc32(0, (const Bytef *)&h, sizeof(h));

	h.crc = len ? crc32(crc, data, len) : crc;
	if (write(c->fd, &h, sizeof(h)) != sizeof(h) || write(c->fd, data, len) != (ssize_t)len)
		abort();
}

static int craft_open(struct craft *c, const char *path)
{
	struct gtsc_file_hdr h = {
		.version_major = GTSC_FILE_VERSION_MAJOR,
		.rec_abi_major = GTSC_REC_ABI_MAJOR,
		.byte_order = GTSC_LITTLE_ENDIAN,
		.ptr_size = 8,
		.hdr_size = sizeof(h),
	};

	memcpy(h.magic, GTSC_FILE_MAGIC, 8);
	h.crc = crc32(0, (const Bytef *)&h, 28);
	c->seq = 0;
	c->fd = open(path, O_WRONLY | O_TRUNC);
	return c->fd >= 0 && write(c->fd, &h, sizeof(h)) == sizeof(h) ? 0 : -1;
}

/*
 * Chunk 1: good, too short for its type, good; chunk 2: good, crossing the
 * end.  Damage ends its chunk only: 1 + 1 records come out.
 */
static void test_record_damage(struct test_ctx *t)
{
	char path[64], buf[512], err[256];
	struct recs want = {}, got = {};
	struct gtsc_rec_hdr *h;
	struct gtsc_reader *r;
	struct craft c;
	size_t len = 0;

	if (make_tmp(path, sizeof(path)) || craft_open(&c, path)) {
		CHECK(t, 0, "create");
		return;
	}
	len = make_rec(buf, 1, 0, 10); /* sys_exit, 40 */
	recs_add(&want, buf, len);
	h = (void *)(buf + len);
	len += make_rec(h, 2, 0, 11); /* kmem_alloc, 72 */
	h->size = 48;		      /* fits the chunk, too short for the type */
	len += make_rec(buf + len, 3, 0, 12);
	craft_chunk(&c, GTSC_CHUNK_DATA, GTSC_CHUNK_ROUND_END, buf, len);
	len = make_rec(buf, 7, 0, 20);
	recs_add(&want, buf, len);
	h = (void *)(buf + len);
	len += make_rec(h, 8, 0, 21);
	h->size = 200; /* past the chunk's end */
	craft_chunk(&c, GTSC_CHUNK_DATA, GTSC_CHUNK_ROUND_END, buf, len);
	len = make_rec(buf, 13, 0, 30);
	h = (void *)buf;
	h->size = 8; /* below a header */
	craft_chunk(&c, GTSC_CHUNK_DATA, GTSC_CHUNK_ROUND_END, buf, len);
	len = make_rec(buf, 4, 1, 31); /* unknown type, 24 bytes */
	recs_add(&want, buf, len);
	craft_chunk(&c, GTSC_CHUNK_DATA, GTSC_CHUNK_ROUND_END, buf, len);
	craft_chunk(&c, GTSC_CHUNK_TRAILER, 0, "meta\tend_ns\t1\n", 14);
	close(c.fd);

	for (int unordered = 0; unordered < 2; unordered++) {
		r = open_reader(path, unordered, err, sizeof(err));
		CHECK(t, r, "open: %s", err);
		if (!r)
			break;
		CHECK(t, !gtsc_reader__truncated(r), "framing is intact");
		CHECK(t, !read_all(r, &got), "next");
		same_recs(t, &got, &want, NULL, want.n, "damaged records");
		CHECK(t, recs_at(&got, 2)->type == UNKNOWN_REC_TYPE, "unknown type not yielded");
		CHECK(t, gtsc_reader__truncated(r), "record damage not reported");
		CHECK(t, strstr(gtsc_reader__damage(r), "minimum"), "damage: %s",
		      gtsc_reader__damage(r));
		gtsc_reader__close(r);
		recs_free(&got);
	}
	recs_free(&want);
	unlink(path);
}

/*
 * A record whose size is not a multiple of 8 would hand the next one out
 * misaligned (a typed pointer: undefined behaviour): the reader calls it
 * damage and ends its chunk there.
 */
static void test_record_unaligned(struct test_ctx *t)
{
	char path[64], buf[512] __attribute__((aligned(8))), err[256];
	char tmp[256] __attribute__((aligned(8)));
	struct recs want = {}, got = {};
	struct gtsc_rec_hdr *h;
	struct gtsc_reader *r;
	struct craft c;
	size_t len;

	if (make_tmp(path, sizeof(path)) || craft_open(&c, path)) {
		CHECK(t, 0, "create");
		return;
	}
	len = make_rec(buf, 1, 0, 10); /* sys_exit, 40 */
	recs_add(&want, buf, len);
	h = (void *)(buf + len);
	len += make_rec(h, 4, 0, 11) + 4; /* unknown type, 24 + 4 bytes */
	h->size = sizeof(*h) + 4;
	memcpy(buf + len, tmp, make_rec(tmp, 2, 0, 12)); /* kmem_alloc at offset 68 */
	len += ((struct gtsc_rec_hdr *)tmp)->size;
	craft_chunk(&c, GTSC_CHUNK_DATA, GTSC_CHUNK_ROUND_END, buf, len);
	craft_chunk(&c, GTSC_CHUNK_TRAILER, 0, "meta\tend_ns\t1\n", 14);
	close(c.fd);

	r = open_reader(path, false, err, sizeof(err));
	CHECK(t, r, "open: %s", err);
	if (r) {
		CHECK(t, !read_all(r, &got), "next");
		same_recs(t, &got, &want, NULL, want.n, "records before the odd size");
		CHECK(t, strstr(gtsc_reader__damage(r) ?: "", "multiple of 8"), "damage: %s",
		      gtsc_reader__damage(r));
		gtsc_reader__close(r);
	}
	recs_free(&got);
	recs_free(&want);
	unlink(path);
}

/* A record of an odd size (a tool's) is padded by the writer: the next stays aligned. */
static void test_writer_pads(struct test_ctx *t)
{
	char path[64], rec[256] __attribute__((aligned(8))), *big;
	struct gtsc_rec_hdr *h = (void *)rec;
	const struct gtsc_rec_hdr *got;
	struct gtsc_reader *r;
	struct gtsc_writer *w;
	int n = 0;

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	w = gt_writer__create(path, NULL);
	CHECK(t, w, "create");
	if (!w)
		return;
	make_rec(rec, 4, 0, 1);
	h->size = sizeof(*h) + 5;
	memset(rec + sizeof(*h), 0x5a, 5);
	CHECK(t, !gt_writer__add_record(w, h), "odd size refused");
	make_rec(rec, 2, 0, 2);
	CHECK(t, !gt_writer__add_record(w, h), "kmem_alloc refused");
	big = calloc(1, 65536);
	if (big) {
		make_rec(big, 4, 0, 3);
		((struct gtsc_rec_hdr *)big)->size = 65533; /* padded, it would not fit hdr.size */
		CHECK(t, gt_writer__add_record(w, (void *)big) == -EINVAL,
		      "a record of 65533 bytes accepted");
		free(big);
	}
	CHECK(t, !gt_writer__add_chunk(w, GTSC_CHUNK_TRAILER, "meta\tend_ns\t9\n", 14), "trailer");
	CHECK(t, !gt_writer__close(w), "close");
	r = open_reader(path, false, NULL, 0);
	CHECK(t, r, "open");
	while (r && gtsc_reader__next(r, &got) == 1) {
		CHECK(t, !((uintptr_t)got & 7), "record %d at an address not 8-byte aligned", n);
		if (n == 0)
			CHECK(t, got->size == 32 && !((const char *)got)[29] &&
					 ((const char *)got)[28] == 0x5a,
			      "record 0: size %u, its padding not zeros", got->size);
		if (n == 1)
			CHECK(t, got->type == GTSC_REC_KMEM_ALLOC && got->ts_ns == 2,
			      "record 1 is type %u", got->type);
		n++;
	}
	CHECK(t, n == 2, "%d records read back, expected 2", n);
	CHECK(t, r && !gtsc_reader__truncated(r), "damage: %s", r ? gtsc_reader__damage(r) : "");
	gtsc_reader__close(r);
	unlink(path);
}

/* The writer refuses what the reader would call damage, and chunk types it owns. */
/*
 * A DATA chunk in a codec from the future (its CRC right): refused by name,
 * not called damaged, and the records before it are read.
 */
static void test_unknown_codec(struct test_ctx *t)
{
	struct gen g = {.rounds = 6,
			.per_round = 50,
			.late = 5,
			.chunk_size = 1024,
			.zlib_level = 1,
			.meta = true};
	struct chunk_info chunks[1024];
	char path[64];
	struct recs want = {}, got = {};
	struct gtsc_reader *r = NULL;
	size_t size = 0, n, data = 0;
	char *file = NULL;

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	CHECK(t, !write_trace(path, &g, &want), "write");
	file = read_file(path, &size);
	CHECK(t, file, "read back");
	if (t->failed)
		goto out;
	n = scan_chunks(file, size, chunks, 1024);
	for (size_t i = 0, seen = 0; i < n; i++) {
		if (chunks[i].h.type == GTSC_CHUNK_DATA && ++seen == 3)
			data = i;
	}
	CHECK(t, data, "no 3rd DATA chunk");
	if (t->failed)
		goto out;
	{
		struct gtsc_chunk_hdr h = chunks[data].h;
		uLong crc;

		h.flags = (h.flags & ~(GTSC_CHUNK_ZLIB | GTSC_CHUNK_LZ4)) | 1 << 15; /* no codec has it (zstd took 9, columns 10) */
		h.crc = 0;
		crc = crc32(0, (const Bytef *)&h, CHDR_SZ);
		h.crc = crc32(crc, (const Bytef *)file + chunks[data].pos + CHDR_SZ, h.len);
		memcpy(file + chunks[data].pos, &h, CHDR_SZ);
	}
	CHECK(t, !write_file(path, file, size), "write back");
	r = open_reader(path, false, NULL, 0);
	CHECK(t, r && gtsc_reader__truncated(r), "an unknown codec passed");
	if (!r)
		goto out;
	CHECK(t, strstr(gtsc_reader__damage(r), "does not know"), "damage: %s",
	      gtsc_reader__damage(r));
	read_all(r, &got);
	CHECK(t, got.n == records_before(chunks, n, chunks[data].pos),
	      "%zu records before the chunk, want %zu", got.n,
	      records_before(chunks, n, chunks[data].pos));
out:
	gtsc_reader__close(r);
	free(file);
	recs_free(&want);
	recs_free(&got);
	unlink(path);
}

/*
 * Files of format 1.0 (zlib DATA chunks) and 1.1 (LZ4) still read whole
 * since 1.2: the same chunks under the older header.
 */
static void old_minor(struct test_ctx *t, long codec, __u16 minor)
{
	struct gen g = {.rounds = 10, .per_round = 60, .late = 5, .chunk_size = 1500,
			.zlib_level = 1, .data_codec = codec, .meta = true};
	struct recs want = {}, got = {};
	struct gtsc_reader *r = NULL;
	struct gtsc_file_hdr h;
	char path[64], *file = NULL;
	size_t size = 0;

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	CHECK(t, !write_trace(path, &g, &want), "write");
	file = read_file(path, &size);
	CHECK(t, file && size > HDR_SZ, "read back");
	if (t->failed)
		goto out;
	memcpy(&h, file, sizeof(h));
	CHECK(t, h.version_minor == GTSC_FILE_VERSION_MINOR, "written as 1.%u", h.version_minor);
	h.version_minor = minor;
	h.crc = crc32(0, (const Bytef *)&h, offsetof(struct gtsc_file_hdr, crc));
	memcpy(file, &h, sizeof(h));
	CHECK(t, !write_file(path, file, size), "write back");
	r = open_reader(path, true, NULL, 0);
	CHECK(t, r && !gtsc_reader__truncated(r), "1.%u file: %s", minor,
	      r ? gtsc_reader__damage(r) : "refused");
	if (!r || t->failed)
		goto out;
	CHECK(t, !read_all(r, &got), "1.%u file: next failed", minor);
	same_recs(t, &got, &want, NULL, want.n, minor ? "1.1 file" : "1.0 file");
out:
	gtsc_reader__close(r);
	free(file);
	recs_free(&want);
	recs_free(&got);
	unlink(path);
}

static void test_old_minors(struct test_ctx *t)
{
	old_minor(t, GTSC_WRITER_ZLIB, 0);
	old_minor(t, GTSC_WRITER_LZ4, 1);
}

static void test_writer_refuses(struct test_ctx *t)
{
	struct gtsc_writer *w;
	char path[64], rec[256];
	struct gtsc_rec_hdr *h = (void *)rec;

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	w = gt_writer__create(path, NULL);
	CHECK(t, w, "create");
	if (!w)
		return;
	make_rec(rec, 2, 0, 1);
	h->size = 71;
	CHECK(t, gt_writer__add_record(w, h) == -EINVAL, "short kmem_alloc accepted");
	h->size = 23;
	h->type = UNKNOWN_REC_TYPE;
	CHECK(t, gt_writer__add_record(w, h) == -EINVAL, "record below a header accepted");
	CHECK(t, gt_writer__add_chunk(w, GTSC_CHUNK_DATA, "x", 1) == -EINVAL,
	      "DATA through add_chunk accepted");
	CHECK(t, gt_writer__add_chunk(w, 0, "x", 1) == -EINVAL, "chunk type 0 accepted");
	CHECK(t, gt_writer__records(w) == 0, "refused records counted");
	CHECK(t, gt_writer__bytes(w) == HDR_SZ, "bytes %llu",
	      (unsigned long long)gt_writer__bytes(w));
	CHECK(t, !gt_writer__close(w), "close");
	unlink(path);
}

static void test_unknown_chunk_type(struct test_ctx *t)
{
	struct gen g = {.rounds = 5,
			.per_round = 20,
			.late = 4,
			.chunk_size = 512,
			.zlib_level = 1,
			.meta = true,
			.unknown_chunk = true};

	round_trip(t, &g);
}

static void test_mode_0600(struct test_ctx *t)
{
	struct gtsc_writer *w;
	struct stat st;
	char path[64];
	mode_t old = umask(0);

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	CHECK(t, !chmod(path, 0644), "chmod");
	w = gt_writer__create(path, NULL);
	CHECK(t, w, "create over an existing file: %s", strerror(errno));
	CHECK(t, !stat(path, &st) && (st.st_mode & 07777) == 0600, "mode %o over a 0644 file",
	      st.st_mode & 07777);
	gt_writer__close(w);
	unlink(path);
	w = gt_writer__create(path, NULL);
	CHECK(t, !stat(path, &st) && (st.st_mode & 07777) == 0600, "new file mode %o",
	      st.st_mode & 07777);
	gt_writer__close(w);
	umask(old);
	unlink(path);
}

static void test_opts_compat(struct test_ctx *t)
{
	struct {
		struct gtsc_writer_opts o;
		long newer_field;
	} wbig = {.o.sz = sizeof(wbig), .newer_field = 1};
	struct {
		struct gtsc_reader_opts o;
		long newer_field;
	} rbig = {.o.sz = sizeof(rbig), .newer_field = 1};
	struct gtsc_writer_opts wsmall = {.sz = sizeof(size_t), .zlib_level = 99};
	struct gtsc_reader_opts rsmall = {.sz = sizeof(size_t), .unordered = true};
	struct gtsc_writer_opts wbad = {.sz = 3};
	struct gtsc_writer_opts wlevel = {.sz = sizeof(wlevel), .zlib_level = 10};
	struct gtsc_writer *w;
	struct gtsc_reader *r;
	char path[64], rec[256];

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	errno = 0;
	CHECK(t, !gt_writer__create(path, &wbig.o) && errno == EINVAL,
	      "writer: unknown non-zero opts field accepted");
	errno = 0;
	CHECK(t, !gt_writer__create(path, &wbad) && errno == EINVAL, "writer: sz 3 accepted");
	CHECK(t, !gt_writer__create(path, &wlevel) && errno == EINVAL, "zlib level 10 accepted");
	wbig.newer_field = 0;
	w = gt_writer__create(path, &wbig.o);
	CHECK(t, w, "writer: zero tail refused");
	gt_writer__close(w);
	/* fields past sz are not read: level 99 there must not matter */
	w = gt_writer__create(path, &wsmall);
	CHECK(t, w, "writer: sz only refused: %s", strerror(errno));
	make_rec(rec, 1, 0, 5);
	CHECK(t, w && !gt_writer__add_record(w, (void *)rec), "add");
	CHECK(t, w && !gt_writer__add_chunk(w, GTSC_CHUNK_TRAILER, "", 0), "trailer");
	gt_writer__close(w);

	errno = 0;
	CHECK(t, !gtsc_reader__open(path, &rbig.o) && errno == EINVAL,
	      "reader: unknown non-zero opts field accepted");
	rbig.newer_field = 0;
	r = gtsc_reader__open(path, &rbig.o);
	CHECK(t, r, "reader: zero tail refused");
	gtsc_reader__close(r);
	r = gtsc_reader__open(path, &rsmall);
	CHECK(t, r && !gtsc_reader__truncated(r), "reader: sz only refused");
	if (r) {
		const struct gtsc_rec_hdr *h;

		CHECK(t, gtsc_reader__next(r, &h) == 1 && h->ts_ns == 5, "record");
		CHECK(t, gtsc_reader__next(r, &h) == 0, "end");
	}
	gtsc_reader__close(r);
	r = gtsc_reader__open(path, NULL);
	CHECK(t, r, "reader: NULL opts refused");
	gtsc_reader__close(r);
	unlink(path);
}

/* A trace with no trailer, no ksyms, no records: everything answers "none". */
static void test_empty_and_killed(struct test_ctx *t)
{
	const struct gtsc_rec_hdr *h;
	struct gtsc_reader *r;
	struct gtsc_writer *w;
	char path[64];
	size_t n = 7;

	if (make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkstemp");
		return;
	}
	w = gt_writer__create(path, NULL);
	CHECK(t, w && !gt_writer__end_round(w), "create");
	CHECK(t, w && gt_writer__bytes(w) == HDR_SZ, "an empty round wrote something");
	gt_writer__close(w);
	r = gtsc_reader__open(path, NULL);
	CHECK(t, r, "open");
	if (!r)
		goto out;
	CHECK(t, gtsc_reader__truncated(r) && strstr(gtsc_reader__damage(r), "no trailer"),
	      "damage: %s", gtsc_reader__damage(r));
	CHECK(t, !gt_reader__stats(r, &n) && !n, "stats without a trailer");
	CHECK(t, !gtsc_reader__ksym(r, 0xffffffff81000000ull, NULL), "ksym without symbols");
	CHECK(t, !gtsc_reader__meta(r, "host") && !gtsc_reader__syscall(r, 0), "metadata");
	CHECK(t, !gt_reader__channels(r, &n) && !n, "channels");
	CHECK(t, gtsc_reader__next(r, &h) == 0 && gtsc_reader__next(r, &h) == 0, "records");
	gtsc_reader__close(r);
out:
	unlink(path);
}

/* ---- short writes and EINTR ---- */

struct drain {
	const char *path;
	char *buf;
	size_t len, cap;
};

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Reads slowly so the pipe stays full: a signal then finds the writer either
 * blocked after part of a writev went out (a short count) or before any did
 * (EINTR).
 */
static void *drain_fifo(void *arg)
{
	struct drain *d = arg;
	struct timespec nap = {.tv_nsec = 1000000};
	sigset_t all;
	int fd;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	fd = open(d->path, O_RDONLY);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (d->len + 4096 > d->cap) {
			d->cap = d->cap * 2 + 65536;
			d->buf = realloc(d->buf, d->cap);
		}
		n = read(fd, d->buf + d->len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		d->len += n;
		nanosleep(&nap, NULL);
	}
	close(fd);
	return NULL;
}

static int write_signalled(const char *path, const struct gen *g, struct recs *rs, bool timer)
{
	struct itimerval it = {.it_interval.tv_usec = 300, .it_value.tv_usec = 300};
	struct itimerval off = {};
	struct gtsc_writer_opts o = {
		.sz = sizeof(o), .zlib_level = g->zlib_level, .chunk_size = g->chunk_size};
	struct gtsc_writer *w = gt_writer__create(path, &o);
	int err;

	if (!w)
		return -errno;
	if (timer)
		setitimer(ITIMER_REAL, &it, NULL);
	err = write_rounds(w, g, rs);
	err = gt_writer__close(w) ?: err;
	if (timer)
		setitimer(ITIMER_REAL, &off, NULL);
	return err;
}

static void test_short_writes_eintr(struct test_ctx *t)
{
	/* chunks bigger than the pipe, so writev blocks halfway through one */
	struct gen g = {
		.rounds = 5, .per_round = 1000, .late = 10, .chunk_size = 200000, .zlib_level = 0};
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	char dir[] = "/tmp/gtsc-fifo-XXXXXX", fifo[64], path[64];
	struct recs a = {}, b = {};
	struct drain d = {.path = fifo};
	pthread_t th;
	char *file = NULL;
	size_t size = 0;
	int err;

	if (!mkdtemp(dir) || make_tmp(path, sizeof(path))) {
		CHECK(t, 0, "mkdtemp");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK(t, !mkfifo(fifo, 0600), "mkfifo");
	/* no SA_RESTART: writev returns EINTR, or a short count once some bytes went */
	sigaction(SIGALRM, &sa, &old);
	pthread_create(&th, NULL, drain_fifo, &d);
	err = write_signalled(fifo, &g, &a, true);
	pthread_join(th, NULL);
	sigaction(SIGALRM, &old, NULL);
	CHECK(t, !err, "write through a fifo: %s", strerror(-err));
	CHECK(t, !write_signalled(path, &g, &b, false), "write to a file");
	file = read_file(path, &size);
	CHECK(t, file && size == d.len && !memcmp(file, d.buf, size),
	      "fifo got %zu bytes, the file %zu, or they differ", d.len, size);
	free(file);
	free(d.buf);
	recs_free(&a);
	recs_free(&b);
	unlink(fifo);
	unlink(path);
	rmdir(dir);
}

static const struct test_case cases[] = {
	{"file_abi", test_file_abi},
	{"round_trip", test_round_trip},
	{"round_trip_zlib", test_round_trip_zlib},
	{"round_trip_zstd", test_round_trip_zstd},
	{"round_trip_zstd_frames", test_round_trip_zstd_frames},
	{"round_trip_zstd_rows", test_round_trip_zstd_rows},
	{"round_trip_raw", test_round_trip_raw},
	{"round_trip_big_chunks", test_round_trip_big_chunks},
	{"writer_format", test_writer_format},
	{"truncate_every_byte", test_truncate_every_byte},
	{"stream_truncate_every_byte", test_stream_truncate_every_byte},
	{"truncate_every_byte_raw", test_truncate_every_byte_raw},
	{"truncate_large", test_truncate_large},
	{"truncate_every_byte_zstd", test_truncate_every_byte_zstd},
	{"truncate_large_zstd", test_truncate_large_zstd},
	{"truncate_every_byte_frames", test_truncate_every_byte_frames},
	{"truncate_large_frames", test_truncate_large_frames},
	{"flip_every_byte", test_flip_every_byte},
	{"flip_every_byte_zlib", test_flip_every_byte_zlib},
	{"flip_every_byte_raw", test_flip_every_byte_raw},
	{"flip_every_byte_zstd", test_flip_every_byte_zstd},
	{"flip_every_byte_frames", test_flip_every_byte_frames},
	{"unknown_codec", test_unknown_codec},
	{"flip_named", test_flip_named},
	{"refused_headers", test_refused_headers},
	{"record_damage", test_record_damage},
	{"old_minors", test_old_minors},
	{"writer_refuses", test_writer_refuses},
	{"record_unaligned", test_record_unaligned},
	{"writer_pads", test_writer_pads},
	{"unknown_chunk_type", test_unknown_chunk_type},
	{"mode_0600", test_mode_0600},
	{"opts_compat", test_opts_compat},
	{"empty_and_killed", test_empty_and_killed},
	{"short_writes_eintr", test_short_writes_eintr},
};

int main(void)
{
	return RUN_TESTS("trace_file", cases);
}
