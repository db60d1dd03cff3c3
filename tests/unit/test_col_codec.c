// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The column transform (col_codec.c): every chunk of records decodes to the
 * same bytes, whatever the values (timestamps that go back, deltas past
 * 2^32, ids past 2^22, padding that is not zero, types it does not know),
 * and damaged columns are refused without reading or writing out of bounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "chunk_unpack.h"
#include "col_codec.h"
#include "gtsc/gtsc.h"
#include "gtsc/records.h"
#include "harness.h"
#include "kmem_analysis.h"
#include "kmem_stream.h"
#include "trace_writer.h"

#define BUF_SZ (1 << 20)

struct chunk {
	char *buf;
	size_t len;
};

static void put(struct chunk *c, const void *rec)
{
	__u16 size;

	memcpy(&size, (const char *)rec + offsetof(struct gtsc_rec_hdr, size), 2);
	memcpy(c->buf + c->len, rec, size);
	c->len += size;
}

/* The index the decoder makes as it writes is gt_index_chunk()'s (when it says ok). */
static void check_index(struct test_ctx *t, struct col_coder *k, const void *enc, size_t n,
			const struct chunk *c, const char *what)
{
	size_t max_refs = c->len / sizeof(struct gtsc_rec_hdr) + 1;
	struct trace_rec_ref *mine = calloc(max_refs, sizeof(*mine));
	struct trace_rec_ref *theirs = calloc(max_refs, sizeof(*theirs));
	struct data_chunk dc = { .h = { .raw_len = (__u32)c->len } };
	struct col_index ix = { .refs = mine };
	char *dec = malloc(c->len + 1), why[UNPACK_WHY];
	__u64 max = 0;
	size_t nt;

	CHECK(t, mine && theirs && dec, "%s: out of memory", what);
	if (t->failed)
		goto out;
	CHECK(t, !gt_col_coder__decode(k, enc, n, dec, c->len, &ix), "%s: decode with an index", what);
	nt = gt_index_chunk(&dc, dec, theirs, &max, why);
	CHECK(t, ix.ok == !why[0], "%s: index ok %d, gt_index_chunk says '%s'", what, ix.ok, why);
	if (!ix.ok || t->failed)
		goto out;
	CHECK(t, ix.n == nt && ix.max == max, "%s: %zu refs up to %llu, gt_index_chunk %zu up to %llu",
	      what, ix.n, (unsigned long long)ix.max, nt, (unsigned long long)max);
	for (size_t i = 0; i < nt && !t->failed; i++)
		CHECK(t, mine[i].ts == theirs[i].ts && mine[i].rec == theirs[i].rec,
		      "%s: ref %zu differs", what, i);
out:
	free(mine);
	free(theirs);
	free(dec);
}

/* Room for gt_col_coder__encode_frames() of LEN bytes of records. */
static size_t frames_bound(size_t len)
{
	return ZSTD_compressBound(gt_col_encode_bound(len)) + 64 * 64;
}

/*
 * C's records through a frame per stream (1.3) into *ENC (its length), and
 * back into the one-blob layout at *COLS (*CAP, grown; *CLEN long) through
 * K's projection, with ZD, which like *ENC the decode after needs (the
 * tail).  0, or what failed.
 */
static int frames_of(struct col_coder *k, ZSTD_DCtx *zd, const struct chunk *c, char **enc,
		     size_t *n, void **cols, size_t *cap, size_t *clen)
{
	ZSTD_CCtx *zc = ZSTD_createCCtx();
	int err = -ENOMEM;

	*enc = malloc(frames_bound(c->len));
	if (!zc || !zd || !*enc)
		goto out;
	*n = gt_col_coder__encode_frames(k, c->buf, c->len, *enc, frames_bound(c->len), zc, 1);
	err = *n ? gt_col_coder__unpack(k, zd, *enc, *n, gt_col_encode_bound(c->len), cols, cap,
					clen)
		 : -EINVAL;
out:
	ZSTD_freeCCtx(zc);
	return err;
}

/* C's records through frames (1.3) come back as they went (K: a coder, projecting nothing). */
static void frames_trip(struct test_ctx *t, struct col_coder *k, const struct chunk *c,
			const char *what)
{
	char *enc = NULL, *dec = malloc(c->len + 1), *blob = malloc(gt_col_encode_bound(c->len));
	ZSTD_DCtx *zd = ZSTD_createDCtx();
	void *cols = NULL;
	size_t n = 0, cap = 0, clen = 0, blen;
	int err = frames_of(k, zd, c, &enc, &n, &cols, &cap, &clen);

	CHECK(t, !err && dec && blob, "%s: frames %d", what, err);
	if (t->failed)
		goto out;
	err = gt_col_coder__decode(k, cols, clen, dec, c->len, NULL);
	CHECK(t, !err && !memcmp(dec, c->buf, c->len), "%s: frames decode %d or differ", what, err);
	/* the frames hold 1.2's columns, byte for byte (the tail: after the decode read it) */
	blen = gt_col_coder__encode(k, c->buf, c->len, blob);
	CHECK(t, clen == blen && !memcmp(cols, blob, blen),
	      "%s: %zu bytes of columns from the frames, %zu in one", what, clen, blen);
out:
	ZSTD_freeDCtx(zd);
	free(enc);
	free(cols);
	free(blob);
	free(dec);
}

