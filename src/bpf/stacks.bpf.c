// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The stack maps of record --stacks, defined once (gtsc_stacks.bpf.h). */
#define GTSC_DEFINE_STACKS
#include "gtsc_stacks.bpf.h"

const volatile __u32 gtsc_stacks_on = 0;
__u32 gtsc_stack_next = 0;
