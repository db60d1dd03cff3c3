// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc_event_printer (<gtsc/print.h>): a record's class (events.c) printed
 * by the text or the JSON emitter.  The printer keeps what records name
 * along the way: comms (task records) and kmem cache names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "events.h"
#include "opts.h"

struct cache_name {
	__u64 id;
	char name[GTSC_CACHE_NAME_LEN];
};

const char *gt_emit_cache_name(const struct gtsc_event_printer *p, __u64 id)
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

static int cache_add(struct gtsc_event_printer *p, const struct gtsc_rec_kmem_cache *c)
{
	struct cache_name *n;
	size_t i;

	if (gt_emit_cache_name(p, c->cache_id))
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

struct gtsc_event_printer *gt_emit_printer__new(const struct gtsc_reader *r)
{
	struct gtsc_event_printer *p = calloc(1, sizeof(*p));
	const char *start;

	if (!p || !(p->comms = gtsc_comm_table__new())) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->r = r;
	start = gtsc_reader__meta(r, "start_ns");
	p->t0_ns = start ? strtoull(start, NULL, 10) : 0;
	return p;
}

GTSC_API struct gtsc_event_printer *
gtsc_event_printer__new(const struct gtsc_reader *r, FILE *out,
			const struct gtsc_event_printer_opts *opts)
{
	struct gtsc_event_printer *p;

	if (!r || !out || !OPTS_VALID(opts, gtsc_event_printer_opts)) {
		errno = EINVAL;
		return NULL;
	}
	p = gt_emit_printer__new(r);
	if (!p)
		return NULL;
	p->out = out;
	p->json = OPTS_GET(opts, json, false);
	p->json_fields = OPTS_GET(opts, json_fields, false);
	return p;
}

GTSC_API void gtsc_event_printer__free(struct gtsc_event_printer *p)
{
	if (!p)
		return;
	gtsc_comm_table__free(p->comms);
	free(p->caches);
	free(p);
}

int gt_emit_printer__note(struct gtsc_event_printer *p, const struct gtsc_rec_hdr *rec)
{
	if (rec->type == GTSC_REC_KMEM_CACHE && rec->size >= sizeof(struct gtsc_rec_kmem_cache))
		return cache_add(p, (const void *)rec) ?: 1;
	/* before the event: a fork shows the child with its own comm */
	gtsc_comm_table__update(p->comms, rec);
	return 0;
}

GTSC_API const char *gtsc_event_printer__name(struct gtsc_event_printer *p,
					      const struct gtsc_rec_hdr *rec, const char **group)
{
	const struct gtsc_event_class *c = p && rec ? gt_event_class__of(p->r, rec) : NULL;

	if (group)
		*group = c ? c->group : NULL;
	return c ? c->name : NULL;
}

GTSC_API int gtsc_event_printer__skip(struct gtsc_event_printer *p,
				      const struct gtsc_rec_hdr *rec)
{
	int n;

	if (!p || !rec)
		return -EINVAL;
	n = gt_emit_printer__note(p, rec);
	return n < 0 ? n : 0;
}

GTSC_API int gtsc_event_printer__print(struct gtsc_event_printer *p,
				       const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_event_class *c;
	int n;

	if (!p || !rec)
		return -EINVAL;
	n = gt_emit_printer__note(p, rec);
	if (n)
		return n < 0 ? n : 0;
	c = gt_event_class__of(p->r, rec);
	if (c && p->json_fields)
		gt_emit_json_fields(p, c, rec);
	else if (c && p->json)
		gt_emit_json(p, c, rec);
	else if (c)
		gt_emit_text(p, c, rec);
	return ferror(p->out) ? -EIO : 0;
}