/* Encodes and decodes C; checks the bytes come back. */
static void round_trip(struct test_ctx *t, const struct chunk *c, const char *what)
{
	struct col_coder *k = gt_col_coder__new();
	char *enc = malloc(gt_col_encode_bound(c->len));
	char *dec = malloc(c->len + 1);
	size_t n;
	int err;

	CHECK(t, k && enc && dec, "%s: out of memory", what);
	if (t->failed)
		goto out;
	n = gt_col_coder__encode(k, c->buf, c->len, enc);
	CHECK(t, n > 0 && n <= gt_col_encode_bound(c->len), "%s: encoded %zu bytes", what, n);
	err = gt_col_coder__decode(k, enc, n, dec, c->len, NULL);
	CHECK(t, !err, "%s: decode %d", what, err);
	for (size_t i = 0; i < c->len && !t->failed; i++)
		CHECK(t, dec[i] == c->buf[i], "%s: byte %zu of %zu differs", what, i, c->len);
	/* the coder keeps no state from one chunk to the next */
	err = gt_col_coder__decode(k, enc, n, dec, c->len, NULL);
	CHECK(t, !err && !memcmp(dec, c->buf, c->len), "%s: a second decode differs", what);
	check_index(t, k, enc, n, c, what);
	frames_trip(t, k, c, what);
out:
	gt_col_coder__free(k);
	free(enc);
	free(dec);
}

static struct gtsc_rec_hdr hdr(__u16 type, __u16 size, __u16 cpu, __u32 pid, __u32 tid, __u64 ts)
{
	return (struct gtsc_rec_hdr){
		.type = type, .size = size, .cpu = cpu, .pid = pid, .tid = tid, .ts_ns = ts
	};
}

static void sys_pair(struct chunk *c, __u16 cpu, __u32 pid, __u32 tid, __u64 ts, __s32 nr,
		     __s64 ret)
{
	struct gtsc_rec_sys_enter e = { .hdr = hdr(GTSC_REC_SYS_ENTER, sizeof(e), cpu, pid, tid, ts),
					.nr = nr };
	struct gtsc_rec_sys_exit x = { .hdr = hdr(GTSC_REC_SYS_EXIT, sizeof(x), cpu, pid, tid, ts + 90),
				       .nr = nr, .ret = ret };

	for (int i = 0; i < 6; i++)
		e.args[i] = 0x7ffd00000000ull + ts * (i + 1);
	put(c, &e);
	put(c, &x);
}

static void test_empty(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(1) };

	round_trip(t, &c, "empty chunk");
	free(c.buf);
}

static void test_one_record(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };
	struct gtsc_rec_sys_exit x = { .hdr = hdr(GTSC_REC_SYS_EXIT, sizeof(x), 1, 42, 42, 123456789),
				       .nr = 39, .ret = 42 };

	put(&c, &x);
	round_trip(t, &c, "one record");
	free(c.buf);
}

/* Records of two CPUs' rings: the second ring's timestamps start before the first's end. */
static void test_time_goes_back(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };

	for (int i = 0; i < 100; i++)
		sys_pair(&c, 0, 100, 100, 5000000000ull + 1000ull * i, 39, 100);
	for (int i = 0; i < 100; i++)
		sys_pair(&c, 1, 200, 201, 4999000000ull + 1000ull * i, 0, -11);
	/* and one far in the past, and 0, and the last nanosecond there is */
	sys_pair(&c, 3, 1, 1, 7, 1, 0);
	sys_pair(&c, 3, 1, 1, 0, 1, 0);
	sys_pair(&c, 3, 1, 1, ~0ull - 90, 1, 0);
	round_trip(t, &c, "time back");
	free(c.buf);
}

/* Deltas that do not fit 32 bits: timestamps hours apart, pointers across the address space. */
static void test_big_deltas(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };
	__u64 ts = 1;

	for (int i = 0; i < 64; i++) {
		struct gtsc_rec_kmem_alloc a = {
			.hdr = hdr(GTSC_REC_KMEM_ALLOC, sizeof(a), i % 3, 7, 7, ts),
			.call_site = i & 1 ? 0xffffffff81234567ull : 0x10,
			.ptr = i & 1 ? 0xffff888100000000ull + i : (__u64)i << 40,
			.cache_id = ~0ull - i,
			.bytes_req = 0xffffffffu - i,
			.bytes_alloc = 1u << (i % 32),
			.node = i & 1 ? -1 : 0x7fffffff,
			.migratetype = (__s8)(i & 1 ? -128 : 127),
			.stack_id = 0xffffffffu,
		};

		put(&c, &a);
		ts += i & 1 ? (1ull << 33) + i : (1ull << 62);
	}
	round_trip(t, &c, "big deltas");
	free(c.buf);
}

/* pid and tid past 2^22 (PID_MAX_LIMIT), 0, the largest u32, tid below pid. */
static void test_big_ids(struct test_ctx *t)
{
	static const __u32 ids[][2] = {
		{ 1u << 22, (1u << 22) + 1 }, { 0xffffffffu, 0 }, { 0, 0xffffffffu },
		{ 4194303, 4194304 }, { 1, 1 }, { 0x80000000u, 0x7fffffffu },
	};
	struct chunk c = { .buf = malloc(BUF_SZ) };

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		for (int cpu = 0; cpu < 3; cpu++)
			sys_pair(&c, (__u16)(cpu ? 0xffff - cpu : 0), ids[i][0], ids[i][1],
				 1000 * i + cpu, -1, -4095);
	round_trip(t, &c, "big ids");
	free(c.buf);
}

/*
 * Every type at its smallest size, its usual size and longer (payloads,
 * fields from a newer recorder), with random bytes in every field and in
 * the padding, and types this build does not know.
 */
