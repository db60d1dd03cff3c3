/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One dispatcher program per syscall hook, shared by every recorder on the
 * system (syscalls.bpf.c's "dispatch", doc/notes/sessions-dispatch.md).
 *
 * No bpffs pin: a SIGKILLed recorder must leave nothing attached.  The
 * first recorder attaches the dispatchers; every recorder in the chain
 * holds the two links and the two prog arrays as its own fds (a joiner
 * takes copies with pidfd_open + pidfd_getfd), so the dispatchers stay
 * exactly as long as one recorder holds them.  /run/gtsc/dispatch, under
 * flock, has one line per slot: holder pid, its start time (pid reuse),
 * slot, and the holder's seven fd numbers, from which a joiner copies: the
 * two links, the two prog arrays, and the dispatcher's mask (tgid -> slots
 * that may want it), its word of slots that take every task and its
 * per-CPU scratch, all the creator's maps, reused by every joiner.
 */
#ifndef __GTSC_DISPATCH_H
#define __GTSC_DISPATCH_H

#include <stdbool.h>
#include <linux/types.h>
#include "gtsc_shared.h"

struct bpf_link;
struct bpf_object;

#define GTSC_DISPATCH_FILE "/run/gtsc/dispatch"

/* The shared maps beside the chains, in struct gtsc_dispatch's map_fd. */
enum gtsc_dispatch_map { GTSC_DISP_MASK, GTSC_DISP_EVERY, GTSC_DISP_CUR, GTSC_DISP_MAPS };

struct gtsc_dispatch {
	int lock_fd;	  /* the file, flocked between begin and publish */
	int slot;	  /* -1: not in the chain (attach directly) */
	bool creator;	  /* this session attaches the dispatchers */
	bool filled;	  /* our programs are in the slot */
	int chain_fd[2];  /* [enter, exit]: copies (joiner), dups of its maps (creator) */
	int map_fd[GTSC_DISP_MAPS]; /* gtsc_sys_mask, _every, _cur: likewise */
	int link_fd[2];	  /* copies (joiner) */
	struct bpf_link *links[2]; /* the creator's */
	__u64 last_reap_ns;
	char why[96]; /* why not in the chain, when it could have been */
};

void gt_dispatch__init(struct gtsc_dispatch *d);
/*
 * Before load: takes the lock, reaps dead holders, claims a slot and, as a
 * joiner, copies the chain's fds.  0 with d->slot >= 0 to go in the chain
 * (creator or joiner), 0 with d->slot < 0 to attach directly (d->why).
 */
int gt_dispatch__begin(struct gtsc_dispatch *d);
/*
 * After load (OBJ's dispatcher programs loaded when d->creator): the
 * creator attaches them; the slot's line is written and the lock
 * released.  On failure the session leaves the chain (d->slot = -1).
 */
int gt_dispatch__publish(struct gtsc_dispatch *d, struct bpf_object *obj);
/*
 * "attach": our programs (fds) into our slot; EVERY (a session without
 * -p) sets our bit in the dispatcher's word of slots that take every task.
 */
int gt_dispatch__fill(struct gtsc_dispatch *d, int enter_fd, int exit_fd, bool every);
/* Our bit for TGID in the dispatcher's mask (after publish): 0 or -errno. */
int gt_dispatch__want(struct gtsc_dispatch *d, __u32 tgid);
/* Dead holders' slots emptied and their lines dropped; FORCE waits for the lock. */
void gt_dispatch__reap(struct gtsc_dispatch *d, bool force);
/* "detach" and leave: our slot emptied (before our maps go), fds closed. */
void gt_dispatch__leave(struct gtsc_dispatch *d);
/* For `gtsc-bpf list`: dead holders' slots removed without being in the chain. */
void gt_dispatch__reap_all(void);

#endif
