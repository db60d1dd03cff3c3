// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gtsc-bpf features: the probe table the recorder decides with. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gtsc/gtsc.h>
#include "cli.h"

int cmd_features(int argc, char **argv)
{
	struct gtsc_features *f;
	char *text = NULL;
	int len;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: gtsc-bpf features\n\nPrints each kernel feature gtsc-bpf probes "
		       "for, yes or no with the reason.\n"
		       "\nexample:\n  gtsc-bpf features\n");
		return 0;
	}
	f = gtsc_features__probe();
	len = f ? gtsc_features__describe(f, NULL, 0) : -errno;
	if (len >= 0)
		text = malloc(len + 1);
	if (text)
		gtsc_features__describe(f, text, len + 1);
	else
		fprintf(stderr, "gtsc-bpf: features: %s\n", strerror(len < 0 ? -len : ENOMEM));
	fputs(text ? text : "", stdout);
	free(text);
	gtsc_features__free(f);
	return text ? 0 : 1;
}
