// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "session_trace.h"
#include "metadata.h"
#include "printf_fmt.h"
#include "sink_file.h"
#include "syscall_decode.h"

/* The events whose tracefs formats a report decodes flags with. */
static const char *const event_formats[] = {
	"raw_syscalls/sys_enter", "raw_syscalls/sys_exit", "kmem/kmalloc",
	"kmem/kfree",		  "kmem/kmem_cache_alloc", "kmem/kmem_cache_free",
	"kmem/mm_page_alloc",	  "kmem/mm_page_free",	   NULL,
};

void gt_trace_meta__build(struct gtsc_trace_meta *m, struct gtsc_session *s)
{
	const struct gtsc_features *f = gt_session__features(s);
	int n_tracefs;

	*m = (struct gtsc_trace_meta){};
	gt_meta__host(&m->meta);
	n_tracefs = gt_meta__syscalls(f->tracefs, &m->sys);
	gt_strbuf_addf(&m->meta, "syscall_table=%s\n", n_tracefs ? "tracefs" : "builtin");
	gt_strbuf_addf(&m->meta, "decode_tables=%u\n", gt_decode_tables_version);
	gt_features__lines(f, &m->feat);
	gt_sources__describe(gt_session__plan(s), &m->feat);
	gt_trace__channels(gt_session__channels(s), &m->chans);
	gt_meta__event_formats(f->tracefs, event_formats, &m->fmt);
	/* none found (or unreadable): printf records show their format id */
	gt_printf__collect(gt_session__object(s), &m->printf);
	if (gt_session__plan(s)->events.prog)
		gt_tp__describe(gt_session__tracepoints(s), f->tracefs, &m->tps);
}

int gt_trace_meta__write(const struct gtsc_trace_meta *m, struct gtsc_file_sink *fs)
{
	const struct {
		enum gtsc_chunk_type type;
		const struct strbuf *text;
	} chunks[] = {
		{ GTSC_CHUNK_META, &m->meta },	   { GTSC_CHUNK_FEATURES, &m->feat },
		{ GTSC_CHUNK_CHANNELS, &m->chans }, { GTSC_CHUNK_SYSCALLS, &m->sys },
		{ GTSC_CHUNK_EVENT_FORMATS, &m->fmt }, { GTSC_CHUNK_PRINTF, &m->printf },
		{ GTSC_CHUNK_TRACEPOINTS, &m->tps },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]) && !err; i++) {
		err = strbuf_err(chunks[i].text);
		if (!err && chunks[i].text->len)
			err = gt_file_sink__add_chunk(fs, chunks[i].type, chunks[i].text);
	}
	return err;
}

void gt_trace_meta__free(struct gtsc_trace_meta *m)
{
	gt_strbuf_free(&m->meta);
	gt_strbuf_free(&m->feat);
	gt_strbuf_free(&m->chans);
	gt_strbuf_free(&m->sys);
	gt_strbuf_free(&m->fmt);
	gt_strbuf_free(&m->printf);
	gt_strbuf_free(&m->tps);
}

void gt_trace__channels(const struct gtsc_channels *ch, struct strbuf *sb)
{
	for (int i = 0; i < ch->n; i++) {
		const struct gtsc_channel *c = &ch->ch[i];

		gt_strbuf_addf(sb, "%u\t%s\t%s\t%u\t%llu\t%s\t%llu\t%u\n", c->id, c->spec.name,
			       c->spec.global ? "global" : "percpu", c->nr_rings ?: c->nr_regions,
			       (unsigned long long)c->spec.ring_bytes, gt_channel__mode_name(c),
			       (unsigned long long)c->spec.sub_size, c->spec.nr_sub);
	}
}

size_t gt_trace__nr_stats(struct gtsc_session *s)
{
	const struct gtsc_channels *ch = gt_session__channels(s);

	return (size_t)ch->n * ch->nr_cpus;
}

int gt_trace__stats(struct gtsc_session *s, struct strbuf *tr, __u64 *written, __u64 *dropped,
		    struct gtsc_session_stat *since)
{
	size_t max = gt_trace__nr_stats(s);
	struct gtsc_session_stat *st = calloc(max ?: 1, sizeof(*st));
	int n = st ? gtsc_session__stats(s, st, max) : -ENOMEM;

	*written = *dropped = 0;
	for (int i = 0; i < n; i++) {
		__u64 w = st[i].written - (since ? since[i].written : 0);
		__u64 d = st[i].dropped - (since ? since[i].dropped : 0);

		gt_strbuf_addf(tr, "stat\t%u\t%u\t%llu\t%llu\n", st[i].channel, st[i].cpu,
			       (unsigned long long)w, (unsigned long long)d);
		*written += w;
		*dropped += d;
		if (since)
			since[i] = st[i];
	}
	free(st);
	return n < 0 ? n : 0;
}

void gt_trace__flight(struct strbuf *out, const struct gtsc_channels *ch,
		      const struct gtsc_session_flight *fl, int n)
{
	char id[16], cpu[16];

	for (int i = 0; i < n; i++) {
		const char *name = id;

		snprintf(id, sizeof(id), "%u", fl[i].channel);
		if (ch && fl[i].channel < (__u32)ch->n)
			name = ch->ch[fl[i].channel].spec.name;
		if (fl[i].cpu == GTSC_FLIGHT_ALL_CPUS)
			snprintf(cpu, sizeof(cpu), "all");
		else
			snprintf(cpu, sizeof(cpu), "%u", fl[i].cpu);
		gt_strbuf_addf(out, "flight\t%s\t%s\t%llu\t%llu\t%llu\t%llu\n", name, cpu,
			       (unsigned long long)fl[i].written, (unsigned long long)fl[i].retained,
			       (unsigned long long)fl[i].overwritten, (unsigned long long)fl[i].torn);
	}
}
