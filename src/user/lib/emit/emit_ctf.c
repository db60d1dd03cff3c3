// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CTF 1.8 as LTTng's kernel tracer writes it, so that babeltrace2 and
 * Trace Compass read a gtsc trace as they read an LTTng one:
 *  - packet header: magic, trace uuid, stream id, stream instance id;
 *  - packet context: timestamp_begin/end, content/packet size,
 *    packet_seq_num, events_discarded (a running count: babeltrace2 reports
 *    the growth between two packets as discarded events), cpu_id;
 *  - event header: class id and a 64-bit timestamp of clock "monotonic"
 *    (offset by the trace's measured wall-clock offset: times are absolute);
 *  - event context: LTTng's _pid, _tid and _procname[17] (lttng add-context
 *    -k -t pid -t tid -t procname);
 *  - payload: the class's fields, every name prefixed with '_' as LTTng
 *    does (readers drop it; it keeps TSDL keywords out).
 * Events are the field layer's (events.c): a record's class, its fields'
 * values as the text and JSON emitters resolve them (emit.c), under
 * LTTng's names (ctf_classes.c).  Every integer is byte-aligned and little
 * endian as the records are: no padding anywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include "ctf_classes.h"
#include "emit.h"
#include "emit_ctf.h"
#include "events.h"
#include "tp_class.h"

#define CTF_MAGIC 0xC1FC1FC1u
#define MAX_CPUS 8192	 /* CONFIG_NR_CPUS' largest */
#define MAX_CHANS 17	 /* GTSC_MAX_CHANNELS, and one for records of no channel */
#define PROCNAME_LEN 17	 /* LTTng's: comm and a NUL */
#define PKT_HDR_BYTES 32 /* magic 4, uuid 16, stream_id 4, stream_instance_id 8 */
#define PKT_CTX_BYTES 52 /* six u64 and cpu_id */

/*
 * A stream's times never go back (babeltrace2 stops at one that does); a
 * record older than its stream's last (a recorder's round boundary can
 * yield one late) goes to a further stream of its channel and CPU, a lane.
 */
struct ctf_stream {
	unsigned int chan, lane;
	__u16 cpu;
	bool started;	  /* its file exists (truncated at the first packet) */
	bool open;	  /* the packet being filled holds an event or drops */
	char *buf;	  /* the packet's events */
	size_t len, cap;
	__u64 begin_ns, end_ns, seq, discarded;
	struct ctf_stream *next_lane;
};

struct ctf_writer {
	const struct gtsc_reader *r;
	int dirfd;
	size_t packet_bytes;
	struct ctf_classes *classes;
	struct gtsc_event_printer *values; /* the emitters' resolution, comms and caches */
	unsigned int nr_chans;	   /* the trace's channels, then "other" */
	char chan_name[MAX_CHANS][32];
	unsigned int chan_of_type[GTSC_REC_TYPE_MAX];
	struct ctf_stream **streams; /* [chan * MAX_CPUS + cpu], made when first used */
	unsigned int nr_cpus;	     /* the highest CPU with a stream, plus one: what is walked */
	bool task_by_tp[GTSC_TASK_EXIT + 1]; /* the kernel's own event of this kind was recorded */
	__u8 uuid[16];
	__u64 events, discarded;
	char text[32]; /* an argument's pointer when its path was not captured */
};

/* The channel a record type is written to (session.c's routes), by name. */
static const char *const type_channel[GTSC_REC_TYPE_MAX] = {
	[GTSC_REC_SYS_ENTER] = "syscalls", [GTSC_REC_SYS_EXIT] = "syscalls",
	[GTSC_REC_KMEM_ALLOC] = "kmem",	   [GTSC_REC_KMEM_FREE] = "kmem",
	[GTSC_REC_KMEM_CACHE] = "kmem",	   [GTSC_REC_TASK] = "task",
	[GTSC_REC_FUNC] = "funcs",	   [GTSC_REC_TRACEPOINT] = "events",
};

