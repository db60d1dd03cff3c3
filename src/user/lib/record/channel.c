// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "channel.h"
#include "feature_probe.h"

int gt_channels__find(const struct gtsc_channels *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->ch[i].spec.name, name))
			return i;
	return -ENOENT;
}

int gt_channels__add(struct gtsc_channels *c, const struct gtsc_channel_spec *spec)
{
	int id = gt_channels__find(c, spec->name);

	if (id < 0) {
		if (c->n == GTSC_MAX_CHANNELS)
			return -E2BIG;
		id = c->n++;
	}
	c->ch[id].spec = *spec;
	c->ch[id].id = id;
	return id;
}

int gt_channel_spec__check(struct gtsc_channel_spec *sp, char *why, size_t why_sz)
{
	if (sp->sub_size && sp->nr_sub) {
		__u64 bytes = sp->sub_size * sp->nr_sub;

		if (sp->ring_bytes && sp->ring_bytes != bytes) {
			snprintf(why, why_sz, "size=%llu is not sub_size x nr_sub = %llu",
				 (unsigned long long)sp->ring_bytes, (unsigned long long)bytes);
			return -EINVAL;
		}
		sp->ring_bytes = bytes;
	}
	if (sp->ring_bytes > GTSC_RING_MAX) {
		snprintf(why, why_sz, "a ring is at most 1 GiB, not %llu bytes",
			 (unsigned long long)sp->ring_bytes);
		return -ERANGE;
	}
	if (sp->ring > GTSC_RING_ARRAY) {
		snprintf(why, why_sz, "ring is ringbuf or array");
		return -EINVAL;
	}
	if (sp->mode == GTSC_MODE_OVERWRITE && sp->ring == GTSC_RING_ARRAY) {
		snprintf(why, why_sz, "ring=array is for discard channels: an overwrite channel "
				      "keeps its own ring");
		return -EINVAL;
	}
	if (sp->mode == GTSC_MODE_OVERWRITE) {
		if (sp->sub_size && sp->sub_size != GTSC_FLIGHT_SLOT) {
			snprintf(why, why_sz, "an overwrite channel is made of %d-byte slots: "
					      "sub_size is %d (or leave it out)",
				 GTSC_FLIGHT_SLOT, GTSC_FLIGHT_SLOT);
			return -EINVAL;
		}
		if (sp->nr_sub && !sp->ring_bytes)
			sp->ring_bytes = (__u64)GTSC_FLIGHT_SLOT * sp->nr_sub;
		return 0;
	}
	if (sp->sub_size && sp->ring_bytes && sp->sub_size > sp->ring_bytes) {
		snprintf(why, why_sz, "sub_size is larger than the ring");
		return -EINVAL;
	}
	return 0;
}

void gt_channel__route(const struct gtsc_channel *ch, struct gtsc_class_route *r)
{
	*r = (struct gtsc_class_route){
		.channel = ch->id,
		.ring_base = ch->ring_base,
		.percpu = !ch->spec.global,
		.mode = ch->spec.mode,
		.wake_bytes = ch->spec.sub_size, /* a discard channel's sub-buffer */
		.flight_base = ch->flight_base,
		.flight_slots = ch->region_slots,
		.head_base = ch->head_base,
		.native = ch->native,
		.arr = ch->arr,
		.arr_base = ch->arr_base,
		.arr_elems = ch->arr_elems,
		.arr_head = ch->arr_head,
	};
}

const char *gt_channel__mode_name(const struct gtsc_channel *ch)
{
	return gtsc_channel__flight(ch) ? "overwrite" : "discard";
}

static __u64 pow2_at_least(__u64 want, __u64 min)
{
	__u64 sz = min;

	while (sz < want && sz <= UINT64_MAX / 2) /* options are bounded; a library caller may not be */
		sz <<= 1;
	return sz;
}

