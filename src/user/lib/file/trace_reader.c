/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * .gtsc reader (file.h).
 *
 * open() reads the file header and walks the chunk headers once: metadata
 * chunks are read, checked and parsed there, DATA chunks only indexed, so a
 * huge trace opens at the cost of its chunk count.  The walk stops at the
 * first framing error; everything before it stays readable.
 *
 * next() reads DATA chunks in batches: one drain round (up to a chunk flagged
 * ROUND_END), or one chunk when unordered.  Each batch's records are indexed
 * as (ts, pointer into the decompressed chunk) and merged with what the
 * previous batch left, then everything up to the highest timestamp of the
 * batches before this one is yielded, as perf's FINISHED_ROUND: a record
 * reaching userspace at most one round late still lands in order.  What is
 * left afterwards comes from the current batch only, so buffers of older
 * batches are recycled and memory stays at about two rounds.
 *
 * Several files of one recording (record --switch-output) are indexed as
 * one: their metadata must match the first's and is read once, their
 * trailers' counts add up.  A stream (a pipe, "-") cannot be indexed: its
 * chunks are read in order as they come, metadata where it arrives (the
 * trailer and the late symbols last), DATA chunks as next() needs them, so
 * memory stays at two rounds there too.  The recorder's live view feeds a
 * stream from memory (gt_reader__feed): next() then says -EAGAIN when it
 * needs a round not fed yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "chunk_unpack.h"
#include "metadata.h"
#include "trace_reader.h"
#include "trace_util.h"
#include "strbuf.h"

#define MAX_FILE_HDR_SIZE 4096

struct kv {
	const char *key;
	const char *val;
};

struct ksym {
	__u64 addr;
	const char *name;
};

/* A STACKS line: its frames are stack_ips[off, off + n). */
struct stack_ent {
	const char *source;
	__u32 id;
	__u32 n;
	size_t off;
};

struct text {
	char *buf;
	size_t len;
	size_t cap;
};

/* One file of the trace; a stream has one input. */
struct input {
	int fd;
	__u64 size; /* files: bytes at open */
	__u64 base; /* bytes of the inputs before it */
};

/* A stream's bytes: ibuf[ipos, ilen) are read and not consumed yet. */
struct stream {
	bool on;
	bool feed, fed_all; /* bytes come from gt_reader__feed */
	bool want_hdr;	    /* a file header comes next (first, or after a trailer) */
	bool file_trailer;  /* the current file's trailer was read */
	bool end;	    /* no chunk follows */
	bool have_cur;	    /* cur is a DATA chunk whole at ibuf[ipos] */
	struct data_chunk cur;
	char *ibuf;
	size_t ipos, ilen, icap;
	__u64 pos;  /* of ibuf[ipos] in the current file */
	__u64 done; /* bytes consumed */
	__u32 idx;  /* the next chunk's number */
};

/* A decompressed DATA chunk, kept while records of its batch may be pending. */
struct rbuf {
	char *data;
	size_t cap;
	__u64 batch;
};

struct gtsc_reader {
	struct input *in;
	size_t n_in;
	size_t cur_in; /* the input whose metadata is being read */
	const char *const *paths;
	struct stream st;
	struct trace_reader_ext ext; /* a later stage's (gt_reader__ext) */
	bool unordered;
	char *errbuf;
	size_t errbuf_sz;
	__u64 file_size;
	struct gtsc_file_hdr fh;

	/* metadata; kv, ksym and strings point into the owned copies */
	struct text texts[GTSC_CHUNK_TYPE_MAX];
	char **owned;
	size_t n_owned, cap_owned;
	struct kv *meta;
	size_t n_meta, cap_meta;
	struct kv *feat;
	size_t n_feat, cap_feat;
	struct trace_channel *chans;
	size_t n_chans, cap_chans;
	struct gtsc_syscall_info *sys;
	size_t n_sys, cap_sys;
	struct ksym *ksyms;
	size_t n_ksyms, cap_ksyms;
	struct gtsc_chan_stat *stats;
	size_t n_stats, cap_stats;
	struct gtsc_flight_stat *flights;
	size_t n_flights, cap_flights;
	struct gtsc_func_info *funcs;
	size_t n_funcs, cap_funcs;
	struct stack_ent *stacks;
	size_t n_stacks, cap_stacks;
	__u64 *stack_ips;
	size_t n_stack_ips, cap_stack_ips;
	bool has_trailer;
	bool file_trailer; /* the file being walked or streamed has one */
	size_t file_no;	   /* of that file in the trace: 0 first */
	__u64 prog_misses;
	struct strbuf skips; /* "HOOK N, ..." of the programs with misses */

	bool damaged;
	bool damage_in_data; /* the first damage next() found: earliest in the file */
	char damage[256];

	/* DATA chunk index from open(), consumed by next() */
	struct data_chunk *chunks;
	size_t n_chunks, cap_chunks;
	size_t next_chunk;
	bool stop;

	struct unpacker unpack; /* the reader's thread's */
	struct col_want want;	/* what its reader reads (gt_reader__want()) */
	struct prefetch *prefetch; /* decodes the next chunks ahead (chunk_unpack.c) */
	bool one_thread;	   /* GTSC_READER_THREADS=1, or the worker failed */

	struct rbuf *live;
	size_t n_live, cap_live;
	struct rbuf *spare;
	size_t n_spare, cap_spare;

	/* pend[head, emit_end) may be yielded; pend[emit_end, n_pend) waits */
	struct trace_rec_ref *pend, *tmp;
	size_t n_pend, cap_pend, head, emit_end;
	__u64 batch;   /* id of the batch being loaded */
	__u64 max_ts;  /* highest timestamp of all batches loaded */
	bool have_max; /* max_ts is set */
	bool eof;
	__u64 count;
};

#define GROW(arr, cap, need) gt_trace_grow_array((void **)&(arr), &(cap), (need), sizeof(*(arr)))

__attribute__((format(printf, 2, 3))) static void set_err(struct gtsc_reader *r, const char *fmt,
							 ...)
{
	va_list ap;

	if (!r->errbuf || !r->errbuf_sz)
		return;
	va_start(ap, fmt);
	vsnprintf(r->errbuf, r->errbuf_sz, fmt, ap);
	va_end(ap);
}

/*
 * Damage found by next() is earlier in the file than where open()'s walk
 * stopped (the walk indexed every DATA chunk next() reads), so it explains
 * best where the records end; after it, the first sentence stays.
 */
__attribute__((format(printf, 3, 4))) static void mark_damaged(struct gtsc_reader *r, bool in_data,
							      const char *fmt, ...)
{
	va_list ap;

	if (r->damaged && (!in_data || r->damage_in_data))
		return;
	va_start(ap, fmt);
	vsnprintf(r->damage, sizeof(r->damage), fmt, ap);
	va_end(ap);
	r->damaged = true;
	r->damage_in_data = in_data;
}

/* ---- file header ---- */

static const char *order_name(unsigned int order)
{
	return order == GTSC_BIG_ENDIAN ? "big-endian" : "little-endian";
}

/*
 * Byte order and major version are judged before the CRC: a foreign or
 * future recorder may checksum or lay out the header differently, and its
 * user needs to hear why rather than "damaged".
 */
