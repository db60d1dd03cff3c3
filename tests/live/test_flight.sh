#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Flight (overwrite) channels: a storm into a small overwrite channel keeps
# exactly the newest records.  seqstorm numbers its calls getpgid(BASE + i),
# i = 1..N, pinned to CPU 0: the retained getpgid arguments must run without
# a gap up to the last one written, and the counts must close:
# overwritten = written - retained, retained = the records in the file.
# Then --snapshot-on syscall=exit_group snapshots the same storm to OUTPUT.1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flight_both.sh"

N=100000

# getpgid arguments of PID's sys_enter records in report FILE (JSON), in order.
getpgid_args() {
	grep "\"pid\":$2," "$1" | grep '"event":"sys_enter","name":"getpgid"' |
		sed -n 's/.*"args":{"pid":\([0-9]*\)}.*/\1/p'
}

# continuous FILE: every number is the previous one plus one.
continuous() {
	awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { exit bad }' "$1"
}

# must NAME RC WHY: PASS, or FAIL and the rest of this file is moot.
must() {
	if [ "$2" = 0 ]; then
		pass "$1"
	else
		fail "$1" "$3"
		exit 0
	fi
}

"$GTSC" record -e syscalls --channel syscalls:mode=overwrite,size=64K -o "$TEST_TMP/t.gtsc" \
	-- "$WORKLOADS/seqstorm" $N 0 < /dev/null > "$TEST_TMP/out" 2> "$TEST_TMP/err"
must flight/record-exit $? "record failed: $(head -c 300 "$TEST_TMP/err")"
pid=$(head -1 "$TEST_TMP/out")
last=$(sed -n 's/^last=//p' "$TEST_TMP/out")
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j"
must flight/report-exit $? "report of a flight trace failed"
chan=$(head -1 "$TEST_TMP/j" | grep -o '"name":"syscalls"[^}]*')
mode=$(json_field "$chan" mode)
written=$(json_field "$chan" events)
retained=$(json_field "$chan" retained)
overwritten=$(json_field "$chan" overwritten)
torn=$(json_field "$chan" torn)
in_file=$(count_lines "$TEST_TMP/j" '"event":"sys_e')
getpgid_args "$TEST_TMP/j" "$pid" > "$TEST_TMP/args"
kept=$(wc -l < "$TEST_TMP/args")
exits=$(count_lines "$TEST_TMP/j" "\"pid\":$pid," '"event":"sys_exit","name":"getpgid"')
echo "# flight: written=$written retained=$retained overwritten=$overwritten torn=$torn" \
	"getpgid kept=$kept ($(head -1 "$TEST_TMP/args")..$(tail -1 "$TEST_TMP/args"), last $last)"
check flight/mode "the syscalls channel's mode is '$mode'" [ "$mode" = overwrite ]
check_expr flight/overwrote "retained $retained of $written: nothing was overwritten" \
	'[ "${retained:-0}" -gt 0 ] && [ "$retained" -lt "$written" ]'
check flight/overwritten-exact "overwritten $overwritten != written $written - retained $retained" \
	[ "$overwritten" = $((written - retained)) ]
check flight/retained-in-file "the trailer says $retained retained, the file has $in_file" \
	[ "$retained" = "$in_file" ]
check flight/no-torn "$torn torn records after the stop" [ "$torn" = 0 ]
check flight/newest-last "the newest getpgid kept is $(tail -1 "$TEST_TMP/args"), the last written $last" \
	[ "$(tail -1 "$TEST_TMP/args")" = "$last" ]
check flight/continuous "the kept getpgid arguments have a gap" continuous "$TEST_TMP/args"
# Emulated: 64K = 1024 slots; a call takes 3 (enter 80 B = 2, exit 40 B = 1),
# 341 fit.  Native: records take their size + an 8-byte header, 136 B a call,
# 481 fit.  Other records of the storm's process take the rest.
if [ $FLIGHT_IMPL = native ]; then lo=465 hi=481; else lo=330 hi=341; fi
check_expr flight/window "$kept calls kept, $lo..$hi fit in the $FLIGHT_IMPL channel" \
	'[ "$kept" -ge $lo ] && [ "$kept" -le $hi ]'
check_expr flight/pairs "$kept getpgid enters but $exits exits" \
	'[ $((exits - kept)) -ge 0 ] && [ $((exits - kept)) -le 1 ]'
grep '"event":"sys_e' "$TEST_TMP/j" | tail -1 > "$TEST_TMP/newest"
check flight/exit-group-last "the newest record is not exit_group: $(cat "$TEST_TMP/newest")" \
	grep -q '"name":"exit_group"' "$TEST_TMP/newest"
"$GTSC" report -i "$TEST_TMP/t.gtsc" --header > "$TEST_TMP/h"
check flight/header "the text header does not show the flight counts" \
	has_line "$TEST_TMP/h" "syscalls" "overwrite: $retained records retained" "$overwritten overwritten"

# The trigger: exit_group of the traced command snapshots to OUTPUT.1.
"$GTSC" record -e syscalls --channel syscalls:mode=overwrite,size=64K \
	--snapshot-on syscall=exit_group -o "$TEST_TMP/s.gtsc" \
	-- "$WORKLOADS/seqstorm" $N 0 < /dev/null > "$TEST_TMP/out" 2> "$TEST_TMP/err"
must flight/trigger-exit $? "record --snapshot-on failed: $(head -c 300 "$TEST_TMP/err")"
pid=$(head -1 "$TEST_TMP/out")
last=$(sed -n 's/^last=//p' "$TEST_TMP/out")
"$GTSC" report -i "$TEST_TMP/s.gtsc.1" --json > "$TEST_TMP/j1" 2> "$TEST_TMP/e1"
must flight/trigger-file $? "the triggered snapshot does not read: $(head -c 200 "$TEST_TMP/e1")"
getpgid_args "$TEST_TMP/j1" "$pid" > "$TEST_TMP/args1"
check flight/trigger-newest "the snapshot's newest getpgid is $(tail -1 "$TEST_TMP/args1"), not $last" \
	[ "$(tail -1 "$TEST_TMP/args1")" = "$last" ]
check flight/trigger-says "record did not report the snapshot" has_line "$TEST_TMP/err" "snapshot" "s.gtsc.1"
"$GTSC" record -a -d 1 --snapshot-on syscall=exit_group -o "$TEST_TMP/x.gtsc" 2> "$TEST_TMP/err"
check flight/trigger-needs-flight "--snapshot-on without an overwrite channel was not refused" \
	has_line "$TEST_TMP/err" "needs an overwrite channel"
