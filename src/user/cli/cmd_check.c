// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf check: trace integrity and kmem consistency (gtsc_check__run
 * does the work).  Exit 0 on a clean trace, 1 with the findings, 2 on bad usage,
 * 3 when the file itself is damaged (truncated, a bad CRC, no trailer).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

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
		"Exits 0 on a clean trace, 1 with one sentence per finding otherwise, 3 when\n"
		"the file is damaged (truncated, a bad CRC, no trailer: a killed recorder).\n"
		"\n"
		"  -i, --input FILE   trace file (default " GTSC_DEFAULT_OUTPUT ")\n"
		"  -q, --quiet        print the findings only\n");
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
	chk = gtsc_check__run(input, NULL);
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
	nr = k->nr_findings;
	if (nr)
		printf("%d finding%s:\n%s", nr, nr > 1 ? "s" : "", gtsc_check__findings(chk));
	else if (!quiet)
		printf("clean: no findings\n");
	/* a script tells a damaged file (keep what it holds) from findings in a whole one */
	rc = k->damaged ? 3 : nr ? 1 : 0;
	gtsc_check__free(chk);
	return rc;
}