static int check_file_hdr(struct gtsc_reader *r, const char *path)
{
	const struct gtsc_file_hdr *h = &r->fh;

	if (h->byte_order == GTSC_BIG_ENDIAN || h->byte_order == GTSC_LITTLE_ENDIAN) {
		if (h->byte_order != TRACE_HOST_BYTE_ORDER) {
			set_err(r, "%s was recorded on a %s machine; this gtsc-bpf reads %s traces only",
				path, order_name(h->byte_order), order_name(TRACE_HOST_BYTE_ORDER));
			return -ENOTSUP;
		}
	}
	if (h->version_major > GTSC_FILE_VERSION_MAJOR) {
		set_err(r, "%s: trace format version %u is newer than this gtsc-bpf understands (%u)",
			path, h->version_major, GTSC_FILE_VERSION_MAJOR);
		return -ENOTSUP;
	}
	if (trace_file_hdr_crc(h) != h->crc) {
		set_err(r, "%s: the file header fails its CRC check: the file is damaged", path);
		return -EBADMSG;
	}
	if (h->byte_order != TRACE_HOST_BYTE_ORDER) {
		set_err(r, "%s: the file header names an unknown byte order (%u)", path,
			h->byte_order);
		return -EBADMSG;
	}
	if (h->version_major != GTSC_FILE_VERSION_MAJOR) {
		set_err(r, "%s: trace format version %u is older than this gtsc-bpf reads (%u)", path,
			h->version_major, GTSC_FILE_VERSION_MAJOR);
		return -ENOTSUP;
	}
	if (h->rec_abi_major != GTSC_REC_ABI_MAJOR) {
		set_err(r, "%s: its records use ABI version %u, %s than this gtsc-bpf understands (%u)",
			path, h->rec_abi_major,
			h->rec_abi_major > GTSC_REC_ABI_MAJOR ? "newer" : "older",
			GTSC_REC_ABI_MAJOR);
		return -ENOTSUP;
	}
	if (h->hdr_size < sizeof(*h) || h->hdr_size > MAX_FILE_HDR_SIZE) {
		set_err(r, "%s: the file header claims to be %u bytes long, which is not valid", path,
			h->hdr_size);
		return -EBADMSG;
	}
	if (h->hdr_size > r->file_size) {
		set_err(r, "%s ends inside its file header: the recorder did not get to write it",
			path);
		return -EBADMSG;
	}
	return 0;
}

/* The first N bytes of a trace, BUF, as its file header: 0 or -errno (said why). */
static int take_file_hdr(struct gtsc_reader *r, const char *path, const void *buf, size_t n)
{
	size_t magic_len = sizeof(r->fh.magic);

	if (n < magic_len)
		magic_len = n;
	if (memcmp(buf, GTSC_FILE_MAGIC, magic_len)) {
		set_err(r, "%s is not a gtsc trace file", path);
		return -EBADMSG;
	}
	if (n < sizeof(r->fh)) {
		set_err(r, "%s ends inside its file header (%zu of %zu bytes): it is empty or was cut before recording began",
			path, n, sizeof(r->fh));
		return -EBADMSG;
	}
	memcpy(&r->fh, buf, sizeof(r->fh));
	return check_file_hdr(r, path);
}

static int read_file_hdr(struct gtsc_reader *r, const char *path)
{
	struct gtsc_file_hdr fh;
	ssize_t n;

	n = gt_trace_pread_full(r->in[r->cur_in].fd, &fh, sizeof(fh), 0);
	if (n < 0) {
		set_err(r, "cannot read %s: %s", path, strerror((int)-n));
		return (int)n;
	}
	return take_file_hdr(r, path, &fh, n);
}

/* ---- metadata ---- */

static int own(struct gtsc_reader *r, char *p)
{
	if (GROW(r->owned, r->cap_owned, r->n_owned + 1)) {
		free(p);
		return -ENOMEM;
	}
	r->owned[r->n_owned++] = p;
	return 0;
}

