// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <gtsc/gtsc.h>
#include "comm_table.h"
#include "event_print.h"
#include "tp_print.h"

enum field_kind { F_INT, F_UINT, F_HEX, F_STR };

struct field {
	const char *name;
	enum field_kind kind;
	union {
		__s64 i;
		__u64 u;
		const char *s;
	};
};

#define MAX_FIELDS 12

struct cache_name {
	__u64 id;
	char name[GTSC_CACHE_NAME_LEN];
};

struct event_printer {
	const struct gtsc_reader *r;
	FILE *out;
	bool json;
	__u64 t0_ns;
	struct comm_table *comms;
	struct cache_name *caches; /* sorted by id */
	size_t nr_caches;
	char sym[160]; /* scratch for a symbolized call site */
	struct gtsc_syscall_decoder *compat; /* names i386 calls; made at the first */
	struct tp_printer *tp; /* -e GROUP:NAME records; made at the first */
};

void json_put_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

struct event_printer *event_printer__new(const struct gtsc_reader *r, FILE *out, bool json)
{
	struct event_printer *p = calloc(1, sizeof(*p));
	const char *start;

	if (!p)
		return NULL;
	p->r = r;
	p->out = out;
	p->json = json;
	start = gtsc_reader__meta(r, "start_ns");
	p->t0_ns = start ? strtoull(start, NULL, 10) : 0;
	p->comms = comm_table__new();
	if (!p->comms) {
		free(p);
		return NULL;
	}
	return p;
}

void event_printer__free(struct event_printer *p)
{
	if (!p)
		return;
	comm_table__free(p->comms);
	gtsc_syscall_decoder__free(p->compat);
	tp_printer__free(p->tp);
	free(p->caches);
	free(p);
}

