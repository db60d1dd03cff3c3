// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "gtsc/gtsc.h"
#include "metadata.h"
#include "syscall_builtin.h"
#include "syscall_compat.h"

/* Generated at build time from <asm/unistd_32.h>. */
static const char *const compat_names[] = {
#include "syscall_names_32.h"
};

#define NR_COMPAT_NAMES ((int)(sizeof(compat_names) / sizeof(compat_names[0])))

/*
 * Argument counts the x86-64 table cannot give (strace's i386 syscallent):
 * calls only i386 has, and those whose i386 form differs from the x86-64
 * call of the same name (old_mmap and old_select take one struct pointer,
 * oldumount one path, 64-bit offsets take two registers).
 */
static const struct {
	const char *name;
	unsigned char nr_args;
} compat_args[] = {
	{ "_llseek", 5 },	   { "_newselect", 5 },	     { "_sysctl", 1 },
	{ "afs_syscall", 5 },	   { "bdflush", 2 },	     { "break", 0 },
	{ "chown32", 3 },	   { "create_module", 2 },   { "fadvise64", 5 },
	{ "fadvise64_64", 6 },	   { "fallocate", 6 },	     { "fchown32", 3 },
	{ "fcntl64", 3 },	   { "fstat64", 2 },	     { "fstatat64", 4 },
	{ "fstatfs64", 3 },	   { "ftime", 1 },	     { "ftruncate64", 3 },
	{ "get_kernel_syms", 1 },  { "getegid32", 0 },	     { "geteuid32", 0 },
	{ "getgid32", 0 },	   { "getgroups32", 2 },     { "getpmsg", 5 },
	{ "getresgid32", 3 },	   { "getresuid32", 3 },     { "getuid32", 0 },
	{ "gtty", 2 },		   { "idle", 0 },	     { "ipc", 6 },
	{ "lchown32", 3 },	   { "lock", 0 },	     { "lookup_dcookie", 4 },
	{ "lstat64", 2 },	   { "mmap", 1 },	     { "mmap2", 6 },
	{ "mpx", 0 },		   { "nfsservctl", 3 },	     { "nice", 1 },
	{ "oldfstat", 2 },	   { "oldlstat", 2 },	     { "oldolduname", 1 },
	{ "oldstat", 2 },	   { "olduname", 1 },	     { "pread64", 5 },
	{ "prof", 0 },		   { "profil", 4 },	     { "putpmsg", 5 },
	{ "pwrite64", 5 },	   { "query_module", 5 },    { "readahead", 4 },
	{ "readdir", 3 },	   { "select", 1 },	     { "setfsgid32", 1 },
	{ "setfsuid32", 1 },	   { "setgid32", 1 },	     { "setgroups32", 2 },
	{ "setregid32", 2 },	   { "setresgid32", 3 },     { "setresuid32", 3 },
	{ "setreuid32", 2 },	   { "setuid32", 1 },	     { "sgetmask", 0 },
	{ "sigaction", 3 },	   { "signal", 2 },	     { "sigpending", 1 },
	{ "sigprocmask", 3 },	   { "sigreturn", 0 },	     { "sigsuspend", 3 },
	{ "socketcall", 2 },	   { "ssetmask", 1 },	     { "stat64", 2 },
	{ "statfs64", 3 },	   { "stime", 1 },	     { "stty", 2 },
	{ "sync_file_range", 6 },  { "truncate64", 3 },	     { "ugetrlimit", 2 },
	{ "ulimit", 2 },	   { "umount", 1 },	     { "uselib", 1 },
	{ "vm86", 2 },		   { "vm86old", 1 },	     { "vserver", 5 },
	{ "waitpid", 3 },
};

/* The 64-bit time variants of y2038: the same arguments as their base call. */
static const char *time64_base(const char *name, char *buf, size_t size)
{
	size_t n = strlen(name);

	if (n > 7 && !strcmp(name + n - 7, "_time64"))
		n -= 7;
	else if (n > 2 && !strcmp(name + n - 2, "64") && !strncmp(name, "clock_", 6))
		n -= 2; /* clock_gettime64 */
	else if (n > 2 && !strcmp(name + n - 2, "64") && strstr(name, "time"))
		n -= 2; /* timer_gettime64, timerfd_settime64 */
	else
		return name;
	snprintf(buf, size, "%.*s", (int)n, name);
	return buf;
}

static int compat_nr_args(const char *name)
{
	const struct gtsc_builtin_syscall *b;
	char base[64];

	for (size_t i = 0; i < sizeof(compat_args) / sizeof(compat_args[0]); i++)
		if (!strcmp(name, compat_args[i].name))
			return compat_args[i].nr_args;
	b = gt_builtin_syscall(gt_syscall_event_name(time64_base(name, base, sizeof(base))));
	return b ? b->nr_args : 6; /* as strace shows a call it has no entry for */
}

const char *gt_syscall_compat_name(int nr)
{
	return nr >= 0 && nr < NR_COMPAT_NAMES ? compat_names[nr] : NULL;
}

bool gt_syscall_compat_info(int nr, struct gtsc_syscall_info *si)
{
	const char *name = gt_syscall_compat_name(nr);

	if (!name)
		return false;
	memset(si, 0, sizeof(*si));
	si->nr = nr;
	snprintf(si->name, sizeof(si->name), "%s", name);
	si->nr_args = compat_nr_args(name);
	return true;
}