/* The tracepoint LTTng records for each task record kind. */
static const char *const task_tp[GTSC_TASK_EXIT + 1] = {
	[GTSC_TASK_FORK] = "sched_process_fork",
	[GTSC_TASK_EXEC] = "sched_process_exec",
	[GTSC_TASK_EXIT] = "sched_process_exit",
};

/*
 * Channels by the trace's list; a type whose channel the trace lacks goes
 * to the only channel (a tool's trace) or to "other".
 */
static void map_channels(struct ctf_writer *w)
{
	GTSC_OPTS(gtsc_reader_channel, ch);
	unsigned int other;

	while (w->nr_chans < MAX_CHANS - 1 && !gtsc_reader__channel(w->r, w->nr_chans, &ch))
		snprintf(w->chan_name[w->nr_chans++], sizeof(w->chan_name[0]), "%s", ch.name);
	other = w->nr_chans == 1 ? 0 : w->nr_chans;
	snprintf(w->chan_name[w->nr_chans], sizeof(w->chan_name[0]), "other");
	for (int t = 0; t < GTSC_REC_TYPE_MAX; t++) {
		w->chan_of_type[t] = other;
		for (unsigned int i = 0; type_channel[t] && i < w->nr_chans; i++)
			if (!strcmp(w->chan_name[i], type_channel[t]))
				w->chan_of_type[t] = i;
	}
}

/*
 * A fork, exec or exit recorded twice, by the task channel and as the
 * kernel's tracepoint by name (-e sched:sched_process_fork), is one event
 * in LTTng's trace: the tracepoint's, with LTTng's fields and the context
 * of the task it fired in (a fork's parent).  The task record then only
 * names tasks.  Formats that do not parse leave both (as before).
 */
static void map_task_tracepoints(struct ctf_writer *w)
{
	struct tp_formats *tp = gt_tp_formats__new(w->r);
	const char *name, *group;

	for (size_t i = 0; tp && (name = gt_tp_formats__event(tp, i, &group)); i++)
		for (int k = 0; k <= GTSC_TASK_EXIT; k++)
			if (!strcmp(group, "sched") && !strcmp(name, task_tp[k]))
				w->task_by_tp[k] = true;
	gt_tp_formats__free(tp);
}

/* Whether record H is a task record whose event the trace has as a tracepoint. */
static bool task_twice(const struct ctf_writer *w, const struct gtsc_rec_hdr *h)
{
	const struct gtsc_rec_task *t = (const void *)h;

	return h->type == GTSC_REC_TASK && h->size >= sizeof(*t) && t->event <= GTSC_TASK_EXIT &&
	       w->task_by_tp[t->event];
}

/* A name for the trace that does not change when it is converted again: FNV-1a of its META. */
static void make_uuid(struct ctf_writer *w)
{
	size_t len = 0;
	const char *meta = gtsc_reader__chunk_text(w->r, GTSC_CHUNK_META, &len);
	__u64 h[2] = { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < len; i++)
			h[k] = (h[k] ^ (unsigned char)meta[i]) * 0x100000001b3ULL;
	memcpy(w->uuid, h, 16);
	w->uuid[6] = (w->uuid[6] & 0x0f) | 0x40; /* an RFC 4122 layout */
	w->uuid[8] = (w->uuid[8] & 0x3f) | 0x80;
}

struct ctf_writer *gt_ctf_writer__new(const struct gtsc_reader *r, int dirfd, size_t packet_bytes)
{
	struct ctf_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->r = r;
	w->dirfd = dirfd;
	w->packet_bytes = packet_bytes;
	w->classes = gt_ctf_classes__new(r);
	w->values = gt_emit_printer__new(r);
	w->streams = calloc((size_t)MAX_CHANS * MAX_CPUS, sizeof(*w->streams));
	if (!w->classes || !w->values || !w->streams) {
		gt_ctf_writer__free(w);
		errno = ENOMEM;
		return NULL;
	}
	map_channels(w);
	map_task_tracepoints(w);
	make_uuid(w);
	return w;
}

