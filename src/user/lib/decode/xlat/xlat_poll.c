// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Waiting on descriptors: poll events, epoll, eventfd, timerfd and inotify flags. */
#include "xlat.h"

static const struct xlat_entry poll_events[] = {
	{ 0x1, "POLLIN" },
	{ 0x2, "POLLPRI" },
	{ 0x4, "POLLOUT" },
	{ 0x8, "POLLERR" },
	{ 0x10, "POLLHUP" },
	{ 0x20, "POLLNVAL" },
	{ 0x40, "POLLRDNORM" },
	{ 0x80, "POLLRDBAND" },
	{ 0x100, "POLLWRNORM" },
	{ 0x200, "POLLWRBAND" },
	{ 0x400, "POLLMSG" },
	{ 0x1000, "POLLREMOVE" },
	{ 0x2000, "POLLRDHUP" },
};
const struct xlat gt_xlat_poll_events = XLAT_TABLE(poll_events, NULL, NULL);

static const struct xlat_entry epoll_events[] = {
	{ 0x1, "EPOLLIN" },
	{ 0x2, "EPOLLPRI" },
	{ 0x4, "EPOLLOUT" },
	{ 0x8, "EPOLLERR" },
	{ 0x10, "EPOLLHUP" },
	{ 0x20, "EPOLLNVAL" },
	{ 0x40, "EPOLLRDNORM" },
	{ 0x80, "EPOLLRDBAND" },
	{ 0x100, "EPOLLWRNORM" },
	{ 0x200, "EPOLLWRBAND" },
	{ 0x400, "EPOLLMSG" },
	{ 0x2000, "EPOLLRDHUP" },
	{ 1u << 28, "EPOLLEXCLUSIVE" },
	{ 1u << 29, "EPOLLWAKEUP" },
	{ 1u << 30, "EPOLLONESHOT" },
	{ 1u << 31, "EPOLLET" },
};
const struct xlat gt_xlat_epoll_events = XLAT_TABLE(epoll_events, NULL, NULL);

static const struct xlat_entry epoll_ctl_op[] = {
	{ 1, "EPOLL_CTL_ADD" },
	{ 2, "EPOLL_CTL_DEL" },
	{ 3, "EPOLL_CTL_MOD" },
};
const struct xlat gt_xlat_epoll_ctl_op = XLAT_TABLE(epoll_ctl_op, NULL, "EPOLL_CTL_???");

static const struct xlat_entry epoll_create_flags[] = {
	{ 02000000, "EPOLL_CLOEXEC" },
};
const struct xlat gt_xlat_epoll_create_flags = XLAT_TABLE(epoll_create_flags, NULL, NULL);

static const struct xlat_entry eventfd_flags[] = {
	{ 1, "EFD_SEMAPHORE" },
	{ 04000, "EFD_NONBLOCK" },
	{ 02000000, "EFD_CLOEXEC" },
};
const struct xlat gt_xlat_eventfd_flags = XLAT_TABLE(eventfd_flags, NULL, NULL);

static const struct xlat_entry timerfd_flags[] = {
	{ 1, "TFD_TIMER_ABSTIME" },
	{ 2, "TFD_TIMER_CANCEL_ON_SET" },
	{ 04000, "TFD_NONBLOCK" },
	{ 02000000, "TFD_CLOEXEC" },
};
const struct xlat gt_xlat_timerfd_flags = XLAT_TABLE(timerfd_flags, NULL, NULL);

static const struct xlat_entry inotify_init_flags[] = {
	{ 04000, "IN_NONBLOCK" },
	{ 02000000, "IN_CLOEXEC" },
};
const struct xlat gt_xlat_inotify_init_flags = XLAT_TABLE(inotify_init_flags, NULL, NULL);
