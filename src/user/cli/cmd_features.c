// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gtsc-bpf features: the probe table the recorder decides with. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "feature_probe.h"
#include "strbuf.h"

int cmd_features(int argc, char **argv)
{
	struct gtsc_features f;
	struct strbuf sb = {};

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: gtsc-bpf features\n\nPrints each kernel feature gtsc-bpf probes "
		       "for, yes or no with the reason.\n");
		return 0;
	}
	gtsc_features__probe(&f);
	gtsc_features__describe(&f, &sb);
	fputs(sb.buf ? sb.buf : "", stdout);
	strbuf_free(&sb);
	gtsc_features__free(&f);
	return 0;
}