void gt_ctf_writer__free(struct ctf_writer *w)
{
	if (!w)
		return;
	for (unsigned int chan = 0; w->streams && chan < MAX_CHANS; chan++) {
		for (unsigned int cpu = 0; cpu < w->nr_cpus; cpu++) {
			struct ctf_stream *s = w->streams[(size_t)chan * MAX_CPUS + cpu], *next;

			for (; s; s = next) {
				next = s->next_lane;
				free(s->buf);
				free(s);
			}
		}
	}
	free(w->streams);
	gtsc_event_printer__free(w->values);
	gt_ctf_classes__free(w->classes);
	free(w);
}

void gt_ctf_writer__counts(const struct ctf_writer *w, __u64 *events, __u64 *discarded)
{
	*events = w->events;
	*discarded = w->discarded;
}

static struct ctf_stream *stream_of(struct ctf_writer *w, unsigned int chan, __u16 cpu)
{
	struct ctf_stream **sp;

	if (cpu >= MAX_CPUS || chan >= MAX_CHANS)
		return NULL;
	sp = &w->streams[(size_t)chan * MAX_CPUS + cpu];
	if (!*sp) {
		*sp = calloc(1, sizeof(**sp));
		if (*sp) {
			(*sp)->chan = chan;
			(*sp)->cpu = cpu;
			if (cpu >= w->nr_cpus)
				w->nr_cpus = cpu + 1u;
		}
	}
	return *sp;
}

/* The first lane of S whose times an event at TS continues. */
static struct ctf_stream *lane_for(struct ctf_stream *s, __u64 ts)
{
	while (s->end_ns > ts && (s->open || s->seq)) {
		if (!s->next_lane) {
			s->next_lane = calloc(1, sizeof(*s));
			if (!s->next_lane)
				return NULL;
			*s->next_lane = (struct ctf_stream){ .chan = s->chan, .cpu = s->cpu,
							     .lane = s->lane + 1 };
		}
		s = s->next_lane;
	}
	return s;
}

static int reserve(struct ctf_stream *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 4096;
	char *p;

	if (s->len + n <= s->cap)
		return 0;
	while (cap < s->len + n)
		cap *= 2;
	p = realloc(s->buf, cap);
	if (!p)
		return -ENOMEM;
	s->buf = p;
	s->cap = cap;
	return 0;
}

static void put(struct ctf_stream *s, const void *p, size_t n)
{
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_u64(char **p, __u64 v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

/* Closes the open packet: header, context and events appended to the stream's file. */
static int flush(struct ctf_writer *w, struct ctf_stream *s)
{
	char hdr[PKT_HDR_BYTES + PKT_CTX_BYTES], *p = hdr, name[64];
	__u64 bits = (sizeof(hdr) + s->len) * 8;
	__u32 magic = CTF_MAGIC, zero = 0, cpu = s->cpu;
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { s->buf, s->len } };
	ssize_t n;
	int fd;

	if (!s->open)
		return 0;
	/*
	 * babeltrace2 counts discarded events as the growth between packets:
	 * drops in a stream's first packet would show without their count.
	 */
	if (!s->seq && s->discarded) {
		struct ctf_stream first = { .chan = s->chan, .cpu = s->cpu, .open = true,
					    .begin_ns = s->begin_ns, .end_ns = s->begin_ns };
		int err = flush(w, &first);

		if (err)
			return err;
		s->started = true;
		s->seq = 1;
	}
	memcpy(p, &magic, 4);
	memcpy(p + 4, w->uuid, 16);
	memcpy(p + 20, &zero, 4);
	p += 24;
	put_u64(&p, ((__u64)s->lane * MAX_CHANS + s->chan) * MAX_CPUS + s->cpu);
	put_u64(&p, s->begin_ns);
	put_u64(&p, s->end_ns);
	put_u64(&p, bits); /* content_size */
	put_u64(&p, bits); /* packet_size: no padding */
	put_u64(&p, s->seq++);
	put_u64(&p, s->discarded);
	memcpy(p, &cpu, 4);
	if (s->lane)
		snprintf(name, sizeof(name), "%s_%u_%u", w->chan_name[s->chan], s->cpu, s->lane);
	else
		snprintf(name, sizeof(name), "%s_%u", w->chan_name[s->chan], s->cpu);
	fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
			    (s->started ? O_APPEND : O_TRUNC), 0644);
	if (fd < 0)
		return -errno;
	n = writev(fd, iov, s->len ? 2 : 1);
	if (close(fd) && n >= 0)
		n = -1;
	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(hdr) + s->len)
		return -EIO;
	s->started = true;
	s->open = false;
	s->len = 0;
	return 0;
}

