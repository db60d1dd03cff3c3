#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Two kmem_load tasks on one CPU under `record -e kmem -a`, then `check`:
# where the kernel preempts our programs (PREEMPT_RT, Linux 7.x: features'
# bpf_preemptible) one task's records land before the other's earlier ones,
# which check must note, not call a finding.  Linux 7.3.4 (not -rt) left
# 19-36 such records a run; check called them findings until it knew that
# 7.x preempts every tracepoint's programs, not only the syscalls'.
. "$(dirname "$0")/lib.sh"

T=check/preempted-kmem
if ! command -v taskset > /dev/null 2>&1; then
	echo "SKIP live/$T: taskset not installed (puts both tasks on one CPU)"
	exit 0
fi
d=$TEST_TMP
mkfifo "$d/g1" "$d/g2"
taskset -c 0 "$WORKLOADS/kmem_load" "$d/f1" 1500 < "$d/g1" > /dev/null &
w1=$!
taskset -c 0 "$WORKLOADS/kmem_load" "$d/f2" 1500 < "$d/g2" > /dev/null &
w2=$!
exec 5> "$d/g1" 6> "$d/g2"
"$GTSC" record -e kmem -a -o "$d/t.gtsc" 2> "$d/err" &
g=$!
if ! wait_for "$d/err" recording "$REC_WAIT"; then
	fail $T/record "did not start: $(head -c 300 "$d/err")"
	exec 5>&- 6>&-
	kill $w1 $w2 $g 2> /dev/null
	exit 0
fi
echo g >&5
echo g >&6
exec 5>&- 6>&-
wait $w1 $w2
kill -INT $g
wait $g
rc=$?
check $T/record "record exited $rc: $(head -c 300 "$d/err")" [ $rc = 0 ]
out=$("$GTSC" check -i "$d/t.gtsc" 2>&1)
rc=$?
echo "$out" | grep -i "earlier" | sed 's/^/# /' | cut -c1-300
check $T/clean "check exited $rc: $(echo "$out" | grep -v '^note' | head -c 400 | tr '\n' ' ')" [ $rc = 0 ]
