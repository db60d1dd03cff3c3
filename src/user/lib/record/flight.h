/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading flight channels without consuming them.  Native rings
 * (BPF_F_RB_OVERWRITE) are walked from the kernel's overwrite_pos to its
 * producer_pos (flight.c says how).  Emulated ones: the gtsc_flight slots and
 * the region heads are BPF_F_MMAPABLE arrays, mapped read-only here; a region
 * is walked from its oldest retained slot to its head, every record checked
 * seqlock-style against writers that may overwrite it meanwhile (layout and
 * protocol in gtsc_shared.h).  Nothing the kernel holds changes: the same
 * retained records can be read again and again.
 */
#ifndef __GTSC_FLIGHT_H
#define __GTSC_FLIGHT_H

#include <stddef.h>
#include <linux/types.h>
#include "channel.h"
#include "sink.h"

struct gtsc_flight_map {
	const struct gtsc_channels *chans; /* native flight rings (channel.h) */
	const struct gtsc_flight_slot *slots;
	size_t slots_len;
	const struct gtsc_flight_head *heads;
	size_t heads_len;
	__u32 nr_heads;
};

/* What one walk of one region found. */
struct gtsc_flight_walk {
	__u64 head;	/* slots claimed when the walk began: where a later read resumes */
	__u64 retained; /* whole records in the region */
	__u64 read;	/* of those, handed to the sink (at or after FROM) */
	__u64 torn;	/* records, or runs of slots, a writer was changing: skipped */
};

/* Maps both arrays read-only (none without emulated regions); -errno. */
int gt_flight__map(struct gtsc_flight_map *f, const struct gtsc_channels *chans, int slots_fd,
		   __u32 nr_slots, int heads_fd, __u32 nr_heads);
void gt_flight__unmap(struct gtsc_flight_map *f);
/*
 * Walks region REGION (a CPU, or 0 for a global channel) of flight channel
 * CH: counts every retained record, and hands those at positions >= FROM to
 * SINK (NULL: count only) in position order.  0 or the sink's error.
 */
int gt_flight__walk(const struct gtsc_flight_map *f, const struct gtsc_channel *ch, __u32 region,
		    __u64 from, struct gtsc_sink *sink, struct gtsc_flight_walk *out);

#endif