static void fill_every_type(struct chunk *c)
{
	static const __u16 usual[GTSC_REC_TYPE_MAX] = {
		[GTSC_REC_SYS_ENTER] = sizeof(struct gtsc_rec_sys_enter),
		[GTSC_REC_SYS_EXIT] = sizeof(struct gtsc_rec_sys_exit),
		[GTSC_REC_KMEM_ALLOC] = sizeof(struct gtsc_rec_kmem_alloc),
		[GTSC_REC_KMEM_FREE] = sizeof(struct gtsc_rec_kmem_free),
		[GTSC_REC_KMEM_CACHE] = sizeof(struct gtsc_rec_kmem_cache),
		[GTSC_REC_TASK] = sizeof(struct gtsc_rec_task),
		[GTSC_REC_DROPS] = sizeof(struct gtsc_rec_drops),
		[GTSC_REC_FUNC] = sizeof(struct gtsc_rec_func),
		[GTSC_REC_PRINTF] = sizeof(struct gtsc_rec_printf),
	};
	static const __u16 min[GTSC_REC_TYPE_MAX] = GTSC_REC_MIN_SIZES;
	unsigned int seed = 1;
	char rec[0x10000];

	for (unsigned int type = 0; type < 300; type += type < GTSC_REC_TYPE_MAX + 2 ? 1 : 97) {
		__u16 sizes[] = { 24, type < GTSC_REC_TYPE_MAX ? min[type] : 32,
				  type < GTSC_REC_TYPE_MAX ? usual[type] : 40, 0, 0 };

		sizes[3] = (sizes[2] > 24 ? sizes[2] : 24) + 8 * (type % 5) + 3;
		sizes[4] = sizes[2] + 4; /* ends inside a field a newer recorder appended */
		for (int s = 0; s < 5; s++) {
			struct gtsc_rec_hdr h;

			if (sizes[s] < 24 || c->len + sizes[s] > BUF_SZ)
				continue;
			for (size_t i = 0; i < sizes[s]; i++)
				rec[i] = (char)rand_r(&seed);
			memcpy(&h, rec, sizeof(h));
			h.type = (__u16)type;
			h.size = sizes[s];
			memcpy(rec, &h, sizeof(h));
			put(c, rec);
		}
	}
	/* the largest record there is */
	memset(rec, 0xa5, sizeof(rec));
	{
		struct gtsc_rec_hdr h = hdr(GTSC_REC_SYS_ENTER, 0xffff, 1, 2, 3, 4);

		memcpy(rec, &h, sizeof(h));
		put(c, rec);
	}
}

static void test_every_type_and_size(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };

	fill_every_type(&c);
	round_trip(t, &c, "every type and size");
	free(c.buf);
}

/*
 * Whole records of the types with padding between fields (sys_enter,
 * sys_exit, kmem_alloc), every byte random: a block of records that all
 * hold their gap takes gap_fast(), one of cut ones gap_loop()'s checks.
 */
static void test_padding(struct test_ctx *t)
{
	static const struct {
		__u16 type, size;
	} kinds[] = {
		{ GTSC_REC_SYS_ENTER, sizeof(struct gtsc_rec_sys_enter) },
		{ GTSC_REC_SYS_EXIT, sizeof(struct gtsc_rec_sys_exit) },
		{ GTSC_REC_KMEM_ALLOC, sizeof(struct gtsc_rec_kmem_alloc) },
	};
	struct chunk c = { .buf = malloc(BUF_SZ) };
	unsigned int seed = 7;
	char rec[256];

	for (unsigned int i = 0; i < 3000; i++) {
		unsigned int k = i < 1000 ? i % 3 : (i / 300) % 3;
		struct gtsc_rec_hdr h;

		for (size_t b = 0; b < kinds[k].size; b++)
			rec[b] = (char)rand_r(&seed);
		memcpy(&h, rec, sizeof(h));
		h.type = kinds[k].type;
		h.size = kinds[k].size;
		memcpy(rec, &h, sizeof(h));
		put(&c, rec);
	}
	round_trip(t, &c, "padding");
	free(c.buf);
}

/* An exit whose thread's enter is in another chunk, or was another thread's. */
static void test_unpaired_exits(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };

	for (__u32 tid = 1; tid < 5000; tid += 7) {
		struct gtsc_rec_sys_exit x = { .hdr = hdr(GTSC_REC_SYS_EXIT, sizeof(x), 0, 1, tid, tid),
					       .nr = (__s32)(tid * 2654435761u), .ret = tid };

		put(&c, &x);
		/* tids 1024 apart share a slot of the coder's cache */
		sys_pair(&c, 0, 1, tid + 1024, tid, (__s32)tid, 0);
	}
	round_trip(t, &c, "unpaired exits");
	free(c.buf);
}

/* C encoded by K into *ENC, room to decode it at *DEC: the encoded length, 0 if out of memory. */
static size_t encode(struct col_coder *k, const struct chunk *c, char **enc, char **dec)
{
	*enc = malloc(gt_col_encode_bound(c->len));
	*dec = malloc(c->len + 1);
	return k && *enc && *dec ? gt_col_coder__encode(k, c->buf, c->len, *enc) : 0;
}

/*
 * ENC (N bytes of LEN bytes of records) cut at every byte: refused; each
 * byte flipped: refused or decoded, never read or written out of bounds.
 */
static void cut_and_flip(struct test_ctx *t, struct col_coder *k, char *enc, size_t n, char *dec,
			 size_t len)
{
	size_t refused = 0;

	for (size_t cut = 0; cut < n && !t->failed; cut++) {
		/* exactly the bytes asked for, so a sanitizer sees an overrun */
		char *bad = malloc(cut ? cut : 1);

		memcpy(bad, enc, cut);
		CHECK(t, gt_col_coder__decode(k, bad, cut, dec, len, NULL) < 0, "cut at %zu decoded", cut);
		free(bad);
	}
	for (size_t pos = 0; pos < n && !t->failed; pos++) {
		int err;

		enc[pos] ^= 0x41;
		err = gt_col_coder__decode(k, enc, n, dec, len, NULL);
		enc[pos] ^= 0x41;
		CHECK(t, err == 0 || err == -EBADMSG || err == -ENOTSUP, "flip at %zu: %d", pos, err);
		refused += err != 0;
	}
	/* a flipped value byte can still decode (to other values): the chunk CRC is the check */
	CHECK(t, refused > 0, "none of %zu flips refused", n);
}

/* Damaged columns: refused with -EBADMSG or -ENOTSUP, never read or written out of bounds. */
static void test_damage(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };
	struct col_coder *k = gt_col_coder__new();
	char *enc = NULL, *dec = NULL;
	size_t n = 0;

	for (int i = 0; i < 20; i++)
		sys_pair(&c, i & 1, 10, 11, 1000 * i, i, i);
	n = encode(k, &c, &enc, &dec);
	CHECK(t, n, "encode");
	cut_and_flip(t, k, enc, n, dec, c.len);
	enc[0] = 2;
	CHECK(t, gt_col_coder__decode(k, enc, n, dec, c.len, NULL) == -ENOTSUP, "version 2 not refused");
	gt_col_coder__free(k);
	free(enc);
	free(dec);
	free(c.buf);
}