/* The kernel wants a power of two that is a multiple of the page size. */
static void layout_ring(struct gtsc_channel *ch, int nr_cpus, __u32 *base)
{
	struct gtsc_channel_spec *sp = &ch->spec;

	sp->ring_bytes = pow2_at_least(sp->ring_bytes, sysconf(_SC_PAGESIZE));
	if (!sp->sub_size && sp->nr_sub)
		sp->sub_size = sp->ring_bytes / sp->nr_sub;
	if (!sp->sub_size || sp->sub_size > sp->ring_bytes)
		sp->sub_size = sp->ring_bytes / 2; /* half full: the consumer has the rest to catch up */
	sp->nr_sub = sp->ring_bytes / sp->sub_size;
	ch->ring_base = *base;
	ch->nr_rings = sp->global ? 1 : nr_cpus;
	*base += ch->nr_rings;
}

/*
 * A region holds the longest record, and the writers mask positions: a
 * power of two.  A native ring gets the same size, and sub_size x nr_sub
 * stay the 64-byte slots so that a channel reads the same either way.
 */
static int layout_flight(struct gtsc_channels *c, struct gtsc_channel *ch, int nr_cpus)
{
	struct gtsc_channel_spec *sp = &ch->spec;
	__u64 slots;

	sp->ring_bytes = pow2_at_least(sp->ring_bytes, GTSC_FLIGHT_MAX_SLOTS * GTSC_FLIGHT_SLOT);
	slots = sp->ring_bytes / GTSC_FLIGHT_SLOT;
	ch->nr_regions = sp->global ? 1 : nr_cpus;
	sp->sub_size = GTSC_FLIGHT_SLOT;
	sp->nr_sub = slots;
	ch->nr_rings = 0;
	ch->region_slots = slots;
	ch->region_base = c->nr_flight_regions;
	c->nr_flight_regions += ch->nr_regions;
	ch->native = c->native_flight;
	if (ch->native) {
		ch->ring_base = c->nr_orings;
		ch->flight_base = ch->head_base = 0;
		c->nr_orings += ch->nr_regions;
		return 0;
	}
	if (c->nr_flight_slots + slots * ch->nr_regions > 0xffffffffULL)
		return -E2BIG;
	ch->ring_base = 0;
	ch->flight_base = c->nr_flight_slots;
	ch->head_base = c->nr_flight_heads;
	c->nr_flight_slots += slots * ch->nr_regions;
	c->nr_flight_heads += ch->nr_regions;
	return 0;
}

static bool channel_arr(const struct gtsc_channel *ch)
{
	return ch->spec.ring == GTSC_RING_ARRAY && !gtsc_channel__flight(ch);
}

/*
 * One element size for every array region (gtsc_arr has one value size):
 * the smallest array channel's region, at most what the kernel takes.  A
 * region is then a whole number of elements, and a larger element only
 * means fewer pads.
 */
static void layout_arr_elem(struct gtsc_channels *c)
{
	__u64 elem = c->arr_elem_max;

	for (int i = 0; i < c->n; i++) {
		struct gtsc_channel_spec *sp = &c->ch[i].spec;

		if (!channel_arr(&c->ch[i]))
			continue;
		sp->ring_bytes = pow2_at_least(sp->ring_bytes, GTSC_ARR_ELEM_MIN);
		if (sp->ring_bytes < elem)
			elem = sp->ring_bytes;
	}
	c->arr_elem = elem;
}

/* After layout_ring (scope, sizes, the drained rings): the channel's regions in gtsc_arr. */
static int layout_arr(struct gtsc_channels *c, struct gtsc_channel *ch)
{
	__u64 elems = ch->spec.ring_bytes / c->arr_elem;

	if (c->nr_arr_elems + elems * ch->nr_rings > 0xffffffffULL)
		return -E2BIG;
	ch->arr = true;
	ch->arr_elems = elems;
	ch->arr_base = c->nr_arr_elems;
	ch->arr_head = c->nr_arr_heads;
	c->nr_arr_elems += elems * ch->nr_rings;
	c->nr_arr_heads += ch->nr_rings;
	return 0;
}

