// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The control API's promises that need neither root nor a running session
 * (those are tests/live/test_flight_control.sh's and test_sessions.sh's):
 * which names are names, what a refused request or server says, and that
 * the features API refuses what it cannot answer.  Only <gtsc/gtsc.h>.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "gtsc/gtsc.h"

static void test_names(struct test_ctx *t)
{
	static const char *const good[] = { "a", "web-1", "x.y_z", "A9" };
	static const char *const bad[] = { "", ".hidden", "a/b", "a b", "../x", "é" };
	char longest[GTSC_SESSION_NAME_MAX + 1];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(t, !gtsc_control__check_name(good[i]), "'%s' refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(t, gtsc_control__check_name(bad[i]) == -EINVAL, "'%s' taken", bad[i]);
	CHECK(t, gtsc_control__check_name(NULL) == -EINVAL, "NULL taken");
	memset(longest, 'n', sizeof(longest));
	longest[GTSC_SESSION_NAME_MAX - 1] = '\0';
	CHECK(t, !gtsc_control__check_name(longest), "63 chars refused");
	longest[GTSC_SESSION_NAME_MAX - 1] = 'n';
	longest[GTSC_SESSION_NAME_MAX] = '\0';
	CHECK(t, gtsc_control__check_name(longest) == -EINVAL, "64 chars taken");
}

/* Refused before any socket: the error and a sentence for the user. */
static void test_request_refused(struct test_ctx *t)
{
	char *reply = NULL, big[2048];
	int err;

	err = gtsc_control__request("no/such", "status", &reply);
	CHECK(t, err == -EINVAL && reply && strstr(reply, "not a session name"), "%d '%s'", err,
	      reply ? reply : "(null)");
	free(reply);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	reply = NULL;
	err = gtsc_control__request("gtsc-unit-none", big, &reply);
	CHECK(t, err == -E2BIG && reply && *reply, "long request: %d", err);
	free(reply);
	err = gtsc_control__request("gtsc-unit-none", "stop\nkill", NULL);
	CHECK(t, err == -EINVAL, "two lines: %d", err);
	CHECK(t, gtsc_control__wait_ended("a/b", 0) == -EINVAL, "wait_ended bad name");
}

/* A newer caller's opts: one field past what this library knows. */
struct newer_server_opts {
	struct gtsc_control_server_opts o;
	long newer_field;
};

static void test_server_refused(struct test_ctx *t)
{
	struct newer_server_opts newer = { .o.sz = sizeof(newer), .newer_field = 1 };
	char err[128] = "";
	GTSC_OPTS(gtsc_control_server_opts, o, .errbuf = err, .errbuf_sz = sizeof(err));
	struct gtsc_control_server *srv;

	errno = 0;
	srv = gtsc_control_server__new("bad name", NULL, NULL, &o);
	CHECK(t, !srv && errno == EINVAL && strstr(err, "not a session name"), "%d '%s'", errno,
	      err);
	errno = 0;
	srv = gtsc_control_server__new("gtsc-unit", NULL, NULL,
				       (struct gtsc_control_server_opts *)&newer);
	CHECK(t, !srv && errno == EINVAL, "newer opts taken (errno %d)", errno);
	gtsc_control_server__free(NULL);
	gtsc_control__free_names(NULL);
}

static void test_features_refused(struct test_ctx *t)
{
	char buf[16];

	CHECK(t, gtsc_features__describe(NULL, buf, sizeof(buf)) == -EINVAL, "NULL described");
	gtsc_features__free(NULL);
}

static const struct test_case cases[] = {
	{ "names", test_names },
	{ "request_refused", test_request_refused },
	{ "server_refused", test_server_refused },
	{ "features_refused", test_features_refused },
};

int main(void)
{
	return RUN_TESTS("control", cases);
}
