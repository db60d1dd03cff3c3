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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lz4.h>
#include <zlib.h>

#include "trace_reader.h"
#include "trace_util.h"

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

struct data_chunk {
	__u64 pos; /* of its header */
	__u32 idx; /* chunk number in file order */
	struct gtsc_chunk_hdr h;
};

/* A decompressed DATA chunk, kept while records of its batch may be pending. */
struct rbuf {
	char *data;
	size_t cap;
	__u64 batch;
};

struct gtsc_reader {
	int fd;
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
	__u64 prog_misses;

	bool damaged;
	bool damage_in_data; /* the first damage next() found: earliest in the file */
	char damage[256];

	/* DATA chunk index from open(), consumed by next() */
	struct data_chunk *chunks;
	size_t n_chunks, cap_chunks;
	size_t next_chunk;
	bool stop;

	z_stream zs;
	bool zs_ready;
	char *stored; /* compressed bytes of the chunk being read */
	size_t stored_cap;

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

static int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = reallocarray(*arr, ncap, elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

#define GROW(arr, cap, need) grow_array((void **)&(arr), &(cap), (need), sizeof(*(arr)))

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

/* Bytes read, short only at end of file, or -errno. */
static ssize_t pread_full(int fd, void *buf, size_t len, __u64 off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t ret = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			break;
		done += ret;
	}
	return done;
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

static int read_file_hdr(struct gtsc_reader *r, const char *path)
{
	size_t magic_len = sizeof(r->fh.magic);
	ssize_t n;

	n = pread_full(r->fd, &r->fh, sizeof(r->fh), 0);
	if (n < 0) {
		set_err(r, "cannot read %s: %s", path, strerror((int)-n));
		return (int)n;
	}
	if ((size_t)n < magic_len)
		magic_len = n;
	if (memcmp(r->fh.magic, GTSC_FILE_MAGIC, magic_len)) {
		set_err(r, "%s is not a gtsc trace file", path);
		return -EBADMSG;
	}
	if ((size_t)n < sizeof(r->fh)) {
		set_err(r, "%s ends inside its file header (%zd of %zu bytes): it is empty or was cut before recording began",
			path, n, sizeof(r->fh));
		return -EBADMSG;
	}
	return check_file_hdr(r, path);
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
	if (grow_array((void **)arr, cap, *n + 1, sizeof(**arr)))
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
	char *f[2 + 2 * 6 + 1];
	char *end;
	long nr;
	int n;

	n = split_tabs(line, f, 2 + 2 * 6 + 1);
	if (n < 2 || !*f[0] || !*f[1])
		return 0;
	errno = 0;
	nr = strtol(f[0], &end, 10);
	if (errno || *end || nr < -0x7fffffffL || nr > 0x7fffffffL)
		return 0;
	s.nr = (int)nr;
	copy_str(s.name, sizeof(s.name), f[1]);
	for (int i = 2; i + 1 < n && s.nr_args < 6; i += 2, s.nr_args++) {
		copy_str(s.arg_type[s.nr_args], sizeof(s.arg_type[0]), f[i]);
		copy_str(s.arg_name[s.nr_args], sizeof(s.arg_name[0]), f[i + 1]);
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
		return 0;
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
	if (grow_array((void **)&t->buf, &t->cap, t->len + len + 1, 1))
		return -ENOMEM;
	memcpy(t->buf + t->len, data, len);
	t->len += len;
	t->buf[t->len] = '\0';
	return 0;
}

/* ---- chunk payloads ---- */

static int unlz4(struct gtsc_reader *r, const struct data_chunk *c, const char *in, char *out,
		 bool in_data)
{
	const struct gtsc_chunk_hdr *h = &c->h;

	if (LZ4_decompress_safe(in, out, (int)h->len, (int)h->raw_len) == (int)h->raw_len)
		return 0;
	mark_damaged(r, in_data,
		     "chunk %u at byte %llu does not decompress to its stated %u bytes; records before it are readable",
		     c->idx, (unsigned long long)c->pos, h->raw_len);
	return 1;
}

/*
 * Reads chunk C's payload into OUT (room for raw_len bytes) and checks it.
 * 0: good; 1: damaged (said why); -errno: I/O error.
 */
static int load_payload(struct gtsc_reader *r, const struct data_chunk *c, char *out, bool in_data)
{
	const struct gtsc_chunk_hdr *h = &c->h;
	bool zlib = h->flags & GTSC_CHUNK_ZLIB;
	bool lz4 = h->flags & GTSC_CHUNK_LZ4;
	char *in = out;
	ssize_t n;
	int ret;

	if (zlib || lz4) {
		if (GROW(r->stored, r->stored_cap, h->len))
			return -ENOMEM;
		in = r->stored;
	}
	n = pread_full(r->fd, in, h->len, c->pos + sizeof(*h));
	if (n < 0)
		return (int)n;
	if ((size_t)n < h->len) {
		/* the file shrank since open() */
		mark_damaged(r, in_data,
			     "the file is truncated: it ends inside chunk %u at byte %llu; records up to there are readable",
			     c->idx, (unsigned long long)c->pos);
		return 1;
	}
	if (trace_chunk_crc(h, in, h->len) != h->crc) {
		mark_damaged(r, in_data,
			     "chunk %u at byte %llu fails its CRC check; records before it are readable",
			     c->idx, (unsigned long long)c->pos);
		return 1;
	}
	if (lz4)
		return unlz4(r, c, in, out, in_data);
	if (!zlib)
		return 0;
	if (inflateReset(&r->zs) != Z_OK)
		return -ENOMEM;
	r->zs.next_in = (Bytef *)in;
	r->zs.avail_in = h->len;
	r->zs.next_out = (Bytef *)out;
	r->zs.avail_out = h->raw_len;
	ret = inflate(&r->zs, Z_FINISH);
	if (ret == Z_MEM_ERROR)
		return -ENOMEM;
	if (ret != Z_STREAM_END || r->zs.avail_out) {
		mark_damaged(r, in_data,
			     "chunk %u at byte %llu does not decompress to its stated %u bytes; records before it are readable",
			     c->idx, (unsigned long long)c->pos, h->raw_len);
		return 1;
	}
	return 0;
}

/* 0, 1 when damaged, -errno. */
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
	if (type == GTSC_CHUNK_TRAILER)
		r->has_trailer = true;
	err = append_text(&r->texts[type], raw, c->h.raw_len);
	if (err)
		return err;
	return parse_text(r, type, raw, c->h.raw_len);
}

/* ---- the chunk walk ---- */

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
	if (h->flags & GTSC_CHUNK_CODEC_MASK & ~(GTSC_CHUNK_ZLIB | GTSC_CHUNK_LZ4)) {
		mark_damaged(r, false,
			     "chunk %u at byte %llu is compressed in a way this gtsc-bpf does not know (flags 0x%x): a newer recorder wrote it, or it is damaged; records before it are readable",
			     c->idx, pos, h->flags);
		return false;
	}
	if (h->len > GTSC_CHUNK_MAX_LEN || h->raw_len > GTSC_CHUNK_MAX_LEN ||
	    (h->flags & GTSC_CHUNK_ZLIB && h->flags & GTSC_CHUNK_LZ4) ||
	    (!(h->flags & GTSC_CHUNK_CODEC_MASK) && h->len != h->raw_len)) {
		mark_damaged(r, false,
			     "chunk %u at byte %llu has an impossible length; records before it are readable",
			     c->idx, pos);
		return false;
	}
	return true;
}

static int walk_chunks(struct gtsc_reader *r)
{
	struct data_chunk c = { .pos = r->fh.hdr_size };
	int err;

	for (;; c.idx++) {
		__u64 left = r->file_size - c.pos;
		ssize_t n;

		if (!left)
			break;
		n = left < sizeof(c.h) ? 0 : pread_full(r->fd, &c.h, sizeof(c.h), c.pos);
		if (n < 0)
			return (int)n;
		if ((size_t)n < sizeof(c.h) || (c.h.magic == GTSC_CHUNK_MAGIC &&
						c.h.len <= GTSC_CHUNK_MAX_LEN &&
						c.h.len > left - sizeof(c.h))) {
			mark_damaged(r, false,
				     "the file is truncated: it ends inside chunk %u at byte %llu; records up to there are readable",
				     c.idx, (unsigned long long)c.pos);
			break;
		}
		if (!check_chunk_hdr(r, &c))
			break;
		if (c.h.type == GTSC_CHUNK_DATA) {
			if (GROW(r->chunks, r->cap_chunks, r->n_chunks + 1))
				return -ENOMEM;
			r->chunks[r->n_chunks++] = c;
		} else {
			err = load_meta_chunk(r, &c);
			if (err < 0)
				return err;
			if (err)
				break;
		}
		c.pos += sizeof(c.h) + c.h.len;
	}
	if (!r->has_trailer)
		mark_damaged(r, false,
			     "the trace has no trailer: the recorder did not finish (killed?)");
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

/* ---- open / close ---- */

static int open_file(struct gtsc_reader *r, const char *path)
{
	struct stat st;
	int err;

	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		err = -errno;
		set_err(r, "cannot open %s: %s", path, strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(r, "%s is not a regular file", path);
		return -EINVAL;
	}
	r->file_size = st.st_size;
	err = read_file_hdr(r, path);
	if (err)
		return err;
	if (inflateInit(&r->zs) != Z_OK)
		return -ENOMEM;
	r->zs_ready = true;
	/* the chunk CRC already vouches for the stream: skip zlib's adler32 pass */
	inflateValidate(&r->zs, 0);
	err = walk_chunks(r);
	if (err) {
		set_err(r, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	if (r->n_ksyms)
		qsort(r->ksyms, r->n_ksyms, sizeof(*r->ksyms), cmp_ksym);
	if (r->n_sys)
		qsort(r->sys, r->n_sys, sizeof(*r->sys), cmp_sys);
	if (r->n_funcs)
		qsort(r->funcs, r->n_funcs, sizeof(*r->funcs), cmp_func_info);
	if (r->n_stacks)
		qsort(r->stacks, r->n_stacks, sizeof(*r->stacks), cmp_stack);
	return 0;
}

struct gtsc_reader *gtsc_reader__open(const char *path, const struct gtsc_reader_opts *opts)
{
	struct gtsc_reader *r;
	int err;

	if (!path || !OPTS_VALID(opts, gtsc_reader_opts)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->fd = -1;
	r->unordered = OPTS_GET(opts, unordered, false);
	r->errbuf = OPTS_GET(opts, errbuf, NULL);
	r->errbuf_sz = OPTS_GET(opts, errbuf_sz, 0);
	if (r->errbuf && r->errbuf_sz)
		r->errbuf[0] = '\0';
	err = open_file(r, path);
	if (err) {
		gtsc_reader__close(r);
		errno = -err;
		return NULL;
	}
	return r;
}

void gtsc_reader__close(struct gtsc_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs_ready)
		inflateEnd(&r->zs);
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
	free(r->stored);
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

const char *gtsc_reader__feature(const struct gtsc_reader *r, const char *key)
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

const struct trace_channel *gtsc_reader__channels(const struct gtsc_reader *r, size_t *n)
{
	*n = r->n_chans;
	return r->chans;
}

const struct gtsc_chan_stat *gtsc_reader__stats(const struct gtsc_reader *r, size_t *n)
{
	/* a trailer without stat lines still answers with an empty table */
	static const struct gtsc_chan_stat none[1];

	*n = r->has_trailer ? r->n_stats : 0;
	if (!r->has_trailer)
		return NULL;
	return r->n_stats ? r->stats : none;
}

const struct gtsc_flight_stat *gtsc_reader__flight_stats(const struct gtsc_reader *r, size_t *n)
{
	*n = r->n_flights;
	return r->flights;
}

__u64 gtsc_reader__prog_misses(const struct gtsc_reader *r)
{
	return r->prog_misses;
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
		for (b.cap = 4096; b.cap < size; b.cap *= 2)
			;
		b.data = malloc(b.cap);
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
	size_t off = 0, len = c->h.raw_len, n = r->n_pend;
	struct trace_rec_ref *pend = r->pend;
	__u64 max = *batch_max;
	const char *why = NULL;
	struct gtsc_rec_hdr h;

	while (off < len) {
		if (len - off < sizeof(h)) {
			why = "crosses the chunk's end";
			break;
		}
		/* records need not be aligned in a damaged file: read the header by bytes */
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off) {
			why = h.size < sizeof(h) ? "is shorter than a record header"
						 : "crosses the chunk's end";
			break;
		}
		if (h.type < GTSC_REC_TYPE_MAX && h.size < trace_rec_min_sizes[h.type]) {
			why = "is shorter than its type's minimum size";
			break;
		}
		/* the next record would be misaligned, and records are handed out as typed pointers */
		if (h.size % TRACE_REC_ALIGN) {
			why = "has a size that is not a multiple of 8";
			break;
		}
		pend[n].ts = h.ts_ns;
		pend[n].rec = (const struct gtsc_rec_hdr *)(data + off);
		n++;
		if (h.ts_ns > max)
			max = h.ts_ns;
		off += h.size;
	}
	r->n_pend = n;
	*batch_max = max;
	if (why)
		mark_damaged(r, true,
			     "the record at offset %zu of chunk %u (at byte %llu) %s; the rest of that chunk is skipped",
			     off, c->idx, (unsigned long long)c->pos, why);
}

/* 0 (also when damage stopped the walk), or -errno. */
static int read_data_chunk(struct gtsc_reader *r, __u64 *batch_max)
{
	const struct data_chunk *c = &r->chunks[r->next_chunk];
	struct rbuf *b;
	int err;

	err = reserve_pend(r, r->n_pend + c->h.raw_len / sizeof(struct gtsc_rec_hdr));
	if (err)
		return err;
	b = get_rbuf(r, c->h.raw_len);
	if (!b)
		return -ENOMEM;
	err = load_payload(r, c, b->data, true);
	if (err < 0)
		return err;
	if (err) {
		/* never yield bytes the CRC did not vouch for: end the trace here */
		r->stop = true;
		return 0;
	}
	r->next_chunk++;
	index_records(r, c, b->data, batch_max);
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

static int load_batch(struct gtsc_reader *r)
{
	__u64 batch_max = 0;
	size_t before;
	bool final;
	int err;

	err = start_batch(r);
	if (err)
		return err;
	before = r->n_pend;
	while (!r->stop && r->next_chunk < r->n_chunks) {
		__u16 flags = r->chunks[r->next_chunk].h.flags;

		err = read_data_chunk(r, &batch_max);
		if (err)
			return err;
		if (r->unordered || (flags & GTSC_CHUNK_ROUND_END))
			break;
	}
	final = r->stop || r->next_chunk == r->n_chunks;
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

ssize_t gtsc_reader__next_span(struct gtsc_reader *r, const struct trace_rec_ref **refs)
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
	*total = r->file_size;
	*done = r->next_chunk < r->n_chunks ? r->chunks[r->next_chunk].pos : r->file_size;
	return 0;
}
