// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "feature_probe.h"
#include "kmem_analysis.h"
#include "kmem_check.h"
#include "kmem_stream.h"
#include "trace_reader.h"
#include "trace_util.h"

#define MAX_CPUS 1024	/* GTSC_MAX_CPUS: a record naming a higher CPU is damaged */
#define MAX_CHANNELS 16 /* GTSC_MAX_CHANNELS */
/* A window holding another event's records lasts less (a softirq's run, under TCG). */
#define NEST_MAX_NS 10000000ULL
/* Task, softirq, hardirq, NMI: a record's window holds at most three levels more. */
#define NEST_LEVELS 4

/*
 * The rings records come from: a record's type says which channel wrote it
 * (printf records go to the funcs channel unless a tool routes them).
 */
enum stream { S_TASK, S_SYSCALLS, S_KMEM, S_FUNCS, S_EVENTS, S_MAX };
static const char *const stream_channel[S_MAX] = { "task", "syscalls", "kmem", "funcs", "events" };
/*
 * How deep their writers nest on one CPU (check_order): syscall and task
 * events never happen in an interrupt, and a classic tracepoint program
 * (events) never runs inside another (the kernel's per-CPU bpf_prog_active
 * skips it); kmem events do, as may function probes and printf.
 */
static const unsigned int stream_levels[S_MAX] = {
	[S_TASK] = 1, [S_SYSCALLS] = 1, [S_KMEM] = NEST_LEVELS, [S_FUNCS] = NEST_LEVELS, [S_EVENTS] = 1,
};

/*
 * One record's time stamp and task, as order_state keeps them: LO is the
 * stamp; HI the latest stamp of the records nested in its window (stamps
 * first) or the record's own (position first); DEPTH the levels its window
 * holds, itself included.
 */
struct nest {
	__u64 lo, hi;
	__u32 tid;
	__u32 depth;
};

struct order_state {
	struct nest *st; /* see place_first and stamp_first */
	unsigned int n, cap;
	__u64 floor;	 /* no later record may be stamped before this */
	__u64 last;	 /* timestamp of the ring's previous record */
	__u64 back;	 /* records earlier than the one before them */
	__u64 max_back;	 /* by how much, at most */
	__u64 first_rec; /* file position (record number) of the first */
	__u64 preempted; /* out of order on a kernel that preempts programs */
	__u64 max_preempted;
	bool seen;
};

struct pass1 {
	struct kmem_check *k;
	bool newer_abi; /* the recorder's record ABI is newer than ours */
	bool preemptible[S_MAX]; /* the channel's programs ran preemptible */
	bool stamp_first[S_MAX]; /* its records are stamped before their place in the ring is taken */
	struct order_state (*order)[MAX_CPUS];
	unsigned int nr_cpus; /* the highest CPU in order, plus one: what report_order walks */
	__u64 in_file[S_MAX];		  /* records the kernel wrote, by channel */
	__u64 drop_records[MAX_CHANNELS]; /* DROPS counts by channel id */
	__u64 first_unknown_type, first_unknown_size;
	__u64 bad_cpu;
	__u16 bad_type, bad_size, want_size;
};

/* One sentence into SB, counted in *NR. */
static void add_sentence(struct strbuf *sb, int *nr, const char *fmt, va_list ap)
{
	char line[768];

	vsnprintf(line, sizeof(line), fmt, ap);
	line[0] = toupper((unsigned char)line[0]); /* the reader's sentences start lower case */
	gt_strbuf_addf(sb, "%s\n", line);
	(*nr)++;
}

/* Wrong in the file, or provably wrong in the kernel's events. */
__attribute__((format(printf, 2, 3))) static void finding(struct kmem_check *k, const char *fmt,
							  ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_sentence(&k->findings, &k->s.nr_findings, fmt, ap);
	va_end(ap);
}