int gt_channels__layout(struct gtsc_channels *c, int nr_cpus)
{
	__u32 base = 0;
	int err;

	c->nr_cpus = nr_cpus;
	c->nr_flight_slots = c->nr_flight_heads = c->nr_flight_regions = c->nr_orings = 0;
	c->nr_arr_elems = c->nr_arr_heads = 0;
	layout_arr_elem(c);
	for (int i = 0; i < c->n; i++) {
		if (gtsc_channel__flight(&c->ch[i])) {
			err = layout_flight(c, &c->ch[i], nr_cpus);
			if (err)
				return err;
			continue;
		}
		/* an array channel keeps its slots in gtsc_rings, unused: one index for both */
		layout_ring(&c->ch[i], nr_cpus, &base);
		err = channel_arr(&c->ch[i]) ? layout_arr(c, &c->ch[i]) : 0;
		if (err)
			return err;
	}
	c->nr_rings = base;
	return 0;
}

/*
 * What the trace writer and reader accept: a header that agrees with the
 * ring's size, at least its type's fixed part.  A program's bug (or a race
 * between two of them) must cost that one record, counted, not the
 * recording: the sink refuses such a record with -EINVAL.
 */
static bool rec_well_formed(const struct gtsc_rec_hdr *h, size_t size)
{
	static const __u16 min_size[GTSC_REC_TYPE_MAX] = GTSC_REC_MIN_SIZES;

	if (size < sizeof(*h) || h->size != size)
		return false;
	return h->type >= GTSC_REC_TYPE_MAX || size >= min_size[h->type];
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
	if (!rec_well_formed(h, size)) {
		r->malformed++;
		return 0;
	}
	err = c->sink->record(c->sink, h);
	if (err) {
		c->sink_err = err;
		return err;
	}
	/*
	 * A round ends at the first record written after it began: the round
	 * stays bounded by what the rings held, every ring is visited every
	 * round, and no later round can bring records older than this one's
	 * start, which the reader's one-round merge window relies on.
	 */
	return h->ts_ns > c->round_ts ? -EAGAIN : 0;
}

static int ring_create(struct gtsc_channels *c, struct gtsc_ring *r, __u64 bytes, int outer_fd,
		       __u32 slot)
{
	struct epoll_event ev = { .events = EPOLLIN };
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
	err = gt_ringbuf__open(&r->rb, r->fd, bytes);
	if (err)
		return err;
	ev.data.ptr = r;
	return epoll_ctl(c->epfd, EPOLL_CTL_ADD, r->fd, &ev) ? -errno : 0;
}

/*
 * The array regions (mapped read-write: the recorder zeroes what it read and
 * publishes its tail) and the doorbell, which joins the channels' epoll.
 */
static int arr_create(struct gtsc_channels *c)
{
	size_t data_len = (size_t)c->nr_arr_elems * c->arr_elem;
	size_t heads_len = (size_t)c->nr_arr_heads * sizeof(struct gtsc_arr_head);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	void *p;
	int err;

	p = mmap(NULL, data_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->arr_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	c->arr_data = p;
	p = mmap(NULL, heads_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->arr_heads_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	c->arr_heads = p;
	err = gt_ringbuf__open(&c->bell, c->bell_fd, sysconf(_SC_PAGESIZE));
	if (err)
		return err;
	return epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->bell_fd, &ev) ? -errno : 0;
}

static void arr_ring_init(struct gtsc_channels *c, const struct gtsc_channel *ch, __u32 j,
			  struct gtsc_ring *r)
{
	char *data = (char *)c->arr_data + (size_t)(ch->arr_base + j * ch->arr_elems) * c->arr_elem;

	r->arr = true;
	gt_arrbuf__init(&r->ab, &c->arr_heads[ch->arr_head + j], data, ch->spec.ring_bytes,
			c->arr_elem);
}

/*
 * A ring buffer's slot, whose own ring gt_channels__sync puts back (the
 * programs see no change), or -1 when every channel is an array or flight.
 */
static int sync_slot(const struct gtsc_channels *c)
{
	for (__u32 i = 0; c->rings && i < c->nr_rings; i++)
		if (c->rings[i].fd > 0)
			return i;
	return -1;
}

/* Without a ring, gt_channels__sync still needs a slot to update. */
static int barrier_create(struct gtsc_channels *c)
{
	__u32 slot = 0;

	c->barrier_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gtsc_barrier", 0, 0,
				       sysconf(_SC_PAGESIZE), NULL);
	if (c->barrier_fd < 0)
		return -errno;
	return bpf_map_update_elem(c->outer_fd, &slot, &c->barrier_fd, BPF_ANY) ? -errno : 0;
}

