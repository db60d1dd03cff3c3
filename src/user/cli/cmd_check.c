// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf check: trace integrity and kmem consistency (gtsc_check__run
 * does the work).  Exit 0 on a sound trace (notes and warnings do not count),
 * 1 with findings or a file that is no trace, 2 on bad usage, 3 when the file
 * is damaged (truncated, a bad CRC, no trailer): report's 3.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "progress.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gtsc-bpf check [-i FILE] [-q]\n"
		"\n"
		"Checks a trace as kmemtrace_check did: file magic and versions, chunk CRCs,\n"
		"truncation, records of known types and sizes, each CPU's records in time order,\n"
		"drops and events the kernel skipped, records written against records in the\n"
		"file, and kmem consistency: every free pairs with an allocation by the same API,\n"
		"no pointer is freed twice or allocated twice without a free between.\n"
		"\n"
		"A finding is what is wrong in the file or provably wrong in the kernel's events.\n"
		"A warning says the trace is incomplete (drops, events the kernel skipped), as\n"
		"perf and trace-cmd warn of lost events.  A note explains what looks wrong but\n"
		"is not: records a flight channel overwrote, channels a snapshot leaves out, kmem\n"
		"pairs whose other half the kernel made through untraced paths (bulk and sheaf\n"
		"allocations) or a task outside the session's filter made.\n"
		"\n"
		"Exit status: 0 sound (warnings and notes allowed), 1 findings (or not a trace),\n"
		"2 bad usage, 3 damaged (truncated, a bad CRC, no trailer).\n"
		"\n"
		"  -i, --input FILE   trace file (default " GTSC_DEFAULT_OUTPUT ")\n"
		"  -q, --quiet        print the findings and warnings only\n"
		"\n"
		"examples:\n"
		"  gtsc-bpf check -i t.gtsc\n"
		"  gtsc-bpf check -q -i t.gtsc || echo 'not sound'\n");
}

/* Each line of TEXT after PREFIX. */
static void print_lines(const char *prefix, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		printf("%s%.*s\n", prefix, (int)n, text);
		text += n + (text[n] == '\n');
	}
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *input = GTSC_DEFAULT_OUTPUT;
	const struct gtsc_check_stats *k;
	struct gtsc_check *chk;
	struct read_progress prog;
	GTSC_OPTS(gtsc_check_opts, copts, .on_progress = read_progress_on, .ctx = &prog);
	bool quiet = false;
	int c, nr, rc;

	while ((c = getopt_long(argc, argv, "i:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf check --help' lists the options\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gtsc-bpf: check takes no argument '%s' (use -i FILE)\n",
			argv[optind]);
		return 2;
	}
	/* check reads the trace three times (as written, in time order, its kmem) */
	if (!strcmp(input, "-")) {
		fprintf(stderr, "gtsc-bpf: check reads a trace more than once and cannot take a "
				"stream: save it to a file (record -o FILE, or tee)\n");
		return 2;
	}
	read_progress_init(&prog, NULL, "check", false);
	chk = gtsc_check__run(input, &copts);
	read_progress_end(&prog);
	if (!chk) {
		fprintf(stderr, "gtsc-bpf: checking %s failed: %s\n", input, strerror(errno));
		return 1;
	}
	k = gtsc_check__stats(chk);
	if (!quiet && k->opened)
		printf("%s: %s; %llu records\n", input, k->format, (unsigned long long)k->records);
	if (!quiet && k->nested)
		printf("note: %llu records are up to %.6f s earlier than the record before them, "
		       "as an interrupt arriving while an event takes its time stamp leaves them: "
		       "not an error\n",
		       (unsigned long long)k->nested, k->max_nested_ns / 1e9);
	if (!quiet)
		print_lines("note: ", gtsc_check__notes(chk));
	print_lines("warning: ", gtsc_check__warnings(chk));
	nr = k->nr_findings;
	if (nr)
		printf("%d finding%s:\n%s", nr, nr > 1 ? "s" : "", gtsc_check__findings(chk));
	else if (!quiet && k->nr_warnings)
		printf("no findings, but the trace is incomplete (see the warnings)\n");
	else if (!quiet)
		printf("clean: no findings\n");
	rc = k->damaged ? 3 : nr ? 1 : 0;
	gtsc_check__free(chk);
	return rc;
}