/* The trace is incomplete, and says so itself: drops, skipped events. */
__attribute__((format(printf, 2, 3))) static void warning(struct kmem_check *k, const char *fmt,
							  ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_sentence(&k->warnings, &k->s.nr_warnings, fmt, ap);
	va_end(ap);
}

/* Looks wrong, but what gtsc-bpf cannot see explains it. */
__attribute__((format(printf, 2, 3))) static void note(struct kmem_check *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_sentence(&k->notes, &k->s.nr_notes, fmt, ap);
	va_end(ap);
}

/* ---- pass 1: records in file order ---- */

static enum stream stream_of(__u16 type)
{
	switch (type) {
	case GTSC_REC_SYS_ENTER:
	case GTSC_REC_SYS_EXIT:
		return S_SYSCALLS;
	case GTSC_REC_KMEM_ALLOC:
	case GTSC_REC_KMEM_FREE:
	case GTSC_REC_KMEM_CACHE:
		return S_KMEM;
	case GTSC_REC_TASK:
		return S_TASK;
	case GTSC_REC_TRACEPOINT:
		return S_EVENTS;
	default:
		return S_FUNCS;
	}
}

/* The size a record of its type must have; 0 when any size past the minimum goes. */
static __u16 expected_size(const struct gtsc_rec_hdr *h, const char *rec)
{
	__u16 payload;

	switch (h->type) {
	case GTSC_REC_SYS_ENTER:
		memcpy(&payload, rec + offsetof(struct gtsc_rec_sys_enter, payload_len), 2);
		return sizeof(struct gtsc_rec_sys_enter) + payload;
	case GTSC_REC_SYS_EXIT:
		memcpy(&payload, rec + offsetof(struct gtsc_rec_sys_exit, payload_len), 2);
		return sizeof(struct gtsc_rec_sys_exit) + payload;
	case GTSC_REC_KMEM_ALLOC:
		/* ABI 1.0's, before stack_id, or today's */
		return h->size == trace_rec_min_sizes[h->type] ? h->size
							       : sizeof(struct gtsc_rec_kmem_alloc);
	/*
	 * Variable-sized like sys_enter: without these two, every record of
	 * a printf or -e GROUP:NAME recording was a finding (gtsc.bpf.h's
	 * gtsc_printf, tracepoint.bpf.c's 8-aligned entry).
	 */
	case GTSC_REC_PRINTF:
		memcpy(&payload, rec + offsetof(struct gtsc_rec_printf, nr_args), 2);
		return sizeof(struct gtsc_rec_printf) + payload * sizeof(__u64);
	case GTSC_REC_TRACEPOINT:
		memcpy(&payload, rec + offsetof(struct gtsc_rec_tracepoint, data_len), 2);
		return (sizeof(struct gtsc_rec_tracepoint) + payload + 7) & ~7u;
	default:
		return trace_rec_min_sizes[h->type];
	}
}

static bool check_type_size(struct pass1 *p, const struct gtsc_rec_hdr *h, const char *rec)
{
	__u16 want;

	if (!h->type || h->type >= GTSC_REC_TYPE_MAX || !trace_rec_min_sizes[h->type]) {
		if (!p->k->s.unknown_types++) {
			p->first_unknown_type = h->type;
			p->first_unknown_size = h->size;
		}
		return false;
	}
	want = expected_size(h, rec);
	if (h->size == want || (p->newer_abi && h->size > want))
		return true;
	if (!p->k->s.bad_sizes++) {
		p->bad_type = h->type;
		p->bad_size = h->size;
		p->want_size = want;
	}
	return false;
}

/* Records written by the recorder itself: drops, and names of tasks alive at start. */
static bool from_userspace(const struct gtsc_rec_hdr *h, const char *rec)
{
	__u32 event;

	if (h->type == GTSC_REC_DROPS)
		return true;
	if (h->type != GTSC_REC_TASK)
		return false;
	memcpy(&event, rec + offsetof(struct gtsc_rec_task, event), sizeof(event));
	return event == GTSC_TASK_COMM;
}

