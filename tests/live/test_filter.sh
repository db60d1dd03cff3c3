#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# -p PID sees only that process (and its children) while others run, and
# the recorder never records itself, even with -a.
. "$(dirname "$0")/lib.sh"

sleep 30 &
quiet=$!
( while :; do cat /proc/self/stat > /dev/null; done ) &
noisy=$!
"$GTSC" record -q -e syscalls,kmem -p $quiet -d 1 -o "$TEST_TMP/p.gtsc" 2> "$TEST_TMP/err"
rc=$?
check filter/record-exit "record -p failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/p.gtsc" --json > "$TEST_TMP/j"
others=$(grep -v '"event":"trace_info"' "$TEST_TMP/j" | grep -vc "\"pid\":$quiet,")
check filter/pid-only "$others events from processes other than $quiet" [ "$others" = 0 ]
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
