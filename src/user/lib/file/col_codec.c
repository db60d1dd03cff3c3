// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Column transform of DATA chunks (col_codec.h).  An encoded chunk:
 *
 *   u8 COL_VERSION, u8 timestamp way (ts_mode()), varint records,
 *   varint streams, varint len[streams], then the streams back to back:
 *   1.2's chunk is this in one zstd frame.  1.3's (GTSC_CHUNK_STREAMS) is
 *   the same table, then varint zlen[streams], then each stream's zstd
 *   frame of zlen bytes (none where zlen is 0: the stream is len zero
 *   bytes), uncompressed table and all ("one zstd frame a stream" below).
 *
 * Streams, in order: the header's type, size (as the difference from the
 * type's usual size), cpu and pid (from the previous record's), flags, tid
 * (from pid), the timestamp's delta from the previous record (zigzag, its
 * low byte in a stream of its own; or that delta's difference from the
 * last one between the same two record types, ts_mode()); the tail (bytes after the last
 * described field: payloads, types without a table, fields newer than this
 * build); then for each record type with a table (col_fields.c) its gap
 * stream (bytes between described fields: padding) and one stream per
 * field.  Varints are LEB128, signed values zigzagged.  Each chunk decodes
 * on its own: all "previous" values start at 0 and the caches empty.
 *
 * What the levers bought, whole files in bytes per event, on bench/size.sh's
 * uncompressed traces (getppid storm / tar czf / make -j2 / pipesock),
 * recoded offline, one chunk per drain round unless said:
 *   zstd -1 of the records as they are:         2.57 / 9.75 / 7.58 / 5.12
 *   columns, then zstd -1:                      0.99 / 8.74 / 5.88 / 2.93
 *   + the timestamp's low byte apart:           1.00 / 8.60 / 5.76 / 2.79
 *   + chunks of rounds up to 4 MiB (the writer):0.96 / 7.53 / 4.72 / 2.26
 *   + addresses by call site (keyed_fields()):  0.96 / 7.09 / 4.36 / 1.93
 *   + arguments by syscall:                     0.96 / 7.02 / 4.15 / 1.93
 *   + timestamps per chunk the cheaper way (ts_mode(); another, busier run):
 *                                               1.08 / 7.35 / 4.45 / 2.06 ->
 *                                               0.96 / 7.35 / 4.40 / 2.06
 *   (zstd -3 instead of -1, same columns, per round: 0.97 / 7.99 / 5.46 / 2.65,
 *   for twice the encoding time: not kept.)  What is left is mostly the
 *   timestamps' jitter (~1.7 bytes per event on make) and captured user
 *   memory (tar: 2.4 of its 7).  Cost, on one CPU: encoding ~55 ns per
 *   record plus zstd ~20 (LZ4 of the rows: ~48); decoding ~27-29 with the
 *   index + zstd ~7.4 (LZ4 of the rows ~9.3, then gt_index_chunk() ~2-5;
 *   see the decoding section).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "chunk_unpack.h"
#include "col_codec.h"
#include "col_codec_int.h"
#include "col_varint.h"
#include "trace_reader.h"
#include "trace_util.h"
#include "opts.h"

#define COL_VERSION 1

enum {
	S_TYPE,
	S_SIZE,
	S_CPU,
	S_FLAGS,
	S_PID,
	S_TID,
	S_TS,
	S_TAIL,
	S_TS_LO,
	S_COMMON,
};

enum coding {
	C_VAR,	 /* unsigned varint */
	C_SVAR,	 /* zigzag varint of the sign-extended value */
	C_DELTA, /* zigzag varint of the difference from this field's previous value */
	C_RAW,	 /* the bytes */
	C_PAIR,	 /* exit: zigzag varint of the difference from its enter's value (same thread) */
	C_KEYED, /* C_DELTA, from the previous value in records of the same key (keyed_fields()) */
};

#define MAX_FIELDS 16
#define PAIR_SLOTS 4
#define TID_CACHE 1024 /* direct-mapped by tid: a thread's enter and exit are close */
#define KEYS 256	/* direct-mapped by key (keyed_fields()) */
#define TS_TYPES 16	/* record types told apart by ts_mode() */
#define BLOCK 256	/* records decoded a column at a time (gt_col_coder__decode()) */

struct col_field {
	__u16 off;
	__u16 size;
	__u16 stream;
	__u8 coding;
	__u8 sign;
	__s8 store; /* enter: cache slot this value is kept in for the exit, or -1 */
	__u8 slot;  /* C_PAIR: the cache slot to code against */
	bool skip;  /* decoding: nobody reads it (gt_col_coder__project()) */
};

struct col_type {
	struct col_field f[MAX_FIELDS];
	unsigned int nr;
	__u16 gap;
	__u16 expect; /* the usual size: sizes are coded as the difference from it */
	bool stores;  /* some field is kept for the exit record */
	int key;      /* index in f[] of the field keying C_KEYED fields, or -1 */
	/* for the decoder (gt_col_coder__decode()), from the above */
	__u16 end; /* where the last field ends: a record this long holds them all */
	unsigned int ngaps, npair;
	struct {
		__u16 off, len, need; /* copied when the record holds NEED bytes */
	} gaps[MAX_FIELDS];
	__u8 pair[MAX_FIELDS]; /* fields kept for the exit (enter) or coded against it (exit) */
	/* the projection (gt_col_coder__project()): what of the above is decoded */
	unsigned int nlive;	/* of pair[] */
	__u8 live[MAX_FIELDS];
	int live_keyed; /* the first C_KEYED field decoded, or -1 */
	bool skip_gaps;
	bool skip_tail; /* of records that hold every field (others keep theirs whole) */
};

struct tid_ent {
	__u32 tid;
	__u32 gen;
	__u64 v[PAIR_SLOTS];
};

struct stream {
	__u8 *buf; /* encoding */
	size_t len, cap;
	const __u8 *p, *end; /* decoding */
};

/*
 * The tail stream gt_col_coder__unpack() leaves a frame in BUF, for the
 * one gt_col_coder__decode() of BUF after it, which decompresses it when
 * the first record whose tail is read comes.  --summary reads no tail but a
 * task record's: of an openread trace's 3.3 M records, 22 MB of tails
 * (paths and data) were decompressed only to be skipped.  Without that,
 * --summary went from 118.5 to 115.3 ms CPU on one thread (fc315b6 on
 * LZ4: 114.2; medians of 11 alternating runs, 2026-11-27), from ~123 to
 * ~119.5 with the worker.  Passing the header streams of zero bytes
 * (frameless) without writing or loading them gained another ~1% (35 MB of
 * a kmem trace's tails are zeros): not worth a layout that a second decode
 * of the same buffer could not read.
 */
struct lazy_tail {
	const void *buf; /* the layout it is in, LEN bytes */
	size_t len;
	ZSTD_DCtx *z; /* NULL: the tail is decompressed */
	const __u8 *frame;
	size_t zlen;
	__u8 *to;
};

struct col_coder {
	struct col_type types[GTSC_REC_TYPE_MAX];
	unsigned int nstreams;
	struct stream *s;
	__u64 *prev; /* per stream: the previous value (C_DELTA, header fields) */
	__u64 *kprev; /* per stream, KEYS each: the previous value by key (C_KEYED) */
	__u64 key;    /* the current record's key (keyed_fields()) */
	/* timestamps (ts_mode()): the last delta after each pair of types */
	__u64 lastd[TS_TYPES * TS_TYPES];
	unsigned int prev_type;
	bool ts_dod;		/* decoding: the chunk's deltas are from lastd[] */
	ZSTD_CCtx *zc;		/* encoding: to weigh the two ways (ts_mode()) */
	void *zbuf;
	size_t zcap;
	struct tid_ent *tids;
	__u32 gen; /* tid cache entries of older chunks are stale */
	bool oom;
	/* decoding, one block of records: their offsets, and by type */
	__u32 blk[BLOCK];
	__u32 list[GTSC_REC_TYPE_MAX][BLOCK];
	unsigned int cnt[GTSC_REC_TYPE_MAX];
	bool cut[GTSC_REC_TYPE_MAX]; /* some are shorter than their fields */
	__u8 kslot[BLOCK];	     /* kprev[] slots of one type's records (key_slots()) */
	bool *skipped;		     /* per stream: not read (gt_col_coder__project()) */
	bool skip_cpu, skip_flags, skip_pid, skip_tid; /* header fields nobody reads */
	struct lazy_tail note, tail; /* gt_col_coder__unpack()'s for the next decode; its own */
};