/* The captured string of argument ARG on a sys_enter, else NULL. */
static const char *captured(const struct gtsc_rec_hdr *h, unsigned int arg, size_t *len)
{
	const struct gtsc_rec_sys_enter *e = (const void *)h;
	const __u8 *b = (const __u8 *)(e + 1);
	size_t left = h->size > sizeof(*e) ? h->size - sizeof(*e) : 0;
	size_t plen = e->payload_len < left ? e->payload_len : left;

	while (plen >= sizeof(struct gtsc_payload_item)) {
		const struct gtsc_payload_item *it = (const void *)b;
		size_t step = (sizeof(*it) + it->len + 7) & ~(size_t)7;

		if (sizeof(*it) + it->len > plen)
			break;
		if (it->arg == arg && it->kind == GTSC_PAY_STR && !it->index &&
		    !(it->flags & GTSC_PAY_FAULT)) {
			*len = strnlen((const char *)(it + 1), it->len);
			return (const char *)(it + 1);
		}
		b += step;
		plen = step < plen ? plen - step : 0;
	}
	return NULL;
}

/* The bytes of integer V, as wide as the field, little endian as the records. */
static void put_int(struct ctf_stream *s, __u64 v, unsigned int size)
{
	put(s, &v, size);
}

/* A string as CTF has it: up to its first NUL, then one. */
static int put_str(struct ctf_stream *s, const char *p, size_t len)
{
	len = p ? strnlen(p, len) : 0;
	if (reserve(s, len + 1))
		return -ENOMEM;
	put(s, p, len);
	s->buf[s->len++] = '\0';
	return 0;
}

static int put_seq(struct ctf_stream *s, const struct ctf_field *cf, const struct emit_value *v)
{
	__u32 n = v->kind == EV_ARRAY && v->elem_size ? v->len / v->elem_size : 0;

	if (reserve(s, 4 + (size_t)n * cf->size))
		return -ENOMEM;
	put(s, &n, 4);
	for (__u32 i = 0; i < n; i++)
		put_int(s, gt_emit_elem(v, i), cf->size);
	return 0;
}

/*
 * Field CF of REC (class EC): 1 when the record has no value for it (the
 * event's class is then one without it), 0, or -ENOMEM.
 */
static int put_field(struct ctf_writer *w, struct ctf_stream *s, const struct gtsc_event_class *ec,
		     const struct gtsc_rec_hdr *h, const struct ctf_field *cf)
{
	struct emit_value v;
	const char *p;
	size_t len;

	switch (cf->src) {
	case CTF_SRC_TID: put_int(s, h->tid, 4); return 0;
	case CTF_SRC_PID: put_int(s, h->pid, 4); return 0;
	case CTF_SRC_CAPTURED:
		p = captured(h, cf->arg, &len);
		if (p)
			return put_str(s, p, len);
		v = gt_emit_value(w->values, ec, h, cf->f);
		snprintf(w->text, sizeof(w->text), "0x%" PRIx64, (uint64_t)v.u);
		return put_str(s, w->text, sizeof(w->text));
	}
	v = gt_emit_value(w->values, ec, h, cf->f);
	if (v.kind == EV_OMIT)
		return 1;
	if (cf->type == CTF_STRING)
		return put_str(s, v.kind == EV_STR ? v.s : "", v.kind == EV_STR ? v.len : 0);
	if (cf->type == CTF_SEQ)
		return put_seq(s, cf, &v);
	put_int(s, v.kind == EV_INT || v.kind == EV_ERRNO ? (__u64)v.i : v.u, cf->size);
	return 0;
}

