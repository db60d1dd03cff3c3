// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "channel.h"

int gtsc_parse_size(const char *s, __u64 *bytes)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (*end == 'B' || *end == 'b' || *end == 'i')
		end++;
	if (*end || !v)
		return -EINVAL;
	*bytes = v;
	return 0;
}

int gtsc_channels__find(const struct gtsc_channels *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->ch[i].spec.name, name))
			return i;
	return -ENOENT;
}

int gtsc_channels__add(struct gtsc_channels *c, const struct gtsc_channel_spec *spec)
{
	int id = gtsc_channels__find(c, spec->name);

	if (id < 0) {
		if (c->n == GTSC_MAX_CHANNELS)
			return -E2BIG;
		id = c->n++;
	}
	c->ch[id].spec = *spec;
	c->ch[id].id = id;
	return id;
}

/* The kernel wants a power of two that is a multiple of the page size. */
static __u64 ring_size(__u64 want)
{
	__u64 sz = sysconf(_SC_PAGESIZE);

	while (sz < want)
		sz <<= 1;
	return sz;
}

void gtsc_channels__layout(struct gtsc_channels *c, int nr_cpus)
{
	__u32 base = 0;

	c->nr_cpus = nr_cpus;
	for (int i = 0; i < c->n; i++) {
		c->ch[i].spec.ring_bytes = ring_size(c->ch[i].spec.ring_bytes);
		c->ch[i].ring_base = base;
		c->ch[i].nr_rings = c->ch[i].spec.global ? 1 : nr_cpus;
		base += c->ch[i].nr_rings;
	}
	c->nr_rings = base;
}

static int ring_record(void *ctx, void *data, size_t size)
{
	struct gtsc_ring *r = ctx;
	struct gtsc_channels *c = r->owner;
	const struct gtsc_rec_hdr *h = data;
	int err;

	if (c->sink_err)
		return c->sink_err;
	r->consumed++;
	if (size < sizeof(*h) || h->size != size) {
		r->malformed++;
		return 0;
	}
	err = c->sink->record(c->sink, h);
	if (err)
		c->sink_err = err;
	return err;
}

static int ring_create(struct gtsc_channels *c, struct gtsc_ring *r, __u64 bytes, int outer_fd,
		       __u32 slot)
{
	char name[BPF_OBJ_NAME_LEN];
	int err;

	/* Map names allow [A-Za-z0-9_.] only. */
	if (r->cpu == (__u32)-1)
		snprintf(name, sizeof(name), "gc%u_all", r->channel);
	else
		snprintf(name, sizeof(name), "gc%u_%u", r->channel, r->cpu);
	r->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0, bytes, NULL);
	if (r->fd < 0)
		return -errno;
	if (bpf_map_update_elem(outer_fd, &slot, &r->fd, BPF_ANY))
		return -errno;
	if (!c->rb) {
		c->rb = ring_buffer__new(r->fd, ring_record, r, NULL);
		return c->rb ? 0 : -errno;
	}
	err = ring_buffer__add(c->rb, r->fd, ring_record, r);
	return err < 0 ? err : 0;
}

int gtsc_channels__create(struct gtsc_channels *c, int outer_fd, struct gtsc_sink *sink)
{
	int err;

	c->sink = sink;
	c->rings = calloc(c->nr_rings, sizeof(*c->rings));
	if (!c->rings)
		return -ENOMEM;
	for (__u32 i = 0; i < c->nr_rings; i++)
		c->rings[i].fd = -1;
	for (int i = 0; i < c->n; i++) {
		struct gtsc_channel *ch = &c->ch[i];

		for (__u32 j = 0; j < ch->nr_rings; j++) {
			struct gtsc_ring *r = &c->rings[ch->ring_base + j];

			r->owner = c;
			r->channel = i;
			r->cpu = ch->spec.global ? (__u32)-1 : j;
			err = ring_create(c, r, ch->spec.ring_bytes, outer_fd, ch->ring_base + j);
			if (err)
				return err;
		}
	}
	return 0;
}

int gtsc_channels__drain(struct gtsc_channels *c, int timeout_ms)
{
	int n;

	/* Programs wake us only when a ring is filling up; the timeout is the
	 * normal path, after which every ring is drained. */
	n = ring_buffer__poll(c->rb, timeout_ms);
	if (n < 0 && n != -EINTR)
		return c->sink_err ? c->sink_err : n;
	n = ring_buffer__consume(c->rb);
	if (c->sink_err)
		return c->sink_err;
	if (n < 0 && n != -EINTR)
		return n;
	return n < 0 ? 0 : n;
}

__u64 gtsc_channels__consumed(const struct gtsc_channels *c, __u32 channel)
{
	const struct gtsc_channel *ch = &c->ch[channel];
	__u64 sum = 0;

	if (!c->rings)
		return 0;
	for (__u32 j = 0; j < ch->nr_rings; j++)
		sum += c->rings[ch->ring_base + j].consumed;
	return sum;
}

void gtsc_channels__free(struct gtsc_channels *c)
{
	ring_buffer__free(c->rb);
	c->rb = NULL;
	if (c->rings)
		for (__u32 i = 0; i < c->nr_rings; i++)
			if (c->rings[i].fd >= 0)
				close(c->rings[i].fd);
	free(c->rings);
	c->rings = NULL;
}
