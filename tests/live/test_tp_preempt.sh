#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A tracepoint by name (-e GROUP:NAME: classic tracepoint programs, run by
# trace_call_bpf) hit by three tasks on one CPU: where the kernel preempts
# these programs (PREEMPT_RT, Linux 7.x), a task preempted inside one holds
# the CPU's bpf_prog_active, and another task's event on that CPU is
# skipped.  Whatever the kernel does, every event generated must be
# recorded, dropped or counted as skipped (the trailer's recursion_misses):
# storm.c makes exactly N getppid calls, one sys_enter_getppid each.
# Measured 2026-11-26: 6.1, 6.12-rt and 6.18 recorded all 300,000; 7.3.4
# and 7.3.4-rt only 119,549 and 110,184, the rest counted as skipped.
. "$(dirname "$0")/lib.sh"

T=tracepoints/preempt
if ! command -v taskset > /dev/null 2>&1; then
	echo "SKIP live/$T: taskset not installed (puts the tasks on one CPU)"
	exit 0
fi
feat=$("$GTSC" features)
if ! grep -q '^tracepoint=yes' <<< "$feat" || ! grep -q '^tracefs=yes' <<< "$feat"; then
	echo "SKIP live/$T: no tracepoints by name here: $(grep -E '^(tracepoint|tracefs)=' <<< "$feat" | tr '\n' ' ')"
	exit 0
fi
N=100000
TASKS=3
d=$TEST_TMP
cp "$WORKLOADS/storm" "$d/tp-storm"
pids=""
for i in $(seq $TASKS); do
	mkfifo "$d/g$i"
	taskset -c 0 "$d/tp-storm" $N < "$d/g$i" > /dev/null &
	pids="$pids $!"
	eval "exec $((4 + i))> \"\$d/g\$i\""
done
"$GTSC" record -e syscalls:sys_enter_getppid -C tp-storm -d 120 -o "$d/t.gtsc" 2> "$d/err" &
g=$!
if ! wait_for "$d/err" recording 20; then
	fail $T/record "did not start: $(head -c 300 "$d/err")"
	kill $pids $g 2> /dev/null
	exit 0
fi
for i in $(seq $TASKS); do
	eval "echo g >&$((4 + i)); exec $((4 + i))>&-"
done
# shellcheck disable=SC2086
wait $pids
stop_after_workload $g
wait $g
rc=$?
check $T/record "record exited $rc: $(head -c 300 "$d/err")" [ $rc = 0 ]
"$GTSC" report -i "$d/t.gtsc" --json > "$d/j" 2> "$d/rerr"
head=$(head -1 "$d/j")
chan=$(printf '%s' "$head" | grep -o '"name":"events"[^}]*')
dropped=$(json_field "$chan" dropped)
misses=$(json_field "$head" recursion_misses)
recorded=$(count_lines "$d/j" '"comm":"tp-storm"' '"event":"sys_enter_getppid"')
want=$((TASKS * N))
echo "# $T: generated=$want recorded=$recorded skipped=${misses:-?} dropped=${dropped:-?} ($(uname -r))"
check $T/exact "recorded $recorded + skipped ${misses:-?} + dropped ${dropped:-?} != $want generated" \
	[ $((recorded + ${misses:-0} + ${dropped:-0})) = "$want" ]
out=$("$GTSC" check -i "$d/t.gtsc" 2>&1)
rc=$?
check $T/check "check exited $rc: $(echo "$out" | grep -v '^note' | head -c 400 | tr '\n' ' ')" [ $rc = 0 ]