/*
 * 12-byte header, 25-byte context, then the fields; the header's class id
 * is known once the fields are, as a record may lack one.
 */
static int put_event(struct ctf_writer *w, struct ctf_stream *s, const struct gtsc_event_class *ec,
		     const struct ctf_class *full, const struct gtsc_rec_hdr *h)
{
	const char *comm = gtsc_comm_table__get(w->values->comms, h->pid, h->tid);
	char procname[PROCNAME_LEN] = {};
	__u64 omitted = 0;
	size_t at;
	int err = 0, id;
	__u32 id32;

	if (reserve(s, 12 + 8 + PROCNAME_LEN + 8 * full->nr_fields))
		return -ENOMEM;
	if (!s->open) {
		s->begin_ns = h->ts_ns;
		s->open = true;
	}
	s->end_ns = h->ts_ns > s->end_ns ? h->ts_ns : s->end_ns;
	strncpy(procname, comm, PROCNAME_LEN - 1);
	at = s->len;
	s->len += 4; /* the class id, below */
	put(s, &h->ts_ns, 8);
	put(s, &h->pid, 4);
	put(s, &h->tid, 4);
	put(s, procname, PROCNAME_LEN);
	for (unsigned int i = 0; i < full->nr_fields && err >= 0; i++) {
		/*
		 * A string or sequence before this field reserved only its own
		 * bytes and may have used up the 8 set aside above for this one
		 * (ASan, found by the fuzzer).
		 */
		if (reserve(s, 8))
			return -ENOMEM;
		err = put_field(w, s, ec, h, &full->fields[i]);
		if (err > 0)
			omitted |= 1ULL << i;
	}
	id = err < 0 ? err : gt_ctf_classes__id(w->classes, full, omitted);
	if (id < 0)
		return id;
	id32 = id;
	memcpy(s->buf + at, &id32, 4);
	w->events++;
	return s->len >= w->packet_bytes ? flush(w, s) : 0;
}

/*
 * Drops of a channel and CPU: counted in the packet they end, so that
 * babeltrace2 places them between that packet's start and its end, and
 * that packet closed now, so that the count lands where the drops did.
 */
static int put_drops(struct ctf_writer *w, const struct gtsc_rec_drops *d)
{
	GTSC_OPTS(gtsc_reader_channel, ch);
	unsigned int chan = w->nr_chans;
	struct ctf_stream *s;

	if (!d->count)
		return 0;
	for (unsigned int i = 0; i < w->nr_chans; i++)
		if (!gtsc_reader__channel(w->r, i, &ch) && ch.id == d->channel)
			chan = i;
	s = stream_of(w, chan, d->hdr.cpu);
	if (!s)
		return d->hdr.cpu >= MAX_CPUS ? 0 : -ENOMEM;
	if (!s->open) {
		s->begin_ns = s->seq ? s->end_ns : d->since_ns;
		s->open = true;
	}
	s->end_ns = d->hdr.ts_ns > s->end_ns ? d->hdr.ts_ns : s->end_ns;
	s->discarded += d->count;
	w->discarded += d->count;
	return flush(w, s);
}

