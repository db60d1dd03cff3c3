#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Exact drop accounting: a storm into a deliberately tiny ring must drop, and
# events recorded + events dropped must equal what the storm generated,
# which its code fixes at 2N + 2 (see storm.c), independent of gtsc-bpf.
# Also proves -p PID: the storm is running before the recorder starts.
. "$(dirname "$0")/lib.sh"

N=200000
storm_record drops "$TEST_TMP/t.gtsc" "$WORKLOADS/storm" $N || exit 0
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j"
info=$(head -1 "$TEST_TMP/j")
chan=$(printf '%s' "$info" | grep -o '"name":"syscalls"[^}]*')
dropped=$(json_field "$chan" dropped)
written=$(json_field "$chan" events)
recorded=$(count_lines "$TEST_TMP/j" "\"pid\":$spid," '"event":"sys_e')
check drops/dropped "a 4 KiB ring under a storm of $N calls dropped nothing" [ "${dropped:-0}" -gt 0 ]
echo "# storm: recorded=$recorded dropped=$dropped written=$written expected=$((2 * N + 2))"
check drops/exact "recorded $recorded + dropped $dropped != $((2 * N + 2)) generated" \
	[ $((recorded + dropped)) = $((2 * N + 2)) ]
check drops/written-is-recorded "the kernel counted $written written, the file has $recorded" \
	[ "$written" = "$recorded" ]
d=$(grep '"event":"DROPPED"' "$TEST_TMP/j" | sed -n 's/.*"count":\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
check drops/drop-records "DROPPED records sum to $d, the trailer says $dropped" [ "$d" = "$dropped" ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --header > "$TEST_TMP/h"
check drops/warning "the text report does not warn about drops" has_line "$TEST_TMP/h" "WARNING: $dropped events were dropped"