/*
 * Records the reader's index refuses (a size not a multiple of 8, shorter
 * than the type's minimum) still decode; the decoder's index then says so
 * and the reader indexes with gt_index_chunk(), which says where (check_index()).
 */
static void test_unindexable(struct test_ctx *t)
{
	static const __u16 sizes[] = { 28, sizeof(struct gtsc_rec_hdr) + 8 };
	static const __u16 types[] = { GTSC_REC_TYPE_MAX + 3, GTSC_REC_KMEM_ALLOC };

	for (unsigned int i = 0; i < 2; i++) {
		struct chunk c = { .buf = calloc(1, BUF_SZ) };
		struct gtsc_rec_hdr h = hdr(types[i], sizes[i], 1, 2, 3, 4);

		sys_pair(&c, 0, 1, 1, 100, 39, 1);
		memcpy(c.buf + c.len, &h, sizeof(h));
		c.len += sizes[i];
		sys_pair(&c, 0, 1, 1, 200, 39, 1);
		round_trip(t, &c, i ? "short kmem_alloc" : "size 28");
		free(c.buf);
	}
}

/*
 * N kmem_alloc records (a header and ten fields each, values from 1 to 9
 * varint bytes) and a kmem_free after every seventh: big enough that the
 * decoder's blocks go from reading without a bound per value (every header
 * stream holding BLOCK values of 10 bytes more, every field stream its
 * block's) to checking each one, at a different record for each N.
 */
static void fill_room(struct chunk *c, unsigned int n)
{
	unsigned int seed = n;

	for (unsigned int i = 0; i < n; i++) {
		unsigned int r = (unsigned int)rand_r(&seed);
		/* a value of 1 to 9 varint bytes, a new length each time */
		__u64 big = (__u64)r << (r % 36);
		struct gtsc_rec_kmem_alloc a = {
			.hdr = hdr(GTSC_REC_KMEM_ALLOC, sizeof(a), r % 3, 100 + r % 2, 100 + r % 5,
				   1000000 + (__u64)i * 977 + (r % 7 ? 0 : big)),
			.call_site = 0xffffffff81000000ull + r % 64,
			.ptr = 0xffff888000000000ull + big,
			.cache_id = r % 4 ? 0 : big,
			.bytes_req = r % 4096,
			.bytes_alloc = r,
			.gfp_flags = 0xcc0 | (r & 0x100000),
			.kind = (__u8)(r % 3),
			.order = (__u8)(r % 11),
			.migratetype = -1,
			.stack_id = r % 2 ? r : 0,
		};

		put(c, &a);
		if (i % 7 == 0) {
			struct gtsc_rec_kmem_free fr = {
				.hdr = hdr(GTSC_REC_KMEM_FREE, sizeof(fr), r % 3, 100, 100,
					   a.hdr.ts_ns + 1),
				.call_site = a.call_site + 3,
				.ptr = a.ptr,
			};

			put(c, &fr);
		}
	}
}

/*
 * Chunks whose streams pass the line between the two ways of reading
 * (above) at every offset of a block come back whole; damaged, a copy of
 * exactly their bytes (a sanitizer sees a read past them) is refused or
 * decoded, never read out of bounds: bytes flipped at a stride and every
 * byte of the last stream's end, where nothing but the bound stops a read.
 */
static void test_room_edges(struct test_ctx *t)
{
	static const unsigned int counts[] = { 2240, 2560, 2561, 2700, 2815, 2816, 2817, 3100 };

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]) && !t->failed; i++) {
		struct chunk c = { .buf = malloc(BUF_SZ) };
		char what[32];

		fill_room(&c, counts[i]);
		snprintf(what, sizeof(what), "%u records", counts[i]);
		round_trip(t, &c, what);
		free(c.buf);
	}
	if (!t->failed) {
		struct chunk c = { .buf = malloc(BUF_SZ) };
		struct col_coder *k = gt_col_coder__new();
		char *enc = NULL, *dec = NULL, *copy;
		size_t n;

		fill_room(&c, 2817);
		n = encode(k, &c, &enc, &dec);
		copy = malloc(n);
		CHECK(t, n && copy, "encode");
		for (size_t pos = 0; pos < n && !t->failed; pos++) {
			/* the last bytes each way, the others one in 61 */
			if (pos < n - 64 && pos % 61)
				continue;
			for (int x = 0; x < 2 && !t->failed; x++) {
				int err;

				memcpy(copy, enc, n);
				copy[pos] ^= x ? 0x80 : 0x41;
				err = gt_col_coder__decode(k, copy, n, dec, c.len, NULL);
				CHECK(t, err == 0 || err == -EBADMSG || err == -ENOTSUP,
				      "flip %d at %zu of %zu: %d", x, pos, n, err);
			}
		}
		gt_col_coder__free(k);
		free(copy);
		free(enc);
		free(dec);
		free(c.buf);
	}
}

/* ---- projection (gt_col_coder__project()) ---- */

static bool wanted(const struct col_want *w, unsigned int type, unsigned int b)
{
	if (type >= GTSC_REC_TYPE_MAX)
		return false;
	if (b >= COL_WANT_BYTES)
		return w->tail[type];
	return w->bytes[type][b / 64] >> (b % 64) & 1;
}

/*
 * Records of every kind: every type and size, syscall pairs whose exits
 * code against their enters, kmem bursts whose addresses are keyed by call
 * site, random bytes everywhere else.
 */
