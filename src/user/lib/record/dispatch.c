// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The shared syscall dispatch's bookkeeping between recorder processes
 * (dispatch.h).  Every change to the file and to the prog arrays' slots is
 * made under its flock; a slot's line is written before its programs go
 * in, and its programs taken out before the line goes, so that a slot
 * filled without a line never exists and a reaper never empties a live
 * holder's slot.
 *
 * The head (the session that found nobody live) has no slot: its line's
 * slot is SLOT_HEAD.  It attaches its programs before it publishes its
 * line, under the lock, so that a joiner always finds its links (one that
 * found none would attach beside, outside the chain: eight recorders
 * started at once did).  Its programs call the chain, so they stay
 * attached as long as one member holds a copy of its links; when its
 * session ends, or a reaper finds it dead, GTSC_SYS_RETIRED in the word
 * stops their own work (a SIGKILLed head's gtsc_on is still set).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "dispatch.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define REAP_GAP_NS 1000000000ULL
#define NR_FDS 7
#define SLOT_HEAD (-1)

/* A holder's fds, in the order of its line (dispatch.h) */
enum { FD_LINK, FD_CHAIN = 2, FD_MASK = 4, FD_EVERY, FD_CUR };

struct holder {
	int pid, slot;
	unsigned long long start;
	int fd[NR_FDS]; /* in the holder; -1 where a line from before the mask has none */
};

/* The slots' lines and the head's */
#define TABLE_LINES (GTSC_DISPATCH_SLOTS + 1)

struct table {
	struct holder h[TABLE_LINES];
	int n;
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* /proc/PID/stat's starttime (field 22), 0 when PID is gone or a zombie (its fds are closed). */
static unsigned long long start_time(int pid)
{
	char path[64], buf[1024], *p, state;
	unsigned long long v = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the comm may hold anything */
	if (!p || sscanf(p + 1, " %c", &state) != 1 || state == 'Z' || state == 'X')
		return 0;
	/* the space before field F, from the one before the state (field 3) */
	for (int f = 3; f <= 22 && p; f++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &v) != 1)
		return 0;
	return v;
}

static bool alive(const struct holder *h)
{
	return h->start && start_time(h->pid) == h->start;
}

static void table_read(int fd, struct table *t)
{
	char buf[4096], *line, *save = NULL;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	t->n = 0;
	if (n <= 0)
		return;
	buf[n] = 0;
	for (line = strtok_r(buf, "\n", &save); line && t->n < TABLE_LINES;
	     line = strtok_r(NULL, "\n", &save)) {
		struct holder *h = &t->h[t->n];

		int n = sscanf(line, "%d %llu %d %d %d %d %d %d %d %d", &h->pid, &h->start,
			       &h->slot, &h->fd[0], &h->fd[1], &h->fd[2], &h->fd[3], &h->fd[4],
			       &h->fd[5], &h->fd[6]);

		/* 7 fields: a recorder from before the mask, which we cannot join (copy_fds) */
		for (int i = n < 3 ? 0 : n - 3; i < NR_FDS; i++)
			h->fd[i] = -1;
		if (n >= 7 && h->slot >= SLOT_HEAD && h->slot < GTSC_DISPATCH_SLOTS)
			t->n++;
	}
}

/* Only when changed: readers that take no lock (tests) see a whole file between changes. */
static int table_write(int fd, const struct table *t)
{
	char buf[4096], old[4096];
	size_t len = 0;

	for (int i = 0; i < t->n; i++) {
		const struct holder *h = &t->h[i];

		len += snprintf(buf + len, sizeof(buf) - len, "%d %llu %d %d %d %d %d %d %d %d\n",
				h->pid, h->start, h->slot, h->fd[0], h->fd[1], h->fd[2], h->fd[3],
				h->fd[4], h->fd[5], h->fd[6]);
	}
	if (pread(fd, old, sizeof(old), 0) == (ssize_t)len && !memcmp(old, buf, len))
		return 0;
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		return -errno;
	return 0;
}

static void table_drop(struct table *t, int i)
{
	t->h[i] = t->h[--t->n];
}

/* Our line, or -1 */
static int table_mine(const struct table *t, int slot)
{
	for (int i = 0; i < t->n; i++)
		if (t->h[i].pid == getpid() && t->h[i].slot == slot)
			return i;
	return -1;
}

/*
 * What each copied map must be.  The names are cut at 15 characters; the
 * unmasked chain's arrays were gtsc_sys_chain_*, which a recorder from
 * before the mask requires and which we refuse: neither joins the other.
 */
static const struct {
	__u32 type;
	const char *name;
} fd_maps[NR_FDS] = {
	[FD_CHAIN] = { BPF_MAP_TYPE_PROG_ARRAY, "gtsc_sys_mchain" },
	[FD_CHAIN + 1] = { BPF_MAP_TYPE_PROG_ARRAY, "gtsc_sys_mchain" },
	[FD_MASK] = { BPF_MAP_TYPE_HASH, "gtsc_sys_mask" },
	[FD_EVERY] = { BPF_MAP_TYPE_ARRAY, "gtsc_sys_every" },
	[FD_CUR] = { BPF_MAP_TYPE_PERCPU_ARRAY, "gtsc_sys_cur" },
};

/* Copies of H's fds into FD, checked to be what the line says: 0 or -errno. */
static int copy_fds(const struct holder *h, int fd[NR_FDS])
{
	int pidfd, err = 0;

	for (int i = 0; i < NR_FDS; i++)
		fd[i] = -1;
	for (int i = 0; i < NR_FDS; i++)
		if (h->fd[i] < 0)
			return -EBADF; /* from before the mask */
	pidfd = syscall(SYS_pidfd_open, h->pid, 0);
	if (pidfd < 0)
		return -errno;
	/* after the pidfd: the process it names is the line's if the start time still matches */
	if (!alive(h)) {
		close(pidfd);
		return -ESRCH;
	}
	for (int i = 0; i < NR_FDS && !err; i++) {
		fd[i] = syscall(SYS_pidfd_getfd, pidfd, h->fd[i], 0);
		if (fd[i] < 0)
			err = -errno;
	}
	close(pidfd);
	for (int i = FD_CHAIN; i < NR_FDS && !err; i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(fd[i], &info, &len) || info.type != fd_maps[i].type ||
		    strcmp(info.name, fd_maps[i].name))
			err = -EBADF;
	}
	if (err)
		for (int i = 0; i < NR_FDS; i++)
			if (fd[i] >= 0)
				close(fd[i]), fd[i] = -1;
	return err;
}

