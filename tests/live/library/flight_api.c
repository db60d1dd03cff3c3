// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The flight API of libgtsc, built from the installed tree by
 * test_library.sh: a system-wide syscalls session in one small overwrite
 * channel; a snapshot while recording; after stop, consume reads what the
 * channel retains, a second consume nothing, and after rewind the same
 * records again.  Prints "key=value" lines for the test to check; the
 * counts are of syscall records (the task channel is a discard one).
 */
#include <errno.h>
#include <stdio.h>
#include <gtsc/gtsc.h>

static void on_log(void *ctx, enum gtsc_log_level level, const char *msg)
{
	if (level == GTSC_LOG_WARN)
		fprintf(stderr, "flight_api: %s\n", msg);
}

static int count(void *ctx, const struct gtsc_rec_hdr *rec)
{
	*(long *)ctx += rec->type == GTSC_REC_SYS_ENTER || rec->type == GTSC_REC_SYS_EXIT;
	return 0;
}

int main(int argc, char **argv)
{
	GTSC_OPTS(gtsc_channel_opts, ch, .name = "syscalls", .mode = GTSC_CHANNEL_OVERWRITE,
		  .size = 64 << 10);
	GTSC_OPTS(gtsc_session_opts, opts, .sources = GTSC_SOURCE_SYSCALLS, .system_wide = true,
		  .channels = &ch, .nr_channels = 1, .log = on_log);
	struct gtsc_session *s = gtsc_session__open(&opts);
	long running = 0, first = 0, second = 0, again = 0;
	__u64 dropped = 0;
	int n;

	if (!s || argc != 2)
		return 1;
	if (gtsc_session__attach(s) || gtsc_session__start(s))
		return 1;
	for (int i = 0; i < 5; i++)
		gtsc_session__consume(s, 100, count, &running);
	printf("snapshot=%d\n", gtsc_session__snapshot(s, argv[1]));
	gtsc_session__stop(s);
	printf("consumed_running=%ld\n", running);
	gtsc_session__consume(s, 100, count, &first);
	gtsc_session__consume(s, 100, count, &second);
	printf("first=%ld\nsecond=%ld\n", first, second);
	printf("rewind=%d\n", gtsc_session__rewind(s));
	n = gtsc_session__consume(s, 100, count, &again);
	printf("again=%d,%ld\n", n >= 0, again);
	printf("dropped_unknown=%d\n", gtsc_session__dropped(s, "nope", &dropped) == -ENOENT);
	printf("dropped=%d,%llu\n", gtsc_session__dropped(s, NULL, &dropped),
	       (unsigned long long)dropped);
	gtsc_session__destroy(s);
	return 0;
}
