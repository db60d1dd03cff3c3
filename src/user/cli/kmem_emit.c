// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdarg.h>
#include <gtsc/buf.h>
#include "kmem_emit.h"

static void put_json_value(struct kmem_emit *e, const struct kmem_col *c, union kmem_cell v)
{
	switch (c->type) {
	case KCOL_U64:
		fprintf(e->out, "%" PRIu64, (uint64_t)v.u);
		break;
	case KCOL_S64:
		fprintf(e->out, "%" PRId64, (int64_t)v.i);
		break;
	case KCOL_STR:
		gtsc_fputs_json(e->out, v.s ? v.s : "");
		break;
	case KCOL_HEX:
		fprintf(e->out, "\"0x%" PRIx64 "\"", (uint64_t)v.u);
		break;
	case KCOL_PCT:
		fprintf(e->out, "%.3f", v.d);
		break;
	case KCOL_SEC:
		fprintf(e->out, "%.6f", v.d);
		break;
	}
}

static void put_text_value(struct kmem_emit *e, const struct kmem_col *c, union kmem_cell v)
{
	char buf[256];
	const char *s = buf;

	switch (c->type) {
	case KCOL_U64:
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)v.u);
		break;
	case KCOL_S64:
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)v.i);
		break;
	case KCOL_STR: /* a cache or function name: escaped, then aligned */
		gtsc_text(buf, sizeof(buf), v.s ? v.s : "");
		break;
	case KCOL_HEX:
		snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)v.u);
		break;
	case KCOL_PCT:
		snprintf(buf, sizeof(buf), "%.3f%%", v.d);
		break;
	case KCOL_SEC:
		snprintf(buf, sizeof(buf), "%.6f", v.d);
		break;
	}
	fprintf(e->out, "%*s", c->width, s);
}

void kmem_emit__table(struct kmem_emit *e, const char *table, const char *title,
		      const struct kmem_col *cols, int n)
{
	e->table = table;
	if (e->json)
		return;
	fprintf(e->out, "\n%s\n", title);
	for (int i = 0; i < n; i++)
		fprintf(e->out, " %*s", cols[i].width, cols[i].title);
	fputc('\n', e->out);
}

void kmem_emit__row(struct kmem_emit *e, const struct kmem_col *cols, int n,
		    const union kmem_cell *v)
{
	if (e->json) {
		fprintf(e->out, "{\"table\":\"%s\"", e->table);
		for (int i = 0; i < n; i++) {
			fprintf(e->out, ",\"%s\":", cols[i].key);
			put_json_value(e, &cols[i], v[i]);
		}
		fputs("}\n", e->out);
		return;
	}
	for (int i = 0; i < n; i++) {
		fputc(' ', e->out);
		put_text_value(e, &cols[i], v[i]);
	}
	fputc('\n', e->out);
}

void kmem_emit__more(struct kmem_emit *e, size_t hidden)
{
	if (!e->json && hidden)
		fprintf(e->out, " ... %zu more (-n 0 shows all)\n", hidden);
}

void kmem_emit__note(struct kmem_emit *e, const char *fmt, ...)
{
	va_list ap;

	if (e->json)
		return;
	va_start(ap, fmt);
	vfprintf(e->out, fmt, ap);
	va_end(ap);
	fputc('\n', e->out);
}

void kmem_emit__kv_begin(struct kmem_emit *e, const char *table, const char *title)
{
	e->table = table;
	e->kv = 0;
	if (e->json)
		fprintf(e->out, "{\"table\":\"%s\"", table);
	else
		fprintf(e->out, "\n%s\n", title);
}

void kmem_emit__kv(struct kmem_emit *e, const struct kmem_col *c, union kmem_cell v)
{
	e->kv++;
	if (e->json) {
		fprintf(e->out, ",\"%s\":", c->key);
		put_json_value(e, c, v);
		return;
	}
	fprintf(e->out, "  %-46s ", c->title);
	put_text_value(e, c, v);
	fputc('\n', e->out);
}

void kmem_emit__kv_end(struct kmem_emit *e)
{
	if (e->json)
		fputs("}\n", e->out);
}
