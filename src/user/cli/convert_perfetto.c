// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * convert --to perfetto: the Trace Event Format (JSON) that ui.perfetto.dev,
 * chrome://tracing and speedscope load.  One track per thread, named by its
 * comm, in one process per pid; syscalls as complete slices ("X") with the
 * decoded call in their args; function returns with a latency as slices,
 * entries as instants; kmem events as instants and a "slab bytes" counter
 * per process (live kmalloc/kmem_cache bytes it allocated); drops as
 * instants on a track per CPU (one for every CPU the trace saw), in a
 * pseudo-process "CPUs".
 *
 * Streamed: events are written as they are read, so memory is the syscall
 * decoder's one held call per thread, the set of threads and the live slab
 * objects, never the trace.  Times are microseconds since the trace began
 * (the format's unit), with nanosecond decimals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <gtsc/gtsc.h>
#include <gtsc/print.h>
#include "convert.h"
#include "progress.h"

/* Above PID_MAX_LIMIT (2^22): no real pid is ever the CPU tracks' process. */
#define CPU_TRACKS_PID 4194305u
#define MAX_CPUS 8192 /* CONFIG_NR_CPUS' largest */

struct thread_key {
	__u32 pid, tid;
};

/* A live slab object: who allocated how much, to subtract at its free. */
struct live_obj {
	__u64 ptr; /* 0: empty slot */
	__u32 bytes;
	__u32 pid;
};

struct proc_bytes {
	__u32 pid;
	__s64 bytes;
};

struct perfetto {
	const struct gtsc_reader *r;
	FILE *out;
	struct gtsc_comm_table *comms;
	struct gtsc_syscall_decoder *dec;
	struct gtsc_event_printer *fields; /* the field layer: every instant's args */
	__u64 t0_ns, last_ns;
	bool first;
	char call[8192];
	/* sorted sets, grown by doubling: threads seen, CPUs seen, per-process bytes */
	struct thread_key *threads;
	size_t nr_threads, cap_threads;
	__u64 cpus[MAX_CPUS / 64];
	struct proc_bytes *procs;
	size_t nr_procs, cap_procs;
	/* open addressing, linear probing, deletion by backward shift */
	struct live_obj *live;
	size_t nr_live, cap_live; /* cap a power of two */
	__u64 events;
};

static int grow(void **arr, size_t *cap, size_t elem)
{
	size_t n = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, n * elem);

	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

static int thread_note(struct perfetto *c, __u32 pid, __u32 tid)
{
	size_t lo = 0, hi = c->nr_threads;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct thread_key *k = &c->threads[mid];

		if (k->pid == pid && k->tid == tid)
			return 0;
		if (k->pid < pid || (k->pid == pid && k->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (c->nr_threads == c->cap_threads &&
	    grow((void **)&c->threads, &c->cap_threads, sizeof(*c->threads)))
		return -ENOMEM;
	memmove(&c->threads[lo + 1], &c->threads[lo], (c->nr_threads - lo) * sizeof(*c->threads));
	c->threads[lo] = (struct thread_key){ pid, tid };
	c->nr_threads++;
	return 0;
}

static struct proc_bytes *proc_get(struct perfetto *c, __u32 pid)
{
	size_t lo = 0, hi = c->nr_procs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->procs[mid].pid == pid)
			return &c->procs[mid];
		if (c->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (c->nr_procs == c->cap_procs && grow((void **)&c->procs, &c->cap_procs, sizeof(*c->procs)))
		return NULL;
	memmove(&c->procs[lo + 1], &c->procs[lo], (c->nr_procs - lo) * sizeof(*c->procs));
	c->procs[lo] = (struct proc_bytes){ .pid = pid };
	c->nr_procs++;
	return &c->procs[lo];
}

static size_t live_slot(const struct perfetto *c, __u64 ptr)
{
	__u64 h = ptr * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (c->cap_live - 1);
}

static int live_rehash(struct perfetto *c)
{
	struct live_obj *old = c->live;
	size_t old_cap = c->cap_live;

	c->cap_live = old_cap ? old_cap * 2 : 4096;
	c->live = calloc(c->cap_live, sizeof(*c->live));
	if (!c->live) {
		c->live = old;
		c->cap_live = old_cap;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old_cap; i++) {
		size_t s;

		if (!old[i].ptr)
			continue;
		for (s = live_slot(c, old[i].ptr); c->live[s].ptr; s = (s + 1) & (c->cap_live - 1))
			;
		c->live[s] = old[i];
	}
	free(old);
	return 0;
}

/* Records the object; one allocated twice (its free untraced) takes the newer size. */
static int live_add(struct perfetto *c, __u64 ptr, __u32 bytes, __u32 pid, struct live_obj *prev)
{
	size_t s;

	if ((c->nr_live + 1) * 4 > c->cap_live * 3 && live_rehash(c))
		return -ENOMEM;
	for (s = live_slot(c, ptr); c->live[s].ptr && c->live[s].ptr != ptr;
	     s = (s + 1) & (c->cap_live - 1))
		;
	*prev = c->live[s];
	if (!c->live[s].ptr)
		c->nr_live++;
	c->live[s] = (struct live_obj){ ptr, bytes, pid };
	return 0;
}

/* Takes the object out; false when it was not live (allocated before the trace). */
static bool live_del(struct perfetto *c, __u64 ptr, struct live_obj *out)
{
	size_t mask = c->cap_live - 1, s, j;

	if (!c->cap_live || !ptr)
		return false;
	for (s = live_slot(c, ptr); c->live[s].ptr != ptr; s = (s + 1) & mask)
		if (!c->live[s].ptr)
			return false;
	*out = c->live[s];
	/* backward-shift deletion keeps every probe chain unbroken */
	for (j = (s + 1) & mask; c->live[j].ptr; j = (j + 1) & mask) {
		size_t home = live_slot(c, c->live[j].ptr);

		if (((j - home) & mask) >= ((j - s) & mask)) {
			c->live[s] = c->live[j];
			s = j;
		}
	}
	c->live[s].ptr = 0;
	c->nr_live--;
	return true;
}

static double us(const struct perfetto *c, __u64 ns)
{
	return (double)(__s64)(ns - c->t0_ns) / 1e3;
}

/* The common part of one event object, left open for its args. */
static void ev_begin(struct perfetto *c, const char *ph, const char *name, const char *cat,
		     __u64 ts, __u32 pid, __u32 tid)
{
	fputs(c->first ? "\n" : ",\n", c->out);
	c->first = false;
	fprintf(c->out, "{\"ph\":\"%s\",\"name\":", ph);
	gtsc_fputs_json(c->out, name);
	fprintf(c->out, ",\"cat\":\"%s\",\"ts\":%.3f,\"pid\":%u,\"tid\":%u", cat, us(c, ts), pid, tid);
	c->events++;
}

static void counter(struct perfetto *c, __u64 ts, __u32 pid, __s64 bytes)
{
	fputs(",\n", c->out);
	fprintf(c->out, "{\"ph\":\"C\",\"name\":\"slab bytes\",\"ts\":%.3f,\"pid\":%u,"
			"\"args\":{\"live\":%" PRId64 "}}",
		us(c, ts), pid, (int64_t)bytes);
	c->events++;
}

static int on_call(void *ctx, const struct gtsc_syscall *call)
{
	struct perfetto *c = ctx;
	__u64 start = call->enter ? call->enter->hdr.ts_ns : c->t0_ns;
	__u64 end = call->exit ? call->exit->hdr.ts_ns : c->last_ns;
	char nr[32];
	const char *name = gtsc_syscall_decoder__name(c->dec, call->compat ?
				call->nr | GTSC_SYSCALL_COMPAT : call->nr, nr, sizeof(nr));

	if (!name)
		name = "?";
	if (gtsc_syscall_decoder__text(c->dec, call, c->call, sizeof(c->call)) < 0)
		c->call[0] = '\0';
	ev_begin(c, "X", name, "syscall", start, call->pid, call->tid);
	fprintf(c->out, ",\"dur\":%.3f,\"args\":{\"call\":", end >= start ? (end - start) / 1e3 : 0.0);
	gtsc_fputs_json(c->out, c->call);
	if (!call->enter)
		fputs(",\"began_before_trace\":true", c->out);
	if (!call->exit)
		fputs(",\"unfinished\":true", c->out);
	fputs("}}", c->out);
	return thread_note(c, call->pid, call->tid);
}

/*
 * An instant on a track, its args every field of the record's class (the
 * field layer's JSON, as report --json prints them).
 */
static int put_instant(struct perfetto *c, const struct gtsc_rec_hdr *h, const char *name,
		       const char *cat, __u32 pid, __u32 tid)
{
	int err;

	ev_begin(c, "i", name, cat, h->ts_ns, pid, tid);
	fputs(",\"s\":\"t\",\"args\":", c->out);
	err = gtsc_event_printer__print(c->fields, h);
	fputc('}', c->out);
	return err;
}

/* The record's event name ("kmalloc", "sched_switch"), and its group. */
static const char *event_name(struct perfetto *c, const struct gtsc_rec_hdr *h, const char **group)
{
	const char *name = gtsc_event_printer__name(c->fields, h, group);

	if (name && !*group)
		*group = "gtsc";
	return name;
}

static int on_alloc(struct perfetto *c, const struct gtsc_rec_kmem_alloc *a)
{
	const struct gtsc_rec_hdr *h = &a->hdr;
	struct live_obj prev;
	struct proc_bytes *p;

	const char *group, *name = event_name(c, h, &group);

	if (!name || a->kind > GTSC_KMEM_PAGE)
		return 0;
	if (put_instant(c, h, name, group, h->pid, h->tid))
		return -EIO;
	if (a->kind == GTSC_KMEM_PAGE || !a->ptr)
		return 0;
	if (live_add(c, a->ptr, a->bytes_alloc, h->pid, &prev))
		return -ENOMEM;
	if (prev.ptr) { /* its free was not traced: it is not live twice */
		p = proc_get(c, prev.pid);
		if (!p)
			return -ENOMEM;
		p->bytes -= prev.bytes;
		counter(c, h->ts_ns, prev.pid, p->bytes);
	}
	p = proc_get(c, h->pid);
	if (!p)
		return -ENOMEM;
	p->bytes += a->bytes_alloc;
	counter(c, h->ts_ns, h->pid, p->bytes);
	return 0;
}

static int on_free(struct perfetto *c, const struct gtsc_rec_kmem_free *f)
{
	const struct gtsc_rec_hdr *h = &f->hdr;
	struct live_obj o;
	struct proc_bytes *p;

	const char *group, *name = event_name(c, h, &group);

	if (!name || f->kind > GTSC_KMEM_PAGE)
		return 0;
	if (put_instant(c, h, name, group, h->pid, h->tid))
		return -EIO;
	/* Objects allocated before the trace are not counted: never below zero. */
	if (f->kind == GTSC_KMEM_PAGE || !live_del(c, f->ptr, &o))
		return 0;
	p = proc_get(c, o.pid);
	if (!p)
		return -ENOMEM;
	p->bytes -= o.bytes;
	counter(c, h->ts_ns, o.pid, p->bytes);
	return 0;
}

static int on_func(struct perfetto *c, const struct gtsc_rec_func *f)
{
	const struct gtsc_func_info *fi = gtsc_reader__func(c->r, f->func_id);
	const char *name = fi ? fi->name : "?";
	const struct gtsc_rec_hdr *h = &f->hdr;

	if (f->kind == GTSC_FUNC_RETURN && f->latency_ns && f->latency_ns <= h->ts_ns) {
		ev_begin(c, "X", name, "function", h->ts_ns - f->latency_ns, h->pid, h->tid);
		fprintf(c->out, ",\"dur\":%.3f,\"args\":{\"ret\":\"0x%" PRIx64 "\"}}",
			f->latency_ns / 1e3, (uint64_t)f->ret);
	} else if (f->kind == GTSC_FUNC_ENTRY) {
		ev_begin(c, "i", name, "function", h->ts_ns, h->pid, h->tid);
		fputs(",\"s\":\"t\"}", c->out);
	} else {
		return 0; /* a return whose entry was not seen: no duration to show */
	}
	return thread_note(c, h->pid, h->tid);
}

static int on_drops(struct perfetto *c, const struct gtsc_rec_drops *d)
{
	char name[64];

	if (d->hdr.cpu >= MAX_CPUS)
		return 0;
	c->cpus[d->hdr.cpu / 64] |= 1ULL << (d->hdr.cpu % 64);
	snprintf(name, sizeof(name), "dropped %" PRIu64, (uint64_t)d->count);
	return put_instant(c, &d->hdr, name, "drops", CPU_TRACKS_PID, d->hdr.cpu);
}

/* Any tracepoint (-e GROUP:NAME): an instant on its thread, its fields as args. */
static int on_tracepoint(struct perfetto *c, const struct gtsc_rec_hdr *h)
{
	const char *group, *name = event_name(c, h, &group);

	if (!name)
		return 0;
	return put_instant(c, h, name, group, h->pid, h->tid) ?: thread_note(c, h->pid, h->tid);
}

/*
 * Whether the record says its CPU ran something: a GTSC_TASK_COMM record is
 * written by the recorder itself, on whichever CPU it ran, to name a task
 * alive at start, so its CPU is not one the traced work used.
 */
static bool ran_on_cpu(const struct gtsc_rec_hdr *h)
{
	const struct gtsc_rec_task *t = (const void *)h;

	if (h->cpu >= MAX_CPUS)
		return false;
	return h->type != GTSC_REC_TASK || h->size < sizeof(*t) || t->event != GTSC_TASK_COMM;
}

static int on_record(struct perfetto *c, const struct gtsc_rec_hdr *h)
{
	int err = 0;

	c->last_ns = h->ts_ns > c->last_ns ? h->ts_ns : c->last_ns;
	if (ran_on_cpu(h)) /* a track for every CPU the trace saw, with drops or not */
		c->cpus[h->cpu / 64] |= 1ULL << (h->cpu % 64);
	gtsc_comm_table__update(c->comms, h);
	switch (h->type) {
	case GTSC_REC_SYS_ENTER:
	case GTSC_REC_SYS_EXIT:
	case GTSC_REC_TASK:
		err = gtsc_syscall_decoder__push(c->dec, h);
		if (!err && h->type == GTSC_REC_TASK)
			err = thread_note(c, h->pid, h->tid);
		break;
	case GTSC_REC_KMEM_ALLOC:
		err = on_alloc(c, (const void *)h);
		if (!err)
			err = thread_note(c, h->pid, h->tid);
		break;
	case GTSC_REC_KMEM_FREE:
		err = on_free(c, (const void *)h);
		if (!err)
			err = thread_note(c, h->pid, h->tid);
		break;
	case GTSC_REC_FUNC:
		err = on_func(c, (const void *)h);
		break;
	case GTSC_REC_DROPS:
		err = on_drops(c, (const void *)h);
		break;
	case GTSC_REC_TRACEPOINT:
		err = on_tracepoint(c, h);
		break;
	case GTSC_REC_KMEM_CACHE: /* names a cache for the kmem events' args */
		err = gtsc_event_printer__print(c->fields, h);
		break;
	}
	return err;
}

/* Names last: a thread is named by its last comm, as the report does. */
static void put_names(struct perfetto *c)
{
	__u32 last_pid = 0;
	char name[32];

	for (size_t i = 0; i < c->nr_threads; i++) {
		const struct thread_key *k = &c->threads[i];

		if (i == 0 || k->pid != last_pid) {
			fprintf(c->out, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,"
					"\"args\":{\"name\":", k->pid);
			gtsc_fputs_json(c->out, gtsc_comm_table__get(c->comms, k->pid, k->pid));
			fputs("}}", c->out);
			last_pid = k->pid;
		}
		fprintf(c->out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
				"\"args\":{\"name\":", k->pid, k->tid);
		gtsc_fputs_json(c->out, gtsc_comm_table__get(c->comms, k->pid, k->tid));
		fputs("}}", c->out);
	}
	fprintf(c->out, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,"
			"\"args\":{\"name\":\"CPUs\"}}", CPU_TRACKS_PID);
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (!(c->cpus[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		snprintf(name, sizeof(name), "CPU %u", cpu);
		fprintf(c->out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
				"\"args\":{\"name\":\"%s\"}}", CPU_TRACKS_PID, cpu, name);
	}
}

static void perfetto_free(struct perfetto *c)
{
	gtsc_event_printer__free(c->fields);
	gtsc_syscall_decoder__free(c->dec);
	gtsc_comm_table__free(c->comms);
	free(c->threads);
	free(c->procs);
	free(c->live);
}

int convert_perfetto(struct gtsc_reader *r, FILE *out, __u64 *events)
{
	GTSC_OPTS(gtsc_syscall_decoder_opts, dopts, .style = GTSC_SYSCALL_ARG_NAMES,
		     .max_data = 32, .whole_calls = true, .fn = on_call);
	GTSC_OPTS(gtsc_event_printer_opts, popts, .json_fields = true);
	struct perfetto c = { .r = r, .out = out, .first = true };
	const struct gtsc_rec_hdr *h;
	struct read_progress prog;
	const char *start = gtsc_reader__meta(r, "start_ns");
	int n, err = 0;

	c.t0_ns = start ? strtoull(start, NULL, 10) : 0;
	c.last_ns = c.t0_ns;
	dopts.ctx = &c;
	c.comms = gtsc_comm_table__new();
	c.dec = c.comms ? gtsc_syscall_decoder__new(r, &dopts) : NULL;
	c.fields = c.dec ? gtsc_event_printer__new(r, out, &popts) : NULL;
	if (!c.fields) {
		perfetto_free(&c);
		return -ENOMEM;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"gtsc-bpf\"},\"traceEvents\":[",
	      out);
	read_progress_init(&prog, r, "convert", out == stdout);
	while (!err && (n = gtsc_reader__next(r, &h)) > 0) {
		err = on_record(&c, h);
		read_progress_tick(&prog);
	}
	read_progress_end(&prog);
	if (!err && n < 0)
		err = n;
	if (!err)
		err = gtsc_syscall_decoder__finish(c.dec);
	if (!err) {
		if (c.first) /* no event at all: names still need a first element */
			fputs("\n{\"ph\":\"M\",\"name\":\"trace_name\",\"args\":{\"name\":\"gtsc\"}}", out);
		put_names(&c);
		fputs("\n]}\n", out);
	}
	*events = c.events;
	perfetto_free(&c);
	return err;
}
