// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracepoint fields the recorder names in the trace's KSYMS chunk: the
 * ones the print fmt prints with %pS, %ps, %pF or %pf, paired with their
 * args as libtraceevent pairs them ('*' takes an arg, "%%" none), by event id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "tp_class.h"

#define COMMON                                                                                     \
	"format:\n"                                                                                \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                      \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                      \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"              \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char *const MANY = "name: many\nID: 77\n" COMMON
	"\tfield:void * fn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int width;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:void * other;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:void * cb;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:void * ptr;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"100%%p %*d fn=%ps p=%p cb=%pS x=%pK\", REC->width, REC->width, REC->fn, "
	"REC->other, (void *)REC->cb, REC->ptr\n";

static const char *const ONE = "name: one\nID: 5\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"func=%pf\", REC->func\n";

static const char *const NONE = "name: none\nID: 9\n" COMMON
	"\tfield:void * p;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"p=%p\", REC->p\n";

static char *chunk(size_t *len)
{
	char *s = NULL;
	int n = asprintf(&s, "header_page 0\n\nevent g %zu\n%s\nevent g %zu\n%s\nevent g %zu\n%s\n",
			 strlen(MANY), MANY, strlen(ONE), ONE, strlen(NONE), NONE);

	*len = n > 0 ? (size_t)n : 0;
	return n > 0 ? s : NULL;
}

static void test_fields(struct test_ctx *t)
{
	static const struct tp_sym_field want[] = {
		{ 5, 8, 8 }, { 77, 8, 8 }, { 77, 32, 8 },
	};
	struct tp_sym_field *f = NULL;
	size_t len, n = 0;
	char *text = chunk(&len);
	int err = text ? gt_tp_sym_fields__new(text, len, &f, &n) : -1;
	char got[256] = "";

	for (size_t i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%u/%u/%u ", f[i].id,
			 f[i].offset, f[i].size);
	CHECK(t, !err && n == 3 && !memcmp(f, want, sizeof(want)),
	      "err %d, %zu fields: %s(want 5/8/8 77/8/8 77/32/8)", err, n, got);
	free(f);
	free(text);
}

static void test_damaged(struct test_ctx *t)
{
	static const char bad[] = "event g 4000\nname: x\n";
	struct tp_sym_field *f = (void *)1;
	size_t n = 1;
	int err = gt_tp_sym_fields__new(bad, sizeof(bad) - 1, &f, &n);

	CHECK(t, err < 0 && !f && !n, "a cut chunk: err %d, %zu fields", err, n);
}

static const struct test_case cases[] = {
	{ "sym-fields", test_fields },
	{ "damaged", test_damaged },
};

int main(void)
{
	return RUN_TESTS("tp_symbols", cases);
}
