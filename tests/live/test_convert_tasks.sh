#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# convert --to ctf with the kernel's sched_process_fork and _exec recorded
# by name beside the task channel: babeltrace2 (the oracle) shows each fork
# and exec once, as LTTng's tracepoint event, exits (not recorded by name)
# from the task channel, and the tracepoints' streams are named events_N.
. "$(dirname "$0")/lib.sh"

if ! command -v babeltrace2 > /dev/null; then
	echo "SKIP live/convert-tasks: no babeltrace2 (scripts/deps.sh test installs it)"
	exit 0
fi
T=$TEST_TMP/t.gtsc
"$GTSC" record -q -e syscalls,kmem -e sched:sched_process_fork,sched:sched_process_exec -o "$T" \
	-- sh -c 'ls / > /dev/null; ls / > /dev/null; sleep 0.01; true' > /dev/null 2> "$TEST_TMP/err"
rc=$?
check convert-tasks/record "record exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$T" --json > "$TEST_TMP/j"
"$GTSC" convert -i "$T" --to ctf -o "$TEST_TMP/c.ctf" 2> "$TEST_TMP/cerr"
rc=$?
check convert-tasks/convert "convert exited $rc: $(head -c 300 "$TEST_TMP/cerr")" [ $rc = 0 ]
babeltrace2 "$TEST_TMP/c.ctf" > "$TEST_TMP/bt" 2> "$TEST_TMP/bterr"
check convert-tasks/no-warning "babeltrace2 said: $(head -c 300 "$TEST_TMP/bterr")" [ ! -s "$TEST_TMP/bterr" ]

js() { grep -c "\"event\":\"$1\"" "$TEST_TMP/j"; }
bt() { grep -c "^\[[^]]*\] ([^)]*) [^ ]* $1: " "$TEST_TMP/bt"; }
forks=$(js task_fork)
execs=$(js task_exec)
check_expr convert-tasks/recorded-twice "report --json: $forks task_fork, $(js sched_process_fork) sched_process_fork, $execs task_exec, $(js sched_process_exec) sched_process_exec" \
	'[ "$forks" -ge 3 ] && [ "$(js sched_process_fork)" = "$forks" ] && [ "$execs" -ge 3 ] && [ "$(js sched_process_exec)" = "$execs" ]'
check_expr convert-tasks/fork-once "babeltrace2 has $(bt sched_process_fork) sched_process_fork for $forks forks" \
	'[ "$(bt sched_process_fork)" = "$forks" ]'
check_expr convert-tasks/exec-once "babeltrace2 has $(bt sched_process_exec) sched_process_exec for $execs execs" \
	'[ "$(bt sched_process_exec)" = "$execs" ]'
check_expr convert-tasks/exit-kept "babeltrace2 has $(bt sched_process_exit) sched_process_exit, the task channel $(js task_exit)" \
	'[ "$(js task_exit)" -ge 3 ] && [ "$(bt sched_process_exit)" = "$(js task_exit)" ]'
all=$(grep -vc '"event":"trace_info"\|"event":"DROPPED"' "$TEST_TMP/j")
check_expr convert-tasks/count "babeltrace2 prints $(wc -l < "$TEST_TMP/bt") events, report --json $all less $forks forks and $execs execs" \
	'[ "$(wc -l < "$TEST_TMP/bt")" = $((all - forks - execs)) ]'
# the tracepoint's: LTTng's fields, in the parent's context, naming each child the task channel saw
child=$(grep -m1 '"event":"task_fork"' "$TEST_TMP/j" | sed -n 's/.*"tid":\([0-9]*\),.*/\1/p')
parent=$(grep -m1 '"event":"task_fork"' "$TEST_TMP/j" | sed -n 's/.*"parent_pid":\([0-9]*\).*/\1/p')
check convert-tasks/fork-fields "no sched_process_fork of parent $parent with parent_comm and child_tid = $child: $(grep -m1 ' sched_process_fork: ' "$TEST_TMP/bt" | head -c 300)" \
	has_line "$TEST_TMP/bt" " sched_process_fork: " "tid = $parent, procname = " "parent_comm = " "child_tid = $child }"
check convert-tasks/exec-fields "no sched_process_exec with LTTng's filename and old_tid" \
	has_line "$TEST_TMP/bt" " sched_process_exec: " 'filename = "' "old_tid = "
names=$(cd "$TEST_TMP/c.ctf" && ls | tr '\n' ' ')
check_expr convert-tasks/streams "stream files: $names" \
	'[ -e "$TEST_TMP/c.ctf/events_0" ] || [ -e "$TEST_TMP/c.ctf/events_1" ] && ! ls "$TEST_TMP/c.ctf" | grep -q "^other_"'
