/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Channels: named sets of BPF ring buffers, one per CPU or one global, all
 * held in the single ARRAY_OF_MAPS the programs index.  This file creates
 * the rings, drains them into a sink and keeps the per-ring consumed counts
 * that, set against the kernel's written/dropped counters, make the drop
 * accounting exact.  A channel in overwrite mode (a flight channel) has no
 * ring: it is a set of regions of the gtsc_flight array (flight.h), laid out
 * here too.
 */
#ifndef __GTSC_CHANNEL_H
#define __GTSC_CHANNEL_H

#include <stdbool.h>
#include <time.h>
#include <linux/types.h>
#include "gtsc/gtsc.h"
#include "gtsc_shared.h"
#include "arraybuf.h"
#include "ringbuf.h"
#include "sink.h"

#define GTSC_CHANNEL_NAME_LEN 32

/*
 * GTSC's sub_size x nr_sub = size.  Discard mode: a BPF ring is one circular
 * buffer, and the sub-buffer is what relay made it, the unit after which the
 * consumer is woken (default half the ring).  Overwrite mode: the sub-buffer
 * is the 64-byte slot, the unit writers claim and overwrite (records take
 * whole slots), so sub_size is 64 and nr_sub the slots of one region.
 */
struct gtsc_channel_spec {
	char name[GTSC_CHANNEL_NAME_LEN];
	bool global;	  /* one ring shared by all CPUs instead of one per CPU */
	bool scope_set;	  /* an override says global; else the channel keeps its scope */
	__u64 ring_bytes; /* per ring or flight region, rounded up to a power of two
			   * (>= page size; >= 16K for a region); 0: the session's default */
	__u32 mode;	  /* enum gtsc_chan_mode */
	__u32 nr_sub;	  /* 0: from sub_size (layout fills both) */
	__u64 sub_size;	  /* 0: the mode's default */
	__u32 ring;	  /* enum gtsc_channel_ring (gtsc/gtsc.h): a BPF ring buffer or an array */
};

/* Now on the records' clock: CLOCK_MONOTONIC is bpf_ktime_get_ns()'s. */
static inline __u64 gtsc_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct gtsc_ring {
	struct gtsc_channels *owner;
	__u32 channel;
	__u32 cpu; /* (__u32)-1 for a global ring */
	int fd;	   /* -1 for an array region: no map of its own */
	struct gtsc_ringbuf rb; /* one per ring: a round can stop one ring, not all */
	struct gtsc_arrbuf ab;	/* an array channel's region, in place of rb */
	bool arr;
	__u64 consumed;
	__u64 malformed; /* records whose header disagreed with their size or type */
};

/*
 * A native flight ring (BPF_F_RB_OVERWRITE), mapped read-only: the producer
 * page (the kernel's producer_pos, pending_pos, overwrite_pos, in that
 * order: kernel/bpf/ringbuf.c) and the data pages twice, as for a consumer.
 */
struct gtsc_oring {
	int fd;
	const unsigned long *pos;
	const char *data;
	size_t size;
};

struct gtsc_channel {
	struct gtsc_channel_spec spec;
	__u32 id;
	__u32 ring_base;    /* in gtsc_rings, or in gtsc_orings for a native flight channel */
	__u32 nr_rings;	    /* drained rings: 0 for a flight channel */
	__u32 nr_regions;   /* flight: one per CPU, or 1 when global */
	__u32 region_base;  /* flight: region 0's index among every flight region */
	bool native;	    /* flight: BPF_F_RB_OVERWRITE rings, one per region */
	__u32 flight_base;  /* emulated flight: first slot of region 0 in gtsc_flight */
	__u32 region_slots; /* flight: 64-byte slots per region (native: its bytes / 64) */
	__u32 head_base;    /* emulated flight: region 0's entry in gtsc_flight_heads */
	bool arr;	    /* ring=array: regions of gtsc_arr instead of BPF rings */
	__u32 arr_base;	    /* array: region 0's first element */
	__u32 arr_elems;    /* array: elements per region */
	__u32 arr_head;	    /* array: region 0's entry in gtsc_arr_heads */
};

