// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "tp_print.h"

struct tp_printer {
	struct gtsc_tp_decoder *d; /* NULL: the trace has no TRACEPOINTS chunk */
	char name[32];
	char *buf;
	size_t size;
};

struct tp_printer *tp_printer__new(const struct gtsc_reader *r)
{
	struct tp_printer *p = calloc(1, sizeof(*p));

	if (p)
		p->d = gtsc_tp_decoder__new(r);
	return p;
}

void tp_printer__free(struct tp_printer *p)
{
	if (!p)
		return;
	gtsc_tp_decoder__free(p->d);
	free(p->buf);
	free(p);
}

const char *tp_printer__name(struct tp_printer *p, const struct gtsc_rec_hdr *rec)
{
	const char *n = p ? gtsc_tp_decoder__name(p->d, rec, NULL) : NULL;

	if (n || !p)
		return n ? n : "tracepoint";
	snprintf(p->name, sizeof(p->name), "tracepoint_%u",
		 ((const struct gtsc_rec_tracepoint *)rec)->event_id);
	return p->name;
}

/* The decoder's text, grown into P->buf; NULL when it cannot say. */
static const char *decode(struct tp_printer *p, const struct gtsc_rec_hdr *rec, bool json)
{
	int n = json ? gtsc_tp_decoder__json(p->d, rec, p->buf, p->size)
		     : gtsc_tp_decoder__text(p->d, rec, p->buf, p->size);

	if (n >= 0 && (size_t)n >= p->size) {
		char *b = realloc(p->buf, n + 1);

		if (!b)
			return NULL;
		p->buf = b;
		p->size = n + 1;
		n = json ? gtsc_tp_decoder__json(p->d, rec, p->buf, p->size)
			 : gtsc_tp_decoder__text(p->d, rec, p->buf, p->size);
	}
	return n >= 0 ? p->buf : NULL;
}

void tp_printer__print(struct tp_printer *p, const struct gtsc_rec_hdr *rec, FILE *out, bool json)
{
	const struct gtsc_rec_tracepoint *t = (const void *)rec;
	const char *s = p ? decode(p, rec, json) : NULL;

	if (json && s)
		fprintf(out, "%s}\n", s);
	else if (json)
		fprintf(out, ",\"event_id\":%u,\"data_len\":%u}\n", t->event_id, t->data_len);
	else if (s)
		fprintf(out, " %s\n", s);
	else
		fprintf(out, " event_id=%u data_len=%u\n", t->event_id, t->data_len);
}
