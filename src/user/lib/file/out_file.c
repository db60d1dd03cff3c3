// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Creating the files gtsc writes (traces, snapshots) at a path the user
 * gave, often in /tmp, often as root.  Opening with O_CREAT|O_TRUNC wrote
 * through a link another user had planted there (/tmp/t.gtsc -> /etc/passwd)
 * on hosts with fs.protected_symlinks=0.  So a new file is made O_EXCL under
 * a temporary name in the target's directory and renamed over the name:
 * rename(2) replaces the directory entry, never what a link points to, and a
 * hard link planted there loses its name instead of its content.  The
 * rename happens before any byte is written, so a recorder killed at any
 * point leaves the named file readable to its last complete chunk.
 *
 * A symbolic link the user names is followed the way the kernel does with
 * fs.protected_symlinks=1: unless it sits in a sticky world-writable
 * directory (/tmp) and belongs neither to us nor to the directory's owner.
 * Such a link is refused whoever we are.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "out_file.h"

#define MAX_HOPS 8

static void split(const char *path, char *dir, size_t dir_sz, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dir_sz, ".");
		*base = path;
	} else {
		snprintf(dir, dir_sz, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		*base = slash + 1;
	}
}

/* The kernel's may_follow_link() with fs.protected_symlinks=1. */
static int trusted_link(const char *link, const struct stat *ls, char *why, size_t why_sz)
{
	const char *base;
	char dir[PATH_MAX];
	struct stat ds;

	split(link, dir, sizeof(dir), &base);
	if (stat(dir, &ds))
		return -errno;
	if (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH) || ls->st_uid == geteuid() ||
	    ls->st_uid == ds.st_uid)
		return 0;
	snprintf(why, why_sz, "%s is a symbolic link of uid %u in the shared directory %s, "
			      "which gtsc does not follow (as fs.protected_symlinks=1); remove it "
			      "or name another file", link, (unsigned)ls->st_uid, dir);
	return -EPERM;
}

/* Checks every hop of the link chain at PATH (the last directory and the name). */
static int check_links(const char *path, char *why, size_t why_sz)
{
	char cur[PATH_MAX], next[PATH_MAX], dir[PATH_MAX];
	const char *base;
	struct stat ls;
	ssize_t n;
	int err;

	snprintf(cur, sizeof(cur), "%s", path);
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		if (lstat(cur, &ls) || !S_ISLNK(ls.st_mode))
			return 0; /* a name still to create, or not a link */
		err = trusted_link(cur, &ls, why, why_sz);
		if (err)
			return err;
		n = readlink(cur, next, sizeof(next) - 1);
		if (n < 0)
			return 0;
		next[n] = '\0';
		split(cur, dir, sizeof(dir), &base);
		if (next[0] == '/')
			snprintf(cur, sizeof(cur), "%s", next);
		else if (snprintf(cur, sizeof(cur), "%s/%s", dir, next) >= (int)sizeof(cur))
			return -ENAMETOOLONG;
	}
	return -ELOOP;
}

/* perf's habit: the previous trace becomes NAME.old; the entry moves, links too. */
static void keep_old(int dfd, const char *base)
{
	char old[NAME_MAX + 1];
	struct stat st;

	if (fstatat(dfd, base, &st, 0) || !st.st_size ||
	    snprintf(old, sizeof(old), "%s.old", base) >= (int)sizeof(old))
		return;
	renameat(dfd, base, dfd, old);
}

/* A fresh file under a temporary name in DFD, renamed to BASE. */
static int create_in(int dfd, const char *base)
{
	char tmp[NAME_MAX + 1];
	int fd = -EEXIST;

	/* O_EXCL: a name planted in advance only costs another try */
	for (int i = 0; i < 100 && fd == -EEXIST; i++) {
		snprintf(tmp, sizeof(tmp), ".%.200s.%d.%d", base, getpid(), i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		return fd;
	/* the mode applies through umask; a trace can hold secrets */
	if (fchmod(fd, 0600) || renameat(dfd, tmp, dfd, base)) {
		int err = -errno;

		unlinkat(dfd, tmp, 0);
		close(fd);
		return err;
	}
	return fd;
}

int gt_out_file__create(const char *path, bool keep_previous, char *why, size_t why_sz)
{
	char dir[PATH_MAX];
	const char *base;
	struct stat st;
	int dfd, fd, err;

	if (why && why_sz)
		why[0] = '\0';
	split(path, dir, sizeof(dir), &base);
	if (!*base)
		return -EISDIR;
	err = check_links(dir, why, why_sz);
	err = err ?: check_links(path, why, why_sz);
	if (err)
		return err;
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (keep_previous)
		keep_old(dfd, base);
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		fd = create_in(dfd, base);
	} else if (S_ISLNK(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		/* a trusted link (checked above), /dev/null or a pipe: written where it leads */
		fd = openat(dfd, base, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		fd = fd < 0 ? -errno : fd;
	} else if (S_ISREG(st.st_mode)) {
		fd = create_in(dfd, base);
	} else {
		fd = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	close(dfd);
	return fd;
}