static int oring_create(struct gtsc_channels *c, const struct gtsc_channel *ch, __u32 j)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = GTSC_RB_OVERWRITE_FLAG);
	struct gtsc_oring *r = &c->orings[ch->ring_base + j];
	size_t page = sysconf(_SC_PAGESIZE);
	__u32 slot = ch->ring_base + j;
	char name[BPF_OBJ_NAME_LEN];
	void *p;

	snprintf(name, sizeof(name), "go%u_%u", ch->id, j);
	r->size = ch->spec.ring_bytes;
	r->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0, r->size, &o);
	if (r->fd < 0)
		return -errno;
	if (bpf_map_update_elem(c->orings_fd, &slot, &r->fd, BPF_ANY))
		return -errno;
	/* Read-only from the producer page on: nothing here ever consumes. */
	p = mmap(NULL, page + 2 * r->size, PROT_READ, MAP_SHARED, r->fd, page);
	if (p == MAP_FAILED)
		return -errno;
	r->pos = p;
	r->data = (const char *)p + page;
	return 0;
}

static int orings_create(struct gtsc_channels *c)
{
	int err;

	c->orings = calloc(c->nr_orings, sizeof(*c->orings));
	if (!c->orings)
		return -ENOMEM;
	for (__u32 i = 0; i < c->nr_orings; i++)
		c->orings[i].fd = -1;
	for (int i = 0; i < c->n; i++)
		for (__u32 j = 0; c->ch[i].native && j < c->ch[i].nr_regions; j++) {
			err = oring_create(c, &c->ch[i], j);
			if (err)
				return err;
		}
	return 0;
}

int gt_channels__oring_template(struct gtsc_channels *c)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = GTSC_RB_OVERWRITE_FLAG);

	c->otmpl_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gtsc_otmpl", 0, 0,
				     sysconf(_SC_PAGESIZE), &o);
	if (c->otmpl_fd < 0) {
		c->otmpl_fd = 0;
		return -errno;
	}
	return c->otmpl_fd;
}

int gt_channels__create(struct gtsc_channels *c, int outer_fd, struct gtsc_sink *sink)
{
	int err;

	c->sink = sink;
	c->outer_fd = outer_fd;
	if (c->nr_orings) {
		err = orings_create(c);
		if (err)
			return err;
	}
	if (!c->nr_rings)
		return barrier_create(c);
	c->rings = calloc(c->nr_rings, sizeof(*c->rings));
	if (!c->rings)
		return -ENOMEM;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0)
		return -errno;
	for (__u32 i = 0; i < c->nr_rings; i++)
		c->rings[i].fd = -1;
	err = c->nr_arr_heads ? arr_create(c) : 0;
	if (err)
		return err;
	for (int i = 0; i < c->n; i++) {
		struct gtsc_channel *ch = &c->ch[i];

		for (__u32 j = 0; j < ch->nr_rings; j++) { /* none in a flight channel */
			struct gtsc_ring *r = &c->rings[ch->ring_base + j];

			r->owner = c;
			r->channel = i;
			r->cpu = ch->spec.global ? (__u32)-1 : j;
			if (ch->arr) {
				arr_ring_init(c, ch, j, r);
				continue;
			}
			err = ring_create(c, r, ch->spec.ring_bytes, outer_fd, ch->ring_base + j);
			if (err)
				return err;
		}
	}
	return sync_slot(c) < 0 ? barrier_create(c) : 0;
}

static int bell_record(void *ctx, void *data, size_t size)
{
	return 0; /* a doorbell's records only woke us */
}

static long ring_consume(struct gtsc_ring *r)
{
	if (r->arr)
		return gt_arrbuf__consume(&r->ab, ring_record, r);
	return gt_ringbuf__consume(&r->rb, ring_record, r);
}

static bool ring_backlog(const struct gtsc_ring *r)
{
	if (r->arr)
		return gtsc_arrbuf__pending(&r->ab) > r->ab.size / 4;
	return gtsc_ringbuf__pending(&r->rb) > r->rb.size / 4;
}