/* ---- varints ---- */

static inline __u64 zig(__s64 v)
{
	return ((__u64)v << 1) ^ (__u64)(v >> 63);
}

static inline __s64 unzig(__u64 v)
{
	return (__s64)(v >> 1) ^ -(__s64)(v & 1);
}

static inline bool reserve(struct col_coder *c, struct stream *s, size_t n)
{
	size_t cap;
	__u8 *p;

	if (s->len + n <= s->cap)
		return true;
	for (cap = s->cap ? s->cap : 4096; cap < s->len + n; cap *= 2)
		;
	p = realloc(s->buf, cap);
	if (!p) {
		c->oom = true;
		return false;
	}
	s->buf = p;
	s->cap = cap;
	return true;
}

static inline void putv(struct col_coder *c, unsigned int si, __u64 v)
{
	struct stream *s = &c->s[si];

	if (reserve(c, s, 10))
		s->len += put_varint(s->buf + s->len, v);
}

static inline void putb(struct col_coder *c, unsigned int si, const void *p, size_t n)
{
	struct stream *s = &c->s[si];

	if (n && reserve(c, s, n)) {
		memcpy(s->buf + s->len, p, n);
		s->len += n;
	}
}

/* ---- values by size, host order ---- */

static inline __u64 load(const char *p, unsigned int size, bool sign)
{
	__u8 u8;
	__u16 u16;
	__u32 u32;
	__u64 u64;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return sign ? (__u64)(__s64)(__s8)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return sign ? (__u64)(__s64)(__s16)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return sign ? (__u64)(__s64)(__s32)u32 : u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static inline void store(char *p, unsigned int size, __u64 v)
{
	__u8 u8 = (__u8)v;
	__u16 u16 = (__u16)v;
	__u32 u32 = (__u32)v;

	switch (size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
	}
}

/* ---- the layout ---- */

static bool is_int(const struct gtsc_field *f)
{
	return (f->type == GTSC_FT_UINT || f->type == GTSC_FT_INT) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/*
 * How a described field is coded.  Addresses (HEX, SYM) and times as the
 * difference from the field's previous value: the previous ptr of a kmalloc
 * is usually a few cache lines away, a syscall's argument registers repeat.
 */
static enum coding field_coding(const struct gtsc_field *f)
{
	if (!is_int(f))
		return C_RAW;
	if (f->print == GTSC_FP_HEX || f->print == GTSC_FP_SYM || f->print == GTSC_FP_TIME)
		return C_DELTA;
	return f->type == GTSC_FT_INT ? C_SVAR : C_VAR;
}

static const struct gtsc_field *find_field(const struct gtsc_event_class *k, const char *name)
{
	for (unsigned int i = 0; k && i < k->nr_fields; i++)
		if (!strcmp(k->fields[i].name, name))
			return &k->fields[i];
	return NULL;
}

/*
 * An exit record's field that its enter record also has (sys_exit's nr,
 * payload_len) is coded against the enter's value of the same thread: the
 * exit does not repeat what the enter said.
 */
static void pair_exit(struct col_coder *c)
{
	const struct gtsc_event_class *en = gt_col_record_class(GTSC_REC_SYS_ENTER);
	const struct gtsc_event_class *ex = gt_col_record_class(GTSC_REC_SYS_EXIT);
	struct col_type *te = &c->types[GTSC_REC_SYS_ENTER], *tx = &c->types[GTSC_REC_SYS_EXIT];
	unsigned int slots = 0;

	for (unsigned int i = 0; ex && i < tx->nr && slots < PAIR_SLOTS; i++) {
		const struct gtsc_field *fx = &ex->fields[i], *fe = find_field(en, fx->name);

		if (!fe || !is_int(fx) || fe->size != fx->size || fe->offset != fx->offset)
			continue;
		for (unsigned int j = 0; j < te->nr; j++)
			if (te->f[j].off == fe->offset)
				te->f[j].store = (__s8)slots;
		te->stores = true;
		tx->f[i].coding = C_PAIR;
		tx->f[i].slot = (__u8)slots++;
	}
}

/*
 * What a record is about: its call site (kmem) or its syscall number.
 * Addresses after it (kmem's ptr and cache_id, a syscall's argument
 * registers) are coded against the last ones of the same key: a call site
 * allocates from one cache, whose objects sit side by side; a syscall's
 * buffers and fds repeat.  Measured (bytes per event, zstd level 1, 4 MiB
 * chunks): by call site, tar 7.53 -> 7.09, make 4.72 -> 4.36, pipesock
 * 2.26 -> 1.93; arguments by syscall, make 4.36 -> 4.15, tar 7.09 -> 7.02.
 */
static bool is_key(const struct gtsc_field *f)
{
	return (f->print == GTSC_FP_SYM && f->size == 8) || !strcmp(f->name, "nr");
}

static void keyed_fields(struct col_type *ct, const struct gtsc_event_class *k)
{
	ct->key = -1;
	for (unsigned int i = 0; i < ct->nr; i++) {
		if (ct->key < 0 && is_key(&k->fields[i]) && is_int(&k->fields[i]))
			ct->key = (int)i;
		else if (ct->key >= 0 && ct->f[i].coding == C_DELTA && ct->f[i].size == 8)
			ct->f[i].coding = C_KEYED;
	}
}

/*
 * What the decoder needs of a type, derived from its fields: the gaps
 * before them, where the last ends, and the fields of its enter/exit pairing.
 * A keyed field's key must not be one coded against the enter (C_PAIR): the
 * decoder reads keys from the rows before it decodes those (pair_loop()).
 */
static void decoder_plan(struct col_type *ct)
{
	unsigned int cur = sizeof(struct gtsc_rec_hdr);

	for (unsigned int i = 0; i < ct->nr; i++) {
		const struct col_field *f = &ct->f[i];

		if (f->off > cur)
			ct->gaps[ct->ngaps++] = (typeof(ct->gaps[0])){
				.off = (__u16)cur, .len = (__u16)(f->off - cur),
				.need = (__u16)(f->off + f->size) };
		if (f->coding == C_PAIR || f->store >= 0)
			ct->pair[ct->npair++] = (__u8)i;
		cur = f->off + f->size;
	}
	ct->end = (__u16)cur;
}

static void layout(struct col_coder *c)
{
	unsigned int si = S_COMMON;

	for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++) {
		const struct gtsc_event_class *k = gt_col_record_class(t);
		struct col_type *ct = &c->types[t];
		unsigned int end = sizeof(struct gtsc_rec_hdr);

		ct->expect = sizeof(struct gtsc_rec_hdr);
		if (!k)
			continue;
		ct->gap = (__u16)si++;
		for (unsigned int i = 0; i < k->nr_fields && i < MAX_FIELDS; i++) {
			const struct gtsc_field *f = &k->fields[i];

			ct->f[i] = (struct col_field){
				.off = f->offset,
				.size = f->size,
				.stream = (__u16)si++,
				.coding = (__u8)field_coding(f),
				.sign = f->type == GTSC_FT_INT,
				.store = -1,
			};
			ct->nr++;
			if (f->offset + f->size > end)
				end = f->offset + f->size;
		}
		ct->expect = (__u16)((end + 7) & ~7u);
		keyed_fields(ct, k);
	}
	c->nstreams = si;
	pair_exit(c);
	for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++)
		decoder_plan(&c->types[t]);
}

struct col_coder *gt_col_coder__new(void)
{
	struct col_coder *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	layout(c);
	/* two more: the timestamp streams of the way not chosen (ts_mode()) */
	c->s = calloc(c->nstreams + 2, sizeof(*c->s));
	c->prev = calloc(c->nstreams, sizeof(*c->prev));
	c->kprev = calloc((size_t)c->nstreams * KEYS, sizeof(*c->kprev));
	c->tids = calloc(TID_CACHE, sizeof(*c->tids));
	c->skipped = calloc(c->nstreams, sizeof(*c->skipped));
	if (!c->s || !c->prev || !c->kprev || !c->tids || !c->skipped) {
		gt_col_coder__free(c);
		return NULL;
	}
	gt_col_coder__project(c, NULL);
	return c;
}

void gt_col_coder__free(struct col_coder *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; c->s && i < c->nstreams + 2; i++)
		free(c->s[i].buf);
	free(c->s);
	free(c->prev);
	free(c->kprev);
	free(c->tids);
	free(c->skipped);
	ZSTD_freeCCtx(c->zc);
	free(c->zbuf);
	free(c);
}