struct gtsc_channels {
	struct gtsc_channel ch[GTSC_MAX_CHANNELS];
	int n;
	int nr_cpus;
	__u32 nr_rings;
	__u32 nr_flight_slots;	 /* every emulated region's slots: gtsc_flight's size */
	__u32 nr_flight_heads;	 /* emulated regions: gtsc_flight_heads' size */
	__u32 nr_flight_regions; /* every flight region, native or emulated */
	bool native_flight;	 /* before layout: flight channels take native rings */
	__u32 nr_orings;	 /* native flight rings: gtsc_orings' size */
	__u32 arr_elem_max;	 /* before layout: the kernel's largest array ring element */
	__u32 arr_elem;		 /* every array region's element size (a power of two) */
	__u32 nr_arr_elems;	 /* gtsc_arr's size */
	__u32 nr_arr_heads;	 /* gtsc_arr_heads' size */
	int arr_fd, arr_heads_fd, bell_fd; /* set before create when nr_arr_heads */
	void *arr_data;		 /* gtsc_arr, mapped read-write (the recorder zeroes) */
	struct gtsc_arr_head *arr_heads; /* gtsc_arr_heads, mapped read-write (tails) */
	struct gtsc_ringbuf bell;	 /* the doorbell ring: drained and ignored */
	struct gtsc_oring *orings;
	int orings_fd;	/* gtsc_orings, set before create */
	int otmpl_fd;	/* an overwrite ring: gtsc_orings' inner template */
	struct gtsc_ring *rings;
	int outer_fd;	/* the ARRAY_OF_MAPS, also the handle of gt_channels__sync */
	int barrier_fd; /* a ring no class writes, when there is none else to sync with */
	int epfd;	  /* every ring's fd: woken when a program forces a wakeup */
	__u64 round_ts;	  /* CLOCK_MONOTONIC when the current drain round began */
	bool backlog;	  /* a ring still held records newer than its round */
	struct gtsc_sink *sink;
	int sink_err; /* first error the sink returned; stops consumption */
};

/* Adds or replaces (by name) a channel; returns its id or -errno. */
int gt_channels__add(struct gtsc_channels *c, const struct gtsc_channel_spec *spec);
int gt_channels__find(const struct gtsc_channels *c, const char *name);
/* Resolves SPEC's size from sub_size x nr_sub and checks them; WHY gets a sentence. */
int gt_channel_spec__check(struct gtsc_channel_spec *spec, char *why, size_t why_sz);
/* Fixes sizes, rings and flight regions for NR_CPUS; call before load. -E2BIG if too large. */
int gt_channels__layout(struct gtsc_channels *c, int nr_cpus);
static inline bool gtsc_channel__flight(const struct gtsc_channel *ch)
{
	return ch->spec.mode == GTSC_MODE_OVERWRITE;
}
/* Where a class writing into CH finds its rings or flight regions (after layout). */
void gt_channel__route(const struct gtsc_channel *ch, struct gtsc_class_route *r);
/* "discard" or "overwrite" */
const char *gt_channel__mode_name(const struct gtsc_channel *ch);
/*
 * With native flight rings, an overwrite ring for gtsc_orings' template
 * (bpf_map__set_inner_map_fd, before load): its fd or -errno.
 */
int gt_channels__oring_template(struct gtsc_channels *c);
/* Creates the rings, puts them in OUTER_FD (native flight rings in c->orings_fd),
 * and sets up consumption into SINK. */
int gt_channels__create(struct gtsc_channels *c, int outer_fd, struct gtsc_sink *sink);
/* Waits up to TIMEOUT_MS for a wakeup, then drains every ring. >= 0 records, or -errno.
 * The caller ends the sink's round. */
int gt_channels__drain(struct gtsc_channels *c, int timeout_ms);
__u64 gt_channels__consumed(const struct gtsc_channels *c, __u32 channel);
/* Records left out because their header disagreed with their size or type. */
__u64 gt_channels__malformed(const struct gtsc_channels *c);
/*
 * Returns once every BPF program that was running has returned: updating an
 * ARRAY_OF_MAPS slot ends in synchronize_rcu() (kernel/bpf/syscall.c,
 * maybe_wait_bpf_programs), and tracing programs run under rcu_read_lock().
 */
int gt_channels__sync(struct gtsc_channels *c);
void gt_channels__free(struct gtsc_channels *c);
/* gtsc_parse_size ("1M", "512K", "4096", "2G") is public: gtsc/record.h. */

#endif
