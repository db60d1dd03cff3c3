// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gtsc-bpf report --kmem: kmemtrace-style analysis (issue #4). */
#include <stdio.h>
#include "cli.h"

int report_kmem_main(int argc, char **argv)
{
	fprintf(stderr, "gtsc-bpf: report --kmem is not available yet\n");
	return 2;
}