/* Every chunk starts from zero: it decodes without the chunks before it. */
static void reset(struct col_coder *c)
{
	memset(c->prev, 0, c->nstreams * sizeof(*c->prev));
	memset(c->kprev, 0, (size_t)c->nstreams * KEYS * sizeof(*c->kprev));
	c->key = 0;
	memset(c->lastd, 0, sizeof(c->lastd));
	c->prev_type = 0;
	if (++c->gen == 0) {
		memset(c->tids, 0, TID_CACHE * sizeof(*c->tids));
		c->gen = 1;
	}
}

static inline unsigned int tid_slot(__u32 tid)
{
	return (tid ^ (tid >> 10)) & (TID_CACHE - 1);
}

static inline struct tid_ent *tid_ent(struct col_coder *c, __u32 tid)
{
	return &c->tids[tid_slot(tid)];
}

/* The value an exit's field is coded against: its thread's enter's, else 0. */
static inline __u64 paired(struct col_coder *c, __u32 tid, unsigned int slot)
{
	struct tid_ent *e = tid_ent(c, tid);

	return e->gen == c->gen && e->tid == tid ? e->v[slot] : 0;
}

static inline void keep(struct col_coder *c, __u32 tid, unsigned int slot, __u64 v)
{
	struct tid_ent *e = tid_ent(c, tid);

	if (e->gen != c->gen || e->tid != tid) {
		memset(e, 0, sizeof(*e));
		e->gen = c->gen;
		e->tid = tid;
	}
	e->v[slot] = v;
}

static inline __u64 *kprev(struct col_coder *c, const struct col_field *f)
{
	__u64 k = c->key * 0x9e3779b97f4a7c15ull;

	return &c->kprev[(size_t)f->stream * KEYS + (k >> 56)];
}

/* ---- encoding ---- */

size_t gt_col_encode_bound(size_t len)
{
	/*
	 * Per record (at least 24 bytes): a header of at most 49 varint bytes,
	 * each field at most 2 bytes over its size (a 10-byte varint for 8),
	 * at most MAX_FIELDS fields: 4x the records is plenty; plus the stream
	 * table.
	 */
	return len * 4 + 16 + (size_t)(S_COMMON + GTSC_REC_TYPE_MAX * (MAX_FIELDS + 1)) * 10;
}

static void encode_field(struct col_coder *c, const struct col_field *f, const char *p, __u32 tid)
{
	__u64 v;

	if (f->coding == C_RAW) {
		putb(c, f->stream, p, f->size);
		return;
	}
	v = load(p, f->size, f->sign);
	switch (f->coding) {
	case C_VAR:
		putv(c, f->stream, v);
		break;
	case C_SVAR:
		putv(c, f->stream, zig((__s64)v));
		break;
	case C_DELTA:
		putv(c, f->stream, zig((__s64)(v - c->prev[f->stream])));
		c->prev[f->stream] = v;
		break;
	case C_PAIR:
		putv(c, f->stream, zig((__s64)(v - paired(c, tid, f->slot))));
		break;
	case C_KEYED:
		putv(c, f->stream, zig((__s64)(v - *kprev(c, f))));
		*kprev(c, f) = v;
		break;
	}
	if (f->store >= 0)
		keep(c, tid, (unsigned int)f->store, v);
}

static inline __u64 *last_delta(struct col_coder *c, unsigned int type)
{
	return &c->lastd[(c->prev_type % TS_TYPES) * TS_TYPES + type % TS_TYPES];
}

static inline void put_ts(struct col_coder *c, unsigned int hi, unsigned int lo, __u64 d)
{
	__u8 b = (__u8)d;

	putb(c, lo, &b, 1);
	putv(c, hi, d >> 8);
}

/*
 * Timestamps, both ways (ts_mode() keeps one): the delta from the previous
 * record, or its difference from the last delta between the same two
 * record types (a getppid storm's enter -> exit and exit -> enter are each
 * steady).
 */
static void encode_ts(struct col_coder *c, const struct gtsc_rec_hdr *h)
{
	__u64 raw = h->ts_ns - c->prev[S_TS], *ld = last_delta(c, h->type);

	put_ts(c, S_TS, S_TS_LO, zig((__s64)raw));
	put_ts(c, c->nstreams, c->nstreams + 1, zig((__s64)(raw - *ld)));
	*ld = raw;
	c->prev_type = h->type;
}

/* What zstd -1 makes of streams HI and LO; SIZE_MAX when it cannot say. */
static size_t weigh(struct col_coder *c, unsigned int hi, unsigned int lo)
{
	size_t n = 0;

	for (unsigned int i = 0; i < 2; i++) {
		const struct stream *s = &c->s[i ? lo : hi];
		size_t z = ZSTD_compressCCtx(c->zc, c->zbuf, c->zcap, s->buf, s->len, 1);

		if (ZSTD_isError(z))
			return (size_t)-1;
		n += z;
	}
	return n;
}

/*
 * Which way of coding timestamps this chunk keeps: the one zstd makes
 * smaller (weighing them costs ~5% of the encoding).  Measured (bytes per
 * event, whole files): the difference from the last delta took a getppid
 * storm from 1.08 to 0.96 (0.96 to 0.84 on a quieter run) and make from
 * 4.45 to 4.39, but tar from 7.35 to 7.42 and pipesock from 2.06 to 2.13;
 * counting significant bits chose wrong for those two.
 */
static bool ts_mode(struct col_coder *c)
{
	size_t need = ZSTD_compressBound(c->s[S_TS].len > c->s[S_TS_LO].len ? c->s[S_TS].len
									     : c->s[S_TS_LO].len);
	size_t w = need > ZSTD_compressBound(c->s[c->nstreams].len)
			   ? need : ZSTD_compressBound(c->s[c->nstreams].len);
	struct stream t;

	if (!c->zc && !(c->zc = ZSTD_createCCtx()))
		return false;
	if (w > c->zcap) {
		free(c->zbuf);
		c->zcap = 0;
		c->zbuf = malloc(w);
		if (!c->zbuf)
			return false;
		c->zcap = w;
	}
	if (weigh(c, c->nstreams, c->nstreams + 1) >= weigh(c, S_TS, S_TS_LO))
		return false;
	t = c->s[S_TS], c->s[S_TS] = c->s[c->nstreams], c->s[c->nstreams] = t;
	t = c->s[S_TS_LO], c->s[S_TS_LO] = c->s[c->nstreams + 1], c->s[c->nstreams + 1] = t;
	return true;
}

static void encode_record(struct col_coder *c, const char *rec)
{
	struct gtsc_rec_hdr h;
	const struct col_type *ct;
	unsigned int cur = sizeof(h);

	memcpy(&h, rec, sizeof(h));
	ct = h.type < GTSC_REC_TYPE_MAX ? &c->types[h.type] : NULL;
	putv(c, S_TYPE, h.type);
	putv(c, S_SIZE, zig((__s64)h.size - (ct ? ct->expect : (__s64)sizeof(h))));
	putv(c, S_CPU, zig((__s64)h.cpu - (__s64)c->prev[S_CPU]));
	putv(c, S_FLAGS, h.flags);
	putv(c, S_PID, zig((__s64)h.pid - (__s64)c->prev[S_PID]));
	putv(c, S_TID, zig((__s64)h.tid - (__s64)h.pid));
	encode_ts(c, &h);
	c->prev[S_CPU] = h.cpu;
	c->prev[S_PID] = h.pid;
	c->prev[S_TS] = h.ts_ns;
	for (unsigned int i = 0; ct && i < ct->nr; i++) {
		const struct col_field *f = &ct->f[i];

		if (f->off + f->size > h.size)
			break;
		if (f->off > cur)
			putb(c, ct->gap, rec + cur, f->off - cur);
		encode_field(c, f, rec + f->off, h.tid);
		if ((int)i == ct->key)
			c->key = load(rec + f->off, f->size, false);
		cur = f->off + f->size;
	}
	putb(c, S_TAIL, rec + cur, h.size - cur);
}

/*
 * The records IN[0, LEN) into the streams, and the table of both layouts at
 * O (the version, the way of the timestamps, the record count, the stream
 * count, each stream's length).  Returns the table's length, 0 when the
 * records are not whole (the caller stores the chunk untransformed).
 */