static void fill_mixed(struct chunk *c)
{
	unsigned int seed = 3;

	fill_every_type(c);
	for (int i = 0; i < 2000; i++) {
		struct gtsc_rec_kmem_alloc a = { .hdr = hdr(GTSC_REC_KMEM_ALLOC, sizeof(a), i & 1, 7,
							     8 + i % 3, 5000 + 10 * i) };
		unsigned char *p = (unsigned char *)&a + sizeof(a.hdr);

		for (size_t b = 0; b < sizeof(a) - sizeof(a.hdr); b++)
			p[b] = (unsigned char)rand_r(&seed);
		a.call_site = 0xffffffff81000000ull + 64 * (i % 5);
		put(c, &a);
		sys_pair(c, i & 1, 10, 11 + i % 7, 100000 + 300 * i, i % 40, -(i % 3));
	}
}

/*
 * Decodes ENC (C's records) with W: every byte W wants is the record's,
 * and the index is the whole decode's.
 */
static void check_projected(struct test_ctx *t, struct col_coder *k, const void *enc, size_t n,
			    const struct chunk *c, const struct col_want *w, const char *what)
{
	char *dec = malloc(c->len + 1);
	size_t off = 0;
	int err;

	gt_col_coder__project(k, w);
	/* not what a decode before left there: bytes it skips show as 0x5a */
	if (dec)
		memset(dec, 0x5a, c->len);
	err = dec ? gt_col_coder__decode(k, enc, n, dec, c->len, NULL) : -ENOMEM;
	CHECK(t, !err, "%s: decode %d", what, err);
	while (!t->failed && off < c->len) {
		struct gtsc_rec_hdr h;

		memcpy(&h, c->buf + off, sizeof(h));
		for (unsigned int b = 0; b < h.size && !t->failed; b++) {
			/* type, size and ts_ns are always there */
			bool kept = b < offsetof(struct gtsc_rec_hdr, cpu) ||
				    (b >= offsetof(struct gtsc_rec_hdr, ts_ns) && b < sizeof(h));

			if (kept || wanted(w, h.type, b))
				CHECK(t, dec[off + b] == c->buf[off + b],
				      "%s: byte %u of a record of type %u (size %u) at %zu differs",
				      what, b, h.type, h.size, off);
		}
		off += h.size;
	}
	check_index(t, k, enc, n, c, what);
	free(dec);
}

static void test_project(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };
	struct col_coder *k = gt_col_coder__new();
	struct kmem_analysis *a = gt_kmem_analysis__new(NULL);
	struct col_want w[8] = {};
	char *enc = NULL, *dec = NULL;
	size_t n = 0;

	fill_mixed(&c);
	n = encode(k, &c, &enc, &dec);
	CHECK(t, n, "encode");
	/* what the kmem analysis reads */
	gt_kmem_analysis__want(NULL, &w[0]);
	/* a syscall summary: the header, nr and ret */
	for (unsigned int type = 0; type < GTSC_REC_TYPE_MAX; type++)
		gt_col_want__add(&w[1], type, 0, sizeof(struct gtsc_rec_hdr));
	COL_WANT(&w[1], GTSC_REC_SYS_ENTER, gtsc_rec_sys_enter, nr);
	COL_WANT(&w[1], GTSC_REC_SYS_EXIT, gtsc_rec_sys_exit, nr);
	COL_WANT(&w[1], GTSC_REC_SYS_EXIT, gtsc_rec_sys_exit, ret);
	/* an exit's nr alone: its enter's nr is decoded for it, and the tid */
	COL_WANT(&w[2], GTSC_REC_SYS_EXIT, gtsc_rec_sys_exit, nr);
	/* a keyed field alone (its key comes along), and payloads */
	COL_WANT(&w[3], GTSC_REC_SYS_ENTER, gtsc_rec_sys_enter, args[4]);
	COL_WANT(&w[3], GTSC_REC_KMEM_FREE, gtsc_rec_kmem_free, cache_id);
	w[3].tail[GTSC_REC_SYS_ENTER] = w[3].tail[GTSC_REC_SYS_EXIT] = true;
	gt_col_want__add(&w[3], GTSC_REC_TASK, 0, 0xffff);
	/* w[4]: nothing but type, size and ts_ns; w[5]: odd bytes of every field */
	for (unsigned int type = 0; type < GTSC_REC_TYPE_MAX; type++)
		for (unsigned int b = 1; b < COL_WANT_BYTES + 8; b += 7)
			gt_col_want__add(&w[5], type, b, 1);
	/* w[6]: an analysis with no pid filter, which skips the pid stream */
	CHECK(t, a, "analysis");
	if (a)
		gt_kmem_analysis__want(a, &w[6]);
	/* w[7]: a tid without its pid (a tid is coded from its pid), of every type */
	for (unsigned int type = 0; type < GTSC_REC_TYPE_MAX; type++)
		COL_WANT(&w[7], type, gtsc_rec_hdr, tid);
	for (unsigned int i = 0; i < 8 && !t->failed; i++) {
		char what[32];

		snprintf(what, sizeof(what), "want %u", i);
		check_projected(t, k, enc, n, &c, &w[i], what);
	}
	/* and back to whole records */
	gt_col_coder__project(k, NULL);
	CHECK(t, !t->failed && !gt_col_coder__decode(k, enc, n, dec, c.len, NULL) &&
			 !memcmp(dec, c.buf, c.len),
	      "whole records after a projection differ");
	gt_kmem_analysis__free(a);
	gt_col_coder__free(k);
	free(enc);
	free(dec);
	free(c.buf);
}

/* N kmem_free records, each followed by a syscall (numbers modulo NRS). */
static void frees_and_calls(struct chunk *c, int n, int nrs)
{
	for (int i = 0; i < n; i++) {
		struct gtsc_rec_kmem_free f = { .hdr = hdr(GTSC_REC_KMEM_FREE, sizeof(f), 0, 1, 2,
							   40 * i),
						.call_site = 0xffffffff81000040ull,
						.ptr = 0xffff888100000000ull + 64 * i, .cache_id = i };

		put(c, &f);
		sys_pair(c, i & 1, 10, 11, 1000 * i, i % nrs, i);
	}
}