/*
 * ---- time order within one CPU's ring ----
 * A record has a stamp (the clock read into its header) and a place in its
 * ring (the reservation, or for an emulated flight channel the fetch-add on
 * its region's head at commit), taken in one order or the other:
 *  - place first: gtsc_reserve, then gtsc_fill_hdr (ring channels, native
 *    overwrite rings), for the task, kmem and funcs records;
 *  - stamp first: the header is filled in scratch memory and copied in
 *    afterwards: gtsc_output (syscalls), tp_output (events), and every
 *    record of an emulated flight channel (gtsc_flight_begin stamps,
 *    gtsc_flight_commit places).
 * The span between the two is the record's window.  An interrupt arriving
 * in it runs to its end inside it, and its programs (a kmem hook's first
 * program for another hook's event, or a rescue program for the same hook)
 * take both stamp and place of each of their records inside the window: on
 * x86 the task, its softirq, a hardirq and an NMI nest on one CPU as a
 * stack, four levels, and the interrupt runs as the interrupted task
 * (`current`), so its records carry the same tid.  The windows on one CPU
 * are therefore nested or disjoint, and the ring holds:
 *  - place first: a record, then the records of its window, all stamped
 *    after its place (after every record stamped before it, but those whose
 *    window holds it) and before its own stamp; then records stamped after
 *    it.  The interrupt's records are earlier than the record before them.
 *  - stamp first: the records of its window, all stamped after it, then the
 *    record; before them only records stamped before it, after it only
 *    records stamped after its place (after all of its window's).  The
 *    record is earlier than the ones before it.
 * Any other order (a record earlier than one whose window cannot hold it, a
 * different task, more than four levels, a window longer than NEST_MAX_NS)
 * the kernel cannot write.  These are checked exactly, each record once.
 */

static struct nest *order_push(struct order_state *o)
{
	if (o->n == o->cap) {
		unsigned int cap = o->cap ? o->cap * 2 : 8;
		struct nest *st = realloc(o->st, cap * sizeof(*st));

		if (!st)
			return NULL;
		o->st = st;
		o->cap = cap;
	}
	return &o->st[o->n++];
}

static void order_reset(struct order_state *o)
{
	o->n = 0;
	o->floor = 0;
}

/*
 * Place first.  o->st holds the records whose window may still hold the next
 * one, outermost first, stamps falling: the next record is in the window of
 * each whose stamp is after its own (and of no other), which must be the
 * same task, not too deep, and stamped after o->floor (every record before
 * it outside such a window).
 */
static bool place_first(struct order_state *o, __u64 ts, __u32 tid, unsigned int levels)
{
	struct nest *top;

	while (o->n && o->st[o->n - 1].lo <= ts) {
		if (o->st[o->n - 1].lo > o->floor)
			o->floor = o->st[o->n - 1].lo;
		o->n--;
	}
	if (ts < o->floor)
		return false;
	if (o->n) {
		top = &o->st[o->n - 1];
		if (top->tid != tid || o->n >= levels || top->lo - ts > NEST_MAX_NS)
			return false;
	}
	top = order_push(o);
	if (!top)
		return false;
	*top = (struct nest){ .lo = ts, .hi = ts, .tid = tid, .depth = 1 };
	return true;
}

/*
 * Stamps first: the records no later one can take into its window any more
 * (one at the full depth, or a window's length before LATEST, and all
 * before it) go, only the latest of their stamps still matters.
 */
static void order_settle(struct order_state *o, __u64 latest, unsigned int levels)
{
	unsigned int drop = o->n;

	while (drop && o->st[drop - 1].depth < levels &&
	       o->st[drop - 1].hi + NEST_MAX_NS >= latest)
		drop--;
	if (!drop)
		return;
	if (o->st[drop - 1].hi > o->floor)
		o->floor = o->st[drop - 1].hi;
	memmove(o->st, o->st + drop, (o->n - drop) * sizeof(*o->st));
	o->n -= drop;
}

