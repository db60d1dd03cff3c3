// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * strace's syscall classes (-e trace=%file ...), as data: a subset of its
 * sysent flags TF, TD, TN, TP, TM, TS, TI, TC, TCL, TSTA, TSF, PU, by name.
 * A name the build's syscall table lacks is skipped, so a class never
 * fails because of one syscall.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "metadata.h"
#include "strbuf.h"
#include "syscall_classes.h"

struct syscall_class {
	const char *name; /* without the % */
	const char *const *members;
};

static const char *const file_calls[] = {
	"open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx",
	"statfs", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "unlink",
	"unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "mknod",
	"mknodat", "link", "linkat", "symlink", "symlinkat", "chdir", "chroot", "pivot_root",
	"chmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchownat", "truncate", "utime",
	"utimes", "futimesat", "utimensat", "execve", "execveat", "mount", "umount2", "swapon",
	"swapoff", "acct", "uselib", "getcwd", "setxattr", "lsetxattr", "getxattr", "lgetxattr",
	"listxattr", "llistxattr", "removexattr", "lremovexattr", "inotify_add_watch",
	"fanotify_mark", "name_to_handle_at", "quotactl", "open_tree", "move_mount", "fspick",
	"mount_setattr", NULL,
};

static const char *const desc_calls[] = {
	"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2",
	"pwritev2", "open", "openat", "openat2", "creat", "close", "close_range", "dup", "dup2",
	"dup3", "fcntl", "ioctl", "lseek", "fstat", "newfstatat", "statx", "fstatfs", "fsync",
	"fdatasync", "ftruncate", "fallocate", "fadvise64", "readahead", "sync_file_range",
	"syncfs", "fchmod", "fchown", "fchdir", "flock", "getdents", "getdents64", "select",
	"pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
	"epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "signalfd", "signalfd4",
	"timerfd_create", "timerfd_settime", "timerfd_gettime", "inotify_init", "inotify_init1",
	"fanotify_init", "pipe", "pipe2", "sendfile", "splice", "tee", "vmsplice",
	"copy_file_range", "mmap", "memfd_create", "fgetxattr", "fsetxattr", "flistxattr",
	"fremovexattr", "pidfd_open", "pidfd_getfd", "userfaultfd", "perf_event_open", "bpf",
	"io_uring_setup", "io_uring_enter", "io_uring_register", NULL,
};

static const char *const net_calls[] = {
	"socket", "socketpair", "bind", "connect", "listen", "accept", "accept4",
	"getsockname", "getpeername", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg",
	"recvmmsg", "shutdown", "setsockopt", "getsockopt", NULL,
};

static const char *const process_calls[] = {
	"clone", "clone3", "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4",
	"waitid", "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
	"pidfd_open", "pidfd_send_signal", "unshare", NULL,
};

static const char *const memory_calls[] = {
	"brk", "mmap", "munmap", "mremap", "mprotect", "pkey_mprotect", "madvise",
	"process_madvise", "mlock", "mlock2", "munlock", "mlockall", "munlockall", "msync",
	"mincore", "mbind", "set_mempolicy", "get_mempolicy", "migrate_pages", "move_pages",
	"remap_file_pages", "shmat", "shmdt", NULL,
};

static const char *const signal_calls[] = {
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigpending",
	"rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "kill",
	"tkill", "tgkill", "pause", "signalfd", "signalfd4", "pidfd_send_signal", NULL,
};

static const char *const ipc_calls[] = {
	"msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl",
	"shmget", "shmat", "shmdt", "shmctl", NULL,
};

static const char *const creds_calls[] = {
	"getuid", "geteuid", "getgid", "getegid", "setuid", "setgid", "setreuid", "setregid",
	"setresuid", "getresuid", "setresgid", "getresgid", "setfsuid", "setfsgid", "getgroups",
	"setgroups", "capget", "capset", "prctl", NULL,
};

static const char *const clock_calls[] = {
	"clock_gettime", "clock_settime", "clock_getres", "clock_adjtime", "clock_nanosleep",
	"gettimeofday", "settimeofday", "time", "adjtimex", NULL,
};

static const char *const stat_calls[] = {
	"stat", "lstat", "fstat", "newfstatat", "statx", NULL,
};

