/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --live: the records of a recording, in time order as they are
 * drained, on stdout: syscalls as report --syscalls prints them (strace
 * style, <unfinished ...> and <... resumed> between threads), every other
 * event as report prints it; --live=json as their --json objects.
 */
#ifndef __GTSC_LIVE_VIEW_H
#define __GTSC_LIVE_VIEW_H

#include <stdbool.h>
#include <gtsc/gtsc.h>

struct live_view;

/* R: gtsc_recording__live's reader, its metadata read (after attach). */
struct live_view *live_view__new(struct gtsc_reader *r, bool json);
/* Prints what R has ready.  0, 1 once R ended, or -errno (-EIO: stdout is gone). */
int live_view__drain(struct live_view *lv);
/* After the recording finished: the rest, and the calls still open.  0 or -errno. */
int live_view__finish(struct live_view *lv);
void live_view__free(struct live_view *lv);

#endif