/*
 * Stamps first.  o->st holds the records not yet known to be in a later
 * one's window, each with the stamps of its window ([lo, hi]), in file
 * order, the ranges rising.  A record stamped at TS holds in its window the
 * run of them stamped after it, which must be of its task, nest less than
 * LEVELS deep and span at most NEST_MAX_NS; all before that run must
 * be stamped at or before TS.
 */
static bool stamp_first(struct order_state *o, __u64 ts, __u32 tid, unsigned int levels)
{
	unsigned int i = o->n, depth = 0;
	__u64 hi = ts;
	struct nest *e;

	while (i && o->st[i - 1].lo > ts) {
		i--;
		if (o->st[i].depth > depth)
			depth = o->st[i].depth;
	}
	if (i ? o->st[i - 1].hi > ts : o->floor > ts)
		return false;
	if (i < o->n) {
		hi = o->st[o->n - 1].hi;
		if (o->st[i].tid != tid || depth >= levels || hi - ts > NEST_MAX_NS)
			return false;
	}
	o->n = i;
	if (o->n && o->st[0].tid != tid) { /* one task's records in o->st: no other can hold them */
		o->floor = o->st[o->n - 1].hi;
		o->n = 0;
	}
	e = order_push(o);
	if (!e)
		return false;
	*e = (struct nest){ .lo = ts, .hi = hi, .tid = tid, .depth = depth + 1 };
	if (o->n == o->cap)
		order_settle(o, hi, levels);
	return true;
}

/* How much earlier TS is than the latest stamp of the records before it. */
static __u64 order_early_by(const struct order_state *o, bool stamp_first, __u64 ts)
{
	__u64 latest = o->floor;

	if (o->n)
		latest = stamp_first ? o->st[o->n - 1].hi : o->st[0].lo;
	return latest > ts ? latest - ts : 0;
}

static void check_order(struct pass1 *p, const struct gtsc_rec_hdr *h)
{
	enum stream s = stream_of(h->type);
	struct order_state *o = &p->order[s][h->cpu];
	bool (*place)(struct order_state *, __u64, __u32, unsigned int) =
		p->stamp_first[s] ? stamp_first : place_first;
	__u64 ts = h->ts_ns, by = order_early_by(o, p->stamp_first[s], ts);
	struct kmem_check *k = p->k;

	if (place(o, ts, h->tid, stream_levels[s])) {
		if (o->seen && ts < o->last) {
			k->s.nested++;
			if (o->last - ts > k->s.max_nested_ns)
				k->s.max_nested_ns = o->last - ts;
		}
	} else {
		if (p->preemptible[s]) {
			o->preempted++;
			if (by > o->max_preempted)
				o->max_preempted = by;
		} else {
			if (!o->back++)
				o->first_rec = k->s.records;
			if (by > o->max_back)
				o->max_back = by;
			k->s.out_of_order++;
		}
		/* one misplaced record is one finding: start again from it */
		order_reset(o);
		place(o, ts, h->tid, stream_levels[s]);
	}
	o->last = ts;
	o->seen = true;
}

static void count_drops(struct pass1 *p, const char *rec)
{
	struct gtsc_rec_drops d;

	memcpy(&d, rec, sizeof(d));
	if (d.channel < MAX_CHANNELS)
		p->drop_records[d.channel] += d.count;
}

static void check_record(struct pass1 *p, const struct gtsc_rec_hdr *rec)
{
	const char *raw = (const char *)rec;
	struct gtsc_rec_hdr h;

	memcpy(&h, raw, sizeof(h)); /* records of a damaged file need not be aligned */
	p->k->s.records++;
	if (!check_type_size(p, &h, raw))
		return;
	if (h.cpu >= MAX_CPUS) {
		p->bad_cpu++;
		return;
	}
	if (h.type == GTSC_REC_DROPS)
		count_drops(p, raw);
	if (from_userspace(&h, raw))
		return;
	p->in_file[stream_of(h.type)]++;
	if (h.cpu >= p->nr_cpus)
		p->nr_cpus = h.cpu + 1u;
	check_order(p, &h);
}