/*
 * The dispatch's word (gtsc.bpf.h: the slots that take every task, and
 * the mask hash's generation above them), changed atomically through its
 * mapping: BPF fork handlers change it too, and an update through bpf(2)
 * would overwrite theirs.  OR and AND act on the slots, ADD on the whole.
 */
static int every_change(int every_fd, __u32 or, __u32 and, __u64 add)
{
	__u64 *w;

	if (every_fd < 0)
		return -EBADF;
	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE, MAP_SHARED, every_fd, 0);
	if (w == MAP_FAILED)
		return -errno;
	if (or)
		__atomic_fetch_or(w, or, __ATOMIC_SEQ_CST);
	if (and != ~0u)
		__atomic_fetch_and(w, 0xffffffff00000000ULL | and, __ATOMIC_SEQ_CST);
	if (add)
		__atomic_fetch_add(w, add, __ATOMIC_SEQ_CST);
	munmap(w, sizeof(*w));
	return 0;
}


/*
 * SLOT emptied in CHAIN_FD and its bit cleared in EVERY_FD's word.  The
 * mask hash keeps the slot's bits: nothing deletes from it (gtsc.bpf.h),
 * and a stale bit only costs the slot's next holder a filtered call.  The
 * head's "slot": its programs' own work retired, their calls kept.
 */
