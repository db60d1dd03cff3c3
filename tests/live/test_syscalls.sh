#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `record -- CMD` of a workload with known syscalls: exact numbers, arguments
# and return values, and nothing from any other process.
. "$(dirname "$0")/lib.sh"

path=$TEST_TMP/unique-$$-file
"$GTSC" record -q -e syscalls -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/sysload" "$path" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
rc=$?
check syscalls/record-exit "record exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j" 2> "$TEST_TMP/rerr"
rc=$?
check syscalls/report-exit "report failed: $(head -c 300 "$TEST_TMP/rerr")" [ $rc = 0 ]

read -r pid p b fd w < <(sed 's/[a-z]*=//g' "$TEST_TMP/out")
P="\"pid\":$pid,"
check syscalls/openat-args "no sys_enter openat(AT_FDCWD, $p, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0640) for pid $pid" \
	has_line "$TEST_TMP/j" "$P" '"event":"sys_enter","name":"openat","nr":257' \
	'"dfd":-100,' "\"filename\":\"$p\"" '"flags":"0x80241"' '"mode":"0x1a0"'
check syscalls/openat-ret "no sys_exit openat = $fd" \
	has_line "$TEST_TMP/j" "$P" '"event":"sys_exit","name":"openat"' "\"ret\":$fd}"
check syscalls/write-args "no write($fd, $b, 1234)" \
	has_line "$TEST_TMP/j" "$P" '"name":"write","nr":1,' "\"args\":{\"fd\":$fd,\"buf\":\"$b\",\"count\":1234}"
check syscalls/write-ret "no write = 1234" \
	has_line "$TEST_TMP/j" "$P" '"event":"sys_exit","name":"write"' '"ret":1234}'
check syscalls/close-ret "no close($fd) = 0" \
	has_line "$TEST_TMP/j" "$P" '"event":"sys_exit","name":"close"' '"ret":0}'
n=$(count_lines "$TEST_TMP/j" '"event":"sys_enter","name":"openat"' "\"filename\":\"$p\"")
check syscalls/openat-once "the openat appears $n times, not once" [ "$n" = 1 ]
# Every event belongs to the command: the filter is in the kernel.
others=$(grep -v '"event":"trace_info"' "$TEST_TMP/j" | grep -vc "$P")
check syscalls/only-command "$others events from other processes" [ "$others" = 0 ]
check syscalls/comm-after-exec "events are not named sysload after exec" \
	has_line "$TEST_TMP/j" "$P" '"comm":"sysload"' '"name":"write"'
check syscalls/exec-record "no task_exec record naming sysload" \
	has_line "$TEST_TMP/j" "$P" '"event":"task_exec"' '"new_comm":"sysload"'
# Channel counts in the trailer equal the events in the file.
ev=$(grep -c '"event":"sys_e' "$TEST_TMP/j")
check syscalls/channel-count "header says $(grep -o '"name":"syscalls"[^}]*' "$TEST_TMP/j"), file has $ev" \
	has_line "$TEST_TMP/j" "\"name\":\"syscalls\",\"scope\":\"percpu\"" "\"events\":$ev,\"dropped\":0"