static void report_order(struct pass1 *p)
{
	for (int s = 0; s < S_MAX; s++) {
		for (int cpu = 0; cpu < (int)p->nr_cpus; cpu++) {
			const struct order_state *o = &p->order[s][cpu];

			if (o->preempted)
				note(p->k,
				     "CPU %d of the %s channel has %llu record%s earlier than a "
				     "record before it (by up to %.6f s): this kernel runs its "
				     "programs preemptible (PREEMPT_RT, or Linux 7.x), and one "
				     "preempted between reading the clock "
				     "and writing its record lands after later events.",
				     cpu, stream_channel[s], (unsigned long long)o->preempted,
				     o->preempted > 1 ? "s" : "", o->max_preempted / 1e9);
			if (!o->back)
				continue;
			finding(p->k,
				"CPU %d of the %s channel has %llu record%s earlier than a "
				"record before it (by up to %.6f s; the first is record %llu of "
				"the file) that no interrupt nested in their writing explains: "
				"its ring was not written in time order.",
				cpu, stream_channel[s], (unsigned long long)o->back,
				o->back > 1 ? "s" : "", o->max_back / 1e9,
				(unsigned long long)o->first_rec);
		}
	}
}

static void report_records(struct pass1 *p)
{
	struct kmem_check *k = p->k;

	if (k->s.unknown_types)
		finding(k,
			"%llu records have a type this gtsc-bpf does not know (the first is type "
			"%llu, %llu bytes): they are damaged, or a newer recorder wrote them.",
			(unsigned long long)k->s.unknown_types,
			(unsigned long long)p->first_unknown_type,
			(unsigned long long)p->first_unknown_size);
	if (k->s.bad_sizes)
		finding(k,
			"%llu records have a size their type cannot have (the first is type %u of "
			"%u bytes, where %u are expected).",
			(unsigned long long)k->s.bad_sizes, p->bad_type, p->bad_size, p->want_size);
	if (p->bad_cpu)
		finding(k, "%llu records name a CPU above %d: they are damaged.",
			(unsigned long long)p->bad_cpu, MAX_CPUS - 1);
	report_order(p);
}

static int read_unordered(const char *path, struct pass1 *p)
{
	char errbuf[256] = "";
	struct gtsc_reader_opts ro = { .sz = sizeof(ro),
				       .unordered = true,
				       .errbuf = errbuf,
				       .errbuf_sz = sizeof(errbuf) };
	const struct gtsc_rec_hdr *rec;
	struct gtsc_reader *r;
	int n;

	r = gtsc_reader__open(path, &ro);
	if (!r) {
		finding(p->k, "%s.", errbuf[0] ? errbuf : strerror(errno));
		return 0;
	}
	p->k->s.opened = true;
	while ((n = gtsc_reader__next(r, &rec)) > 0) {
		check_record(p, rec);
		if (p->k->on_progress && !(p->k->s.records & 0xffff))
			p->k->on_progress(p->k->ctx, r);
	}
	/* the first damage in file order, open's or a DATA chunk's */
	p->k->s.damaged = gtsc_reader__truncated(r);
	if (p->k->s.damaged)
		finding(p->k, "%s.", gtsc_reader__damage(r));
	gtsc_reader__close(r);
	return n;
}

/* ---- whole-trace facts: header, damage, counts against the trailer ---- */

/* Which order stream S's records take their stamp and place in (check_order). */
static bool stamps_first(const struct gtsc_reader *r, enum stream s)
{
	const char *native = gt_reader__feature(r, "ringbuf_overwrite");
	size_t n = 0;
	const struct trace_channel *ch = gt_reader__channels(r, &n);

	if (s == S_SYSCALLS || s == S_EVENTS)
		return true;
	/* before native rings, every flight channel was emulated */
	if (native && !strncmp(native, "yes", 3))
		return false;
	for (size_t i = 0; ch && i < n; i++)
		if (!strcmp(ch[i].name, stream_channel[s]))
			return !strcmp(ch[i].mode, "overwrite");
	return false;
}