static size_t encode_streams(struct col_coder *c, const void *in, size_t len, __u8 *o)
{
	const char *recs = in;
	size_t off = 0, n = 0, pos;

	reset(c);
	c->oom = false;
	for (unsigned int i = 0; i < c->nstreams + 2; i++)
		c->s[i].len = 0;
	while (off + sizeof(struct gtsc_rec_hdr) <= len) {
		__u16 size;

		memcpy(&size, recs + off + offsetof(struct gtsc_rec_hdr, size), sizeof(size));
		if (size < sizeof(struct gtsc_rec_hdr) || size > len - off)
			break;
		encode_record(c, recs + off);
		off += size;
		n++;
	}
	if (c->oom || off != len)
		return 0; /* the caller stores the chunk untransformed */
	o[0] = COL_VERSION;
	o[1] = ts_mode(c);
	pos = 2 + put_varint(o + 2, n);
	pos += put_varint(o + pos, c->nstreams);
	for (unsigned int i = 0; i < c->nstreams; i++)
		pos += put_varint(o + pos, c->s[i].len);
	return pos;
}

size_t gt_col_coder__encode(struct col_coder *c, const void *in, size_t len, void *out)
{
	__u8 *o = out;
	size_t pos = encode_streams(c, in, len, o);

	if (!pos)
		return 0;
	for (unsigned int i = 0; i < c->nstreams; i++) {
		if (c->s[i].len)
			memcpy(o + pos, c->s[i].buf, c->s[i].len);
		pos += c->s[i].len;
	}
	return pos;
}

/*
 * ---- one zstd frame a stream (format 1.3, GTSC_CHUNK_STREAMS) ----
 *
 * After the table, each stream's frame length (0: no frame, the stream is
 * empty or all zero bytes), then the frames.  A reader decompresses only
 * the streams it reads (gt_col_coder__project()) and rebuilds 1.2's layout
 * with them; zstd also picks its tables per stream.  Measured on the
 * openread trace of bench/report_speed.sh (3.63 M records, 76 MB of
 * columns), one frame against one a stream: 2.30 -> 2.22 MB, every stream
 * decompressed 19.5 -> 16.4 ms; on a kmem_load trace (6.9 M records) the
 * same size and time, and a tar czf trace of syscalls and kmem 6.19 -> 6.09
 * bytes a record.  A frame costs ~10 bytes, so small chunks keep one
 * (COL_FRAMES_MIN).
 */
size_t gt_col_coder__encode_frames(struct col_coder *c, const void *in, size_t len, void *out,
				   size_t cap, ZSTD_CCtx *z, int level)
{
	__u8 *o = out;
	size_t pos = encode_streams(c, in, len, o), room = (size_t)c->nstreams * VARINT_MAX;
	size_t end, lens = 0;

	/* the frames go after room for their lengths, which are known last */
	if (!pos || cap < pos + room)
		return 0;
	end = pos + room;
	for (unsigned int i = 0; i < c->nstreams; i++) {
		const struct stream *s = &c->s[i];
		size_t n = 0;

		if (s->len && (s->buf[0] || memcmp(s->buf, s->buf + 1, s->len - 1))) {
			n = ZSTD_compressCCtx(z, o + end, cap - end, s->buf, s->len, level);
			if (ZSTD_isError(n))
				return 0;
		}
		lens += put_varint(o + pos + lens, n);
		end += n;
	}
	memmove(o + pos + lens, o + pos + room, end - pos - room);
	return end - (room - lens);
}

/* ---- decoding ---- */

/*
 * Decoding runs for every record of every chunk read, so it is written for
 * speed (bench/read_speed.sh).  It goes by blocks of BLOCK records: first
 * the headers and tails of the block in record order, then each field
 * stream of each type over the block's records of that type in one tight
 * loop (the stream's position and running value in registers, the coding
 * and size known to the loop), then the gaps, then what an exit record
 * takes from its enter (record order again).  The streams are independent,
 * so the order in which they are read does not change a byte.  Blocks keep
 * the rows being filled in the L1/L2 cache: a whole 4 MiB chunk per column
 * would go to memory once per field.  Measured with the decoder alone
 * (records of bench/read_speed.sh's traces in 4 MiB chunks, best of 7, one
 * CPU, load 8-10), against the one that went record by record, field by
 * field: kmem_load's 3.7 M records 40.6 -> 28.8 ns per record, openread's
 * 2.2 M syscall records 30.3 -> 31.2, both now making the reader's index
 * too (col_index), which saves gt_index_chunk()'s pass.  Tried and slower or
 * within noise: the header a field at a time as well (16 live pointers
 * otherwise; 28.8 -> 30.4), eight one-byte varints per load and test
 * (28.8 -> 31.1: half of kmem's small fields take two bytes).  The exit's
 * paired fields read in type_fields() like the others, pair_loop() only
 * adding the enter's value: openread's 30.2 -> 29.3 (4 alternating runs).
 * Tried and within noise (+-0.5 ns): one-byte runs of a stream (all
 * bytes of the next block below 0x80, checked per block) read as bytes,
 * without rdv(), for the six small header streams and the field loops.
 * That path took 90% of openread's field values and 99% of its header
 * blocks (50% and 77% for kmem_load) and saved nothing: the varints are
 * not what costs, so bit-packed or byte-aligned blocks (a format bump)
 * would not close the gap either.  What costs is rebuilding the rows
 * (perf of openread's decoding, shares of the decoder's time): the
 * headers' eight values and the index ~45%, the fields ~26%, the
 * enter/exit pairing by thread ~19%, the padding ~10% (~2% since
 * gap_fast()).  On top of its ~24 ns per record (~28 for kmem_load's)
 * comes zstd's ~7.4, against ~9.3 for LZ4 of the rows and ~2-5 for an
 * index pass (the decoder alone on bench/read_speed.sh's traces, best of
 * 7, load 9).
 *
 * Where a kmem record's reading goes (the reader alone, projected as the
 * kmem analysis reads, on read_speed.sh's kmem_load trace of 8.35 M
 * records, one thread, best of 3, load ~3): 33.2 ns per record in all,
 * the LZ4 file 19.3 (LZ4 ~7, gt_index_chunk() ~4.3, and the merge of a
 * round's chunks, ~4.7 in both).  Reading, CRCs and zstd alone: 6.7;
 * without the field loops: 21.1 (headers, index, merge); the field loops
 * ~13.  Every varint of the projected streams parsed in one tight loop a
 * stream, no row written: 8.9 by itself (12 varints a record, 20% longer
 * than a byte; a branch-free 8-byte read of those took the reader from
 * 34.5 to 38-39 ns, wholly branch-free to 59).  So with LEB128 varints a
 * decoder writing nothing at all would still cost 6.7 + 8.9 + 4.7 = 20.3
 * before any analysis, above LZ4's 19.3: the gap closes only with a coding
 * that decodes many values an instruction (a format bump).  Prototype, the
 * same 91.4 M values of the projected streams timed inside the reader:
 * LEB128 1.09 ns a value; Stream VByte (a 2-bit length of 1-4 bytes per
 * value in a stream of its own, SSE4.1 shuffles four at a time) 0.21, for
 * 11% more bytes before zstd (0.5% of the values need more than 32 bits:
 * a real coding needs 8-byte lengths too); 1/2/4/8-byte values decoded one
 * at a time without branches 1.2-1.3.  That would save ~9.7 of the ~14 ns
 * a kmem record; rows would still cost the rest.  Handing the analysis
 * smaller batches while they are in cache would not: it costs 24-25 ns a
 * record on the 1.2 file against ~22.4 on the LZ4 one (one run each).
 * Wired in (session 9, a branch: 1/2/4/8-byte Stream VByte, each block's
 * stream decoded in bulk, SSSE3) it did not pay: decoder alone 13.2 ->
 * 14.1 ns a `--summary` record, 20.7 -> 23.7 a whole one, the reader
 * within noise (README, reading goal).  The values still pass through a
 * buffer to the rows, and a one-byte varint with a predicted branch
 * costs about that; the prototype's figure was the parse alone.
 */

static inline __u64 getv(struct stream *s, bool *bad)
{
	return rdv(&s->p, s->end, bad);
}

static inline void getb(struct stream *s, void *p, size_t n, bool *bad)
{
	if ((size_t)(s->end - s->p) < n) {
		*bad = true;
		return;
	}
	memcpy(p, s->p, n);
	s->p += n;
}

