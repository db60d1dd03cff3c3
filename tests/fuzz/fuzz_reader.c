// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * AFL++ harness over the trace reader and its consumers (fuzz.h), in
 * persistent mode: one process reads thousands of inputs, each staged in a
 * memfd.  Built by `make fuzz` with afl-clang-fast, ASan and UBSan.
 *
 *   fuzz_reader                       read inputs (AFL++, or stdin once)
 * FUZZ_CTF_DIR: a directory (tmpfs) for the CTF writer; unset: no CTF
 *   fuzz_reader FILE...               replay inputs, e.g. a crash
 *   fuzz_reader --loop N FILE...      replay each input N times; executions/s (profiling)
 *   fuzz_reader --unpack OPTS IN OUT  a seed: trace IN with its chunks decompressed
 *   fuzz_reader --frame IN OUT        the trace file input IN stands for (to debug with)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef __AFL_FUZZ_TESTCASE_LEN
/* a plain build (no afl-clang-fast): one input from stdin */
static unsigned char stdin_buf[1 << 20];
static int plain_runs;

static size_t read_stdin(void)
{
	ssize_t n = read(0, stdin_buf, sizeof(stdin_buf));

	return n > 0 ? (size_t)n : 0;
}
#define __AFL_FUZZ_INIT()
#define __AFL_INIT()
#define __AFL_FUZZ_TESTCASE_BUF stdin_buf
#define __AFL_FUZZ_TESTCASE_LEN read_stdin()
#define __AFL_LOOP(n) (!plain_runs++)
#endif

__AFL_FUZZ_INIT();

/* --unpack (OPTS set) or --frame (OPTS NULL) */
static int convert(const char *opts, const char *in, const char *out)
{
	struct fuzz_buf file = { 0 }, seed = { 0 };
	FILE *f = NULL;
	int err;

	err = fuzz_slurp(in, &file);
	if (!err && opts)
		err = fuzz_unpack(file.data, file.len, (uint8_t)strtoul(opts, NULL, 0), &seed);
	else if (!err)
		err = fuzz_frame(file.data, file.len, &seed);
	if (err) {
		fprintf(stderr, "fuzz_reader: %s: %s\n", in, strerror(-err));
		goto out;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(seed.data, 1, seed.len, f) != seed.len || fclose(f)) {
		fprintf(stderr, "fuzz_reader: cannot write %s\n", out);
		err = -EIO;
	}
out:
	fuzz_buf_free(&file);
	fuzz_buf_free(&seed);
	return err ? 1 : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Each of FILES replayed LOOPS times, as AFL++'s persistent loop would; the speed on stderr. */
static int replay(char **files, int nr, long loops, const struct fuzz_io *io,
		  struct fuzz_buf *scratch)
{
	struct fuzz_buf in = { 0 };
	double t0 = now();
	long runs = 0;
	int err = 0;

	for (int i = 0; i < nr && !err; i++) {
		err = fuzz_slurp(files[i], &in);
		for (long k = 0; k < loops && !err; k++, runs++)
			err = fuzz_one(in.data, in.len, io, scratch);
		if (err)
			fprintf(stderr, "fuzz_reader: cannot replay %s: %s\n", files[i], strerror(-err));
	}
	if (loops > 1)
		fprintf(stderr, "fuzz_reader: %ld executions in %.2f s: %.0f/s\n", runs, now() - t0,
			runs / (now() - t0));
	fuzz_buf_free(&in);
	return err;
}

int main(int argc, char **argv)
{
	struct fuzz_buf scratch = { 0 };
	struct fuzz_io io = { .ctf_dir = getenv("FUZZ_CTF_DIR") };
	unsigned char *buf;
	long loops = 1;
	int first = 1;
	int err = 0;

	if (argc == 5 && !strcmp(argv[1], "--unpack"))
		return convert(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "--frame"))
		return convert(NULL, argv[2], argv[3]);
	io.sink = fopen("/dev/null", "w");
	io.fd = memfd_create("fuzz.gtsc", 0);
	if (!io.sink || io.fd < 0) {
		perror("fuzz_reader");
		return 1;
	}
	if (argc > 3 && !strcmp(argv[1], "--loop")) {
		loops = strtol(argv[2], NULL, 0);
		first = 3;
	}
	if (argc > first)
		err = replay(argv + first, argc - first, loops, &io, &scratch);
	else {
		__AFL_INIT();
		buf = __AFL_FUZZ_TESTCASE_BUF;
		while (__AFL_LOOP(100000))
			fuzz_one(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN, &io, &scratch);
	}
	fuzz_buf_free(&scratch);
	fclose(io.sink);
	close(io.fd);
	return err ? 1 : 0;
}