static void describe(struct kmem_check *k, const char *path, const struct gtsc_reader *r,
		     struct pass1 *p)
{
	const char *uts_version = gtsc_reader__meta(r, "kernel_version");
	struct gtsc_file_hdr fh = {};
	const char *kernel = gtsc_reader__meta(r, "kernel"),
		   *cpus = gtsc_reader__meta(r, "nr_cpus");
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (pread(fd, &fh, sizeof(fh), 0) != sizeof(fh))
			memset(&fh, 0, sizeof(fh));
		close(fd);
	}
	p->newer_abi = fh.rec_abi_minor > GTSC_REC_ABI_MINOR;
	for (int st = 0; st < S_MAX; st++) {
		p->preemptible[st] = gt_uts_bpf_preemptible(kernel, uts_version);
		p->stamp_first[st] = stamps_first(r, st);
	}
	snprintf(k->s.format, sizeof(k->s.format),
		 "format %u.%u, record ABI %u.%u, kernel %s, %s cpus", fh.version_major,
		 fh.version_minor, fh.rec_abi_major, fh.rec_abi_minor, kernel ? kernel : "?",
		 cpus ? cpus : "?");
}

static int channel_stream(const char *name)
{
	for (int s = 0; s < S_FUNCS; s++) /* the channels whose records are all counted here */
		if (!strcmp(name, stream_channel[s]))
			return s;
	return -1;
}

/* What the trailer says of one channel: the kernel's counts, and its flight regions'. */
struct chan_counts {
	__u64 written, dropped;
	__u64 fl_written, retained, overwritten, torn;
	bool flight; /* the trailer has flight lines for it: its rings were read as regions */
};

static void chan_counts(const struct gtsc_reader *r, __u32 id, struct chan_counts *c)
{
	size_t nst = 0, nfl = 0;
	const struct gtsc_chan_stat *st = gt_reader__stats(r, &nst);
	const struct gtsc_flight_stat *fl = gt_reader__flight_stats(r, &nfl);

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; st && i < nst; i++)
		if (st[i].channel == id)
			c->written += st[i].written, c->dropped += st[i].dropped;
	for (size_t i = 0; fl && i < nfl; i++) {
		if (fl[i].channel != id)
			continue;
		c->flight = true;
		c->fl_written += fl[i].written;
		c->retained += fl[i].retained;
		c->overwritten += fl[i].overwritten;
		c->torn += fl[i].torn;
	}
}

/* An overwrite channel keeps the newest records only: the rest are not lost. */
static void check_flight(struct kmem_check *k, const struct trace_channel *ch,
			 const struct chan_counts *c, __u64 in_file, const char *snapshot)
{
	k->s.overwritten += c->overwritten;
	if (in_file != c->retained) {
		finding(k,
			"The %s flight channel's trailer says its rings retained %llu records, but "
			"the file holds %llu: records were lost between the rings and the file.",
			ch->name, (unsigned long long)c->retained, (unsigned long long)in_file);
		return;
	}
	if (!c->overwritten && !c->torn)
		return;
	note(k,
	     "The %s channel is a flight channel: it kept the newest %llu of the %llu records "
	     "written; %llu were %s, and %llu torn (skipped while a writer changed them): "
	     "left out by design, not lost.",
	     ch->name, (unsigned long long)c->retained, (unsigned long long)c->fl_written,
	     (unsigned long long)c->overwritten,
	     snapshot && !strcmp(snapshot, "consume")
		     ? "overwritten or taken by an earlier consuming snapshot"
		     : "overwritten by newer ones",
	     (unsigned long long)c->torn);
}