/* Damaged or cut columns through a projected decode: refused, never out of bounds. */
static void test_project_damage(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };
	struct col_coder *k = gt_col_coder__new();
	struct kmem_analysis *a = gt_kmem_analysis__new(NULL);
	struct col_want w[2] = {};
	char *enc = NULL, *dec = NULL;
	size_t n = 0;

	frees_and_calls(&c, 20, 20);
	n = encode(k, &c, &enc, &dec);
	CHECK(t, n, "encode");
	/* what any kmem analysis reads, and one without a pid filter (no pid stream) */
	gt_kmem_analysis__want(NULL, &w[0]);
	CHECK(t, a, "analysis");
	if (a)
		gt_kmem_analysis__want(a, &w[1]);
	for (unsigned int i = 0; i < 2 && !t->failed; i++) {
		gt_col_coder__project(k, &w[i]);
		cut_and_flip(t, k, enc, n, dec, c.len);
		/* records longer than the chunk's streams say: refused, whatever is skipped */
		CHECK(t, gt_col_coder__decode(k, enc, n, dec, c.len - 8, NULL) == -EBADMSG &&
				 gt_col_coder__decode(k, enc, n, dec, c.len + 0, NULL) == 0,
		      "a wrong length not refused (want %u)", i);
	}
	gt_kmem_analysis__free(a);
	gt_col_coder__free(k);
	free(enc);
	free(dec);
	free(c.buf);
}

/*
 * Frames (1.3) cut at every byte or with a byte flipped: refused or
 * decoded, never read or written out of bounds, whole or projected; a
 * projected unpack decompresses only what the projection reads, and the
 * fields it reads are the records' (check_projected()).
 */
static void test_frames(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };
	struct col_coder *k = gt_col_coder__new();
	ZSTD_DCtx *zd = ZSTD_createDCtx();
	struct col_want w = {};
	char *enc = NULL, *dec = malloc(BUF_SZ);
	void *cols = NULL;
	size_t n = 0, cap = 0, clen = 0, refused = 0;

	frees_and_calls(&c, 300, 7);
	CHECK(t, k && zd && dec && !frames_of(k, zd, &c, &enc, &n, &cols, &cap, &clen), "frames");
	for (size_t cut = 0; cut < n && !t->failed; cut++) {
		char *bad = malloc(cut ? cut : 1);
		int err;

		memcpy(bad, enc, cut);
		err = gt_col_coder__unpack(k, zd, bad, cut, gt_col_encode_bound(c.len), &cols, &cap,
					   &clen);
		err = err ?: gt_col_coder__decode(k, cols, clen, dec, c.len, NULL);
		CHECK(t, err == -EBADMSG || err == -ENOTSUP, "cut at %zu: %d", cut, err);
		free(bad);
	}
	for (size_t pos = 0; pos < n && !t->failed; pos++) {
		int err;

		enc[pos] ^= 0x41;
		err = gt_col_coder__unpack(k, zd, enc, n, gt_col_encode_bound(c.len), &cols, &cap,
					   &clen);
		err = err ?: gt_col_coder__decode(k, cols, clen, dec, c.len, NULL);
		enc[pos] ^= 0x41;
		CHECK(t, err == 0 || err == -EBADMSG || err == -ENOTSUP, "flip at %zu: %d", pos, err);
		refused += err != 0;
	}
	CHECK(t, refused > 0, "none of %zu flips refused", n);
	/* too many bytes of streams for the chunk: refused before any is decompressed */
	CHECK(t, gt_col_coder__unpack(k, zd, enc, n, 16, &cols, &cap, &clen) == -EBADMSG,
	      "streams over the bound not refused");
	/* projected: what --kmem reads; the skipped streams are left as they were */
	gt_kmem_analysis__want(NULL, &w);
	gt_col_coder__project(k, &w);
	CHECK(t, !t->failed && !gt_col_coder__unpack(k, zd, enc, n, gt_col_encode_bound(c.len),
						     &cols, &cap, &clen),
	      "projected unpack");
	if (!t->failed) {
		size_t kept = 0;

		memset((char *)cols + clen / 2, 0x5a, clen - clen / 2);
		gt_col_coder__unpack(k, zd, enc, n, gt_col_encode_bound(c.len), &cols, &cap, &clen);
		for (size_t i = clen / 2; i < clen; i++)
			kept += ((char *)cols)[i] == 0x5a;
		/* the syscall records' arguments, which the kmem analysis does not read */
		CHECK(t, kept >= 300 * 6, "only %zu bytes of skipped streams left alone", kept);
		check_projected(t, k, cols, clen, &c, &w, "frames, kmem's fields");
	}
	gt_col_coder__free(k);
	ZSTD_freeDCtx(zd);
	free(enc);
	free(cols);
	free(dec);
	free(c.buf);
}

/* A 1.2 file of C's records (whole records, as a recorder writes them), in rounds. */
static int write_file(const char *path, const struct chunk *c)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .zlib_level = 1, .chunk_size = 1 << 16,
				       .data_codec = GTSC_WRITER_ZSTD };
	struct gtsc_writer *w = gt_writer__create(path, &wo);
	size_t off = 0, n = 0;
	int err = 0;

	if (!w)
		return -errno;
	while (!err && off < c->len) {
		const struct gtsc_rec_hdr *h = (const void *)(c->buf + off);

		err = gt_writer__add_record(w, h);
		off += h->size;
		if (!err && ++n % 1000 == 0)
			err = gt_writer__end_round(w);
	}
	err = err ?: gt_writer__end_round(w);
	return gt_writer__close(w) ?: err;
}

