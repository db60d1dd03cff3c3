// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report header's wall-clock start from a trace's metadata: right for a
 * real pair of clocks, "?" where the numbers cannot be a time (a start of
 * INT64_MAX overflowed into a date in 1677).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "harness.h"
#include "report_header.h"
#include "trace_writer.h"

static struct gtsc_reader *trace_with(struct test_ctx *t, char *path, const char *meta)
{
	struct gtsc_writer *w;
	int fd = mkstemp(path), err;

	CHECK(t, fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return NULL;
	close(fd);
	w = gt_writer__create(path, NULL);
	CHECK(t, w, "create");
	if (!w)
		return NULL;
	err = gt_writer__add_chunk(w, GTSC_CHUNK_META, meta, strlen(meta));
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_TRAILER, "meta\tend_ns\t1\n", 14);
	err = gt_writer__close(w) ?: err;
	CHECK(t, !err, "write: %s", strerror(-err));
	return gtsc_reader__open(path, NULL);
}

static void expect(struct test_ctx *t, const char *meta, const char *want)
{
	char path[] = "/tmp/gtsc-hdr.XXXXXX", when[64] = "";
	struct gtsc_reader *r = trace_with(t, path, meta);

	CHECK(t, r, "open");
	if (r)
		report_wall_time(r, when, sizeof(when));
	CHECK(t, !strcmp(when, want), "metadata %s: '%s', expected '%s'", meta, when, want);
	gtsc_reader__close(r);
	unlink(path);
}

static void test_wall_time(struct test_ctx *t)
{
	expect(t, "start_ns=5000000000\nwall_offset_ns=1764102769000000000\n",
	       "2025-11-25 20:32:54 UTC");
	expect(t, "start_ns=5000000000\n", "?");
	/* past what a time_t of nanoseconds holds: no date, and no overflow */
	expect(t, "start_ns=9223372036854775807\nwall_offset_ns=1764102769000000000\n", "?");
	expect(t, "start_ns=-9223372036854775808\nwall_offset_ns=-1\n", "?");
	expect(t, "start_ns=99999999999999999999\nwall_offset_ns=0\n", "?");
	expect(t, "start_ns=12abc\nwall_offset_ns=0\n", "?");
}

static const struct test_case cases[] = {
	{ "wall_time", test_wall_time },
};

int main(void)
{
	return RUN_TESTS("report_header", cases);
}