static void check_channel(struct kmem_check *k, const struct pass1 *p, const struct gtsc_reader *r,
			  const struct trace_channel *ch)
{
	const char *snapshot = gtsc_reader__meta(r, "snapshot");
	int s = channel_stream(ch->name);
	struct chan_counts c;
	__u64 drop_recs;

	chan_counts(r, ch->id, &c);
	k->s.dropped += c.dropped;
	if (c.dropped)
		warning(k,
			"The %s channel dropped %llu events (its rings were full): the trace is "
			"incomplete.",
			ch->name, (unsigned long long)c.dropped);
	if (snapshot && !c.flight) {
		/* a snapshot holds the flight regions; the consumer wrote the rest elsewhere */
		k->s.not_covered += c.written;
		if (c.written)
			note(k,
			     "The %s channel (%s) is not in this snapshot, which holds the flight "
			     "channels only: its %llu records are in the session's main file.",
			     ch->name, ch->mode, (unsigned long long)c.written);
		return;
	}
	drop_recs = ch->id < MAX_CHANNELS ? p->drop_records[ch->id] : c.dropped;
	if (!k->s.damaged && drop_recs != c.dropped)
		finding(k, "The %s channel's drop records count %llu drops, but its trailer %llu.",
			ch->name, (unsigned long long)drop_recs, (unsigned long long)c.dropped);
	if (s < 0 || k->s.damaged)
		return;
	if (c.flight)
		check_flight(k, ch, &c, p->in_file[s], snapshot);
	else if (p->in_file[s] != c.written)
		finding(k,
			"The %s channel's trailer counts %llu records written by the kernel, but "
			"the file holds %llu: records were lost between the rings and the file.",
			ch->name, (unsigned long long)c.written, (unsigned long long)p->in_file[s]);
}

static void check_whole(struct kmem_check *k, const struct pass1 *p, const struct gtsc_reader *r)
{
	size_t nch = 0, nst = 0;
	const struct trace_channel *ch = gt_reader__channels(r, &nch);
	const struct gtsc_chan_stat *st = gt_reader__stats(r, &nst);

	k->s.misses = gtsc_reader__prog_misses(r);
	for (size_t i = 0; st && i < nch; i++)
		check_channel(k, p, r, &ch[i]);
	if (k->s.misses)
		warning(k,
			"The kernel skipped %llu events (BPF recursion protection: an event inside "
			"another on the same CPU; %s; of any task, inside the session's filters or "
			"not): the trace may be incomplete.",
			(unsigned long long)k->s.misses, gtsc_reader__prog_skips(r));
}

/* ---- pass 2: kmem consistency, in time order ---- */

static bool class_is_error(enum gtsc_kmem_err_class cls, __u8 kind, int kfree_cache_legal)
{
	if (cls == KMEM_ERR_CACHE_KFREE)
		return kfree_cache_legal == 0;
	return !gt_kmem_err_benign(cls, kind);
}

static void name_site(const struct gtsc_reader *r, __u64 addr, char *buf, size_t sz)
{
	__u64 off = 0;
	const char *s = addr ? gtsc_reader__ksym(r, addr, &off) : NULL;

	if (s)
		snprintf(buf, sz, "%s+0x%llx", s, (unsigned long long)off);
	else
		snprintf(buf, sz, "0x%llx", (unsigned long long)addr);
}

/*
 * Why kmem records that do not pair up prove nothing about the kernel: its
 * tracepoints do not see every path (bulk and sheaf allocations, bulk
 * frees), a filtered session does not see the other tasks, and an
 * incomplete trace misses what it dropped or overwrote.
 */
static void untraced_why(const struct kmem_check *k, const struct gtsc_reader *r, char *buf,
			 size_t sz)
{
	const char *filter = gtsc_reader__meta(r, "filter");
	int n;

	n = snprintf(buf, sz,
		     "the kernel also allocates and frees through paths its kmem tracepoints do "
		     "not report (kmem_cache_alloc_bulk, kfree_bulk, slab sheaves as in "
		     "vm_area_dup and mas_preallocate)");
	if (filter && strcmp(filter, "system") && n > 0 && (size_t)n < sz)
		n += snprintf(buf + n, sz - n,
			      ", and this session recorded only the tasks of its filter (%s): a "
			      "task outside it can have allocated or freed the same pointer",
			      filter);
	if ((k->s.dropped || k->s.overwritten || k->s.misses) && n > 0 && (size_t)n < sz)
		snprintf(buf + n, sz - n,
			 ", and the trace is incomplete (dropped, overwritten or skipped events)");
}