/* Records of C that a 1.2 file holds: whole records, sizes and times a reader keeps. */
static void fill_file_records(struct chunk *c)
{
	for (int i = 0; i < 3000; i++) {
		struct gtsc_rec_kmem_alloc a = {
			.hdr = hdr(GTSC_REC_KMEM_ALLOC, sizeof(a), 0, 7, 8, 5000 + 100 * i),
			.call_site = 0xffffffff81000000ull + 64 * (i % 5),
			.ptr = 0xffff888100000000ull + 4096 * (__u64)(i * 7 % 13), .node = i % 2,
		};
		struct gtsc_rec_task k = { .hdr = hdr(GTSC_REC_TASK, sizeof(k), 1, 9, 9,
						      5001 + 100 * i),
					   .event = GTSC_TASK_COMM };

		snprintf(k.comm, sizeof(k.comm), "task%d", i);
		put(c, &a);
		sys_pair(c, 0, 10, 11 + i % 7, 5002 + 100 * i, i % 40, -(i % 3));
		if (i % 100 == 0)
			put(c, &k);
	}
}

/*
 * gtsc_reader_opts.reads: a reader told what its caller reads gives those
 * bytes as a whole read does; a file cut short reads up to the cut and says
 * so, through the projected decode too.
 */
static void test_reader_reads(struct test_ctx *t)
{
	static const struct gtsc_rec_part parts[] = {
		{ .type = GTSC_REC_SYS_EXIT, .off = offsetof(struct gtsc_rec_sys_exit, ret), .size = 8 },
		{ .type = GTSC_REC_KMEM_ALLOC, .off = offsetof(struct gtsc_rec_kmem_alloc, ptr),
		  .size = 8 },
		{ .type = GTSC_REC_TASK, .size = 0xffff },
	};
	struct gtsc_reader_opts ro = { .sz = sizeof(ro), .reads = parts, .nr_reads = 3 };
	struct chunk c = { .buf = malloc(BUF_SZ) };
	char path[] = "/tmp/gtsc-cols-XXXXXX";
	struct gtsc_reader *whole = NULL, *part = NULL;
	const struct gtsc_rec_hdr *a, *b;
	size_t n = 0, size = 0;
	int fd = mkstemp(path), ra, rb;
	FILE *f;

	fill_file_records(&c);
	CHECK(t, fd >= 0 && !write_file(path, &c), "write %s", path);
	if (!t->failed) {
		whole = gtsc_reader__open(path, NULL);
		part = gtsc_reader__open(path, &ro);
	}
	CHECK(t, whole && part, "open %s", path);
	while (!t->failed && (ra = gtsc_reader__next(whole, &a)) > 0 &&
	       (rb = gtsc_reader__next(part, &b)) > 0) {
		CHECK(t, a->type == b->type && a->size == b->size && a->ts_ns == b->ts_ns,
		      "record %zu: header differs", n);
		if (a->type == GTSC_REC_SYS_EXIT)
			CHECK(t, ((const struct gtsc_rec_sys_exit *)a)->ret ==
					 ((const struct gtsc_rec_sys_exit *)b)->ret,
			      "record %zu: ret differs", n);
		if (a->type == GTSC_REC_KMEM_ALLOC)
			CHECK(t, ((const struct gtsc_rec_kmem_alloc *)a)->ptr ==
					 ((const struct gtsc_rec_kmem_alloc *)b)->ptr,
			      "record %zu: ptr differs", n);
		if (a->type == GTSC_REC_TASK)
			CHECK(t, !memcmp(a, b, a->size), "record %zu: task differs", n);
		n++;
	}
	CHECK(t, n == 3000 * 3 + 30, "%zu records read", n);
	gtsc_reader__close(whole);
	gtsc_reader__close(part);
	/* cut inside the records: read up to the cut, then said */
	f = fopen(path, "rb");
	if (f) {
		fseek(f, 0, SEEK_END);
		size = (size_t)ftell(f);
		fclose(f);
	}
	CHECK(t, size && !truncate(path, (off_t)(size * 2 / 3)), "cut %s", path);
	part = t->failed ? NULL : gtsc_reader__open(path, &ro);
	CHECK(t, t->failed || part, "open the cut file");
	for (n = 0; part && gtsc_reader__next(part, &b) > 0; n++)
		;
	CHECK(t, t->failed || (gtsc_reader__truncated(part) && n > 0 && n < 3000 * 3 + 30),
	      "cut file: %zu records, truncated %d", n, part && gtsc_reader__truncated(part));
	gtsc_reader__close(part);
	if (fd >= 0)
		close(fd), unlink(path);
	free(c.buf);
}

/* The kmem analysis of PATH for PID (0: all): through its projected reader, or whole records. */
static int kmem_of(const char *path, __u32 pid, bool projected, struct kmem_results *res)
{
	struct kmem_analysis_opts ao = { .sz = sizeof(ao), .pids = &pid, .nr_pids = pid != 0 };
	struct gtsc_reader *r = gtsc_reader__open(path, NULL);
	struct kmem_analysis *a = gt_kmem_analysis__new(&ao);
	const struct gtsc_rec_hdr *h;
	int err = r && a ? 0 : -ENOMEM;

	if (!err && projected)
		err = gt_kmem_stream__run(r, a);
	while (!err && !projected && (err = gtsc_reader__next(r, &h)) > 0)
		err = gt_kmem_analysis__add(a, h);
	err = err ?: projected ? 0 : gt_kmem_analysis__finish(a, 0);
	if (!err)
		*res = *gt_kmem_analysis__results(a);
	gt_kmem_analysis__free(a);
	gtsc_reader__close(r);
	return err;
}

/*
 * The kmem analysis decodes the pid only when it filters on pids: with a
 * filter, the projected reader counts what whole records count.
 */