static void empty_slot(const int chain_fd[2], int every_fd, int slot)
{
	__u32 key = slot;

	if (slot == SLOT_HEAD) {
		every_change(every_fd, GTSC_SYS_RETIRED, ~0u, 0);
		return;
	}
	for (int h = 0; h < 2; h++)
		if (chain_fd[h] >= 0)
			bpf_map_delete_elem(chain_fd[h], &key); /* ENOENT: never filled */
	every_change(every_fd, 0, ~(1u << slot), 0);
}

/*
 * Dead holders' lines dropped, their slots emptied through CHAIN_FD and
 * EVERY_FD (NULL: none to empty).
 */
static void table_reap(struct table *t, const int chain_fd[2], int every_fd)
{
	for (int i = 0; i < t->n;) {
		if (alive(&t->h[i])) {
			i++;
			continue;
		}
		if (chain_fd)
			empty_slot(chain_fd, every_fd, t->h[i].slot);
		table_drop(t, i);
	}
}

static int open_locked(bool wait)
{
	int fd;

	mkdir("/run/gtsc", 0700);
	/* /run/gtsc is root's, O_NOFOLLOW all the same (as control.c's epitaphs) */
	fd = open(GTSC_DISPATCH_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void unlock(struct gtsc_dispatch *d)
{
	if (d->lock_fd >= 0)
		close(d->lock_fd); /* releases the flock */
	d->lock_fd = -1;
}

void gt_dispatch__init(struct gtsc_dispatch *d)
{
	memset(d, 0, sizeof(*d));
	d->lock_fd = -1;
	d->slot = -1;
	for (int h = 0; h < 2; h++)
		d->chain_fd[h] = d->link_fd[h] = -1;
	for (int m = 0; m < GTSC_DISP_MAPS; m++)
		d->map_fd[m] = -1;
}

static void close_fds(struct gtsc_dispatch *d)
{
	for (int h = 0; h < 2; h++) {
		if (d->chain_fd[h] >= 0)
			close(d->chain_fd[h]);
		if (d->link_fd[h] >= 0)
			close(d->link_fd[h]);
		d->chain_fd[h] = d->link_fd[h] = -1;
	}
	for (int m = 0; m < GTSC_DISP_MAPS; m++) {
		if (d->map_fd[m] >= 0)
			close(d->map_fd[m]);
		d->map_fd[m] = -1;
	}
}

int gt_dispatch__begin(struct gtsc_dispatch *d)
{
	struct table t;
	bool used[GTSC_DISPATCH_SLOTS] = {};
	int fd = open_locked(true), i, live;

	if (fd < 0) {
		snprintf(d->why, sizeof(d->why), "cannot lock %s: %s", GTSC_DISPATCH_FILE,
			 strerror(-fd));
		return 0;
	}
	d->lock_fd = fd;
	table_read(fd, &t);
	/* a live holder's copies: it holds the head's links, so they are attached */
	for (i = 0, live = -1; i < t.n; i++) {
		int c[NR_FDS];

		if (!alive(&t.h[i]))
			continue;
		live = i;
		if (copy_fds(&t.h[i], c))
			continue;
		for (int h = 0; h < 2; h++) {
			d->link_fd[h] = c[FD_LINK + h];
			d->chain_fd[h] = c[FD_CHAIN + h];
		}
		for (int m = 0; m < GTSC_DISP_MAPS; m++)
			d->map_fd[m] = c[FD_MASK + m];
		break;
	}
	d->head = d->chain_fd[0] < 0;
	if (d->head && live >= 0) {
		/* someone holds the chain and we cannot copy it: attach beside it */
		snprintf(d->why, sizeof(d->why), "cannot copy pid %d's dispatch fds",
			 t.h[live].pid);
		unlock(d);
		d->head = false;
		return 0;
	}
	if (d->head) {
		/* no live holder: the arrays died with the last one, and every line is stale */
		t.n = 0;
		table_write(fd, &t);
		return 0; /* still locked: publish writes our line */
	}
	table_reap(&t, d->chain_fd, d->map_fd[GTSC_DISP_EVERY]);
	for (i = 0; i < t.n; i++)
		if (t.h[i].slot != SLOT_HEAD)
			used[t.h[i].slot] = true;
	for (i = 0; i < GTSC_DISPATCH_SLOTS && used[i]; i++)
		;
	if (i == GTSC_DISPATCH_SLOTS) {
		snprintf(d->why, sizeof(d->why), "all %d dispatch slots are taken",
			 GTSC_DISPATCH_SLOTS);
		close_fds(d);
		table_write(fd, &t);
		unlock(d);
		return 0;
	}
	d->slot = i;
	table_write(fd, &t);
	return 0; /* still locked: publish writes our line */
}

/* Our line, with D's fds as they are: 0 or -errno. */
static int table_add(struct table *t, const struct gtsc_dispatch *d)
{
	if (t->n >= TABLE_LINES)
		return -ENOSPC;
	t->h[t->n++] = (struct holder){
		.pid = getpid(),
		.start = start_time(getpid()),
		.slot = d->head ? SLOT_HEAD : d->slot,
		.fd = { d->link_fd[0], d->link_fd[1], d->chain_fd[0], d->chain_fd[1],
			d->map_fd[GTSC_DISP_MASK], d->map_fd[GTSC_DISP_EVERY],
			d->map_fd[GTSC_DISP_CUR] },
	};
	return 0;
}

int gt_dispatch__publish(struct gtsc_dispatch *d, struct bpf_object *obj, const int link_fd[2])
{
	static const char *const maps[NR_FDS - FD_CHAIN] = { "gtsc_sys_mchain_enter",
							     "gtsc_sys_mchain_exit", "gtsc_sys_mask",
							     "gtsc_sys_every", "gtsc_sys_cur" };
	struct table t;
	int err = 0;

	if (d->slot < 0 && !d->head)
		return 0;
	/* the head's links and maps are the chain's: dups, so that they outlive the skeleton's */
	for (int h = 0; d->head && h < 2 && !err; h++) {
		d->link_fd[h] = fcntl(link_fd[h], F_DUPFD_CLOEXEC, 3);
		if (d->link_fd[h] < 0)
			err = -errno;
	}
	for (int i = 0; d->head && i < NR_FDS - FD_CHAIN && !err; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, maps[i]);
		int fd = m ? fcntl(bpf_map__fd(m), F_DUPFD_CLOEXEC, 3) : -1;

		if (fd < 0)
			err = m ? -errno : -ENOENT;
		else if (i < 2)
			d->chain_fd[i] = fd;
		else
			d->map_fd[i - 2] = fd;
	}
	if (!err) {
		table_read(d->lock_fd, &t);
		err = table_add(&t, d) ?: table_write(d->lock_fd, &t);
	}
	unlock(d);
	if (err) {
		snprintf(d->why, sizeof(d->why), "sharing the syscall dispatch failed: %s",
			 strerror(-err));
		close_fds(d);
		d->slot = -1;
		d->head = false;
	}
	return err;
}

int gt_dispatch__fill(struct gtsc_dispatch *d, int enter_fd, int exit_fd, bool every)
{
	__u32 key = d->slot;
	int fds[2] = { enter_fd, exit_fd };
	int err = every ? every_change(d->map_fd[GTSC_DISP_EVERY], 1u << d->slot, ~0u, 0) : 0;

	for (int h = 0; h < 2 && !err; h++)
		if (bpf_map_update_elem(d->chain_fd[h], &key, &fds[h], BPF_ANY))
			err = -errno;
	if (err) {
		empty_slot(d->chain_fd, d->map_fd[GTSC_DISP_EVERY], d->slot);
		return err;
	}
	d->filled = true;
	return 0;
}

/*
 * Only an insert: an update through bpf(2) replaces the element, and a
 * fork handler or'ing its bit into the old one meanwhile (task.bpf.c)
 * would lose it.  A tgid already there without our bit (another session
 * follows it, or a reused pid's stale entry) puts our slot in the word of
 * slots that take every task instead: exact all the same (the session
 * filters by its own gtsc_pids), at a filtered call's cost for every
 * other task.
 */
int gt_dispatch__want(struct gtsc_dispatch *d, __u32 tgid)
{
	__u32 bit, v;

	if (d->slot < 0)
		return 0;
	bit = 1u << d->slot;
	/* after the insert: a CPU's cached miss of TGID is stale from here (syscalls.bpf.c) */
	if (!bpf_map_update_elem(d->map_fd[GTSC_DISP_MASK], &tgid, &bit, BPF_NOEXIST))
		return every_change(d->map_fd[GTSC_DISP_EVERY], 0, ~0u, GTSC_SYS_GEN_ONE);
	if (!bpf_map_lookup_elem(d->map_fd[GTSC_DISP_MASK], &tgid, &v) && (v & bit))
		return 0;
	return every_change(d->map_fd[GTSC_DISP_EVERY], bit, ~0u, 0);
}

void gt_dispatch__reap(struct gtsc_dispatch *d, bool force)
{
	__u64 now = mono_ns();
	struct table t;
	int fd;

	if ((d->slot < 0 && !d->head) || (!force && now - d->last_reap_ns < REAP_GAP_NS))
		return;
	d->last_reap_ns = now;
	fd = open_locked(force);
	if (fd < 0)
		return; /* busy: another recorder is joining or leaving, and reaps */
	table_read(fd, &t);
	table_reap(&t, d->chain_fd, d->map_fd[GTSC_DISP_EVERY]);
	table_write(fd, &t);
	close(fd);
}

void gt_dispatch__leave(struct gtsc_dispatch *d)
{
	struct table t;
	int fd;

	if (d->slot < 0 && !d->head && d->lock_fd < 0)
		return;
	fd = d->lock_fd >= 0 ? d->lock_fd : open_locked(true);
	d->lock_fd = -1;
	if (d->slot >= 0 || d->head)
		empty_slot(d->chain_fd, d->map_fd[GTSC_DISP_EVERY], d->head ? SLOT_HEAD : d->slot);
	if (fd >= 0) {
		int i;

		table_read(fd, &t);
		i = table_mine(&t, d->head ? SLOT_HEAD : d->slot);
		if (i >= 0)
			table_drop(&t, i);
		table_reap(&t, d->chain_fd, d->map_fd[GTSC_DISP_EVERY]);
		table_write(fd, &t);
		close(fd);
	}
	close_fds(d);
	d->slot = -1;
	d->head = false;
	d->filled = false;
}

void gt_dispatch__reap_all(void)
{
	int fd = open_locked(false), c[NR_FDS] = { -1, -1, -1, -1, -1, -1, -1 };
	bool live = false;
	struct table t;

	if (fd < 0)
		return;
	table_read(fd, &t);
	for (int i = 0; i < t.n; i++) {
		live |= alive(&t.h[i]);
		if (alive(&t.h[i]) && !copy_fds(&t.h[i], c))
			break;
	}
	if (c[FD_CHAIN] < 0 && live)
		; /* a live holder we cannot copy (from before the mask): its lines stay */
	else if (c[FD_CHAIN] < 0)
		t.n = 0; /* nobody alive holds the arrays */
	else
		table_reap(&t, c + FD_CHAIN, c[FD_EVERY]);
	table_write(fd, &t);
	for (int i = 0; i < NR_FDS; i++)
		if (c[i] >= 0)
			close(c[i]);
	close(fd);
}
