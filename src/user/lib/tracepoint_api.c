// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public tracepoint calls (gtsc/tracepoints.h): decoding
 * GTSC_REC_TRACEPOINT records from the formats a trace saved, with
 * libtraceevent (what perf and trace-cmd parse formats with), and listing
 * this kernel's tracepoints.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>
#include "feature_probe.h"
#include "tp_class.h"
#include "trace_reader.h"
#include "tracepoints.h"

/* The entry copied with zeros after it: a cut string still ends. */
#define TP_PAD 8

struct gtsc_tp_decoder {
	struct tep_handle *tep;
	struct tp_class *classes; /* sorted by event id */
	size_t n;
	struct tep_event **by_name; /* tep's list sorted by group and name */
	__u8 *buf; /* scratch: a record, clamped, padded */
	size_t buf_sz;
	struct strbuf out;
};

static int cmp_class(const void *a, const void *b)
{
	const struct tp_class *x = a, *y = b;

	return x->ev->id - y->ev->id;
}

/* "head LEN\n<LEN bytes>\n" sections of the TRACEPOINTS chunk (file.h). */
static int parse_sections(struct gtsc_tp_decoder *d, const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *sp;
		char head[256], group[128];
		unsigned long len;

		if (!nl || nl - p >= (long)sizeof(head))
			return -EINVAL;
		memcpy(head, p, nl - p);
		head[nl - p] = '\0';
		sp = strrchr(head, ' ');
		if (!sp || sscanf(sp + 1, "%lu", &len) != 1 || (size_t)(end - nl - 1) < len)
			return -EINVAL;
		p = nl + 1;
		if (!strncmp(head, "header_page ", 12)) {
			char *copy = strndup(p, len);

			if (copy)
				tep_parse_header_page(d->tep, copy, len, 8);
			free(copy);
		} else if (!strncmp(head, "printk_formats ", 15)) {
			char *copy = strndup(p, len);

			if (copy)
				tep_parse_printk_formats(d->tep, copy);
			free(copy);
		} else if (sscanf(head, "event %127s", group) == 1) {
			/* a print fmt it cannot parse keeps the event: its fields print raw */
			tep_parse_event(d->tep, p, len, group);
		}
		p += len + 1;
	}
	return 0;
}

static int build_classes(struct gtsc_tp_decoder *d)
{
	struct tep_event **evs = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	size_t n = 0;
	int err = 0;

	while (evs && evs[n])
		n++;
	d->classes = calloc(n ?: 1, sizeof(*d->classes));
	if (!d->classes)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		err = tp_class__init(&d->classes[i], evs[i],
				     offsetof(struct gtsc_rec_tracepoint, data));
		if (!err)
			d->n++;
	}
	qsort(d->classes, d->n, sizeof(*d->classes), cmp_class);
	d->by_name = err ? NULL : tep_list_events_copy(d->tep, TEP_EVENT_SORT_SYSTEM);
	return err ?: d->by_name ? 0 : -ENOMEM;
}

const char *gtsc_tp_decoder__event(const struct gtsc_tp_decoder *d, size_t idx,
				   const char **group)
{
	const struct tep_event *ev = d && idx < d->n ? d->by_name[idx] : NULL;

	if (group)
		*group = ev ? ev->system : NULL;
	return ev ? ev->name : NULL;
}

struct gtsc_tp_decoder *gtsc_tp_decoder__new(const struct gtsc_reader *r)
{
	struct gtsc_tp_decoder *d;
	const char *text, *page;
	size_t len;
	int err;

	text = r ? gtsc_reader__chunk_text(r, GTSC_CHUNK_TRACEPOINTS, &len) : NULL;
	if (!text)
		return errno = r ? ENOENT : EINVAL, NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return errno = ENOMEM, NULL;
	d->tep = tep_alloc();
	err = d->tep ? 0 : -ENOMEM;
	if (!err) {
		page = gtsc_reader__meta(r, "page_size");
		tep_set_long_size(d->tep, 8);
		tep_set_page_size(d->tep, page ? atoi(page) : 4096);
		tep_set_file_bigendian(d->tep, TEP_LITTLE_ENDIAN);
		tep_set_local_bigendian(d->tep, TEP_LITTLE_ENDIAN);
		err = parse_sections(d, text, text + len);
	}
	err = err ?: build_classes(d);
	if (err) {
		gtsc_tp_decoder__free(d);
		return errno = -err, NULL;
	}
	return d;
}

void gtsc_tp_decoder__free(struct gtsc_tp_decoder *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		tp_class__fini(&d->classes[i]);
	free(d->classes);
	free(d->by_name);
	tep_free(d->tep);
	free(d->buf);
	strbuf_free(&d->out);
	free(d);
}

static const struct tp_class *find_class(const struct gtsc_tp_decoder *d, __u16 id)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int mid_id = d->classes[mid].ev->id;

		if (mid_id == id)
			return &d->classes[mid];
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The record copied into scratch with its entry clamped to data_len: a
 * __data_loc reaching past what was recorded (cut, or damaged) is cut to
 * it, so that libtraceevent never reads outside the record.  *SIZE: the
 * record's bytes up to the entry's end.
 */
