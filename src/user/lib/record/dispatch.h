/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One syscall dispatch per hook, shared by every recorder on the system
 * (syscalls.bpf.c's "dispatch", doc/notes/sessions-dispatch.md).
 *
 * No bpffs pin: a SIGKILLed recorder must leave nothing attached.  The
 * first recorder, the head, attaches its own programs, which call the
 * chain after their own work; every later recorder's programs go in a slot
 * of the chain.  Every recorder holds the head's two links and the two
 * prog arrays as its own fds (a joiner takes copies with pidfd_open +
 * pidfd_getfd), so the head's programs stay exactly as long as one
 * recorder holds them.  /run/gtsc/dispatch, under flock, has one line per
 * recorder: pid, its start time (pid reuse), slot (-1: the head), and its
 * seven fd numbers, from which a joiner copies: the two links, the two
 * prog arrays, and the mask (tgid -> slots that may want it), the word of
 * slots that take every task and the per-CPU scratch, all the head's maps,
 * reused by every joiner.
 */
#ifndef __GTSC_DISPATCH_H
#define __GTSC_DISPATCH_H

#include <stdbool.h>
#include <linux/types.h>
#include "gtsc_shared.h"

struct bpf_object;

#define GTSC_DISPATCH_FILE "/run/gtsc/dispatch"

/* The shared maps beside the chains, in struct gtsc_dispatch's map_fd. */
enum gtsc_dispatch_map { GTSC_DISP_MASK, GTSC_DISP_EVERY, GTSC_DISP_CUR, GTSC_DISP_MAPS };

struct gtsc_dispatch {
	int lock_fd;	  /* the file, flocked between begin and publish */
	int slot;	  /* -1: not in the chain (attach directly; the head too) */
	bool head;	  /* attached directly, its programs call the chain */
	bool filled;	  /* our programs are in the slot */
	int chain_fd[2];  /* [enter, exit]: copies (joiner), dups of its maps (head) */
	int map_fd[GTSC_DISP_MAPS]; /* gtsc_sys_mask, _every, _cur: likewise */
	int link_fd[2];	  /* copies (joiner), dups of its links (head) */
	__u64 last_reap_ns;
	char why[96]; /* why not in the chain, when it could have been */
};

void gt_dispatch__init(struct gtsc_dispatch *d);
/*
 * Before load: takes the lock, reaps dead holders, claims a slot and, as a
 * joiner, copies the chain's fds.  0 with d->slot >= 0 to go in the chain,
 * with d->head to attach directly as the head (the lock kept for
 * publish in both), else 0 with d->slot < 0 to attach directly (d->why).
 */
int gt_dispatch__begin(struct gtsc_dispatch *d);
/*
 * After load (the head: and after attaching its pair, LINK_FD [enter,
 * exit]; NULL for a member): our line is written (the head's with its
 * links and its maps from OBJ) and the lock released.  On failure the
 * session leaves the chain (d->slot = -1, d->head false).
 */
int gt_dispatch__publish(struct gtsc_dispatch *d, struct bpf_object *obj, const int link_fd[2]);
/*
 * "attach": our programs (fds) into our slot; EVERY (a session without
 * -p) sets our bit in the dispatch's word of slots that take every task.
 */
int gt_dispatch__fill(struct gtsc_dispatch *d, int enter_fd, int exit_fd, bool every);
/* Our bit for TGID in the dispatch's mask (after publish): 0 or -errno. */
int gt_dispatch__want(struct gtsc_dispatch *d, __u32 tgid);
/* Dead holders' slots emptied and their lines dropped; FORCE waits for the lock. */
void gt_dispatch__reap(struct gtsc_dispatch *d, bool force);
/* "detach" and leave: our slot emptied, or the head's work retired (before our maps go), fds closed. */
void gt_dispatch__leave(struct gtsc_dispatch *d);
/* For `gtsc-bpf list`: dead holders' slots removed without being in the chain. */
void gt_dispatch__reap_all(void);

#endif
