#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# -p PID sees only that process (and its children) while others run, and
# the recorder never records itself, even with -a.
. "$(dirname "$0")/lib.sh"

# The followed process: storm.c, blocked in read(0) until the recorder runs,
# then exactly 2N + 2 syscall events (storm.c) while a busy loop runs beside it.
N=1000
mkfifo "$TEST_TMP/go"
"$WORKLOADS/storm" $N < "$TEST_TMP/go" > "$TEST_TMP/pid" &
quiet=$!
exec 3> "$TEST_TMP/go"
wait_for "$TEST_TMP/pid" "$quiet" 5
( while :; do cat /proc/self/stat > /dev/null; done ) &
noisy=$!
# stopped once the storm has exited, not by a window it may outlive under load
"$GTSC" record -e syscalls,kmem -p $quiet -d 120 -o "$TEST_TMP/p.gtsc" 2> "$TEST_TMP/err" &
rpid=$!
wait_for "$TEST_TMP/err" "recording" "$REC_WAIT" ||
	fail filter/record-start "record -p said nothing in $REC_WAIT s: $(head -c 300 "$TEST_TMP/err")"
echo g >&3
exec 3>&-
wait $quiet
stop_after_workload $rpid
wait $rpid
rc=$?
check filter/record-exit "record -p failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/p.gtsc" --json > "$TEST_TMP/j"
others=$(grep -v '"event":"trace_info"' "$TEST_TMP/j" | grep -vc "\"pid\":$quiet,")
own=$(count_lines "$TEST_TMP/j" "\"pid\":$quiet," '"event":"sys_e')
check filter/pid-only "$others events from processes other than $quiet" [ "$others" = 0 ]
check filter/pid-all "$own syscall events of $quiet, its code makes $((2 * N + 2))" [ "$own" = $((2 * N + 2)) ]
"$GTSC" record -q -e syscalls -a -d 1 -o "$TEST_TMP/a.gtsc" 2> "$TEST_TMP/err" &
rec=$!
wait $rec
rc=$?
check filter/all-exit "record -a failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/a.gtsc" --json > "$TEST_TMP/ja"
n=$(count_lines "$TEST_TMP/ja" "\"pid\":$noisy,")
m=$(count_lines "$TEST_TMP/ja" "\"pid\":$rec,")
check filter/all-sees-others "-a recorded no event of a busy process" [ "$n" -gt 0 ]
check filter/not-self "-a recorded $m events of gtsc-bpf itself" [ "$m" = 0 ]
kill $quiet $noisy 2>/dev/null
wait 2>/dev/null