static const __u8 *clamped(struct gtsc_tp_decoder *d, const struct tp_class *c,
			   const struct gtsc_rec_tracepoint *tr, size_t *size)
{
	size_t data_len = tr->data_len, need;
	__u8 *e;

	if (sizeof(*tr) + data_len > tr->hdr.size)
		data_len = tr->hdr.size - sizeof(*tr);
	need = sizeof(*tr) + data_len + TP_PAD;
	if (need > d->buf_sz) {
		__u8 *b = realloc(d->buf, need);

		if (!b)
			return NULL;
		d->buf = b;
		d->buf_sz = need;
	}
	memcpy(d->buf, tr, sizeof(*tr) + data_len);
	memset(d->buf + sizeof(*tr) + data_len, 0, TP_PAD);
	e = d->buf + sizeof(*tr);
	for (const struct tep_format_field *f = c->ev->format.fields; f; f = f->next) {
		__u32 loc, off, len, base;

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset + 4 > (int)data_len)
			continue;
		memcpy(&loc, e + f->offset, 4);
		base = f->flags & TEP_FIELD_IS_RELATIVE ? f->offset + 4 : 0;
		off = base + (loc & 0xffff);
		len = loc >> 16;
		if (off > data_len)
			off = data_len;
		if (off + len > data_len)
			len = data_len - off;
		loc = (len << 16) | (off - base);
		memcpy(e + f->offset, &loc, 4);
	}
	*size = sizeof(*tr) + data_len;
	return d->buf;
}

static const struct tp_class *rec_class(struct gtsc_tp_decoder *d, const struct gtsc_rec_hdr *rec)
{
	if (!d || !rec || rec->type != GTSC_REC_TRACEPOINT ||
	    rec->size < sizeof(struct gtsc_rec_tracepoint))
		return NULL;
	return find_class(d, ((const struct gtsc_rec_tracepoint *)rec)->event_id);
}

const char *gtsc_tp_decoder__name(struct gtsc_tp_decoder *d, const struct gtsc_rec_hdr *rec,
				  const char **group)
{
	const struct tp_class *c = rec_class(d, rec);

	if (group)
		*group = c ? c->cls.group : NULL;
	return c ? c->cls.name : NULL;
}

static int out_copy(struct gtsc_tp_decoder *d, char *buf, size_t size)
{
	int err = strbuf_err(&d->out);

	if (err)
		return err;
	if (size)
		snprintf(buf, size, "%.*s", (int)d->out.len, d->out.buf ? d->out.buf : "");
	return d->out.len;
}

/* REC's class *C and its clamped copy *R of *N bytes, D's output emptied; 0 or -errno. */
static int prepare(struct gtsc_tp_decoder *d, const struct gtsc_rec_hdr *rec, bool no_buf,
		   const struct tp_class **c, const __u8 **r, size_t *n)
{
	*c = rec_class(d, rec);
	if (!*c || no_buf)
		return -EINVAL;
	*r = clamped(d, *c, (const void *)rec, n);
	if (!*r)
		return -ENOMEM;
	d->out.len = 0;
	return 0;
}

int gtsc_tp_decoder__text(struct gtsc_tp_decoder *d, const struct gtsc_rec_hdr *rec, char *buf,
			  size_t size)
{
	struct tep_record tr = {};
	const struct tp_class *c;
	struct trace_seq s;
	const __u8 *r;
	size_t n;
	int err = prepare(d, rec, !buf && size, &c, &r, &n);

	if (err)
		return err;
	tr.data = (void *)(r + sizeof(struct gtsc_rec_tracepoint));
	tr.size = n - sizeof(struct gtsc_rec_tracepoint);
	tr.ts = rec->ts_ns;
	tr.cpu = rec->cpu;
	trace_seq_init(&s);
	tep_print_event(d->tep, &s, &tr, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	strbuf_add(&d->out, s.buffer, s.len);
	if (rec->flags & GTSC_TP_F_TRUNCATED)
		strbuf_addf(&d->out, " [cut]");
	trace_seq_destroy(&s);
	return out_copy(d, buf, size);
}

int gtsc_tp_decoder__json(struct gtsc_tp_decoder *d, const struct gtsc_rec_hdr *rec, char *buf,
			  size_t size)
{
	const struct tp_class *c;
	const __u8 *r;
	size_t n;
	int err = prepare(d, rec, !buf && size, &c, &r, &n);

	if (err)
		return err;
	strbuf_addf(&d->out, ",\"group\":\"%s\"", c->cls.group);
	tp_class__json(c, r, n, &d->out);
	if (rec->flags & GTSC_TP_F_TRUNCATED)
		strbuf_addf(&d->out, ",\"truncated\":true");
	return out_copy(d, buf, size);
}

/* ---- listing ---- */

struct list_ctx {
	const char *pattern;
	int (*fn)(void *ctx, const char *group, const char *name);
	void *ctx;
	int n;
};

static int list_one(void *ctx, const char *group, const char *name)
{
	struct list_ctx *l = ctx;
	char gn[512];

	snprintf(gn, sizeof(gn), "%s:%s", group, name);
	if (l->pattern && fnmatch(l->pattern, gn, 0))
		return 0;
	l->n++;
	return l->fn(l->ctx, group, name);
}

int gtsc_tracepoints__list(const char *pattern,
			   int (*fn)(void *ctx, const char *group, const char *name), void *ctx)
{
	struct list_ctx l = { .pattern = pattern, .fn = fn, .ctx = ctx };
	char tracefs[64], events[96];
	int err;

	if (!fn)
		return -EINVAL;
	gtsc_tracefs__find(tracefs, sizeof(tracefs));
	if (!tracefs[0])
		return geteuid() ? -EACCES : -ENOENT;
	snprintf(events, sizeof(events), "%s/events", tracefs);
	if (access(events, R_OK | X_OK))
		return -EACCES;
	err = gtsc_tp__each(tracefs, list_one, &l);
	return err ?: l.n;
}
