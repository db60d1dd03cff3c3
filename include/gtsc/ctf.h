/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libgtsc: part of the public API.  Include <gtsc/gtsc.h>, which includes
 * this file; it is a separate file only to keep gtsc.h readable.
 */
#ifndef __GTSC_PUBLIC_CTF_H
#define __GTSC_PUBLIC_CTF_H

#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- writing a trace as CTF ---- */

struct gtsc_ctf_opts {
	size_t sz;
	__u32 packet_bytes; /**< event bytes per packet; 0: 64 KiB */
	/** called after each record taken (a progress line: gtsc_reader__progress); NULL: none */
	void (*on_record)(void *ctx);
	void *ctx;
	/** out: events written, and the drops the packets count as discarded */
	__u64 events;
	__u64 discarded;
	size_t : 0;
};
#define gtsc_ctf_opts__last_field discarded

/**
 * @brief Writes the records R yields from now on as a CTF 1.8 trace, the
 * format of LTTng, that babeltrace2 and Trace Compass read: directory DIR
 * (created, or one of an earlier conversion, whose files are replaced)
 * holds the TSDL `metadata` and one stream file per channel and CPU
 * ("syscalls_3").  Events are named and their fields are called as
 * LTTng's kernel tracer does (syscall_entry_openat with the syscall's
 * arguments, syscall_exit_openat with ret, kmem_kmalloc, sched_process_fork,
 * ...), with LTTng's pid, tid and procname contexts and each packet's
 * cpu_id; the clock is CLOCK_MONOTONIC with the wall-clock offset the
 * trace measured, so times are absolute; GTSC_REC_DROPS records become the
 * packets' discarded-events counts of their channel and CPU.
 * @return 0, or -errno (-EEXIST: DIR exists and is not an empty directory
 * or a CTF trace; -EINVAL: bad opts)
 */
GTSC_API int gtsc_reader__write_ctf(struct gtsc_reader *r, const char *dir,
				    struct gtsc_ctf_opts *opts);

#ifdef __cplusplus
}
#endif

#endif