static const char *const statfs_calls[] = {
	"statfs", "fstatfs", "ustat", NULL,
};

static const char *const pure_calls[] = {
	"getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getpgrp", NULL,
};

static const struct syscall_class classes[] = {
	{ "file", file_calls },	      { "desc", desc_calls },
	{ "net", net_calls },	      { "network", net_calls },
	{ "process", process_calls }, { "memory", memory_calls },
	{ "signal", signal_calls },   { "ipc", ipc_calls },
	{ "creds", creds_calls },     { "clock", clock_calls },
	{ "stat", stat_calls },	      { "statfs", statfs_calls },
	{ "pure", pure_calls },
};

#define NR_CLASSES (sizeof(classes) / sizeof(classes[0]))

static int nr_of(const char *name, size_t len)
{
	for (int nr = 0; nr < gt_syscall_count(); nr++) {
		const char *s = gt_syscall_name(nr);

		if (s && strlen(s) == len && !strncmp(s, name, len))
			return nr;
	}
	return -1;
}

static int add_class(struct gtsc_sys_set *set, const char *word, char *why, size_t why_sz)
{
	char known[256] = "";
	size_t len = 0;

	for (size_t c = 0; c < NR_CLASSES; c++) {
		if (strcmp(classes[c].name, word + 1))
			continue;
		for (const char *const *m = classes[c].members; *m; m++)
			gtsc_sys_set__add(set, nr_of(*m, strlen(*m)));
		return 0;
	}
	for (size_t c = 0; c < NR_CLASSES && len < sizeof(known); c++)
		len += snprintf(known + len, sizeof(known) - len, " %%%s", classes[c].name);
	snprintf(why, why_sz, "unknown syscall class '%s' (known:%s)", word, known);
	return -EINVAL;
}

static int add_glob(struct gtsc_sys_set *set, const char *word, char *why, size_t why_sz)
{
	bool any = false;

	for (int nr = 0; nr < gt_syscall_count() && nr < GTSC_NR_SYSCALLS; nr++) {
		const char *s = gt_syscall_name(nr);

		if (s && !fnmatch(word, s, 0)) {
			gtsc_sys_set__add(set, nr);
			any = true;
		}
	}
	if (any)
		return 0;
	snprintf(why, why_sz, "'%s' matches no syscall", word);
	return -EINVAL;
}

static int add_word(struct gtsc_sys_set *set, const char *word, char *why, size_t why_sz)
{
	int nr;

	if (word[0] == '%')
		return add_class(set, word, why, why_sz);
	if (strpbrk(word, "*?["))
		return add_glob(set, word, why, why_sz);
	nr = nr_of(word, strlen(word));
	if (nr < 0 || nr >= GTSC_NR_SYSCALLS) {
		snprintf(why, why_sz, "unknown syscall '%s'", word);
		return -EINVAL;
	}
	gtsc_sys_set__add(set, nr);
	return 0;
}

int gt_syscall_set__parse(const char *list, struct gtsc_sys_set *set, char *why, size_t why_sz)
{
	const char *p = list;
	char word[64];
	int err;

	memset(set, 0, sizeof(*set));
	if (!*p) {
		snprintf(why, why_sz, "syscalls= names no syscall");
		return -EINVAL;
	}
	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(word)) {
			snprintf(why, why_sz, "'%.*s' is not a syscall name", (int)len, p);
			return -EINVAL;
		}
		snprintf(word, sizeof(word), "%.*s", (int)len, p);
		err = add_word(set, word, why, why_sz);
		if (err)
			return err;
		p += len + (p[len] == ',');
	}
	return 0;
}

void gt_syscall_set__names(const struct gtsc_sys_set *set, struct strbuf *sb)
{
	bool first = true;

	for (int nr = 0; nr < GTSC_NR_SYSCALLS; nr++) {
		const char *s = gt_syscall_name(nr);

		if (!gtsc_sys_set__has(set, nr))
			continue;
		if (s)
			gt_strbuf_addf(sb, "%s%s", first ? "" : ",", s);
		else
			gt_strbuf_addf(sb, "%ssyscall_%d", first ? "" : ",", nr);
		first = false;
	}
}