/* One note per class: its count, the most frequent pair of sites, and why it is no finding. */
static void report_class(struct kmem_check *k, const struct gtsc_reader *r,
			 const struct kmem_results *res, enum gtsc_kmem_err_class cls, int legal,
			 const char *why)
{
	const struct gtsc_kmem_err *top = NULL;
	__u64 n = 0, t0 = 0;
	const char *start = gtsc_reader__meta(r, "start_ns");
	char s1[192], s2[192];

	for (size_t i = 0; i < res->nr_errs; i++) {
		const struct gtsc_kmem_err *e = &res->errs[i];

		if (e->cls != cls || !class_is_error(cls, e->kind, legal))
			continue;
		n += e->count;
		if (!top || e->count > top->count)
			top = e;
	}
	if (!n)
		return;
	k->s.kmem_errors += n;
	t0 = start ? strtoull(start, NULL, 10) : 0;
	name_site(r, top->site, s1, sizeof(s1));
	name_site(r, top->site2, s2, sizeof(s2));
	note(k,
	     "%llu %s; the most frequent: %llu between %s and %s, first pointer 0x%llx at %.6f s. "
	     "Not a finding: %s.",
	     (unsigned long long)n, gtsc_kmem_err_title(cls), (unsigned long long)top->count, s1,
	     s2, (unsigned long long)top->first_ptr,
	     top->first_ts > t0 ? (top->first_ts - t0) / 1e9 : 0.0, why);
}

static int check_kmem(struct kmem_check *k, const char *path)
{
	struct gtsc_reader_opts ro = { .sz = sizeof(ro) };
	struct gtsc_reader *r = gtsc_reader__open(path, &ro);
	struct kmem_analysis *a = gt_kmem_analysis__new(NULL);
	char why[512];
	int err, legal;

	if (!r || !a) {
		err = -errno;
		goto out;
	}
	err = gt_kmem_stream__run_cb(r, a, k->on_progress, k->ctx);
	if (err)
		goto out;
	legal = gtsc_kmem_kfree_cache_legal(gtsc_reader__meta(r, "kernel"));
	untraced_why(k, r, why, sizeof(why));
	for (int cls = 0; cls < KMEM_ERR_MAX; cls++)
		report_class(k, r, gt_kmem_analysis__results(a), cls, legal, why);
out:
	gt_kmem_analysis__free(a);
	gtsc_reader__close(r);
	return err;
}

int gt_kmem_check__run(const char *path, struct kmem_check *k)
{
	struct pass1 p = { .k = k };
	struct gtsc_reader *r;
	int err;

	p.order = calloc(S_MAX, sizeof(*p.order));
	if (!p.order)
		return -ENOMEM;
	r = gtsc_reader__open(path, NULL);
	if (r)
		describe(k, path, r, &p);
	err = read_unordered(path, &p);
	if (!err && r) {
		report_records(&p);
		check_whole(k, &p, r);
		err = check_kmem(k, path);
	}
	gtsc_reader__close(r);
	for (int s = 0; s < S_MAX; s++)
		for (int cpu = 0; cpu < MAX_CPUS; cpu++)
			free(p.order[s][cpu].st);
	free(p.order);
	return err ?: strbuf_err(&k->findings) ?: strbuf_err(&k->warnings) ?: strbuf_err(&k->notes);
}

void gt_kmem_check__free(struct kmem_check *k)
{
	gt_strbuf_free(&k->findings);
	gt_strbuf_free(&k->warnings);
	gt_strbuf_free(&k->notes);
}
