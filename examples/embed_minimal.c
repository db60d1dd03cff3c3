// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * embed_minimal: records the system's kmem events with libgtsc and counts
 * them in a callback, until Ctrl-C or SIGTERM; prints `dropped: N` last.
 *   cc embed_minimal.c $(pkg-config --cflags --libs --static gtsc)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <gtsc/gtsc.h>

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	done = 1;
}

static void on_log(void *ctx, enum gtsc_log_level level, const char *msg)
{
	if (level == GTSC_LOG_WARN)
		fprintf(stderr, "embed_minimal: %s\n", msg);
}

/* REC is valid during the call only: copy what you keep. */
static int on_record(void *ctx, const struct gtsc_rec_hdr *rec)
{
	unsigned long long *allocs = ctx;

	*allocs += rec->type == GTSC_REC_KMEM_ALLOC;
	return 0;
}

int main(void)
{
	GTSC_OPTS(gtsc_session_opts, opts, .sources = GTSC_SOURCE_KMEM, .system_wide = true,
		  .log = on_log);
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: ends the wait */
	unsigned long long records = 0, allocs = 0, dropped = 0;
	struct gtsc_session *s;
	int n;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	s = gtsc_session__open(&opts);
	if (!s) {
		fprintf(stderr, "embed_minimal: %s\n", strerror(errno));
		return 1;
	}
	n = gtsc_session__attach(s) ?: gtsc_session__start(s);
	if (!n)
		fprintf(stderr, "embed_minimal: recording kmem; Ctrl-C or SIGTERM ends it\n");
	while (!done && n >= 0 && (n = gtsc_session__consume(s, 100, on_record, &allocs)) >= 0)
		records += n;
	gtsc_session__stop(s);
	/* after stop: what is left in the rings, records in flight included */
	n = n < 0 ? n : gtsc_session__consume(s, 1000, on_record, &allocs);
	records += n > 0 ? n : 0;
	if (n >= 0)
		n = gtsc_session__dropped(s, NULL, &dropped);
	printf("consumed: %llu records, %llu allocations\n", records, allocs);
	printf("dropped: %llu\n", dropped);
	gtsc_session__destroy(s);
	return n < 0;
}
