// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The channel maps and the configuration globals, defined once. */
#define GTSC_DEFINE_GLOBALS
#include "gtsc.bpf.h"

const volatile __u32 gtsc_self_tgid = 0;
const volatile __u32 gtsc_filter_pids = 0;
const volatile struct gtsc_class_route gtsc_routes[GTSC_CLASS_MAX] = {};
const volatile __u32 gtsc_filter_nr_comms = 0;
const volatile __u64 gtsc_filter_comms[GTSC_MAX_COMMS][2] = {};
const volatile __u32 gtsc_filter_cgroup = 0;
const volatile __u32 gtsc_arr_shift = 12;
volatile __u32 gtsc_on = 0;
volatile __u64 gtsc_pid_gen = 0;
const volatile __u32 gtsc_trigger_on = 0;
const volatile __s32 gtsc_trigger_nr = 0;
const volatile __u64 gtsc_trigger_gap_ns = 0;
volatile __u64 gtsc_trigger_hits = 0;
volatile __u64 gtsc_trigger_last_ns = 0;

char LICENSE[] SEC("license") = "Dual BSD/GPL";
