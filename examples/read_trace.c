// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * read_trace FILE.gtsc: every record of a trace, one line each, in time
 * order, with the reader API's decode helpers; then the record count and
 * each channel's counts (what the trace lacks: drops).
 *   cc read_trace.c $(pkg-config --cflags --libs --static gtsc)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <gtsc/gtsc.h>

static const char *const type_names[] = {
	[GTSC_REC_SYS_ENTER] = "sys_enter",   [GTSC_REC_SYS_EXIT] = "sys_exit",
	[GTSC_REC_KMEM_ALLOC] = "kmem_alloc", [GTSC_REC_KMEM_FREE] = "kmem_free",
	[GTSC_REC_KMEM_CACHE] = "kmem_cache", [GTSC_REC_TASK] = "task",
	[GTSC_REC_DROPS] = "drops",	      [GTSC_REC_FUNC] = "func",
	[GTSC_REC_PRINTF] = "printf",
};

/* What the helpers can say about REC beyond its header. */
static void details(struct gtsc_reader *r, const struct gtsc_rec_hdr *h)
{
	const struct gtsc_rec_sys_enter *se = (const void *)h;
	const struct gtsc_rec_kmem_alloc *ka = (const void *)h;
	const struct gtsc_rec_task *t = (const void *)h;
	static const char *const task_events[] = { "fork", "exec", "exit", "comm" };
	const char *sym;
	char text[256];
	__u64 off;

	if (h->type == GTSC_REC_SYS_ENTER) {
		sym = gtsc_reader__syscall_name(r, se->nr);
		printf(" %s", sym ? sym : "?");
	} else if (h->type == GTSC_REC_KMEM_ALLOC) {
		sym = gtsc_reader__ksym(r, ka->call_site, &off);
		printf(" %u bytes from %s+0x%llx", ka->bytes_alloc, sym ? sym : "?",
		       (unsigned long long)off);
	} else if (h->type == GTSC_REC_TASK && t->event <= GTSC_TASK_COMM) {
		printf(" %s %.16s", task_events[t->event], t->comm);
	} else if (h->type == GTSC_REC_PRINTF) {
		if (gtsc_reader__format(r, h, text, sizeof(text)) >= 0)
			printf(" %s", text);
	}
}

/* The trailer's counts per channel: a trace whose recorder was killed has none. */
static void channel_counts(const struct gtsc_reader *r)
{
	GTSC_OPTS(gtsc_reader_channel, ch);

	if (!gtsc_reader__has_counts(r)) {
		printf("# no counts: the recording did not end cleanly\n");
		return;
	}
	for (size_t i = 0; !gtsc_reader__channel(r, i, &ch); i++)
		printf("# channel %s: %llu written, %llu dropped\n", ch.name,
		       (unsigned long long)ch.written, (unsigned long long)ch.dropped);
}

int main(int argc, char **argv)
{
	char err[256] = "";
	GTSC_OPTS(gtsc_reader_opts, opts, .errbuf = err, .errbuf_sz = sizeof(err));
	const struct gtsc_rec_hdr *h;
	struct gtsc_reader *r;
	int n;

	if (argc != 2) {
		fprintf(stderr, "usage: read_trace FILE.gtsc\n");
		return 2;
	}
	r = gtsc_reader__open(argv[1], &opts);
	if (!r) {
		fprintf(stderr, "read_trace: %s: %s\n", argv[1], err[0] ? err : strerror(errno));
		return 1;
	}
	printf("# recorded on %s, kernel %s\n", gtsc_reader__meta(r, "hostname") ?: "?",
	       gtsc_reader__meta(r, "kernel") ?: "?");
	while ((n = gtsc_reader__next(r, &h)) > 0) {
		const char *type = h->type < sizeof(type_names) / sizeof(type_names[0]) ?
					   type_names[h->type] : NULL;

		printf("%llu cpu=%u pid=%u tid=%u %s", (unsigned long long)h->ts_ns, h->cpu, h->pid,
		       h->tid, type ? type : "unknown");
		details(r, h);
		printf("\n");
	}
	printf("records: %llu\n", (unsigned long long)gtsc_reader__count(r));
	channel_counts(r);
	if (gtsc_reader__truncated(r))
		fprintf(stderr, "read_trace: %s\n", gtsc_reader__damage(r));
	n = n < 0 ? 1 : gtsc_reader__truncated(r) ? 3 : 0;
	gtsc_reader__close(r);
	return n;
}