/*
 * N bytes of S to P, N small and known only at run time (gaps, tails):
 * libc's memcpy call cost more than the copy.
 */
static inline void getb_small(struct stream *s, char *p, size_t n, bool *bad)
{
	const __u8 *q = s->p;

	if (__builtin_expect((size_t)(s->end - q) < n, 0)) {
		*bad = true;
		return;
	}
	if (n >= 16) {
		memcpy(p, q, n);
	} else {
		if (n & 8)
			memcpy(p, q, 8), p += 8, q += 8;
		if (n & 4)
			memcpy(p, q, 4), p += 4, q += 4;
		if (n & 2)
			memcpy(p, q, 2), p += 2, q += 2;
		if (n & 1)
			*p = (char)*q;
	}
	s->p += n;
}

/* Passes N bytes of S nobody reads (gt_col_coder__project()). */
static inline void skip_bytes(struct stream *s, size_t n, bool *bad)
{
	if (__builtin_expect((size_t)(s->end - s->p) < n, 0))
		*bad = true;
	else
		s->p += n;
}

static inline __u16 rec_size(const char *r)
{
	__u16 v;

	memcpy(&v, r + offsetof(struct gtsc_rec_hdr, size), sizeof(v));
	return v;
}

/*
 * Field F of the block's records of its type at OFFS[0, N), coded CODING in
 * SIZE bytes (constants once inlined: one loop per coding and size).
 */
/* One value V (the varint as read) of field F for row R, J-th of the block's list. */
struct field_run {
	__u64 prev, *kp;
	const __u8 *kslot;
	unsigned int last;
};

static __attribute__((always_inline)) inline void field_one(struct field_run *fr, char *r,
							    unsigned int j, __u64 v,
							    const enum coding coding,
							    const unsigned int size)
{
	switch (coding) {
	case C_SVAR:
		v = (__u64)unzig(v);
		break;
	case C_DELTA:
		/* only the field's low bytes are stored: the running value need not be truncated */
		v = fr->prev += (__u64)unzig(v);
		break;
	case C_KEYED:
		/*
		 * Runs of one key (a syscall storm, a call site's burst) keep
		 * its value in a register: through kp[] each record waited
		 * for the last one's store.  kp[] is still written every
		 * time, off the critical path.
		 */
		if (fr->kslot[j] != fr->last) {
			fr->last = fr->kslot[j];
			fr->prev = fr->kp[fr->last];
		}
		v = fr->prev += (__u64)unzig(v);
		fr->kp[fr->last] = v;
		break;
	default:
		break;
	}
	store(r, size, v);
}

/* field_loop()'s values from *PP; ROOM: END is at least N varints away (rdv_room()). */
static __attribute__((always_inline)) inline void
field_vals(struct field_run *fr, const __u8 **pp, const __u8 *end, char *out, const __u32 *offs,
	   unsigned int n, unsigned int off, const enum coding coding, const unsigned int size,
	   const bool whole, const bool room, bool *bad)
{
	const __u8 *p = *pp;
	const unsigned int need = off + size;

	for (unsigned int j = 0; j < n; j++) {
		char *r = out + offs[j];

		/* a short record: this field and those after it are not there */
		if (!whole && rec_size(r) < need)
			continue;
		field_one(fr, r + off, j, room ? rdv_room(&p, bad) : rdv(&p, end, bad), coding,
			  size);
	}
	*pp = p;
}

/*
 * Field F of the block's records of its type at OFFS[0, N), coded CODING in
 * SIZE bytes (constants once inlined: one loop per coding and size).
 * (The measures are at the top of this section.)
 */
static __attribute__((always_inline)) inline void
field_loop(struct col_coder *c, const struct col_field *f, char *out, const __u32 *offs,
	   unsigned int n, const enum coding coding, const unsigned int size, const bool whole,
	   bool *bad)
{
	struct stream *s = &c->s[f->stream];
	const __u8 *p = s->p, *end = s->end;
	struct field_run fr = { .prev = c->prev[f->stream],
				.kp = &c->kprev[(size_t)f->stream * KEYS],
				.kslot = c->kslot,
				.last = KEYS };

	if ((size_t)(end - p) >= (size_t)n * VARINT_MAX)
		field_vals(&fr, &p, end, out, offs, n, f->off, coding, size, whole, true, bad);
	else
		field_vals(&fr, &p, end, out, offs, n, f->off, coding, size, whole, false, bad);
	s->p = p;
	if (coding != C_KEYED)
		c->prev[f->stream] = fr.prev;
}

#define FIELD_LOOP_W(coding, whole)                                                                \
	do {                                                                                       \
		switch (f->size) {                                                                 \
		case 1:                                                                            \
			field_loop(c, f, out, offs, n, coding, 1, whole, bad);                 \
			break;                                                                     \
		case 2:                                                                            \
			field_loop(c, f, out, offs, n, coding, 2, whole, bad);                 \
			break;                                                                     \
		case 4:                                                                            \
			field_loop(c, f, out, offs, n, coding, 4, whole, bad);                 \
			break;                                                                     \
		default:                                                                           \
			field_loop(c, f, out, offs, n, coding, 8, whole, bad);                 \
		}                                                                                  \
	} while (0)

/* WHOLE: no record of the block's of this type is short (the usual case) */
#define FIELD_LOOP(coding)                                                                         \
	do {                                                                                       \
		if (whole)                                                                         \
			FIELD_LOOP_W(coding, true);                                                \
		else                                                                               \
			FIELD_LOOP_W(coding, false);                                               \
	} while (0)

/* Raw fields (names, comms) of the block's records of their type. */
static void raw_loop(struct col_coder *c, const struct col_field *f, char *out, const __u32 *offs,
		     unsigned int n, bool *bad)
{
	struct stream *s = &c->s[f->stream];

	for (unsigned int j = 0; j < n; j++) {
		char *r = out + offs[j];

		if (rec_size(r) >= f->off + f->size)
			getb(s, r + f->off, f->size, bad);
	}
}

/* One gap of LEN bytes of each of N whole records: LEN known once inlined. */
static __attribute__((always_inline)) inline void gap_run(char *out, const __u32 *offs,
							  unsigned int n, unsigned int off,
							  const __u8 *q, const unsigned int len)
{
	for (unsigned int j = 0; j < n; j++, q += len)
		memcpy(out + offs[j] + off, q, len);
}

/*
 * The gaps of type CT when it has one of up to 8 bytes (sys_enter's,
 * sys_exit's, kmem_alloc's) and all N records hold it (WHOLE): one run of
 * N * len bytes, copied with no check per record and a fixed size.
 * openread's records 25.9 -> 23.8 ns, kmem_load's 29.1 -> 28.0 (3
 * alternating runs each).  False: gap_loop() copies them.
 */
static bool gap_fast(struct stream *s, const struct col_type *ct, char *out, const __u32 *offs,
		     unsigned int n, bool whole)
{
	const typeof(ct->gaps[0]) *g = &ct->gaps[0];

	if (!whole || ct->ngaps != 1 || (size_t)(s->end - s->p) < (size_t)n * g->len)
		return false;
#define GAP_RUN(len)                                                                               \
	case len:                                                                                  \
		gap_run(out, offs, n, g->off, s->p, len);                                          \
		break
	switch (g->len) {
	GAP_RUN(1);
	GAP_RUN(2);
	GAP_RUN(3);
	GAP_RUN(4);
	GAP_RUN(5);
	GAP_RUN(6);
	GAP_RUN(7);
	GAP_RUN(8);
	default:
		return false;
	}
#undef GAP_RUN
	s->p += (size_t)n * g->len;
	return true;
}

/* The bytes between fields (padding) of the block's records of type CT. */
static void gap_loop(struct col_coder *c, const struct col_type *ct, char *out, const __u32 *offs,
		     unsigned int n, bool whole, bool *bad)
{
	struct stream *s = &c->s[ct->gap];

	if (gap_fast(s, ct, out, offs, n, whole))
		return;
	for (unsigned int j = 0; j < n; j++) {
		char *r = out + offs[j];
		unsigned int size = rec_size(r);

		for (unsigned int g = 0; g < ct->ngaps && size >= ct->gaps[g].need; g++)
			getb_small(s, r + ct->gaps[g].off, ct->gaps[g].len, bad);
	}
}