int gt_channels__drain(struct gtsc_channels *c, int timeout_ms)
{
	struct epoll_event ev[16];
	int n = 0;

	if (!c->rings) /* every channel is a flight channel: nothing to drain */
		return poll(NULL, 0, timeout_ms) < 0 && errno != EINTR ? -errno : 0;
	/* Programs wake us only when a ring is filling up; the timeout is the
	 * normal path.  A backlog from the last round is drained at once. */
	if (epoll_wait(c->epfd, ev, 16, c->backlog ? 0 : timeout_ms) < 0 && errno != EINTR)
		return -errno;
	c->round_ts = gtsc_mono_ns();
	c->backlog = false;
	if (c->bell.data) /* level-triggered: an unread doorbell would wake every wait */
		gt_ringbuf__consume(&c->bell, bell_record, NULL);
	for (__u32 i = 0; i < c->nr_rings; i++) {
		long k = ring_consume(&c->rings[i]);

		if (c->sink_err)
			return c->sink_err;
		/*
		 * A round cut short leaves what was written since it began.  Only
		 * a ring still a quarter full is drained again at once: chasing
		 * the programs' write position would read the lines they are
		 * writing, and the wakeup at half full or the next timeout takes
		 * the rest.
		 */
		if (k == -EAGAIN)
			c->backlog |= ring_backlog(&c->rings[i]);
		else if (k < 0 && k != -EINTR)
			return k;
		else if (k > 0)
			n += k;
	}
	return n;
}

__u64 gt_channels__consumed(const struct gtsc_channels *c, __u32 channel)
{
	const struct gtsc_channel *ch = &c->ch[channel];
	__u64 sum = 0;

	if (!c->rings)
		return 0;
	for (__u32 j = 0; j < ch->nr_rings; j++)
		sum += c->rings[ch->ring_base + j].consumed;
	return sum;
}

__u64 gt_channels__malformed(const struct gtsc_channels *c)
{
	__u64 sum = 0;

	for (__u32 i = 0; c->rings && i < c->nr_rings; i++)
		sum += c->rings[i].malformed + c->rings[i].ab.damaged;
	return sum;
}

int gt_channels__sync(struct gtsc_channels *c)
{
	int i = sync_slot(c), fd = i < 0 ? c->barrier_fd : c->rings[i].fd;
	__u32 slot = i < 0 ? 0 : i;

	if (fd <= 0)
		return -EBADF;
	return bpf_map_update_elem(c->outer_fd, &slot, &fd, BPF_ANY) ? -errno : 0;
}

static void orings_free(struct gtsc_channels *c)
{
	size_t page = sysconf(_SC_PAGESIZE);

	for (__u32 i = 0; c->orings && i < c->nr_orings; i++) {
		if (c->orings[i].pos)
			munmap((void *)c->orings[i].pos, page + 2 * c->orings[i].size);
		if (c->orings[i].fd >= 0)
			close(c->orings[i].fd);
	}
	free(c->orings);
	c->orings = NULL;
	if (c->otmpl_fd > 0)
		close(c->otmpl_fd);
	c->otmpl_fd = 0;
}

static void arr_free(struct gtsc_channels *c)
{
	if (c->arr_data)
		munmap(c->arr_data, (size_t)c->nr_arr_elems * c->arr_elem);
	if (c->arr_heads)
		munmap(c->arr_heads, (size_t)c->nr_arr_heads * sizeof(*c->arr_heads));
	gt_ringbuf__close(&c->bell);
	c->arr_data = NULL;
	c->arr_heads = NULL;
}

void gt_channels__free(struct gtsc_channels *c)
{
	orings_free(c);
	arr_free(c);
	if (c->rings) {
		for (__u32 i = 0; i < c->nr_rings; i++) {
			gt_ringbuf__close(&c->rings[i].rb);
			if (c->rings[i].fd >= 0)
				close(c->rings[i].fd);
		}
		if (c->epfd > 0)
			close(c->epfd);
		c->epfd = 0;
	}
	free(c->rings);
	c->rings = NULL;
	if (c->barrier_fd > 0) /* 0: none (fds 0-2 are the standard streams) */
		close(c->barrier_fd);
	c->barrier_fd = 0;
}
