#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The per-CPU cache of the -p filter (gtsc_pid_cache, gtsc.bpf.h) remembers
# the last untraced thread group a CPU saw.  A traced process's child that
# is handed the same pid on that CPU right after (pidreuse.c, through
# ns_last_pid) must not be taken for it: every addition to the traced set
# bumps a generation that voids the cached miss.  The untraced process's
# calls must stay out, the child's three must all be in.
. "$(dirname "$0")/lib.sh"

if [ ! -w /proc/sys/kernel/ns_last_pid ]; then
	echo "SKIP live/pid-cache: no /proc/sys/kernel/ns_last_pid to reuse a pid with (CONFIG_CHECKPOINT_RESTORE off)"
	exit 0
fi
cpu=$(($(nproc) - 1))
mkfifo "$TEST_TMP/go"
"$WORKLOADS/pidreuse" $cpu < "$TEST_TMP/go" > "$TEST_TMP/out" 2> "$TEST_TMP/werr" &
wpid=$!
exec 3> "$TEST_TMP/go"
wait_for "$TEST_TMP/out" "$wpid" 5
"$GTSC" record -e syscalls -p "$wpid" -d 120 -o "$TEST_TMP/t.gtsc" 2> "$TEST_TMP/err" &
rpid=$!
if ! wait_for "$TEST_TMP/err" "recording" "$REC_WAIT"; then
	fail pid-cache/start "record did not start: $(head -c 300 "$TEST_TMP/err")"
	kill $wpid $rpid 2> /dev/null
	exit 0
fi
echo g >&3
exec 3>&-
wait $wpid
wrc=$?
stop_after_workload $rpid
wait $rpid
rc=$?
check pid-cache/runs "workload exited $wrc ($(head -c 200 "$TEST_TMP/werr")), record $rc: $(head -c 300 "$TEST_TMP/err")" \
	[ "$wrc.$rc" = 0.0 ]
reused=$(sed -n 's/^reused=\([0-9]*\) .*/\1/p' "$TEST_TMP/out")
echo "# pid-cache: $(grep reused= "$TEST_TMP/out") on CPU $cpu"
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j"
n=$(count_lines "$TEST_TMP/j" "\"pid\":$reused," '"event":"sys_exit","name":"getpgid"')
u=$(grep -c '"args":{"pid":555555}' "$TEST_TMP/j")
c=$(grep -c '"args":{"pid":777777}' "$TEST_TMP/j")
check pid-cache/reused-child "the child given pid $reused has $n getpgid exits recorded, expected 3" [ "$n" = 3 ]
check pid-cache/untraced "the untraced process's getpgid(555555) was recorded $u times" [ "$u" = 0 ]
check pid-cache/child-calls "getpgid(777777) recorded $c times, expected 3" [ "$c" = 3 ]