int gt_ctf_writer__push(struct ctf_writer *w, const struct gtsc_rec_hdr *h)
{
	const struct gtsc_event_class *ec;
	const struct ctf_class *full;
	struct ctf_stream *s;
	int n;

	if (h->type == GTSC_REC_DROPS)
		return put_drops(w, (const void *)h);
	n = gt_emit_printer__note(w->values, h);
	if (n || task_twice(w, h))
		return n < 0 ? n : 0;
	ec = gt_event_class__of(w->r, h);
	if (!ec)
		return 0;
	full = gt_ctf_classes__of(w->classes, ec, h);
	if (!full)
		return -ENOMEM;
	s = stream_of(w, h->type < GTSC_REC_TYPE_MAX ? w->chan_of_type[h->type] : w->nr_chans,
		      h->cpu);
	if (s)
		s = lane_for(s, h->ts_ns);
	if (!s)
		return h->cpu >= MAX_CPUS ? -EINVAL : -ENOMEM;
	return put_event(w, s, ec, full, h);
}

/* ---- metadata ---- */

/* A TSDL string literal: quotes and backslashes escaped, control bytes as '?'. */
static void put_literal(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
	fputc('"', f);
}

static void env_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "\t%s = ", key);
	put_literal(f, v ? v : "");
	fputs(";\n", f);
}

static __s64 meta_num(const struct ctf_writer *w, const char *key)
{
	const char *v = gtsc_reader__meta(w->r, key);

	return v ? strtoll(v, NULL, 10) : 0;
}

/* LTTng's env keys (what Trace Compass reads), then gtsc's own. */
static void put_env(const struct ctf_writer *w, FILE *f)
{
	const char *tool = gtsc_reader__meta(w->r, "tool") ?: "gtsc-bpf";
	__s64 ns;
	time_t start;
	unsigned int ver[3] = {};
	char name[64], when[32];
	struct tm tm;
	const char *sp = strchr(tool, ' ');

	snprintf(name, sizeof(name), "%.*s", sp ? (int)(sp - tool) : (int)strlen(tool), tool);
	if (sp)
		sscanf(sp + 1, "%u.%u.%u", &ver[0], &ver[1], &ver[2]);
	/* a damaged META's times give the epoch, not an overflow or a year past int */
	if (__builtin_add_overflow(meta_num(w, "start_ns"), meta_num(w, "wall_offset_ns"), &ns))
		ns = 0;
	start = ns / 1000000000LL;
	if (!gmtime_r(&start, &tm)) {
		start = 0;
		gmtime_r(&start, &tm);
	}
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S+0000", &tm);
	fputs("env {\n", f);
	env_str(f, "hostname", gtsc_reader__meta(w->r, "hostname"));
	env_str(f, "domain", "kernel");
	env_str(f, "sysname", "Linux");
	env_str(f, "kernel_release", gtsc_reader__meta(w->r, "kernel"));
	env_str(f, "kernel_version", gtsc_reader__meta(w->r, "kernel_version"));
	env_str(f, "tracer_name", name);
	fprintf(f, "\ttracer_major = %u;\n\ttracer_minor = %u;\n\ttracer_patchlevel = %u;\n",
		ver[0], ver[1], ver[2]);
	env_str(f, "trace_buffering_scheme", "global");
	env_str(f, "trace_creation_datetime", when);
	env_str(f, "architecture", gtsc_reader__meta(w->r, "arch"));
	fprintf(f, "\tnr_cpus = %lld;\n", (long long)meta_num(w, "nr_cpus"));
	fprintf(f, "\tgtsc_record_abi_major = %d;\n\tgtsc_record_abi_minor = %d;\n};\n\n",
		GTSC_REC_ABI_MAJOR, GTSC_REC_ABI_MINOR);
}

