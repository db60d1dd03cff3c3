// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gtsc-bpf report --syscalls / --summary: strace-style output (issue #3). */
#include <stdio.h>
#include "cli.h"

int report_syscalls_main(int argc, char **argv)
{
	fprintf(stderr, "gtsc-bpf: report --syscalls is not available yet\n");
	return 2;
}
