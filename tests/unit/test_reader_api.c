// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader's public metadata accessors (gtsc.h): a channel's setup and
 * its trailer counts summed over CPUs, has_counts, recursion misses, and
 * the opts rules of struct gtsc_reader_channel.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <gtsc/gtsc.h>
#include "harness.h"
#include "opts.h"
#include "trace_writer.h"

static const char channels_text[] = "0\tsyscalls\tpercpu\t2\t65536\tdiscard\n"
				    "1\tkmem\tglobal\t1\t1048576\toverwrite\n";
static const char trailer_text[] = "stat\t0\t0\t100\t1\nstat\t0\t1\t200\t2\nstat\t1\t0\t50\t0\n"
				   "flight\t1\tall\t50\t40\t10\t3\n"
				   "prog\tsys_enter\t3\nprog\tkmem\t4\nmeta\tend_ns\t9\n";

/* A trace with the two channels, and their counts unless KILLED. */
static struct gtsc_reader *open_trace(struct test_ctx *t, char *path, bool killed)
{
	int fd = mkstemp(path);
	struct gtsc_writer *w;
	struct gtsc_reader *r;
	int err;

	CHECK(t, fd >= 0, "mkstemp");
	if (fd < 0)
		return NULL;
	close(fd);
	w = gt_writer__create(path, NULL);
	CHECK(t, w, "create: %d", errno);
	if (!w)
		return NULL;
	err = gt_writer__add_chunk(w, GTSC_CHUNK_META, "start_ns=1\n", 11);
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_CHANNELS, channels_text,
					  strlen(channels_text));
	if (!killed)
		err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_TRAILER, trailer_text,
						  strlen(trailer_text));
	err = gt_writer__close(w) ?: err;
	CHECK(t, !err, "write: %d", err);
	r = err ? NULL : gtsc_reader__open(path, NULL);
	CHECK(t, r, "open: %d", errno);
	return r;
}

static void test_channels(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-reader-api.XXXXXX";
	struct gtsc_reader *r = open_trace(t, path, false);
	GTSC_OPTS(gtsc_reader_channel, ch);

	if (!r)
		goto out;
	CHECK(t, !gtsc_reader__channel(r, 0, &ch), "channel 0");
	CHECK(t, ch.id == 0 && !strcmp(ch.name, "syscalls") && ch.mode == GTSC_CHANNEL_DISCARD &&
			 ch.scope == GTSC_SCOPE_PERCPU && ch.nr_rings == 2 && ch.ring_bytes == 65536,
	      "syscalls setup");
	CHECK(t, ch.written == 300 && ch.dropped == 3 && !ch.flight, "syscalls counts: %llu %llu",
	      (unsigned long long)ch.written, (unsigned long long)ch.dropped);
	CHECK(t, !gtsc_reader__channel_by_name(r, "kmem", &ch), "kmem by name");
	CHECK(t, ch.id == 1 && ch.mode == GTSC_CHANNEL_OVERWRITE && ch.scope == GTSC_SCOPE_GLOBAL,
	      "kmem setup");
	CHECK(t, ch.written == 50 && ch.flight && ch.retained == 40 && ch.overwritten == 10 &&
			 ch.torn == 3,
	      "kmem counts");
	CHECK(t, gtsc_reader__channel(r, 2, &ch) == -ENOENT, "past the last channel");
	CHECK(t, gtsc_reader__channel_by_name(r, "task", &ch) == -ENOENT, "unknown name");
	CHECK(t, gtsc_reader__has_counts(r), "has_counts");
	CHECK(t, gtsc_reader__prog_misses(r) == 7, "misses %llu",
	      (unsigned long long)gtsc_reader__prog_misses(r));
	CHECK(t, !strcmp(gtsc_reader__prog_skips(r), "sys_enter 3, kmem 4"), "skips by hook: '%s'",
	      gtsc_reader__prog_skips(r));
	gtsc_reader__close(r);
out:
	unlink(path);
}

static void test_killed(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-reader-api.XXXXXX";
	struct gtsc_reader *r = open_trace(t, path, true);
	GTSC_OPTS(gtsc_reader_channel, ch);

	if (!r)
		goto out;
	CHECK(t, !gtsc_reader__has_counts(r), "counts without a trailer");
	CHECK(t, !gtsc_reader__channel(r, 1, &ch) && ch.nr_rings == 1, "channel 1");
	CHECK(t, !ch.written && !ch.dropped && !ch.flight, "counts without a trailer");
	CHECK(t, !gtsc_reader__prog_misses(r), "misses without a trailer");
	CHECK(t, !strcmp(gtsc_reader__prog_skips(r), ""), "skips without a trailer");
	gtsc_reader__close(r);
out:
	unlink(path);
}

/* An older caller's smaller struct is filled up to its sz; a newer one's unknown tail must be 0. */
static void test_channel_opts(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-reader-api.XXXXXX";
	struct gtsc_reader *r = open_trace(t, path, false);
	struct {
		struct gtsc_reader_channel ch;
		__u64 future;
	} big = {};
	struct gtsc_reader_channel old;

	if (!r)
		goto out;
	memset(&old, 0xa5, sizeof(old));
	old.sz = offsetofend(struct gtsc_reader_channel, name);
	CHECK(t, !gtsc_reader__channel(r, 0, &old), "old caller");
	CHECK(t, old.sz == offsetofend(struct gtsc_reader_channel, name) &&
			 !strcmp(old.name, "syscalls"),
	      "old caller's fields");
	CHECK(t, old.ring_bytes == 0xa5a5a5a5a5a5a5a5ull, "written past the old caller's sz");
	big.ch.sz = sizeof(big);
	CHECK(t, !gtsc_reader__channel(r, 0, &big.ch), "newer caller, zero tail");
	big.future = 1;
	CHECK(t, gtsc_reader__channel(r, 0, &big.ch) == -EINVAL, "newer caller, unknown field set");
	CHECK(t, gtsc_reader__channel(r, 0, NULL) == -EINVAL, "NULL");
	gtsc_reader__close(r);
out:
	unlink(path);
}

static const struct test_case cases[] = {
	{"channels", test_channels},
	{"killed", test_killed},
	{"channel_opts", test_channel_opts},
};

int main(void)
{
	return RUN_TESTS("reader_api", cases);
}
