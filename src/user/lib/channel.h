/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Channels: named sets of BPF ring buffers, one per CPU or one global, all
 * held in the single ARRAY_OF_MAPS the programs index.  This file creates
 * the rings, drains them into a sink and keeps the per-ring consumed counts
 * that, set against the kernel's written/dropped counters, make the drop
 * accounting exact.
 */
#ifndef __GTSC_CHANNEL_H
#define __GTSC_CHANNEL_H

#include <stdbool.h>
#include <linux/types.h>
#include "gtsc_shared.h"
#include "sink.h"

#define GTSC_CHANNEL_NAME_LEN 32

struct gtsc_channel_spec {
	char name[GTSC_CHANNEL_NAME_LEN];
	bool global;	  /* one ring shared by all CPUs instead of one per CPU */
	__u64 ring_bytes; /* per ring; rounded up to a power of two >= page size */
};

struct gtsc_ring {
	struct gtsc_channels *owner;
	__u32 channel;
	__u32 cpu; /* (__u32)-1 for a global ring */
	int fd;
	__u64 consumed;
	__u64 malformed; /* records whose size disagreed with their header */
};

struct gtsc_channel {
	struct gtsc_channel_spec spec;
	__u32 id;
	__u32 ring_base;
	__u32 nr_rings;
};

struct gtsc_channels {
	struct gtsc_channel ch[GTSC_MAX_CHANNELS];
	int n;
	int nr_cpus;
	__u32 nr_rings;
	struct gtsc_ring *rings;
	struct ring_buffer *rb;
	struct gtsc_sink *sink;
	int sink_err; /* first error the sink returned; stops consumption */
};

/* Adds or replaces (by name) a channel; returns its id or -errno. */
int gtsc_channels__add(struct gtsc_channels *c, const struct gtsc_channel_spec *spec);
int gtsc_channels__find(const struct gtsc_channels *c, const char *name);
/* Fixes ring_base/nr_rings for NR_CPUS; call before load. */
void gtsc_channels__layout(struct gtsc_channels *c, int nr_cpus);
/* Creates the rings, puts them in OUTER_FD, and sets up consumption into SINK. */
int gtsc_channels__create(struct gtsc_channels *c, int outer_fd, struct gtsc_sink *sink);
/* Waits up to TIMEOUT_MS for a wakeup, then drains every ring. >= 0 records, or -errno.
 * The caller ends the sink's round. */
int gtsc_channels__drain(struct gtsc_channels *c, int timeout_ms);
__u64 gtsc_channels__consumed(const struct gtsc_channels *c, __u32 channel);
void gtsc_channels__free(struct gtsc_channels *c);
/* Parses "1M", "512K", "4096", "2G" into bytes; -EINVAL if malformed. */
int gtsc_parse_size(const char *s, __u64 *bytes);

#endif