static void copy_str(char *dst, size_t dst_sz, const char *src)
{
	size_t n = strnlen(src, dst_sz - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool parse_u64(const char *s, int base, __u64 *out)
{
	char *end;

	if (!*s || *s == '-' || *s == ' ')
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	return !errno && !*end;
}

/* Splits LINE in place at tabs into at most MAX fields; the last keeps the rest. */
static int split_tabs(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	while (n < max) {
		char *tab = strchr(f[n - 1], '\t');

		if (!tab)
			break;
		*tab = '\0';
		f[n++] = tab + 1;
	}
	return n;
}

static int add_kv(struct gtsc_reader *r, struct kv **arr, size_t *n, size_t *cap, const char *key,
		  const char *val)
{
	if (gt_trace_grow_array((void **)arr, cap, *n + 1, sizeof(**arr)))
		return -ENOMEM;
	(*arr)[(*n)++] = (struct kv){ .key = key, .val = val };
	return 0;
}

static int parse_kv_line(struct gtsc_reader *r, enum gtsc_chunk_type type, char *line)
{
	char *eq = strchr(line, '=');

	if (!eq || eq == line)
		return 0;
	*eq = '\0';
	if (type == GTSC_CHUNK_META)
		return add_kv(r, &r->meta, &r->n_meta, &r->cap_meta, line, eq + 1);
	return add_kv(r, &r->feat, &r->n_feat, &r->cap_feat, line, eq + 1);
}

/* id name scope nr_rings ring_bytes mode */
static int parse_channel_line(struct gtsc_reader *r, char *line)
{
	struct trace_channel c = {};
	char *f[7];
	__u64 id, nr;

	if (split_tabs(line, f, 7) < 6)
		return 0;
	if (!parse_u64(f[0], 10, &id) || id > 0xffffffffu || !parse_u64(f[3], 10, &nr) ||
	    nr > 0xffffffffu || !parse_u64(f[4], 10, &c.ring_bytes))
		return 0;
	if (strcmp(f[2], "percpu") && strcmp(f[2], "global"))
		return 0;
	c.id = (__u32)id;
	c.nr_rings = (__u32)nr;
	c.percpu = !strcmp(f[2], "percpu");
	copy_str(c.name, sizeof(c.name), f[1]);
	copy_str(c.mode, sizeof(c.mode), f[5]);
	if (GROW(r->chans, r->cap_chans, r->n_chans + 1))
		return -ENOMEM;
	r->chans[r->n_chans++] = c;
	return 0;
}

/* nr name [type arg]... */
static int parse_syscall_line(struct gtsc_reader *r, char *line)
{
	struct gtsc_syscall_info s = {};
	char *f[2 + 2 * 12 + 1]; /* room for 6.19+'s extra fields */
	char *end;
	long nr;
	int n;

	n = split_tabs(line, f, 2 + 2 * 12 + 1);
	if (n < 2 || !*f[0] || !*f[1])
		return 0;
	errno = 0;
	nr = strtol(f[0], &end, 10);
	if (errno || *end || nr < -0x7fffffffL || nr > 0x7fffffffL)
		return 0;
	s.nr = (int)nr;
	copy_str(s.name, sizeof(s.name), f[1]);
	for (int i = 2; i + 1 < n && s.nr_args < 6; i += 2) {
		/* Older recorders listed 6.19+'s user-memory fields as arguments. */
		if (!gt_syscall_field_is_arg(f[i], f[i + 1]))
			continue;
		copy_str(s.arg_type[s.nr_args], sizeof(s.arg_type[0]), f[i]);
		copy_str(s.arg_name[s.nr_args], sizeof(s.arg_name[0]), f[i + 1]);
		s.nr_args++;
	}
	if (GROW(r->sys, r->cap_sys, r->n_sys + 1))
		return -ENOMEM;
	r->sys[r->n_sys++] = s;
	return 0;
}

/* hexaddr name */
static int parse_ksym_line(struct gtsc_reader *r, char *line)
{
	char *sep = strpbrk(line, " \t");
	__u64 addr;

	if (!sep)
		return 0;
	*sep++ = '\0';
	sep += strspn(sep, " \t");
	if (!*sep || !parse_u64(line, 16, &addr))
		return 0;
	if (GROW(r->ksyms, r->cap_ksyms, r->n_ksyms + 1))
		return -ENOMEM;
	r->ksyms[r->n_ksyms++] = (struct ksym){ .addr = addr, .name = sep };
	return 0;
}

/* source id hexaddr hexaddr... */
static int parse_stack_line(struct gtsc_reader *r, char *line)
{
	struct stack_ent e = { .off = r->n_stack_ips };
	char *f[3], *p, *end;
	__u64 id;

	if (split_tabs(line, f, 3) < 3 || !parse_u64(f[1], 10, &id) || id > 0xffffffffu)
		return 0;
	for (p = f[2]; *p; p = end) {
		__u64 ip = strtoull(p, &end, 16);

		if (end == p)
			break;
		if (GROW(r->stack_ips, r->cap_stack_ips, r->n_stack_ips + 1))
			return -ENOMEM;
		r->stack_ips[r->n_stack_ips++] = ip;
		e.n++;
	}
	if (GROW(r->stacks, r->cap_stacks, r->n_stacks + 1))
		return -ENOMEM;
	/* 1.0's name for the same ids, when only allocations had stacks */
	e.source = strcmp(f[0], "kmem") ? f[0] : "kernel";
	e.id = (__u32)id;
	r->stacks[r->n_stacks++] = e;
	return 0;
}

/* id name hexaddr probes kind rettype [kind type name]... */
static int parse_func_line(struct gtsc_reader *r, char *line)
{
	struct gtsc_func_info fi = {};
	char *f[6 + 3 * 6 + 1];
	__u64 id;
	int n = split_tabs(line, f, 6 + 3 * 6 + 1);

	if (n < 6 || !parse_u64(f[0], 10, &id) || id > 0xffffffffu ||
	    !parse_u64(f[2], 16, &fi.addr))
		return 0;
	fi.id = (__u32)id;
	fi.name = f[1];
	fi.has_return = strstr(f[3], "return") != NULL;
	fi.ret_kind = f[4];
	fi.ret_type = f[5];
	for (int i = 6; i + 2 < n && fi.nr_args < 6; i += 3, fi.nr_args++) {
		fi.arg_kind[fi.nr_args] = f[i];
		fi.arg_type[fi.nr_args] = f[i + 1];
		fi.arg_name[fi.nr_args] = f[i + 2];
	}
	if (GROW(r->funcs, r->cap_funcs, r->n_funcs + 1))
		return -ENOMEM;
	r->funcs[r->n_funcs++] = fi;
	return 0;
}

/* flight <channel id> <cpu|all> <written> <retained> <overwritten> <torn> */
static int parse_flight_line(struct gtsc_reader *r, char **f, int n)
{
	struct gtsc_flight_stat fl = { .cpu = (__u32)-1 };
	__u64 v[5];

	if (n < 7 || !parse_u64(f[1], 10, &v[0]) || v[0] > 0xffffffffu)
		return 0;
	if (strcmp(f[2], "all") && (!parse_u64(f[2], 10, &v[1]) || v[1] >= 0xffffffffu))
		return 0;
	for (int i = 1; i < 5; i++)
		if (!parse_u64(f[i + 2], 10, &v[i]))
			return 0;
	fl.channel = v[0];
	if (strcmp(f[2], "all"))
		fl.cpu = strtoul(f[2], NULL, 10);
	fl.written = v[1];
	fl.retained = v[2];
	fl.overwritten = v[3];
	fl.torn = v[4];
	if (GROW(r->flights, r->cap_flights, r->n_flights + 1))
		return -ENOMEM;
	r->flights[r->n_flights++] = fl;
	return 0;
}

static int parse_trailer_line(struct gtsc_reader *r, char *line)
{
	struct gtsc_chan_stat st;
	__u64 v[4];
	char *f[7];
	int n = split_tabs(line, f, 7);

	if (!strcmp(f[0], "meta") && n >= 3)
		return add_kv(r, &r->meta, &r->n_meta, &r->cap_meta, f[1], f[2]);
	if (!strcmp(f[0], "prog") && n >= 3 && parse_u64(f[2], 10, &v[0])) {
		r->prog_misses += v[0];
		if (v[0])
			gt_strbuf_addf(&r->skips, "%s%s %llu", r->skips.len ? ", " : "", f[1],
				       (unsigned long long)v[0]);
		return strbuf_err(&r->skips);
	}
	if (!strcmp(f[0], "flight"))
		return parse_flight_line(r, f, n);
	if (strcmp(f[0], "stat") || n < 5)
		return 0;
	for (int i = 0; i < 4; i++) {
		if (!parse_u64(f[i + 1], 10, &v[i]))
			return 0;
	}
	if (v[0] > 0xffffffffu || v[1] > 0xffffffffu)
		return 0;
	st = (struct gtsc_chan_stat){ .channel = v[0], .cpu = v[1], .written = v[2], .dropped = v[3] };
	if (GROW(r->stats, r->cap_stats, r->n_stats + 1))
		return -ENOMEM;
	r->stats[r->n_stats++] = st;
	return 0;
}

static int parse_line(struct gtsc_reader *r, enum gtsc_chunk_type type, char *line)
{
	switch (type) {
	case GTSC_CHUNK_META:
	case GTSC_CHUNK_FEATURES:
		return parse_kv_line(r, type, line);
	case GTSC_CHUNK_CHANNELS:
		return parse_channel_line(r, line);
	case GTSC_CHUNK_SYSCALLS:
		return parse_syscall_line(r, line);
	case GTSC_CHUNK_KSYMS:
		return parse_ksym_line(r, line);
	case GTSC_CHUNK_TRAILER:
		return parse_trailer_line(r, line);
	case GTSC_CHUNK_FUNCS:
		return parse_func_line(r, line);
	case GTSC_CHUNK_STACKS:
		return parse_stack_line(r, line);
	default:
		return 0;
	}
}

/* TEXT is NUL terminated at LEN and owned by R; lines are cut in place. */
static int parse_text(struct gtsc_reader *r, enum gtsc_chunk_type type, char *text, size_t len)
{
	char *p = text, *end = text + len;

	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		int err;

		if (nl)
			*nl = '\0';
		if (*p && *p != '#') {
			err = parse_line(r, type, p);
			if (err)
				return err;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static int append_text(struct text *t, const char *data, size_t len)
{
	if (gt_trace_grow_array((void **)&t->buf, &t->cap, t->len + len + 1, 1))
		return -ENOMEM;
	memcpy(t->buf + t->len, data, len);
	t->len += len;
	t->buf[t->len] = '\0';
	return 0;
}

/* ---- chunk payloads ---- */

/*
 * Reads chunk C's payload into OUT (room for raw_len bytes) and checks it.
 * 0: good; 1: damaged (said why); -errno: I/O error.
 */
static int load_payload(struct gtsc_reader *r, const struct data_chunk *c, char *out, bool in_data)
{
	/* a stream's chunk is whole in its buffer (stream_next) */
	const char *stored = r->st.on ? r->st.ibuf + r->st.ipos + sizeof(c->h) : NULL;
	int err = gt_unpack_chunk(&r->unpack, r->in[c->in].fd, stored, c, out);

	if (err == 1)
		mark_damaged(r, in_data, "%s", r->unpack.why);
	return err;
}

/* What every file of a recording repeats: read from its first file only. */
static bool recording_wide(enum gtsc_chunk_type type)
{
	return type != GTSC_CHUNK_TRAILER && type != GTSC_CHUNK_KSYMS && type != GTSC_CHUNK_STACKS;
}

/* A later file's META must be the first's, byte for byte: -EXDEV if not. */
static int same_recording(struct gtsc_reader *r, enum gtsc_chunk_type type, const char *raw,
			  size_t len)
{
	const struct text *t = &r->texts[GTSC_CHUNK_META];

	if (type != GTSC_CHUNK_META || (t->len == len && !memcmp(t->buf, raw, len)))
		return 0;
	return -EXDEV;
}

/* 0, 1 when damaged, -errno (-EXDEV: a file of another recording). */
static int load_meta_chunk(struct gtsc_reader *r, const struct data_chunk *c)
{
	enum gtsc_chunk_type type = c->h.type;
	char *raw;
	int err;

	raw = malloc((size_t)c->h.raw_len + 1);
	if (!raw)
		return -ENOMEM;
	err = load_payload(r, c, raw, false);
	if (err) {
		free(raw);
		return err;
	}
	raw[c->h.raw_len] = '\0';
	err = own(r, raw);
	if (err)
		return err;
	/* unknown types were read for their CRC only: a flipped type byte must not hide data */
	if (type >= GTSC_CHUNK_TYPE_MAX)
		return 0;
	if (r->file_no && recording_wide(type))
		return same_recording(r, type, raw, c->h.raw_len);
	if (type == GTSC_CHUNK_TRAILER)
		r->has_trailer = r->file_trailer = true;
	err = append_text(&r->texts[type], raw, c->h.raw_len);
	if (err)
		return err;
	return parse_text(r, type, raw, c->h.raw_len);
}

/* ---- the chunk walk ---- */

#define KNOWN_CODECS                                                                               \
	(GTSC_CHUNK_ZLIB | GTSC_CHUNK_LZ4 | GTSC_CHUNK_ZSTD | GTSC_CHUNK_COLS | GTSC_CHUNK_STREAMS)

/* At most one compressor; columns only inside zstd, frames per stream only of columns. */
static bool one_codec(__u16 flags)
{
	unsigned int z = flags & (GTSC_CHUNK_ZLIB | GTSC_CHUNK_LZ4 | GTSC_CHUNK_ZSTD);

	if (z & (z - 1))
		return false;
	if ((flags & GTSC_CHUNK_STREAMS) && !(flags & GTSC_CHUNK_COLS))
		return false;
	return !(flags & GTSC_CHUNK_COLS) || (flags & GTSC_CHUNK_ZSTD);
}

static bool check_chunk_hdr(struct gtsc_reader *r, const struct data_chunk *c)
{
	const struct gtsc_chunk_hdr *h = &c->h;
	unsigned long long pos = c->pos;

	if (h->magic != GTSC_CHUNK_MAGIC) {
		mark_damaged(r, false,
			     "chunk %u at byte %llu has a bad magic number; records before it are readable",
			     c->idx, pos);
		return false;
	}
	if (h->seq != c->idx) {
		mark_damaged(r, false,
			     "chunk %u at byte %llu is numbered %u: chunks are missing or damaged; records before it are readable",
			     c->idx, pos, h->seq);
		return false;
	}
	if (h->flags & GTSC_CHUNK_CODEC_MASK & ~KNOWN_CODECS) {
		mark_damaged(r, false,
			     "chunk %u at byte %llu is compressed in a way this gtsc-bpf does not know (flags 0x%x): a newer recorder wrote it, or it is damaged; records before it are readable",
			     c->idx, pos, h->flags);
		return false;
	}
	if (h->len > GTSC_CHUNK_MAX_LEN || h->raw_len > GTSC_CHUNK_MAX_LEN ||
	    !one_codec(h->flags) ||
	    (!(h->flags & GTSC_CHUNK_CODEC_MASK) && h->len != h->raw_len)) {
		mark_damaged(r, false,
			     "chunk %u at byte %llu has an impossible length; records before it are readable",
			     c->idx, pos);
		return false;
	}
	return true;
}

/* Indexes input cur_in; 1 when damage stopped the walk, 0, -errno. */
static int walk_chunks(struct gtsc_reader *r)
{
	struct data_chunk c = { .pos = r->fh.hdr_size, .in = r->cur_in };
	int err;

	r->file_trailer = false;
	for (;; c.idx++) {
		__u64 left = r->file_size - c.pos;
		ssize_t n;

		if (!left)
			break;
		n = left < sizeof(c.h) ? 0 : gt_trace_pread_full(r->in[c.in].fd, &c.h, sizeof(c.h), c.pos);
		if (n < 0)
			return (int)n;
		if ((size_t)n < sizeof(c.h) || (c.h.magic == GTSC_CHUNK_MAGIC &&
						c.h.len <= GTSC_CHUNK_MAX_LEN &&
						c.h.len > left - sizeof(c.h))) {
			mark_damaged(r, false,
				     "the file is truncated: it ends inside chunk %u at byte %llu; records up to there are readable",
				     c.idx, (unsigned long long)c.pos);
			return 1;
		}
		if (!check_chunk_hdr(r, &c))
			return 1;
		if (c.h.type == GTSC_CHUNK_DATA) {
			if (GROW(r->chunks, r->cap_chunks, r->n_chunks + 1))
				return -ENOMEM;
			r->chunks[r->n_chunks++] = c;
		} else {
			err = load_meta_chunk(r, &c);
			if (err)
				return err;
		}
		c.pos += sizeof(c.h) + c.h.len;
	}
	if (!r->file_trailer) {
		mark_damaged(r, false,
			     "the trace has no trailer: the recorder did not finish (killed?)");
		return 1;
	}
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_func_info(const void *a, const void *b)
{
	const struct gtsc_func_info *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_sys(const void *a, const void *b)
{
	const struct gtsc_syscall_info *x = a, *y = b;

	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack_ent *x = a, *y = b;
	int c = strcmp(x->source, y->source);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

/* ---- streams ---- */

/*
 * Makes N bytes available at ibuf[ipos]: 1, 0 when the input ends first,
 * -EAGAIN when a feed has not given them yet, -errno.
 */
static int stream_need(struct gtsc_reader *r, size_t n)
{
	struct stream *st = &r->st;

	while (st->ilen - st->ipos < n) {
		ssize_t got;

		if (st->feed)
			return st->fed_all ? 0 : -EAGAIN;
		if (st->ipos) {
			memmove(st->ibuf, st->ibuf + st->ipos, st->ilen - st->ipos);
			st->ilen -= st->ipos;
			st->ipos = 0;
		}
		if (GROW(st->ibuf, st->icap, n > 65536 ? n : 65536))
			return -ENOMEM;
		got = read(r->in[0].fd, st->ibuf + st->ilen, st->icap - st->ilen);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (!got)
			return 0;
		st->ilen += got;
	}
	return 1;
}

static void stream_consume(struct gtsc_reader *r, size_t n)
{
	r->st.ipos += n;
	r->st.pos += n;
	r->st.done += n;
}

/* Ends the stream's chunks here: nothing after damage is yielded. */
static int stream_stop(struct gtsc_reader *r)
{
	r->st.end = true;
	r->stop = true;
	return 0;
}

/*
 * A file header, first in the stream or after a trailer (the files of a
 * rotated recording, concatenated).  1 read, 0 at the end (or damage
 * stopped the stream), -EAGAIN, -errno (the first header is bad: said why).
 */
static int stream_file_hdr(struct gtsc_reader *r, const char *path)
{
	struct stream *st = &r->st;
	bool later = r->file_trailer; /* a part after a whole file */
	int err = stream_need(r, sizeof(r->fh));
	size_t left = st->ilen - st->ipos;

	if (err < 0)
		return err;
	if (later && !left)
		return stream_stop(r);
	err = take_file_hdr(r, path, st->ibuf + st->ipos, left < sizeof(r->fh) ? left : sizeof(r->fh));
	err = err ?: stream_need(r, r->fh.hdr_size) > 0 ? 0 : -EBADMSG;
	if (err && !later)
		return err;
	if (err) {
		mark_damaged(r, false,
			     "the stream's part %zu does not start with a whole gtsc file header; records before it are readable",
			     r->file_no + 2);
		return stream_stop(r);
	}
	if (later)
		r->file_no++;
	st->pos = 0;
	st->idx = 0;
	stream_consume(r, r->fh.hdr_size);
	st->want_hdr = false;
	r->file_trailer = false;
	return 1;
}

static void sort_tables(struct gtsc_reader *r, enum gtsc_chunk_type type);

/* A metadata chunk whole at ibuf[ipos]: read, consumed.  0, or what stops the stream. */
static int stream_meta(struct gtsc_reader *r, const struct data_chunk *c)
{
	int err = load_meta_chunk(r, c);

	stream_consume(r, sizeof(c->h) + c->h.len);
	if (err == -EXDEV) {
		mark_damaged(r, false, "the stream's part %zu is not of the recording of its first part; records before it are readable",
			     r->file_no + 1);
		return stream_stop(r);
	}
	if (err)
		return err < 0 ? err : stream_stop(r);
	sort_tables(r, c->h.type);
	if (c->h.type == GTSC_CHUNK_TRAILER)
		r->st.want_hdr = true;
	return 0;
}

/*
 * Reads the stream up to its next DATA chunk, which is then whole at
 * ibuf[ipos] as st.cur; metadata on the way is read.  1, 0 at the end,
 * -EAGAIN (a feed), -errno.
 */
static int stream_next(struct gtsc_reader *r)
{
	struct stream *st = &r->st;
	struct data_chunk c = {};
	int err;

	while (!st->have_cur && !st->end) {
		if (st->want_hdr) {
			err = stream_file_hdr(r, "the stream");
			if (err < 0)
				return err == -EAGAIN ? err : (r->st.end ? 0 : err);
			continue;
		}
		err = stream_need(r, sizeof(c.h));
		if (err < 0)
			return err;
		c.pos = st->pos;
		c.idx = st->idx;
		if (!err) {
			if (st->ilen > st->ipos)
				mark_damaged(r, false, "the stream is truncated: it ends inside chunk %u at byte %llu; records up to there are readable",
					     c.idx, (unsigned long long)c.pos);
			else
				mark_damaged(r, false, "the trace has no trailer: the recorder did not finish (killed?)");
			return stream_stop(r);
		}
		memcpy(&c.h, st->ibuf + st->ipos, sizeof(c.h));
		if (!check_chunk_hdr(r, &c))
			return stream_stop(r);
		err = stream_need(r, sizeof(c.h) + c.h.len);
		if (err < 0)
			return err;
		if (!err) {
			mark_damaged(r, false, "the stream is truncated: it ends inside chunk %u at byte %llu; records up to there are readable",
				     c.idx, (unsigned long long)c.pos);
			return stream_stop(r);
		}
		st->idx++;
		if (c.h.type == GTSC_CHUNK_DATA) {
			st->cur = c;
			st->have_cur = true;
			break;
		}
		err = stream_meta(r, &c);
		if (err)
			return err;
	}
	return st->have_cur;
}

/* After the DATA chunk st.cur was read. */
static void stream_took(struct gtsc_reader *r)
{
	stream_consume(r, sizeof(r->st.cur.h) + r->st.cur.h.len);
	r->st.have_cur = false;
}

/* ---- open / close ---- */

static void sort_tables(struct gtsc_reader *r, enum gtsc_chunk_type type)
{
	if (type == GTSC_CHUNK_KSYMS && r->n_ksyms)
		qsort(r->ksyms, r->n_ksyms, sizeof(*r->ksyms), cmp_ksym);
	if (type == GTSC_CHUNK_SYSCALLS && r->n_sys)
		qsort(r->sys, r->n_sys, sizeof(*r->sys), cmp_sys);
	if (type == GTSC_CHUNK_FUNCS && r->n_funcs)
		qsort(r->funcs, r->n_funcs, sizeof(*r->funcs), cmp_func_info);
	if (type == GTSC_CHUNK_STACKS && r->n_stacks)
		qsort(r->stacks, r->n_stacks, sizeof(*r->stacks), cmp_stack);
}

/* A stream (pipe, FIFO): its header and the metadata before its first DATA chunk. */
static int open_stream(struct gtsc_reader *r, const char *path)
{
	int err;

	r->st.on = true;
	r->file_size = ~0ULL;
	err = stream_file_hdr(r, path);
	if (err <= 0)
		return err ?: -EBADMSG;
	err = stream_next(r);
	if (err < 0 && err != -EAGAIN) {
		set_err(r, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	return 0;
}

/* Input I: opens it, or takes stdin for "-"; a file is indexed, a stream read in order. */
static int open_input(struct gtsc_reader *r, size_t i, const char *path)
{
	struct input *in = &r->in[i];
	struct stat st;
	int err;

	in->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				   : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	if (in->fd < 0 || fstat(in->fd, &st)) {
		err = -errno;
		set_err(r, "cannot open %s: %s", path, strerror(-err));
		return err;
	}
	r->cur_in = r->file_no = i;
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && r->n_in == 1)
		return open_stream(r, path);
	if (!S_ISREG(st.st_mode)) {
		set_err(r, r->n_in == 1 ? "%s is not a regular file" :
			"%s is not a regular file (a stream is read alone: -i - or one FIFO)", path);
		return -EINVAL;
	}
	in->size = r->file_size = st.st_size;
	in->base = i ? r->in[i - 1].base + r->in[i - 1].size : 0;
	err = read_file_hdr(r, path);
	if (err)
		return err;
	err = walk_chunks(r);
	if (err == -EXDEV) {
		set_err(r, "%s is not part of the recording %s is from", path, r->paths[0]);
		return -EINVAL;
	}
	if (err < 0)
		set_err(r, "cannot read %s: %s", path, strerror(-err));
	return err;
}

static int open_files(struct gtsc_reader *r)
{
	int err = 0;

	/* a damaged file ends the trace: later files would follow a hole */
	for (size_t i = 0; i < r->n_in && !err; i++)
		err = open_input(r, i, r->paths[i]);
	if (err < 0)
		return err;
	if (!r->st.on)
		for (int t = 1; t < GTSC_CHUNK_TYPE_MAX; t++)
			sort_tables(r, t);
	return 0;
}

/* The caller's gtsc_reader_opts.reads, for the column chunks (gt_reader__want()). */
static void want_parts(struct gtsc_reader *r, const struct gtsc_rec_part *p, size_t n)
{
	if (!p)
		return;
	for (size_t i = 0; i < n; i++)
		gt_col_want__add(&r->want, p[i].type, p[i].off, p[i].size);
	r->unpack.want = &r->want;
}

static struct gtsc_reader *reader_new(size_t n_in, const struct gtsc_reader_opts *opts)
{
	struct gtsc_reader *r;

	if (!n_in || !OPTS_VALID(opts, gtsc_reader_opts))
		return errno = EINVAL, NULL;
	r = calloc(1, sizeof(*r));
	if (r)
		r->in = calloc(n_in, sizeof(*r->in));
	if (!r || !r->in) {
		free(r);
		return errno = ENOMEM, NULL;
	}
	r->n_in = n_in;
	for (size_t i = 0; i < n_in; i++)
		r->in[i].fd = -1;
	r->unordered = OPTS_GET(opts, unordered, false);
	/* one thread: for comparing outputs, timing, or a caller that must not have threads */
	r->one_thread = getenv("GTSC_READER_THREADS") && !strcmp(getenv("GTSC_READER_THREADS"), "1");
	r->errbuf = OPTS_GET(opts, errbuf, NULL);
	r->errbuf_sz = OPTS_GET(opts, errbuf_sz, 0);
	if (r->errbuf && r->errbuf_sz)
		r->errbuf[0] = '\0';
	want_parts(r, OPTS_GET(opts, reads, NULL), OPTS_GET(opts, nr_reads, 0));
	return r;
}

struct gtsc_reader *gtsc_reader__open_files(const char *const *paths, size_t n,
					    const struct gtsc_reader_opts *opts)
{
	struct gtsc_reader *r;
	int err;

	for (size_t i = 0; paths && i < n; i++)
		if (!paths[i])
			return errno = EINVAL, NULL;
	r = paths ? reader_new(n, opts) : (errno = EINVAL, NULL);
	if (!r)
		return NULL;
	r->paths = paths;
	err = open_files(r);
	r->paths = NULL; /* the caller's: not kept */
	if (err) {
		gtsc_reader__close(r);
		errno = -err;
		return NULL;
	}
	return r;
}

struct gtsc_reader *gtsc_reader__open(const char *path, const struct gtsc_reader_opts *opts)
{
	return gtsc_reader__open_files(path ? &path : NULL, 1, opts);
}

struct gtsc_reader *gt_reader__open_feed(const struct gtsc_reader_opts *opts)
{
	struct gtsc_reader *r = reader_new(1, opts);

	if (!r)
		return NULL;
	r->st.on = r->st.feed = r->st.want_hdr = true;
	r->file_size = ~0ULL;
	return r;
}

int gt_reader__feed(struct gtsc_reader *r, const void *data, size_t len)
{
	struct stream *st = &r->st;

	if (!st->feed || st->fed_all)
		return -EINVAL;
	if (!data) {
		st->fed_all = true;
		return 0;
	}
	if (st->ipos) {
		memmove(st->ibuf, st->ibuf + st->ipos, st->ilen - st->ipos);
		st->ilen -= st->ipos;
		st->ipos = 0;
	}
	if (GROW(st->ibuf, st->icap, st->ilen + len))
		return -ENOMEM;
	memcpy(st->ibuf + st->ilen, data, len);
	st->ilen += len;
	return 0;
}

int gt_reader__feed_meta(struct gtsc_reader *r)
{
	int err = r->st.feed ? stream_next(r) : -EINVAL;

	return err == -EAGAIN || err >= 0 ? 0 : err;
}

bool gtsc_reader__streaming(const struct gtsc_reader *r)
{
	return r && r->st.on;
}

struct trace_reader_ext *gt_reader__ext(const struct gtsc_reader *r)
{
	/* every reader is calloc'd by gtsc_reader__open*: never a const object */
	return &((struct gtsc_reader *)r)->ext;
}

void gtsc_reader__close(struct gtsc_reader *r)
{
	if (!r)
		return;
	/* first: the worker may be reading the descriptors closed below */
	gt_prefetch__stop(r->prefetch);
	for (size_t i = 0; i < r->n_in; i++)
		if (r->in[i].fd >= 0)
			close(r->in[i].fd);
	if (r->ext.free)
		r->ext.free(r->ext.data);
	gt_unpacker__free(&r->unpack);
	for (size_t i = 0; i < GTSC_CHUNK_TYPE_MAX; i++)
		free(r->texts[i].buf);
	for (size_t i = 0; i < r->n_owned; i++)
		free(r->owned[i]);
	for (size_t i = 0; i < r->n_live; i++)
		free(r->live[i].data);
	for (size_t i = 0; i < r->n_spare; i++)
		free(r->spare[i].data);
	free(r->owned);
	free(r->meta);
	gt_strbuf_free(&r->skips);
	free(r->feat);
	free(r->chans);
	free(r->sys);
	free(r->ksyms);
	free(r->stats);
	free(r->flights);
	free(r->funcs);
	free(r->stacks);
	free(r->stack_ips);
	free(r->chunks);
	free(r->in);
	free(r->st.ibuf);
	free(r->live);
	free(r->spare);
	free(r->pend);
	free(r->tmp);
	free(r);
}

/* ---- metadata accessors ---- */

/* The last occurrence wins: trailer meta lines update META's. */
static const char *kv_find(const struct kv *kv, size_t n, const char *key)
{
	if (!key)
		return NULL;
	for (size_t i = n; i-- > 0;) {
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
	}
	return NULL;
}

const char *gtsc_reader__meta(const struct gtsc_reader *r, const char *key)
{
	return kv_find(r->meta, r->n_meta, key);
}

const char *gt_reader__feature(const struct gtsc_reader *r, const char *key)
{
	return kv_find(r->feat, r->n_feat, key);
}

const char *gtsc_reader__chunk_text(const struct gtsc_reader *r, enum gtsc_chunk_type type,
				    size_t *len)
{
	if ((int)type <= 0 || type >= GTSC_CHUNK_TYPE_MAX || !r->texts[type].buf) {
		*len = 0;
		return NULL;
	}
	*len = r->texts[type].len;
	return r->texts[type].buf;
}

const struct trace_channel *gt_reader__channels(const struct gtsc_reader *r, size_t *n)
{
	*n = r->n_chans;
	return r->chans;
}

const struct gtsc_chan_stat *gt_reader__stats(const struct gtsc_reader *r, size_t *n)
{
	/* a trailer without stat lines still answers with an empty table */
	static const struct gtsc_chan_stat none[1];

	*n = r->has_trailer ? r->n_stats : 0;
	if (!r->has_trailer)
		return NULL;
	return r->n_stats ? r->stats : none;
}

const struct gtsc_flight_stat *gt_reader__flight_stats(const struct gtsc_reader *r, size_t *n)
{
	*n = r->n_flights;
	return r->flights;
}

__u64 gtsc_reader__prog_misses(const struct gtsc_reader *r)
{
	return r->prog_misses;
}

const char *gtsc_reader__prog_skips(const struct gtsc_reader *r)
{
	return r->skips.len ? r->skips.buf : "";
}

const struct gtsc_syscall_info *gtsc_reader__syscall(const struct gtsc_reader *r, int nr)
{
	struct gtsc_syscall_info key = { .nr = nr };

	if (!r->n_sys)
		return NULL;
	return bsearch(&key, r->sys, r->n_sys, sizeof(*r->sys), cmp_sys);
}

const struct gtsc_func_info *gtsc_reader__func(const struct gtsc_reader *r, __u32 id)
{
	struct gtsc_func_info key = { .id = id };

	if (!r->n_funcs)
		return NULL;
	return bsearch(&key, r->funcs, r->n_funcs, sizeof(*r->funcs), cmp_func_info);
}

const struct gtsc_func_info *gtsc_reader__funcs(const struct gtsc_reader *r, size_t *n)
{
	*n = r->n_funcs;
	return r->funcs;
}

const char *gtsc_reader__ksym(const struct gtsc_reader *r, __u64 addr, __u64 *off)
{
	size_t lo = 0, hi = r->n_ksyms;

	/* find the last symbol starting at or below ADDR */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (off)
		*off = addr - r->ksyms[lo - 1].addr;
	return r->ksyms[lo - 1].name;
}

const __u64 *gtsc_reader__stack(const struct gtsc_reader *r, const char *source, __u32 id,
				size_t *n)
{
	struct stack_ent key = { .source = source, .id = id };
	const struct stack_ent *e = NULL;

	if (r->n_stacks)
		e = bsearch(&key, r->stacks, r->n_stacks, sizeof(*r->stacks), cmp_stack);
	*n = e ? e->n : 0;
	return e ? r->stack_ips + e->off : NULL;
}

bool gtsc_reader__truncated(const struct gtsc_reader *r)
{
	return r->damaged;
}

const char *gtsc_reader__damage(const struct gtsc_reader *r)
{
	return r->damaged ? r->damage : "";
}

__u64 gtsc_reader__count(const struct gtsc_reader *r)
{
	return r->count;
}

/* ---- records ---- */

/* The spare buffer that fits SIZE most tightly, else the biggest (to grow); n_spare > 0. */
static size_t pick_spare(const struct gtsc_reader *r, size_t size)
{
	size_t best = 0;

	for (size_t i = 1; i < r->n_spare; i++) {
		size_t c = r->spare[i].cap, b = r->spare[best].cap;

		if (b < size ? c > b : c >= size && c < b)
			best = i;
	}
	return best;
}

/*
 * A buffer of SIZE bytes for a chunk of the batch being loaded.  Spares are
 * reused best-fit and grown to powers of two: chunks of every size come and
 * go, and a buffer freed and allocated again is fresh pages to fault in.
 */
static struct rbuf *get_rbuf(struct gtsc_reader *r, size_t size)
{
	struct rbuf b = {};

	if (GROW(r->live, r->cap_live, r->n_live + 1))
		return NULL;
	if (r->n_spare) {
		size_t i = pick_spare(r, size);

		b = r->spare[i];
		r->spare[i] = r->spare[--r->n_spare];
	}
	if (b.cap < size || !b.data) {
		/* contents need not survive: no realloc copy */
		free(b.data);
		b.data = gt_chunk_buf_alloc(size, &b.cap);
		if (!b.data)
			return NULL;
	}
	b.batch = r->batch;
	r->live[r->n_live] = b;
	return &r->live[r->n_live++];
}

/* Recycles the buffers of batches before KEEP; no record pending points into them. */
static int release_rbufs(struct gtsc_reader *r, __u64 keep)
{
	size_t j = 0;

	if (GROW(r->spare, r->cap_spare, r->n_spare + r->n_live))
		return -ENOMEM;
	for (size_t i = 0; i < r->n_live; i++) {
		if (r->live[i].batch < keep)
			r->spare[r->n_spare++] = r->live[i];
		else
			r->live[j++] = r->live[i];
	}
	r->n_live = j;
	return 0;
}

static int reserve_pend(struct gtsc_reader *r, size_t need)
{
	struct trace_rec_ref *p;
	size_t cap = r->cap_pend;

	if (need <= cap)
		return 0;
	if (GROW(r->pend, cap, need))
		return -ENOMEM;
	p = reallocarray(r->tmp, cap, sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->tmp = p;
	r->cap_pend = cap;
	return 0;
}

/* Indexes the records of a checked chunk; damage ends the chunk, not the file. */
static void index_records(struct gtsc_reader *r, const struct data_chunk *c, const char *data,
			  __u64 *batch_max)
{
	/* a chunk too short for one record may come before any: no array yet */
	struct trace_rec_ref *out = r->pend ? r->pend + r->n_pend : NULL;
	char why[UNPACK_WHY];

	r->n_pend += gt_unpack_index(&r->unpack, c, data, out, batch_max, why);
	if (why[0])
		mark_damaged(r, true, "%s", why);
}

/* CPUs this thread may run on: a worker on the caller's only CPU would just take turns. */
static int usable_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
}

/* Whether the next chunks are worth a worker: an indexed trace of two chunks or more. */
static bool want_prefetch(struct gtsc_reader *r)
{
	int fds[r->n_in];

	if (r->prefetch || r->one_thread || r->st.on || r->n_chunks - r->next_chunk < 2)
		return r->prefetch != NULL;
	if (usable_cpus() < 2) {
		r->one_thread = true;
		return false;
	}
	for (size_t i = 0; i < r->n_in; i++)
		fds[i] = r->in[i].fd;
	r->prefetch = gt_prefetch__start(r->chunks, r->n_chunks, r->next_chunk, fds, r->n_in,
					 r->unpack.want);
	r->one_thread = !r->prefetch;
	return r->prefetch != NULL;
}

/* The next chunk from the worker, as read_data_chunk() would have read it. */
static int take_prefetched(struct gtsc_reader *r, __u64 *batch_max)
{
	struct prefetched got;
	int err;

	if (GROW(r->live, r->cap_live, r->n_live + 1))
		return -ENOMEM;
	while (r->n_spare && gt_prefetch__give(r->prefetch, r->spare[r->n_spare - 1].data,
					       r->spare[r->n_spare - 1].cap))
		r->n_spare--;
	gt_prefetch__take(r->prefetch, r->next_chunk, &got);
	if (got.data)
		r->live[r->n_live++] = (struct rbuf){ .data = got.data, .cap = got.cap, .batch = r->batch };
	if (got.ret < 0) {
		/* the worker stopped: a retry reads on this thread */
		gt_prefetch__stop(r->prefetch);
		r->prefetch = NULL;
		r->one_thread = true;
		return got.ret;
	}
	if (got.ret) {
		mark_damaged(r, true, "%s", got.why);
		/* never yield bytes the CRC did not vouch for: end the trace here */
		r->stop = true;
		return 0;
	}
	err = reserve_pend(r, r->n_pend + got.n_refs);
	if (err)
		return err;
	if (got.n_refs) /* an empty chunk's refs may be NULL */
		memcpy(r->pend + r->n_pend, got.refs, got.n_refs * sizeof(*got.refs));
	r->n_pend += got.n_refs;
	if (got.rec_why[0])
		mark_damaged(r, true, "%s", got.rec_why);
	/* refs and damage copied: the worker may fill their slot again */
	gt_prefetch__drop(r->prefetch);
	if (got.max > *batch_max)
		*batch_max = got.max;
	r->next_chunk++;
	return 0;
}

/* 0 (also when damage stopped the walk), or -errno. */
static int read_data_chunk(struct gtsc_reader *r, __u64 *batch_max)
{
	const struct data_chunk *c = r->st.on ? &r->st.cur : &r->chunks[r->next_chunk];
	struct rbuf *b;
	int err;

	if (want_prefetch(r))
		return take_prefetched(r, batch_max);
	err = reserve_pend(r, r->n_pend + c->h.raw_len / sizeof(struct gtsc_rec_hdr));
	if (err)
		return err;
	b = get_rbuf(r, c->h.raw_len);
	if (!b)
		return -ENOMEM;
	/* a column chunk is indexed as it decodes (none when too short for a record) */
	r->unpack.ix.refs = r->pend ? r->pend + r->n_pend : NULL;
	err = load_payload(r, c, b->data, true);
	r->unpack.ix.refs = NULL;
	if (err < 0)
		return err;
	if (err) {
		/* never yield bytes the CRC did not vouch for: end the trace here */
		r->stop = true;
		r->st.end = true;
		return 0;
	}
	index_records(r, c, b->data, batch_max);
	if (r->st.on)
		stream_took(r);
	else
		r->next_chunk++;
	return 0;
}

/*
 * Merges X[0, nx) and Y[0, ny) into OUT, X first on a tie (file order).
 * Y_IN_PLACE: Y is OUT + nx, where its tail already is when X runs out;
 * OUT never overtakes Y's unread records.  Branch-free selection: which run
 * has the next record is a coin toss on interleaved rings.
 */
static void merge2(const struct trace_rec_ref *x, size_t nx, const struct trace_rec_ref *y,
		   size_t ny, struct trace_rec_ref *out, bool y_in_place)
{
	const struct trace_rec_ref *xe = x + nx, *ye = y + ny;

	while (x < xe && y < ye) {
		bool from_y = y->ts < x->ts;

		*out++ = *(from_y ? y : x);
		y += from_y;
		x += !from_y;
	}
	memmove(out, x, (size_t)(xe - x) * sizeof(*x));
	if (!y_in_place)
		memmove(out + (xe - x), y, (size_t)(ye - y) * sizeof(*y));
}

/* Merges A[lo, mid) and A[mid, hi) into B; ties keep file order. */
static void merge_runs(const struct trace_rec_ref *a, struct trace_rec_ref *b, size_t lo,
		       size_t mid, size_t hi)
{
	merge2(a + lo, mid - lo, a + mid, hi - mid, b + lo, false);
}

static size_t run_end(const struct trace_rec_ref *a, size_t i, size_t n)
{
	while (++i < n && a[i].ts >= a[i - 1].ts)
		;
	return i;
}

/* Up to this many runs are merged from the back, more pairwise. */
#define MERGE_WAYS 4

/*
 * Merges the runs of A[0, N) starting at START[0, k) (START[k] = N, k >= 2)
 * into B, from the back: the last two runs, then each run before into that
 * result in place.  The leftover run (the first) and the rings' runs cover
 * about the same time, so each merge in place stops where its run ends.
 */
static void merge_k(const struct trace_rec_ref *a, struct trace_rec_ref *b, const size_t *start,
		    size_t k, size_t n)
{
	size_t j = k - 2;

	merge_runs(a, b, start[j], start[j + 1], n);
	while (j--)
		merge2(a + start[j], start[j + 1] - start[j], b + start[j + 1], n - start[j + 1],
		       b + start[j], true);
}

/*
 * Stable natural merge sort.  The input is a few long ascending runs (the
 * sorted leftover, then one per ring): up to MERGE_WAYS of them are merged
 * by merge_k, more take log2(rings) pairwise passes.
 */
static void sort_pend(struct gtsc_reader *r)
{
	struct trace_rec_ref *a = r->pend, *b = r->tmp, *t;
	size_t n = r->n_pend, start[MERGE_WAYS + 1], k = 0;

	for (size_t i = 0; i < n && k <= MERGE_WAYS; i = run_end(a, i, n))
		if (k < MERGE_WAYS)
			start[k++] = i;
		else
			k++;
	if (k <= 1)
		return;
	if (k <= MERGE_WAYS) {
		start[k] = n;
		merge_k(a, b, start, k, n);
		r->pend = b;
		r->tmp = a;
		return;
	}
	for (;;) {
		size_t i = 0, runs = 0;

		while (i < n) {
			size_t mid = run_end(a, i, n);
			size_t hi = mid < n ? run_end(a, mid, n) : n;

			if (!i && hi == n && mid == n)
				break;
			merge_runs(a, b, i, mid, hi);
			i = hi;
			runs++;
		}
		if (!runs)
			break;
		t = a;
		a = b;
		b = t;
		if (runs == 1)
			break;
	}
	r->pend = a;
	r->tmp = b;
}

/* First index whose timestamp is above TS. */
static size_t upper_bound(const struct trace_rec_ref *a, size_t n, __u64 ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int start_batch(struct gtsc_reader *r)
{
	size_t left = r->n_pend - r->head;

	if (left && r->head)
		memmove(r->pend, r->pend + r->head, left * sizeof(*r->pend));
	r->n_pend = left;
	r->head = r->emit_end = 0;
	/* what is still pending came from the previous batch only */
	return release_rbufs(r, left ? r->batch - 1 : r->batch);
}

/* Whether a DATA chunk is next: 1, 0 at the end, -EAGAIN (a feed), -errno. */
static int more_chunks(struct gtsc_reader *r)
{
	if (r->st.on)
		return stream_next(r);
	return r->next_chunk < r->n_chunks;
}

static int load_batch(struct gtsc_reader *r)
{
	__u64 batch_max = 0;
	size_t before;
	bool final;
	int err, ret = 1;

	err = start_batch(r);
	if (err)
		return err;
	before = r->n_pend;
	while (!r->stop && (ret = more_chunks(r)) > 0) {
		__u16 flags = r->st.on ? r->st.cur.h.flags : r->chunks[r->next_chunk].h.flags;

		err = read_data_chunk(r, &batch_max);
		if (err)
			return err;
		if (r->unordered || (flags & GTSC_CHUNK_ROUND_END))
			break;
	}
	/* a feed without the next round: what is loaded is a batch, the rest waits */
	if (ret == -EAGAIN && r->n_pend == before)
		return ret;
	if (ret < 0 && ret != -EAGAIN)
		return ret;
	final = r->stop || (r->st.on ? !ret : r->next_chunk == r->n_chunks);
	if (r->unordered || final) {
		if (!r->unordered)
			sort_pend(r);
		r->emit_end = r->n_pend;
	} else {
		sort_pend(r);
		r->emit_end = r->have_max ? upper_bound(r->pend, r->n_pend, r->max_ts) : 0;
	}
	/* a batch of only empty or damaged chunks has no timestamp to add */
	if (r->n_pend > before) {
		if (!r->have_max || batch_max > r->max_ts)
			r->max_ts = batch_max;
		r->have_max = true;
	}
	r->batch++;
	r->eof = final;
	return 0;
}

/* 1 when pend[head, emit_end) has records, 0 at the end, -errno. */
static int fill(struct gtsc_reader *r)
{
	int err;

	while (r->head == r->emit_end) {
		if (r->eof)
			return 0;
		err = load_batch(r);
		if (err == -EAGAIN)
			return err;
		if (err) {
			set_err(r, "cannot read the trace: %s", strerror(-err));
			return err;
		}
	}
	return 1;
}

int gtsc_reader__next(struct gtsc_reader *r, const struct gtsc_rec_hdr **rec)
{
	int ret;

	if (r->head == r->emit_end && (ret = fill(r)) <= 0)
		return ret;
	*rec = r->pend[r->head++].rec;
	r->count++;
	return 1;
}

int gt_reader__want(struct gtsc_reader *r, const struct col_want *w)
{
	if (r->batch || r->prefetch)
		return -EBUSY;
	r->want = *w;
	r->unpack.want = &r->want;
	return 0;
}

ssize_t gt_reader__next_span(struct gtsc_reader *r, const struct trace_rec_ref **refs)
{
	size_t n;
	int ret = fill(r);

	if (ret <= 0)
		return ret;
	n = r->emit_end - r->head;
	*refs = r->pend + r->head;
	r->head = r->emit_end;
	r->count += n;
	return (ssize_t)n;
}

int gtsc_reader__progress(const struct gtsc_reader *r, __u64 *done, __u64 *total)
{
	if (!r || !done || !total)
		return -EINVAL;
	const struct input *last = &r->in[r->n_in - 1];
	const struct data_chunk *c = &r->chunks[r->next_chunk];

	if (r->st.on) {
		/* a stream's length is unknown until it ends */
		*done = r->st.done;
		*total = 0;
		return 0;
	}
	*total = last->base + last->size;
	*done = r->next_chunk < r->n_chunks ? r->in[c->in].base + c->pos : *total;
	return 0;
}