/* Every field of the block's records of type CT but the exit's (pair_loop()). */
/*
 * The kprev[] slot of each of the block's records of type CT, from its key
 * (decoded before the keyed fields: it comes first in the record).  Records
 * without their key get the slot of the last key decoded; they hold no keyed
 * field either.
 */
static void key_slots(struct col_coder *c, const struct col_type *ct, const char *out,
		      const __u32 *offs, unsigned int n)
{
	const unsigned int koff = ct->f[ct->key].off, ksize = ct->f[ct->key].size;

	for (unsigned int j = 0; j < n; j++) {
		const char *r = out + offs[j];

		if (rec_size(r) >= koff + ksize)
			c->key = load(r + koff, ksize, false);
		c->kslot[j] = (__u8)((c->key * 0x9e3779b97f4a7c15ull) >> 56);
	}
}

static void type_fields(struct col_coder *c, const struct col_type *ct, char *out,
			const __u32 *offs, unsigned int n, bool whole, bool *bad)
{
	for (unsigned int i = 0; i < ct->nr; i++) {
		const struct col_field *f = &ct->f[i];

		if (f->skip)
			continue;
		switch (f->coding) {
		case C_VAR:
			FIELD_LOOP(C_VAR);
			break;
		case C_SVAR:
			FIELD_LOOP(C_SVAR);
			break;
		case C_DELTA:
			FIELD_LOOP(C_DELTA);
			break;
		case C_KEYED:
			if ((int)i == ct->live_keyed) /* after the key's own loop */
				key_slots(c, ct, out, offs, n);
			FIELD_LOOP(C_KEYED);
			break;
		case C_RAW:
			raw_loop(c, f, out, offs, n, bad);
			break;
		default:
			/*
			 * C_PAIR: the difference goes into the row, and
			 * pair_loop() adds the enter's value; both truncate to
			 * the field's size, which leaves the sum's bytes as
			 * they were.  Read here, the stream's position stays
			 * in a register (measured at the top of this section).
			 */
			FIELD_LOOP(C_SVAR);
			break;
		}
	}
	if (ct->ngaps && !ct->skip_gaps)
		gap_loop(c, ct, out, offs, n, whole, bad);
}

/* One field of pair_loop()'s plan. */
struct pair_step {
	__u16 off, size, end;
	__u8 slot; /* in tid_ent.v[] */
	bool add;  /* C_PAIR: the enter's value is added; else the value is kept */
	bool sign;
};

/*
 * What an enter keeps for its exit and what the exit codes against it, in
 * record order (the thread cache is shared by the two types): the block's
 * records at OFFS[0, N).  The plan is a copy on the stack: the rows are
 * written through char *, which may alias the coder's tables, and reading
 * the fields from those made the compiler load them again after every
 * store.  openread's records: 29.0 -> 26.6 ns per record decoded (3
 * alternating runs; the same for kmem_load's, which have no pairs).  The
 * same copy in block_headers() and gap_loop() measured within noise: not
 * kept.
 */
static void pair_loop(struct col_coder *c, char *out, const __u32 *offs, unsigned int n)
{
	struct pair_step plan[GTSC_REC_TYPE_MAX][PAIR_SLOTS];
	unsigned int np[GTSC_REC_TYPE_MAX];
	struct tid_ent *tids = c->tids;
	const __u32 gen = c->gen;

	for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++) {
		const struct col_type *ct = &c->types[t];

		np[t] = ct->nlive < PAIR_SLOTS ? ct->nlive : PAIR_SLOTS;
		for (unsigned int i = 0; i < np[t]; i++) {
			const struct col_field *f = &ct->f[ct->live[i]];
			bool add = f->coding == C_PAIR;

			plan[t][i] = (struct pair_step){ .off = f->off, .size = f->size,
							 .end = (__u16)(f->off + f->size),
							 .slot = (__u8)(add ? f->slot : f->store),
							 .add = add, .sign = f->sign };
		}
	}
	for (unsigned int j = 0; j < n; j++) {
		char *r = out + offs[j];
		const struct pair_step *p;
		struct tid_ent *e;
		__u16 type, size;
		unsigned int k;
		__u32 tid;
		bool mine;

		memcpy(&type, r + offsetof(struct gtsc_rec_hdr, type), sizeof(type));
		if (type >= GTSC_REC_TYPE_MAX || !(k = np[type]))
			continue;
		p = plan[type];
		memcpy(&size, r + offsetof(struct gtsc_rec_hdr, size), sizeof(size));
		memcpy(&tid, r + offsetof(struct gtsc_rec_hdr, tid), sizeof(tid));
		/* paired() and keep(), looking the thread up once per record */
		e = &tids[tid_slot(tid)];
		mine = e->gen == gen && e->tid == tid;
		for (unsigned int i = 0; i < k && p[i].end <= size; i++) {
			if (p[i].add) {
				/* the difference type_fields() left there */
				store(r + p[i].off, p[i].size,
				      (mine ? e->v[p[i].slot] : 0) + load(r + p[i].off, p[i].size, false));
				continue;
			}
			if (!mine) {
				memset(e, 0, sizeof(*e));
				e->gen = gen;
				e->tid = tid;
				mine = true;
			}
			e->v[p[i].slot] = load(r + p[i].off, p[i].size, p[i].sign);
		}
	}
}

#define PUT_HDR(out, field, v)                                                                     \
	do {                                                                                       \
		__typeof__(((struct gtsc_rec_hdr *)0)->field) x_ = (v);                            \
		memcpy((out) + offsetof(struct gtsc_rec_hdr, field), &x_, sizeof(x_));             \
	} while (0)

/* Where a record of type CT and SIZE bytes ends its last field that it holds whole. */
static unsigned int fields_end(const struct col_type *ct, unsigned int size)
{
	unsigned int cur = sizeof(struct gtsc_rec_hdr);

	if (size >= ct->end)
		return ct->end;
	for (unsigned int i = 0; i < ct->nr && ct->f[i].off + ct->f[i].size <= size; i++)
		cur = ct->f[i].off + ct->f[i].size;
	return cur;
}

/* What the header streams hold from one block to the next. */
struct hdr_state {
	__u64 cpu, pid, ts;
	unsigned int prev_type;
	bool pairs; /* the block has records of a type in pair_loop() */
};

/* Stream frame F (ZL bytes; 0: none, L zero bytes) into exactly L bytes at O: 0 or -EBADMSG. */
static int unpack_stream(ZSTD_DCtx *z, __u8 *o, size_t l, const __u8 *f, size_t zl)
{
	size_t got;

	if (!zl) {
		memset(o, 0, l);
		return 0;
	}
	got = ZSTD_decompressDCtx(z, o, l, f, zl);
	return ZSTD_isError(got) || got != l ? -EBADMSG : 0;
}

/* The tail stream, which gt_col_coder__unpack() left a frame (struct lazy_tail): 0 or -EBADMSG. */
static int tail_now(struct col_coder *c)
{
	ZSTD_DCtx *z = c->tail.z;

	c->tail.z = NULL;
	return unpack_stream(z, c->tail.to, c->s[S_TAIL].len, c->tail.frame, c->tail.zlen);
}

/* The varint at P before E, in block_headers_in() (ROOM: see block_headers()) */
#define RDV(p, e) (room ? rdv_room(&(p), &bad) : rdv(&(p), (e), &bad))

/*
 * The headers and tails of up to BLOCK records from OUT + *OFF, in record
 * order; their offsets go to c->blk (all) and c->list[type] (types with
 * fields), c->cnt[type] counts them.  Returns how many, 0 for bad streams.
 * What the loop carries is in locals: every store into a row (char *) would
 * otherwise make the compiler reload anything reached through a pointer.
 */
