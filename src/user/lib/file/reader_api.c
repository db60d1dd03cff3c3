// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reader's public helpers that build on its internal tables (trace_reader.h). */
#include <errno.h>
#include <string.h>
#include "opts.h"
#include "trace_reader.h"

const char *gtsc_reader__syscall_name(const struct gtsc_reader *r, int nr)
{
	const struct gtsc_syscall_info *si = r ? gtsc_reader__syscall(r, nr) : NULL;

	return si ? si->name : NULL;
}

bool gtsc_reader__has_counts(const struct gtsc_reader *r)
{
	size_t n;

	return r && gt_reader__stats(r, &n) != NULL;
}

/* The trailer's stat and flight lines of channel ID, summed over its rings. */
static void channel_counts(const struct gtsc_reader *r, __u32 id, struct gtsc_reader_channel *c)
{
	size_t nst = 0, nfl = 0;
	const struct gtsc_chan_stat *st = gt_reader__stats(r, &nst);
	const struct gtsc_flight_stat *fl = gt_reader__flight_stats(r, &nfl);

	for (size_t i = 0; st && i < nst; i++) {
		if (st[i].channel != id)
			continue;
		c->written += st[i].written;
		c->dropped += st[i].dropped;
	}
	for (size_t i = 0; fl && i < nfl; i++) {
		if (fl[i].channel != id)
			continue;
		c->retained += fl[i].retained;
		c->overwritten += fl[i].overwritten;
		c->torn += fl[i].torn;
		c->flight = true;
	}
}

/* Fills the part of *OUT its caller knows (opts rules: the struct grows at the end). */
static int channel_fill(const struct gtsc_reader *r, const struct trace_channel *ci,
			struct gtsc_reader_channel *out)
{
	struct gtsc_reader_channel c = {
		.sz = out->sz,
		.id = ci->id,
		.name = ci->name,
		.mode = strcmp(ci->mode, "overwrite") ? GTSC_CHANNEL_DISCARD : GTSC_CHANNEL_OVERWRITE,
		.scope = ci->percpu ? GTSC_SCOPE_PERCPU : GTSC_SCOPE_GLOBAL,
		.nr_rings = ci->nr_rings,
		.ring_bytes = ci->ring_bytes,
	};

	channel_counts(r, ci->id, &c);
	memcpy(out, &c, out->sz < sizeof(c) ? out->sz : sizeof(c));
	return 0;
}

int gtsc_reader__channel(const struct gtsc_reader *r, size_t idx, struct gtsc_reader_channel *ch)
{
	const struct trace_channel *ci;
	size_t n = 0;

	if (!r || !ch || !OPTS_VALID(ch, gtsc_reader_channel))
		return -EINVAL;
	ci = gt_reader__channels(r, &n);
	if (idx >= n)
		return -ENOENT;
	return channel_fill(r, &ci[idx], ch);
}

int gtsc_reader__channel_by_name(const struct gtsc_reader *r, const char *name,
				 struct gtsc_reader_channel *ch)
{
	const struct trace_channel *ci;
	size_t n = 0;

	if (!r || !name || !ch || !OPTS_VALID(ch, gtsc_reader_channel))
		return -EINVAL;
	ci = gt_reader__channels(r, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ci[i].name, name))
			return channel_fill(r, &ci[i], ch);
	return -ENOENT;
}
