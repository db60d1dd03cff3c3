/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Replays what the fuzzer found (tests/fuzz/crashes, each fixed since) and
 * the seed corpus through the fuzz target (tests/fuzz/fuzz.h): each must
 * read to its end without a crash; under `make test SANITIZE=1` without an
 * ASan or UBSan report either.  A crash file's name says what it broke;
 * where the fix gives the file a defined outcome, the test checks it too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gtsc/gtsc.h>

#include "harness.h"
#include "../fuzz/fuzz.h"

#define CRASHES "tests/fuzz/crashes"
#define CORPUS "tests/fuzz/corpus"

struct replay {
	struct fuzz_io io;
	struct fuzz_buf in, scratch;
};

/* The reader's verdict on the framed file: records read, and its damage sentence. */
static long read_all(struct replay *rp, char *damage, size_t size)
{
	char path[64];
	struct gtsc_reader *r;
	const struct gtsc_rec_hdr *rec;
	long n = 0;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", rp->io.fd);
	r = gtsc_reader__open(path, NULL);
	if (!r)
		return -errno;
	while (gtsc_reader__next(r, &rec) > 0)
		n++;
	snprintf(damage, size, "%s", gtsc_reader__damage(r) ?: "");
	gtsc_reader__close(r);
	return n;
}

/*
 * What a fixed crash must read as, by the start of its file name: the
 * reader calls the file damaged instead of handing out the bad record.
 */
static void expect(struct test_ctx *t, struct replay *rp, const char *name)
{
	char damage[256];
	long n = read_all(rp, damage, sizeof(damage));

	if (!strncmp(name, "misaligned-record", 17))
		CHECK(t, n >= 0 && strstr(damage, "not a multiple of 8"),
		      "%.60s: %ld records, damage \"%.200s\": a record size not a multiple of 8 is damage",
		      name, n, damage);
}

static void replay_dir(struct replay *rp, const char *dir, bool crashes, int *bad)
{
	struct dirent **ents;
	char path[300];
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0) {
		printf("FAIL fuzz_regress/%s: cannot list %s: %s\n", dir, dir, strerror(errno));
		(*bad)++;
		return;
	}
	for (int i = 0; i < n; i++) {
		struct test_ctx t = { .name = ents[i]->d_name };
		int err;

		if (ents[i]->d_name[0] == '.' || !strcmp(ents[i]->d_name, "README")) {
			free(ents[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		err = fuzz_slurp(path, &rp->in);
		CHECK(&t, !err, "cannot read %.200s: %s", path, strerror(-err));
		if (!err) {
			err = fuzz_one(rp->in.data, rp->in.len, &rp->io, &rp->scratch);
			CHECK(&t, !err, "%.200s did not replay: %s", path, strerror(-err));
		}
		if (!err && crashes)
			expect(&t, rp, ents[i]->d_name);
		if (t.failed)
			printf("FAIL fuzz_regress/%s: %s\n", path + strlen("tests/fuzz/"), t.why);
		else
			printf("PASS fuzz_regress/%s\n", path + strlen("tests/fuzz/"));
		fflush(stdout);
		*bad += t.failed;
		free(ents[i]);
	}
	free(ents);
}

int main(void)
{
	char ctf[] = "/tmp/gtsc-fuzz-ctf.XXXXXX";
	struct replay rp = { .io = { .fd = memfd_create("fuzz.gtsc", 0),
				     .sink = fopen("/dev/null", "w"),
				     .ctf_dir = mkdtemp(ctf) } };
	char cmd[64];
	int bad = 0;

	if (rp.io.fd < 0 || !rp.io.sink || !rp.io.ctf_dir) {
		printf("FAIL fuzz_regress/setup: %s\n", strerror(errno));
		return 1;
	}
	replay_dir(&rp, CRASHES, true, &bad);
	replay_dir(&rp, CORPUS, false, &bad);
	fuzz_buf_free(&rp.in);
	fuzz_buf_free(&rp.scratch);
	fclose(rp.io.sink);
	close(rp.io.fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", ctf);
	if (system(cmd))
		printf("# fuzz_regress: %s left behind\n", ctf);
	return bad ? 1 : 0;
}
