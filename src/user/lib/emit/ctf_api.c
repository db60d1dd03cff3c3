// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gtsc_reader__write_ctf: a trace as a CTF directory (emit_ctf.c writes it). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "emit_ctf.h"
#include "opts.h"

/* "metadata" or a stream's "channel_cpu": what a conversion writes. */
static bool ours(const char *name)
{
	const char *us = strrchr(name, '_');

	if (!strcmp(name, "metadata"))
		return true;
	if (!us || us == name || !us[1])
		return false;
	for (const char *p = us + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/*
 * Empties DIRFD of an earlier conversion's files, so that no stream of it
 * outlives its metadata; -EEXIST if it holds anything else (not ours to
 * remove, and babeltrace2 would read it as a stream).
 */
static int clear_old(int dirfd)
{
	int fd = dup(dirfd), err = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	bool has_meta = false, others = false;

	if (!d) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		has_meta |= !strcmp(e->d_name, "metadata");
		others |= !ours(e->d_name) || e->d_type == DT_DIR || e->d_type == DT_LNK;
	}
	/* stream names without a metadata file are not a conversion of ours either */
	if (others) {
		closedir(d);
		return -EEXIST;
	}
	rewinddir(d);
	while (!err && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!has_meta)
			err = -EEXIST;
		else if (unlinkat(dirfd, e->d_name, 0))
			err = -errno;
	}
	closedir(d);
	return err;
}

static int open_dir(const char *dir)
{
	int fd, err;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP ? -EEXIST : -errno;
	err = clear_old(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int gtsc_reader__write_ctf(struct gtsc_reader *r, const char *dir, struct gtsc_ctf_opts *opts)
{
	size_t packet = OPTS_GET(opts, packet_bytes, 0) ?: 64 * 1024;
	void (*on_record)(void *ctx) = OPTS_GET(opts, on_record, NULL);
	const struct gtsc_rec_hdr *h;
	struct ctf_writer *w;
	int fd, n, err = 0;

	if (!r || !dir || !OPTS_VALID(opts, gtsc_ctf_opts))
		return -EINVAL;
	fd = open_dir(dir);
	if (fd < 0)
		return fd;
	w = gt_ctf_writer__new(r, fd, packet);
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	while (!err && (n = gtsc_reader__next(r, &h)) > 0) {
		err = gt_ctf_writer__push(w, h);
		if (on_record)
			on_record(opts->ctx);
	}
	if (!err && n < 0)
		err = n;
	if (!err)
		err = gt_ctf_writer__finish(w);
	if (OPTS_HAS(opts, discarded))
		gt_ctf_writer__counts(w, &opts->events, &opts->discarded);
	gt_ctf_writer__free(w);
	close(fd);
	return err;
}