static void test_kmem_pids(struct test_ctx *t)
{
	struct chunk c = { .buf = malloc(BUF_SZ) };
	char path[] = "/tmp/gtsc-cols-XXXXXX";
	struct kmem_results whole[3], part[3];
	static const __u32 pids[] = { 0, 7, 8 };
	int fd = mkstemp(path);

	for (int i = 0; i < 3000; i++) {
		__u32 pid = i % 3 ? 7 : 8;
		struct gtsc_rec_kmem_alloc a = {
			.hdr = hdr(GTSC_REC_KMEM_ALLOC, sizeof(a), i & 1, pid, pid + i % 2, 5000 + 100 * i),
			.call_site = 0xffffffff81000000ull + 64 * (i % 5),
			.ptr = 0xffff888100000000ull + 64 * (__u64)i, .bytes_alloc = 64,
		};

		put(&c, &a);
	}
	CHECK(t, fd >= 0 && !write_file(path, &c), "write %s", path);
	for (unsigned int i = 0; i < 3 && !t->failed; i++) {
		CHECK(t, !kmem_of(path, pids[i], false, &whole[i]) &&
				 !kmem_of(path, pids[i], true, &part[i]),
		      "analyse pid %u", pids[i]);
		CHECK(t, t->failed || (whole[i].events == part[i].events &&
				       whole[i].kind[0].allocs == part[i].kind[0].allocs &&
				       whole[i].kind[0].bytes_alloc == part[i].kind[0].bytes_alloc),
		      "pid %u: %llu events of whole records, %llu projected", pids[i],
		      (unsigned long long)whole[i].events, (unsigned long long)part[i].events);
	}
	CHECK(t, t->failed || (whole[0].events == 3000 && whole[1].events == 2000 &&
			       whole[2].events == 1000),
	      "events %llu %llu %llu", (unsigned long long)whole[0].events,
	      (unsigned long long)whole[1].events, (unsigned long long)whole[2].events);
	if (fd >= 0)
		close(fd), unlink(path);
	free(c.buf);
}

static const struct test_case cases[] = {
	{ "empty", test_empty },
	{ "one_record", test_one_record },
	{ "time_goes_back", test_time_goes_back },
	{ "big_deltas", test_big_deltas },
	{ "big_ids", test_big_ids },
	{ "every_type_and_size", test_every_type_and_size },
	{ "unpaired_exits", test_unpaired_exits },
	{ "padding", test_padding },
	{ "unindexable", test_unindexable },
	{ "damage", test_damage },
	{ "room_edges", test_room_edges },
	{ "project", test_project },
	{ "project_damage", test_project_damage },
	{ "frames", test_frames },
	{ "reader_reads", test_reader_reads },
	{ "kmem_pids", test_kmem_pids },
};

/*
 * "test_col_codec recode IN OUT CODEC [N]": IN's metadata and records
 * written again with CODEC (zstd, zstd-frames: every chunk 1.3's, zstd-1.2,
 * zstd-rows, lz4, zlib, none), records in
 * file order as one round, so that files of every codec hold the same
 * records in the same order (tests/live/test_compact.sh compares their
 * reports); with N, a round every N records (reading speed on the same
 * records: the order may then differ from the original's).
 */
static int recode(const char *in, const char *out, const char *codec, long per_round)
{
	static const enum gtsc_chunk_type head[] = {
		GTSC_CHUNK_META, GTSC_CHUNK_FEATURES, GTSC_CHUNK_CHANNELS, GTSC_CHUNK_SYSCALLS,
		GTSC_CHUNK_EVENT_FORMATS, GTSC_CHUNK_FUNCS, GTSC_CHUNK_PRINTF, GTSC_CHUNK_TRACEPOINTS,
	};
	static const enum gtsc_chunk_type tail[] = {
		GTSC_CHUNK_STACKS, GTSC_CHUNK_KSYMS, GTSC_CHUNK_TRAILER,
	};
	struct gtsc_reader_opts ro = { .sz = sizeof(ro), .unordered = true };
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .zlib_level = 1 };
	const struct gtsc_rec_hdr *rec;
	struct gtsc_writer *w = NULL;
	struct gtsc_reader *r;
	int err = 0, ret;

	if (!strcmp(codec, "zstd"))
		wo.data_codec = GTSC_WRITER_ZSTD;
	else if (!strcmp(codec, "zstd-rows"))
		wo.data_codec = GTSC_WRITER_ZSTD_ROWS;
	else if (!strcmp(codec, "zstd-1.2"))
		wo.data_codec = GTSC_WRITER_ZSTD_FRAME;
	else if (!strcmp(codec, "zstd-frames"))
		wo.data_codec = GTSC_WRITER_ZSTD, wo.frames_min = 1;
	else if (!strcmp(codec, "zlib"))
		wo.data_codec = GTSC_WRITER_ZLIB;
	else if (!strcmp(codec, "none"))
		wo.zlib_level = 0;
	else if (strcmp(codec, "lz4"))
		return fprintf(stderr, "recode: no codec '%s'\n", codec), 2;
	r = gtsc_reader__open(in, &ro);
	if (r)
		w = gt_writer__create(out, &wo);
	if (!r || !w) {
		fprintf(stderr, "recode: %s: %s\n", r ? out : in, strerror(errno));
		gtsc_reader__close(r);
		return 1;
	}
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]) && !err; i++) {
		size_t len;
		const char *text = gtsc_reader__chunk_text(r, head[i], &len);

		if (text)
			err = gt_writer__add_chunk(w, head[i], text, len);
	}
	for (long n = 1; !err && (ret = gtsc_reader__next(r, &rec)) > 0; n++) {
		err = gt_writer__add_record(w, rec);
		if (!err && per_round && n % per_round == 0)
			err = gt_writer__end_round(w);
	}
	err = err ?: ret;
	err = err ?: gt_writer__end_round(w);
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]) && !err; i++) {
		size_t len;
		const char *text = gtsc_reader__chunk_text(r, tail[i], &len);

		if (text)
			err = gt_writer__add_chunk(w, tail[i], text, len);
	}
	err = gt_writer__close(w) ?: err;
	if (err || gtsc_reader__truncated(r))
		fprintf(stderr, "recode: %s\n", err ? strerror(-err) : gtsc_reader__damage(r));
	ret = err || gtsc_reader__truncated(r);
	gtsc_reader__close(r);
	return ret;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "recode"))
		return recode(argv[2], argv[3], argv[4], argc == 6 ? atol(argv[5]) : 0);
	return RUN_TESTS("col_codec", cases);
}