/* CLOCK_MONOTONIC, offset to the epoch by the offset the recorder measured. */
static void put_clock(const struct ctf_writer *w, FILE *f, const char *uuid)
{
	__s64 off = meta_num(w, "wall_offset_ns");
	__s64 sec = off / 1000000000LL, ns = off % 1000000000LL;

	if (ns < 0) {
		ns += 1000000000LL;
		sec--;
	}
	fprintf(f, "clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		   "\tdescription = \"Monotonic Clock\";\n\tfreq = 1000000000; /* Frequency, in Hz */\n"
		   "\t/* clock value offset from Epoch is: offset * (1/freq) */\n"
		   "\toffset_s = %lld;\n\toffset = %lld;\n\tprecision = 1;\n\tabsolute = TRUE;\n};\n\n",
		uuid, (long long)sec, (long long)ns);
}

static void put_field_decl(FILE *f, const struct ctf_field *cf)
{
	if (cf->type == CTF_STRING) {
		fprintf(f, "\t\tstring _%s;\n", cf->name);
		return;
	}
	if (cf->type == CTF_SEQ)
		fprintf(f, "\t\tuint32_t __%s_length;\n", cf->name);
	fprintf(f, "\t\tinteger { size = %u; align = 8; signed = %d; encoding = none; base = %d; } _%s",
		cf->size * 8, cf->is_signed, cf->hex ? 16 : 10, cf->name);
	if (cf->type == CTF_SEQ)
		fprintf(f, "[__%s_length]", cf->name);
	fputs(";\n", f);
}

static const char tsdl_types[] =
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n\n";

static const char tsdl_stream[] =
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
	" := uint64_clock_monotonic_t;\n\n"
	"struct packet_context {\n"
	"\tuint64_clock_monotonic_t timestamp_begin;\n"
	"\tuint64_clock_monotonic_t timestamp_end;\n"
	"\tuint64_t content_size;\n"
	"\tuint64_t packet_size;\n"
	"\tuint64_t packet_seq_num;\n"
	"\tunsigned long events_discarded;\n"
	"\tuint32_t cpu_id;\n"
	"};\n\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tevent.header := struct {\n"
	"\t\tuint32_t id;\n"
	"\t\tuint64_clock_monotonic_t timestamp;\n"
	"\t};\n"
	"\tpacket.context := struct packet_context;\n"
	"\tevent.context := struct {\n"
	"\t\tint32_t _pid;\n"
	"\t\tint32_t _tid;\n"
	"\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; base = 10; }"
	" _procname[17];\n"
	"\t};\n"
	"};\n\n";

int gt_ctf_writer__metadata(const struct ctf_writer *w, FILE *f)
{
	const __u8 *u = w->uuid;
	char uuid[40];

	snprintf(uuid, sizeof(uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
	fprintf(f, "/* CTF 1.8 */\n\n%s", tsdl_types);
	fprintf(f, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		   "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t  uuid[16];\n"
		   "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n",
		uuid);
	put_env(w, f);
	put_clock(w, f, uuid);
	fputs(tsdl_stream, f);
	for (unsigned int id = 0; id < gt_ctf_classes__count(w->classes); id++) {
		const struct ctf_class *ec = gt_ctf_classes__get(w->classes, id);

		fprintf(f, "event {\n\tname = ");
		put_literal(f, ec->name);
		fprintf(f, ";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n", id);
		for (unsigned int i = 0; i < ec->nr_fields; i++)
			put_field_decl(f, &ec->fields[i]);
		fputs("\t};\n};\n\n", f);
	}
	return ferror(f) ? -EIO : 0;
}

int gt_ctf_writer__finish(struct ctf_writer *w)
{
	int err = 0, fd;
	FILE *f;

	/* up to nr_cpus: the 1 MiB of slots is mostly NULLs never touched */
	for (unsigned int chan = 0; chan < MAX_CHANS && !err; chan++)
		for (unsigned int cpu = 0; cpu < w->nr_cpus && !err; cpu++)
			for (struct ctf_stream *s = w->streams[(size_t)chan * MAX_CPUS + cpu]; s && !err;
			     s = s->next_lane)
				err = flush(w, s);
	if (err)
		return err;
	fd = openat(w->dirfd, "metadata", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	err = gt_ctf_writer__metadata(w, f);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}
