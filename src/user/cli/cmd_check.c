// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gtsc-bpf check: trace integrity and kmem consistency (issue #4). */
#include <stdio.h>
#include "cli.h"

int cmd_check(int argc, char **argv)
{
	fprintf(stderr, "gtsc-bpf: check is not available yet\n");
	return 2;
}