static const char *cache_lookup(const struct event_printer *p, __u64 id)
{
	size_t lo = 0, hi = p->nr_caches;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->caches[mid].id == id)
			return p->caches[mid].name;
		if (p->caches[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cache_add(struct event_printer *p, const struct gtsc_rec_kmem_cache *c)
{
	struct cache_name *n;
	size_t i;

	if (cache_lookup(p, c->cache_id))
		return 0;
	n = realloc(p->caches, (p->nr_caches + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->caches = n;
	for (i = p->nr_caches; i > 0 && n[i - 1].id > c->cache_id; i--)
		n[i] = n[i - 1];
	n[i].id = c->cache_id;
	memcpy(n[i].name, c->name, sizeof(n[i].name));
	n[i].name[sizeof(n[i].name) - 1] = '\0';
	p->nr_caches++;
	return 0;
}

/* "sym+0x1a" from the trace's symbols, else hex. Valid until the next call. */
static const char *callsite(struct event_printer *p, __u64 addr)
{
	__u64 off;
	const char *s = gtsc_reader__ksym(p->r, addr, &off);

	if (s)
		snprintf(p->sym, sizeof(p->sym), "%s+0x%" PRIx64, s, (uint64_t)off);
	else
		snprintf(p->sym, sizeof(p->sym), "0x%" PRIx64, (uint64_t)addr);
	return p->sym;
}

static void put_field_value(struct event_printer *p, const struct field *f)
{
	switch (f->kind) {
	case F_INT: fprintf(p->out, "%" PRId64, (int64_t)f->i); break;
	case F_UINT: fprintf(p->out, "%" PRIu64, (uint64_t)f->u); break;
	case F_HEX:
		/* JSON numbers lose precision past 2^53: addresses go as strings. */
		fprintf(p->out, p->json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, (uint64_t)f->u);
		break;
	case F_STR:
		if (p->json)
			json_put_str(p->out, f->s);
		else
			fputs(f->s, p->out);
		break;
	}
}

static void put_fields(struct event_printer *p, const struct field *f, int n, const char *sep)
{
	for (int i = 0; i < n; i++) {
		if (p->json) {
			fprintf(p->out, "%s\"%s\":", i ? "," : "", f[i].name);
		} else {
			fprintf(p->out, "%s%s=", i ? sep : "", f[i].name);
		}
		put_field_value(p, &f[i]);
	}
}

static void put_head(struct event_printer *p, const struct gtsc_rec_hdr *h, const char *event)
{
	double t = (double)((__s64)(h->ts_ns - p->t0_ns)) / 1e9;
	const char *comm = comm_table__get(p->comms, h->pid, h->tid);

	if (p->json) {
		fprintf(p->out, "{\"time\":%.9f,\"ts_ns\":%" PRIu64 ",\"cpu\":%u,\"pid\":%u,"
				"\"tid\":%u,\"comm\":",
			t, (uint64_t)h->ts_ns, h->cpu, h->pid, h->tid);
		json_put_str(p->out, comm);
		fprintf(p->out, ",\"event\":\"%s\"", event);
	} else {
		fprintf(p->out, "%14.9f [%03u] %s/%u", t, h->cpu, comm, h->pid);
		if (h->tid != h->pid)
			fprintf(p->out, ":%u", h->tid);
		fprintf(p->out, " %s:", event);
	}
}

static void put_tail(struct event_printer *p, const struct field *f, int n)
{
	if (p->json) {
		if (n)
			fputc(',', p->out);
		put_fields(p, f, n, "");
		fputs("}\n", p->out);
	} else {
		if (n)
			fputc(' ', p->out);
		put_fields(p, f, n, " ");
		fputc('\n', p->out);
	}
}

/* Raw argument by its declared C type: pointers and flag-like words in hex. */
static struct field syscall_arg(const char *type, const char *name, __u64 v)
{
	struct field f = { .name = name };

	if (strchr(type, '*') || strstr(name, "flags") || strstr(name, "mode") ||
	    strstr(name, "prot")) {
		f.kind = F_HEX;
		f.u = v;
	} else if (!strncmp(type, "unsigned", 8) || !strcmp(type, "size_t")) {
		f.kind = F_UINT;
		f.u = strstr(type, "long") || !strcmp(type, "size_t") ? v : (__u32)v;
	} else {
		f.kind = F_INT;
		f.i = strstr(type, "long") ? (__s64)v : (__s64)(__s32)v;
	}
	return f;
}

/* JSON string of LEN bytes that may hold anything: bytes past ASCII as \u00XX. */
static void json_put_mem(FILE *out, const __u8 *s, size_t len)
{
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\\')
			fprintf(out, "\\%c", s[i]);
		else if (s[i] < 0x20 || s[i] > 0x7e)
			fprintf(out, "\\u%04x", s[i]);
		else
			fputc(s[i], out);
	}
	fputc('"', out);
}

/*
 * The captured user memory of a sys_enter/sys_exit, item by item and raw
 * (records.h): strings as "text", bytes as "hex".  Decoding them per
 * syscall is report --syscalls' job.
 */
static void put_payload_json(struct event_printer *p, const struct gtsc_rec_hdr *h, size_t fixed,
			     size_t payload_len)
{
	static const char *const kinds[] = { "?", "str", "buf", "sockaddr" };
	const __u8 *b = (const __u8 *)h + fixed;
	size_t left = h->size > fixed ? h->size - fixed : 0;
	const char *sep = "";

	if (payload_len > left)
		payload_len = left;
	if (!payload_len)
		return;
	fputs(",\"data\":[", p->out);
	while (payload_len >= sizeof(struct gtsc_payload_item)) {
		const struct gtsc_payload_item *it = (const void *)b;
		size_t step = (sizeof(*it) + it->len + 7) & ~(size_t)7;

		if (sizeof(*it) + it->len > payload_len)
			break;
		fprintf(p->out, "%s{\"arg\":%u,\"kind\":\"%s\",\"flags\":%u,\"index\":%u,\"len\":%u,",
			sep, it->arg, it->kind < 4 ? kinds[it->kind] : "?", it->flags, it->index,
			it->len);
		if (it->kind == GTSC_PAY_STR) {
			fputs("\"text\":", p->out);
			json_put_mem(p->out, (const __u8 *)(it + 1), it->len);
		} else {
			fputs("\"hex\":\"", p->out);
			for (size_t i = 0; i < it->len; i++)
				fprintf(p->out, "%02x", ((const __u8 *)(it + 1))[i]);
			fputc('"', p->out);
		}
		fputc('}', p->out);
		sep = ",";
		b += step;
		payload_len = step < payload_len ? payload_len - step : 0;
	}
	fputc(']', p->out);
}

/*
 * A 32-bit task's call (GTSC_SYS_F_COMPAT) has an i386 number: the trace's
 * x86-64 table would misname it.  NULL for a native call; else its i386
 * name, or "syscall_NNN" in UNKNOWN.
 */
static const char *compat_name(struct event_printer *p, const struct gtsc_rec_hdr *h, int nr,
			       char unknown[32])
{
	const char *name = NULL;

	if (!(h->flags & GTSC_SYS_F_COMPAT))
		return NULL;
	if (!p->compat)
		p->compat = gtsc_syscall_decoder__new(p->r, NULL);
	if (p->compat)
		name = gtsc_syscall_decoder__name(p->compat, nr | GTSC_SYSCALL_COMPAT, unknown, 32);
	if (!name)
		snprintf(unknown, 32, "syscall_%d", nr);
	return name ? name : unknown;
}

static void print_sys_enter(struct event_printer *p, const struct gtsc_rec_sys_enter *e)
{
	char unknown[32], cname[32];
	const char *compat = compat_name(p, &e->hdr, e->nr, cname);
	const struct gtsc_syscall_info *si = compat ? NULL : gtsc_reader__syscall(p->r, e->nr);
	static const char *const raw_names[6] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };
	struct field f[6];
	int n = si ? si->nr_args : 6;

	for (int i = 0; i < n && i < 6; i++)
		f[i] = si ? syscall_arg(si->arg_type[i], si->arg_name[i], e->args[i])
			  : (struct field){ .name = raw_names[i], .kind = F_HEX, .u = e->args[i] };
	snprintf(unknown, sizeof(unknown), "syscall_%d", e->nr);
	put_head(p, &e->hdr, "sys_enter");
	if (p->json) {
		fprintf(p->out, ",\"name\":\"%s\",\"nr\":%d,%s\"args\":{",
			compat ?: si ? si->name : unknown, e->nr, compat ? "\"compat\":true," : "");
		put_fields(p, f, n, "");
		fputc('}', p->out);
		put_payload_json(p, &e->hdr, sizeof(*e), e->payload_len);
		fputs("}\n", p->out);
		return;
	}
	fprintf(p->out, " %s(", compat ?: si ? si->name : unknown);
	put_fields(p, f, n, ", ");
	fputs(")\n", p->out);
}

static void print_sys_exit(struct event_printer *p, const struct gtsc_rec_sys_exit *e)
{
	char unknown[32], cname[32];
	const char *compat = compat_name(p, &e->hdr, e->nr, cname);
	const struct gtsc_syscall_info *si = compat ? NULL : gtsc_reader__syscall(p->r, e->nr);
	struct field f[] = {
		{ .name = "name", .kind = F_STR, .s = compat ?: si ? si->name : unknown },
		{ .name = "nr", .kind = F_INT, .i = e->nr },
		{ .name = "ret", .kind = F_INT, .i = e->ret },
	};

	snprintf(unknown, sizeof(unknown), "syscall_%d", e->nr);
	put_head(p, &e->hdr, "sys_exit");
	if (p->json && e->payload_len) {
		fputc(',', p->out);
		put_fields(p, f, 3, "");
		put_payload_json(p, &e->hdr, sizeof(*e), e->payload_len);
		fputs("}\n", p->out);
		return;
	}
	put_tail(p, f, 3);
}

static const char *const alloc_events[] = { "kmalloc", "kmem_cache_alloc", "mm_page_alloc" };
static const char *const free_events[] = { "kfree", "kmem_cache_free", "mm_page_free" };

static void print_kmem_alloc(struct event_printer *p, const struct gtsc_rec_kmem_alloc *e)
{
	struct field f[MAX_FIELDS];
	const char *cache;
	int n = 0;

	if (e->kind > GTSC_KMEM_PAGE)
		return;
	put_head(p, &e->hdr, alloc_events[e->kind]);
	if (e->kind == GTSC_KMEM_PAGE) {
		f[n++] = (struct field){ "pfn", F_HEX, .u = e->ptr };
		f[n++] = (struct field){ "order", F_UINT, .u = e->order };
		f[n++] = (struct field){ "gfp_flags", F_HEX, .u = e->gfp_flags };
		f[n++] = (struct field){ "migratetype", F_INT, .i = e->migratetype };
		put_tail(p, f, n);
		return;
	}
	f[n++] = (struct field){ "call_site", F_STR, .s = callsite(p, e->call_site) };
	f[n++] = (struct field){ "ptr", F_HEX, .u = e->ptr };
	f[n++] = (struct field){ "bytes_req", F_UINT, .u = e->bytes_req };
	f[n++] = (struct field){ "bytes_alloc", F_UINT, .u = e->bytes_alloc };
	f[n++] = (struct field){ "gfp_flags", F_HEX, .u = e->gfp_flags };
	f[n++] = (struct field){ "node", F_INT, .i = e->node };
	cache = e->cache_id ? cache_lookup(p, e->cache_id) : NULL;
	if (cache)
		f[n++] = (struct field){ "cache", F_STR, .s = cache };
	put_tail(p, f, n);
}

static void print_kmem_free(struct event_printer *p, const struct gtsc_rec_kmem_free *e)
{
	struct field f[MAX_FIELDS];
	const char *cache;
	int n = 0;

	if (e->kind > GTSC_KMEM_PAGE)
		return;
	put_head(p, &e->hdr, free_events[e->kind]);
	if (e->kind == GTSC_KMEM_PAGE) {
		f[n++] = (struct field){ "pfn", F_HEX, .u = e->ptr };
		f[n++] = (struct field){ "order", F_UINT, .u = e->order };
		put_tail(p, f, n);
		return;
	}
	f[n++] = (struct field){ "call_site", F_STR, .s = callsite(p, e->call_site) };
	f[n++] = (struct field){ "ptr", F_HEX, .u = e->ptr };
	cache = e->cache_id ? cache_lookup(p, e->cache_id) : NULL;
	if (cache)
		f[n++] = (struct field){ "cache", F_STR, .s = cache };
	put_tail(p, f, n);
}

static void print_task(struct event_printer *p, const struct gtsc_rec_task *t)
{
	static const char *const names[] = { "task_fork", "task_exec", "task_exit" };
	struct field f[3];
	int n = 0;

	if (t->event > GTSC_TASK_EXIT)
		return; /* GTSC_TASK_COMM: names only */
	put_head(p, &t->hdr, names[t->event]);
	if (t->event == GTSC_TASK_FORK)
		f[n++] = (struct field){ "parent_pid", F_UINT, .u = t->other_pid };
	if (t->event == GTSC_TASK_EXIT)
		f[n++] = (struct field){ "exit_code", F_INT, .i = t->exit_code };
	else
		f[n++] = (struct field){ "new_comm", F_STR, .s = t->comm };
	put_tail(p, f, n);
}

/* A register by its FUNCS kind ("s4", "u8", "p8", "x0"): integers cut to their size. */
static struct field func_value(const char *kind, const char *name, __u64 v)
{
	int bytes = kind[0] && kind[1] ? kind[1] - '0' : 0;
	__u64 mask = bytes > 0 && bytes < 8 ? (1ULL << (bytes * 8)) - 1 : ~0ULL;

	if (kind[0] == 's') {
		__s64 x = v & mask;

		if (mask != ~0ULL && (x & ((mask >> 1) + 1)))
			x |= ~mask; /* sign-extend */
		return (struct field){ .name = name, .kind = F_INT, .i = x };
	}
	if (kind[0] == 'u')
		return (struct field){ .name = name, .kind = F_UINT, .u = v & mask };
	return (struct field){ .name = name, .kind = F_HEX, .u = v };
}

/* Arguments by the recording kernel's BTF names and types, else raw registers. */
static int func_args(const struct gtsc_func_info *fi, const struct gtsc_rec_func *e,
		     struct field *f)
{
	static const char *const regs[6] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };
	bool typed = fi && strcmp(fi->ret_type, "?");
	int n = typed ? fi->nr_args : 6;

	for (int i = 0; i < n; i++)
		f[i] = typed ? func_value(fi->arg_kind[i], fi->arg_name[i], e->args[i])
			     : (struct field){ .name = regs[i], .kind = F_HEX, .u = e->args[i] };
	return n;
}

static void print_func(struct event_printer *p, const struct gtsc_rec_func *e)
{
	const struct gtsc_func_info *fi = gtsc_reader__func(p->r, e->func_id);
	struct field f[6];
	char unknown[32];
	const char *name = fi ? fi->name : unknown;
	int n;

	snprintf(unknown, sizeof(unknown), "func_%u", e->func_id);
	if (e->kind == GTSC_FUNC_RETURN) {
		f[0] = (struct field){ "func", F_STR, .s = name };
		f[1] = func_value(fi ? fi->ret_kind : "x0", "ret", e->ret);
		f[2] = (struct field){ "latency_ns", F_UINT, .u = e->latency_ns };
		put_head(p, &e->hdr, "func_return");
		put_tail(p, f, 3);
		return;
	}
	n = func_args(fi, e, f);
	put_head(p, &e->hdr, "func_entry");
	if (p->json) {
		fprintf(p->out, ",\"func\":");
		json_put_str(p->out, name);
		fprintf(p->out, ",\"ip\":\"0x%" PRIx64 "\",\"args\":{", (uint64_t)e->ip);
		put_fields(p, f, n, "");
		fputs("}}\n", p->out);
		return;
	}
	fprintf(p->out, " %s(", name);
	put_fields(p, f, n, ", ");
	fputs(")\n", p->out);
}

static void print_drops(struct event_printer *p, const struct gtsc_rec_drops *d)
{
	GTSC_OPTS(gtsc_reader_channel, ch);
	const char *name = "?";

	for (size_t i = 0; !gtsc_reader__channel(p->r, i, &ch); i++)
		if (ch.id == d->channel)
			name = ch.name;
	put_head(p, &d->hdr, "DROPPED");
	if (p->json) {
		fprintf(p->out, ",\"channel\":");
		json_put_str(p->out, name);
		fprintf(p->out, ",\"count\":%" PRIu64 ",\"since_ns\":%" PRIu64 "}\n",
			(uint64_t)d->count, (uint64_t)d->since_ns);
		return;
	}
	fprintf(p->out, " channel=%s count=%" PRIu64 " since=%.9f\n", name, (uint64_t)d->count,
		(double)((__s64)(d->since_ns - p->t0_ns)) / 1e9);
}

/* gtsc_printf: text made now, from the formats the trace saved (PRINTF chunk). */
static void print_printf(struct event_printer *p, const struct gtsc_rec_printf *r)
{
	char text[512];
	struct field f = { "text", F_STR, .s = text };

	if (gtsc_reader__format(p->r, &r->hdr, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "(format %08x not in the trace)", r->fmt_id);
	/* printk's habit of a final newline: one line per record */
	text[strcspn(text, "\n")] = '\0';
	put_head(p, &r->hdr, "printf");
	put_tail(p, &f, 1);
}

int event_printer__print(struct event_printer *p, const struct gtsc_rec_hdr *rec)
{
	switch (rec->type) {
	case GTSC_REC_SYS_ENTER: print_sys_enter(p, (const void *)rec); break;
	case GTSC_REC_SYS_EXIT: print_sys_exit(p, (const void *)rec); break;
	case GTSC_REC_KMEM_ALLOC: print_kmem_alloc(p, (const void *)rec); break;
	case GTSC_REC_KMEM_FREE: print_kmem_free(p, (const void *)rec); break;
	case GTSC_REC_KMEM_CACHE: return cache_add(p, (const void *)rec);
	case GTSC_REC_TASK:
		/* Before updating: a fork line shows the child with its own comm. */
		comm_table__update(p->comms, rec);
		print_task(p, (const void *)rec);
		break;
	case GTSC_REC_DROPS: print_drops(p, (const void *)rec); break;
	case GTSC_REC_FUNC: print_func(p, (const void *)rec); break;
	case GTSC_REC_PRINTF: print_printf(p, (const void *)rec); break;
	case GTSC_REC_TRACEPOINT:
		p->tp = p->tp ?: tp_printer__new(p->r);
		put_head(p, rec, tp_printer__name(p->tp, rec));
		tp_printer__print(p->tp, rec, p->out, p->json);
		break;
	default: break; /* a newer recorder's record: skipped by size */
	}
	return ferror(p->out) ? -EIO : 0;
}