static __attribute__((always_inline)) inline unsigned int
block_headers_in(struct col_coder *c, struct hdr_state *state, char *out, size_t *off,
		 size_t out_len, struct col_index *ix, const bool room)
{
	static const struct col_type none = { .expect = sizeof(struct gtsc_rec_hdr),
					      .end = sizeof(struct gtsc_rec_hdr) };
	struct stream *st = c->s;
	const __u8 *pt = st[S_TYPE].p, *pz = st[S_SIZE].p, *pc = st[S_CPU].p, *pf = st[S_FLAGS].p;
	const __u8 *pp = st[S_PID].p, *pd = st[S_TID].p, *ph = st[S_TS].p, *pl = st[S_TS_LO].p;
	const __u8 *et = st[S_TYPE].end, *ez = st[S_SIZE].end, *ec = st[S_CPU].end;
	const __u8 *ef = st[S_FLAGS].end, *ep = st[S_PID].end, *ed = st[S_TID].end;
	const __u8 *eh = st[S_TS].end, *el = st[S_TS_LO].end;
	struct trace_rec_ref *refs = ix ? ix->refs + ix->n : NULL;
	struct hdr_state hs = *state;
	__u64 max = ix ? ix->max : 0;
	size_t o = *off;
	unsigned int n = 0;
	bool bad = false, dod = c->ts_dod, ok = true;
	const bool skip_cpu = c->skip_cpu, skip_flags = c->skip_flags, skip_pid = c->skip_pid;
	const bool skip_tid = c->skip_tid;

	while (n < BLOCK && o < out_len) {
		const struct col_type *ct;
		char *r = out + o;
		__u64 type, size, raw, *ld;
		unsigned int cur;
		__u32 pid, tid;
		__u16 cpu;

		type = RDV(pt, et);
		ct = type < GTSC_REC_TYPE_MAX ? &c->types[type] : &none;
		size = (__u64)((__s64)ct->expect + unzig(RDV(pz, ez)));
		if (bad || type > 0xffff || size < sizeof(struct gtsc_rec_hdr) || size > 0xffff ||
		    size > out_len - o || (!room && pl >= el))
			return 0;
		PUT_HDR(r, type, (__u16)type);
		PUT_HDR(r, size, (__u16)size);
		if (!skip_cpu) {
			cpu = (__u16)(hs.cpu + (__u64)unzig(RDV(pc, ec)));
			PUT_HDR(r, cpu, cpu);
			hs.cpu = cpu;
		}
		if (!skip_flags)
			PUT_HDR(r, flags, (__u16)RDV(pf, ef));
		if (!skip_pid) {
			pid = (__u32)(hs.pid + (__u64)unzig(RDV(pp, ep)));
			PUT_HDR(r, pid, pid);
			hs.pid = pid;
			if (!skip_tid) {
				tid = (__u32)(pid + (__u64)unzig(RDV(pd, ed)));
				PUT_HDR(r, tid, tid);
			}
		}
		/*
		 * lastd[] only for chunks that code from it: every chunk of
		 * read_speed.sh's kmem_load trace codes plain deltas, and
		 * skipping the slot's load and store there took the reader
		 * from 34.6 to 34.1 ns per record (medians of 5 alternating).
		 */
		raw = (__u64)unzig(RDV(ph, eh) << 8 | *pl++);
		if (dod) {
			ld = &c->lastd[(hs.prev_type % TS_TYPES) * TS_TYPES + type % TS_TYPES];
			raw += *ld;
			*ld = raw;
			hs.prev_type = (unsigned int)type;
		}
		hs.ts += raw;
		PUT_HDR(r, ts_ns, hs.ts);
		cur = fields_end(ct, (unsigned int)size);
		if (size > cur && ct->skip_tail && cur == ct->end) {
			skip_bytes(&st[S_TAIL], size - cur, &bad);
		} else if (size > cur) {
			if (__builtin_expect(c->tail.z != NULL, 0))
				bad |= tail_now(c) != 0;
			getb_small(&st[S_TAIL], r + cur, size - cur, &bad);
		}
		c->blk[n] = (__u32)o;
		if (ct->nr) {
			c->list[type][c->cnt[type]++] = (__u32)o;
			c->cut[type] |= size < ct->end;
		}
		hs.pairs |= ct->nlive;
		if (refs) {
			refs[n] = (struct trace_rec_ref){ .ts = hs.ts,
							  .rec = (const struct gtsc_rec_hdr *)r };
			max = hs.ts > max ? hs.ts : max;
			ok &= !(size % 8) &&
			      (type >= GTSC_REC_TYPE_MAX || size >= trace_rec_min_sizes[type]);
		}
		o += size;
		n++;
	}
	st[S_TYPE].p = pt, st[S_SIZE].p = pz, st[S_CPU].p = pc, st[S_FLAGS].p = pf;
	st[S_PID].p = pp, st[S_TID].p = pd, st[S_TS].p = ph, st[S_TS_LO].p = pl;
	*state = hs;
	*off = o;
	if (ix) {
		ix->n += n;
		ix->max = max;
		ix->ok &= ok;
	}
	return bad ? 0 : n;
}
#undef RDV

/*
 * block_headers_in(), without a bound to check per value when every header
 * stream has room for BLOCK more values (all but a chunk's last blocks;
 * field_loop() does the same per field).  The decoder alone, best of 9, 3
 * alternating runs, load ~1.8: a kmem_load trace's 6.6 M records projected
 * as --kmem reads 22.2 -> 20.4 ns per record (21.9 with field_loop()'s
 * change alone), an openread trace's 3.6 M as --summary reads 14.4 ->
 * 13.15 (field_loop()'s alone: no change).
 */
static unsigned int block_headers(struct col_coder *c, struct hdr_state *state, char *out,
				  size_t *off, size_t out_len, struct col_index *ix)
{
	static const unsigned int varints[] = { S_TYPE, S_SIZE, S_CPU, S_FLAGS, S_PID, S_TID, S_TS };
	const struct stream *st = c->s;

	if ((size_t)(st[S_TS_LO].end - st[S_TS_LO].p) < BLOCK)
		goto checked;
	for (unsigned int i = 0; i < sizeof(varints) / sizeof(varints[0]); i++)
		if ((size_t)(st[varints[i]].end - st[varints[i]].p) < BLOCK * VARINT_MAX)
			goto checked;
	return block_headers_in(c, state, out, off, out_len, ix, true);
checked:
	return block_headers_in(c, state, out, off, out_len, ix, false);
}

/*
 * ---- projection ----
 *
 * Rows rebuilt whole are what decoding costs (see the decoding section);
 * a reader that reads a few fields need not pay for the others.  On
 * bench/read_speed.sh's traces (one thread, main's binary alternating,
 * medians of 5, two runs, load ~2): --summary (headers, nr, ret) 0.114-0.139
 * -> 0.093-0.096 s CPU for 2.2 M records (LZ4's 0.083-0.085); the kmem
 * analysis (all but node, a free's cache_id, flags, tid) 0.357-0.368 ->
 * 0.344-0.352 s for 6.3 M (LZ4's 0.223-0.229): it reads nearly every field.
 * Without a pid filter it reads no pid either, and the pid stream is
 * skipped when no tid is decoded (a tid is coded from its pid): with the
 * lastd[] change in block_headers(), the reader alone on 8.35 M kmem
 * records 34.9 -> 33.2 ns per record, with the analysis 59.7 -> 58.6
 * (medians of 7 alternating with main's code, best of 3 each, load ~3).
 */

void gt_col_want__add(struct col_want *w, unsigned int type, unsigned int off, unsigned int size)
{
	if (type >= GTSC_REC_TYPE_MAX)
		return;
	for (unsigned int b = off; b < off + size; b++) {
		if (b >= COL_WANT_BYTES) {
			w->tail[type] = true;
			return;
		}
		w->bytes[type][b / 64] |= 1ull << (b % 64);
	}
}

/* Whether W (NULL: all) wants a byte of [OFF, END) of records of TYPE. */
static bool wants(const struct col_want *w, unsigned int type, unsigned int off, unsigned int end)
{
	if (!w)
		return true;
	for (unsigned int b = off; b < end; b++) {
		if (b >= COL_WANT_BYTES)
			return w->tail[type];
		if (w->bytes[type][b / 64] >> (b % 64) & 1)
			return true;
	}
	return false;
}

/* What of type T is decoded: the fields W wants, and the keys of the keyed ones. */
static void project_type(struct col_coder *c, unsigned int t, const struct col_want *w)
{
	struct col_type *ct = &c->types[t];

	for (unsigned int i = 0; i < ct->nr; i++)
		ct->f[i].skip = !wants(w, t, ct->f[i].off, ct->f[i].off + ct->f[i].size);
	for (unsigned int i = 0; ct->key >= 0 && i < ct->nr; i++)
		if (ct->f[i].coding == C_KEYED && !ct->f[i].skip)
			ct->f[ct->key].skip = false;
	ct->skip_gaps = w != NULL;
	for (unsigned int g = 0; g < ct->ngaps; g++)
		ct->skip_gaps &= !wants(w, t, ct->gaps[g].off, ct->gaps[g].off + ct->gaps[g].len);
	ct->skip_tail = !wants(w, t, ct->end, 0xffff);
}

