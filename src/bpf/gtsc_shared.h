/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Constants and map values shared by the BPF programs and the loader.  The
 * records themselves live in include/gtsc/records.h; this header only holds
 * what configures and counts the channels.
 */
#ifndef __GTSC_SHARED_H
#define __GTSC_SHARED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Event classes: each writes into the channel the loader maps it to. */
enum gtsc_class {
	GTSC_CLASS_TASK = 0, /* fork/exec/exit: always on, names pids */
	GTSC_CLASS_SYSCALLS = 1,
	GTSC_CLASS_KMEM = 2,
	GTSC_CLASS_MAX,
};

#define GTSC_MAX_CHANNELS 16
#define GTSC_MAX_CPUS 1024
#define GTSC_MAX_TRACKED_PIDS 65536

/*
 * Where a class writes: rings of all channels sit in one ARRAY_OF_MAPS, a
 * per-CPU channel owning nr_cpus consecutive slots from ring_base and a
 * global one a single slot.  Per-CPU value of the counters map, indexed by
 * channel id.
 */
struct gtsc_class_route {
	__u32 channel;
	__u32 ring_base;
	__u32 percpu;
	__u32 __pad;
	__u64 wake_bytes; /* wake the consumer only once this much is pending */
};

struct gtsc_chan_counters {
	__u64 written; /* records submitted */
	__u64 dropped; /* reserves that failed: ring full */
};

#endif