/*
 * The pairs of enter and exit fields (pair_loop()) whose exit field is
 * decoded: its enter's field then is too, and is kept; the others cost
 * nothing.
 */
static void project_pairs(struct col_coder *c)
{
	bool need[PAIR_SLOTS] = {};

	for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++)
		for (unsigned int i = 0; i < c->types[t].nr; i++)
			if (c->types[t].f[i].coding == C_PAIR && !c->types[t].f[i].skip)
				need[c->types[t].f[i].slot] = true;
	for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++) {
		struct col_type *ct = &c->types[t];

		ct->nlive = 0;
		for (unsigned int k = 0; k < ct->npair; k++) {
			struct col_field *f = &ct->f[ct->pair[k]];

			if (f->store >= 0 && need[f->store])
				f->skip = false;
			if (!f->skip && (f->coding == C_PAIR || need[f->store]))
				ct->live[ct->nlive++] = ct->pair[k];
		}
	}
}

void gt_col_coder__project(struct col_coder *c, const struct col_want *w)
{
	bool cpu = false, flags = false, pid = false, tid = false, pairs = false;

	for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++) {
		project_type(c, t, w);
		cpu |= wants(w, t, offsetof(struct gtsc_rec_hdr, cpu),
			     offsetofend(struct gtsc_rec_hdr, cpu));
		flags |= wants(w, t, offsetof(struct gtsc_rec_hdr, flags),
			       offsetofend(struct gtsc_rec_hdr, flags));
		pid |= wants(w, t, offsetof(struct gtsc_rec_hdr, pid),
			     offsetofend(struct gtsc_rec_hdr, pid));
		tid |= wants(w, t, offsetof(struct gtsc_rec_hdr, tid),
			     offsetofend(struct gtsc_rec_hdr, tid));
	}
	project_pairs(c);
	memset(c->skipped, 0, c->nstreams * sizeof(*c->skipped));
	for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++) {
		struct col_type *ct = &c->types[t];

		ct->live_keyed = -1;
		for (unsigned int i = 0; i < ct->nr; i++) {
			c->skipped[ct->f[i].stream] = ct->f[i].skip;
			if (ct->f[i].coding == C_KEYED && !ct->f[i].skip && ct->live_keyed < 0)
				ct->live_keyed = (int)i;
		}
		if (ct->nr)
			c->skipped[ct->gap] = ct->skip_gaps;
		pairs |= ct->nlive;
	}
	/* pair_loop() finds a thread's enter by the tid in the row */
	/* a cpu is coded from the record's before: the stream is read whole or not at all */
	c->skip_cpu = c->skipped[S_CPU] = !cpu;
	c->skip_flags = c->skipped[S_FLAGS] = !flags;
	c->skip_tid = c->skipped[S_TID] = !tid && !pairs;
	/* a tid is coded from its pid */
	c->skip_pid = c->skipped[S_PID] = !pid && c->skip_tid;
}

/*
 * The stream table at the head of IN[0, LEN): the record count into *NREC,
 * each stream's length into c->s[].len, at most MAX bytes of streams in
 * all; *T is left after it.  0, -ENOTSUP (another version or layout),
 * -EBADMSG.
 */
static int read_table(struct col_coder *c, const __u8 *in, size_t len, size_t max,
		      struct stream *t, __u64 *nrec)
{
	size_t total = 0;
	bool bad = false;
	__u64 n;

	if (!len || in[0] != COL_VERSION)
		return len ? -ENOTSUP : -EBADMSG;
	if (len < 2 || in[1] > 1)
		return -EBADMSG;
	*t = (struct stream){ .p = in + 2, .end = in + len };
	*nrec = getv(t, &bad);
	n = getv(t, &bad);
	if (bad)
		return -EBADMSG;
	if (n != c->nstreams)
		return -ENOTSUP;
	for (unsigned int i = 0; i < c->nstreams; i++) {
		__u64 l = getv(t, &bad);

		if (bad || l > max - total)
			return -EBADMSG;
		c->s[i].len = (size_t)l;
		total += (size_t)l;
	}
	return 0;
}

/* Reads the stream table and places the streams after it; as read_table(). */
static int open_streams(struct col_coder *c, const __u8 *in, size_t len, __u64 *nrec)
{
	struct stream hdr;
	const __u8 *data;
	int err = read_table(c, in, len, len, &hdr, nrec);

	if (err)
		return err;
	c->ts_dod = in[1];
	data = hdr.p;
	for (unsigned int i = 0; i < c->nstreams; i++) {
		if ((size_t)(in + len - data) < c->s[i].len)
			return -EBADMSG;
		c->s[i].p = data;
		data += c->s[i].len;
		c->s[i].end = data;
	}
	return data == in + len ? 0 : -EBADMSG;
}

int gt_col_coder__unpack(struct col_coder *c, ZSTD_DCtx *z, const void *in, size_t len, size_t max,
			 void **buf, size_t *cap, size_t *blen)
{
	const __u8 *ztab, *f;
	size_t head, total = 0;
	struct lazy_tail note = { .z = NULL };
	__u64 nrec, zsum = 0;
	struct stream t;
	bool bad = false;
	__u8 *o;
	int err;

	c->note = note; /* a failed unpack leaves no tail to a decode */
	err = read_table(c, in, len, max, &t, &nrec);
	if (err)
		return err;
	for (unsigned int i = 0; i < c->nstreams; i++)
		total += c->s[i].len;
	head = (size_t)(t.p - (const __u8 *)in);
	ztab = t.p;
	for (unsigned int i = 0; i < c->nstreams; i++) {
		__u64 zl = getv(&t, &bad);

		if (bad || zl > len)
			return -EBADMSG;
		zsum += zl;
	}
	if (zsum != (__u64)(t.end - t.p))
		return -EBADMSG;
	if (gt_trace_grow_array(buf, cap, head + total, 1))
		return -ENOMEM;
	o = *buf;
	memcpy(o, in, head);
	o += head;
	f = t.p;
	t.p = ztab;
	for (unsigned int i = 0; i < c->nstreams; i++) {
		size_t zl = (size_t)getv(&t, &bad), l = c->s[i].len;

		/* what the decoder does not read stays as it was (gt_col_coder__project()) */
		if (i == S_TAIL && zl) {
			note.z = z;
			note.frame = f;
			note.zlen = zl;
			note.to = o;
		} else if (!c->skipped[i] && unpack_stream(z, o, l, f, zl)) {
			return -EBADMSG;
		}
		f += zl;
		o += l;
	}
	*blen = head + total;
	note.buf = *buf;
	note.len = *blen;
	c->note = note;
	return 0;
}

int gt_col_coder__decode(struct col_coder *c, const void *in, size_t len, void *out, size_t out_len,
			 struct col_index *ix)
{
	struct hdr_state hs = {};
	size_t off = 0;
	__u64 nrec, n = 0;
	bool bad = false;
	int err;

	reset(c);
	/* the tail gt_col_coder__unpack() left a frame, if IN is what it unpacked */
	c->tail = c->note.buf == in && c->note.len == len ? c->note : (struct lazy_tail){ .z = NULL };
	c->note = (struct lazy_tail){ .z = NULL };
	err = open_streams(c, in, len, &nrec);
	if (err)
		return err;
	if (c->tail.z && c->tail.to != c->s[S_TAIL].p)
		return -EBADMSG; /* not the layout it unpacked */
	if (ix) {
		ix->n = 0;
		ix->max = 0;
		ix->ok = true;
	}
	while (off < out_len) {
		unsigned int nb;

		memset(c->cnt, 0, sizeof(c->cnt));
		memset(c->cut, 0, sizeof(c->cut));
		hs.pairs = false;
		nb = block_headers(c, &hs, out, &off, out_len, ix);
		if (!nb)
			return -EBADMSG;
		for (unsigned int t = 0; t < GTSC_REC_TYPE_MAX; t++)
			if (c->cnt[t])
				type_fields(c, &c->types[t], out, c->list[t], c->cnt[t],
					    !c->cut[t], &bad);
		if (hs.pairs)
			pair_loop(c, out, c->blk, nb);
		if (bad)
			return -EBADMSG;
		n += nb;
	}
	for (unsigned int i = 0; i < c->nstreams; i++)
		if (!c->skipped[i] && c->s[i].p != c->s[i].end)
			return -EBADMSG;
	return n == nrec ? 0 : -EBADMSG;
}
