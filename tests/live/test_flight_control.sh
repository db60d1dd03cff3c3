#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A flight session controlled from other processes: status shows the
# channels' modes and per-CPU counts; stop is synchronous (the counts stand
# still after it); two snapshots of a stopped session hold the same records;
# snapshot --consume, rewind and SIGUSR2 do what the README says; non-root
# is refused; kill ends the session with the flight records in its file; a
# command on the ended session says it ended.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flight_both.sh"

NAME=flight-test-$$
G=$GTSC

# events SNAPSHOT_REPORT: its syscall event lines (times and all).
# events FILE: the syscall records, the task named by pid/tid only: a
# snapshot names tasks as /proc has them when it is taken, and a process that
# ended between two snapshots is no longer there to name.
events() {
	"$G" report -i "$1" | grep 'sys_e' | sed 's|\] [^ ]*/\([0-9]*\) |] \1 |'
}

# cpu_rows STATUS: the syscalls channel's per-CPU rows.
cpu_rows() {
	grep -E '^  syscalls +[0-9]+ ' "$1"
}

# snap_count OUTPUT: N of "gtsc-bpf: N records (...)".
snap_count() {
	sed -n 's/^gtsc-bpf: \([0-9]*\) records .*/\1/p' "$1"
}

# readable FILE: appears within 5 s and reads as a whole trace.
readable() {
	local i
	for i in $(seq 1 100); do
		[ -s "$1" ] && "$G" report -i "$1" --header > /dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

"$G" record --name "$NAME" --daemon -a -e syscalls --channel syscalls:mode=overwrite,size=64K \
	-o "$TEST_TMP/main.gtsc" 2> "$TEST_TMP/err"
rc=$?
check control/daemon "record --daemon exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
if [ $rc != 0 ]; then
	exit 0
fi
# A session must not outlive a test that stops early.
trap '"$G" kill "$NAME" > /dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT
sleep 0.5

# A process that ended and was reaped before the snapshot: /proc no longer
# has it, the session's task records still name it.  A session of its own,
# filtered to its comm, so that no other activity overwrites its records.
cp /bin/true "$TEST_TMP/gtsc-ended-cmd"
"$G" record --name "$NAME-e" --daemon -a -C gtsc-ended-cmd -e syscalls \
	--channel syscalls:mode=overwrite,size=64K -o "$TEST_TMP/e-main.gtsc" 2> "$TEST_TMP/e-err"
"$TEST_TMP/gtsc-ended-cmd" &
ended=$!
wait $ended
"$G" snapshot "$NAME-e" -o "$TEST_TMP/ended.gtsc" > /dev/null 2>&1
"$G" kill "$NAME-e" > /dev/null 2>&1
"$G" report -i "$TEST_TMP/ended.gtsc" --json > "$TEST_TMP/ej"
named=$(count_lines "$TEST_TMP/ej" "\"pid\":$ended,\"tid\":$ended,\"comm\":\"gtsc-ended-cmd\"")
unnamed=$(count_lines "$TEST_TMP/ej" "\"pid\":$ended,\"tid\":$ended,\"comm\":\"?\"")
check_expr control/ended-task-named "pid $ended's records in the snapshot: $named named gtsc-ended-cmd, $unnamed unnamed; $(head -c 200 "$TEST_TMP/e-err")" \
	'[ "$named" -gt 0 ] && [ "$unnamed" = 0 ]'

"$G" status "$NAME" > "$TEST_TMP/st" 2>&1
check control/status "status failed: $(head -c 300 "$TEST_TMP/st")" has_line "$TEST_TMP/st" "state=recording"
check control/status-mode "status does not show the overwrite channel's sub_size/nr_sub" \
	grep -qE '^  syscalls +percpu +overwrite +64K +[0-9]+ +64 +1024$' "$TEST_TMP/st"
check control/status-discard "status does not show the discard task channel" \
	grep -qE '^  task +global +discard ' "$TEST_TMP/st"
check control/status-overwritten "status has no per-CPU overwritten counts" \
	grep -qE '^  syscalls +0 +[0-9]+ +0 +[0-9]+ +[0-9]+$' "$TEST_TMP/st"
pid=$(sed -n 's/^  pid=//p' "$TEST_TMP/st")

# A client that gives up before the answer (a recorder slowed down, here
# stopped, past the client's 10 s) must not take the recorder with it: the
# answer then goes to a closed socket (EPIPE, not SIGPIPE).
kill -STOP "$pid"
"$G" status "$NAME" > "$TEST_TMP/o" 2>&1
kill -CONT "$pid"
sleep 0.5
"$G" status "$NAME" > "$TEST_TMP/o2" 2>&1
check_expr control/client-gone "after a client timed out: $(head -c 200 "$TEST_TMP/o2")" \
	'has_line "$TEST_TMP/o" "did not answer" && has_line "$TEST_TMP/o2" "state=recording"'

"$G" stop "$NAME"
check control/stop "stop exited $?" [ $? = 0 ]
"$G" status "$NAME" > "$TEST_TMP/st1"
sleep 0.3
"$G" status "$NAME" > "$TEST_TMP/st2"
check control/stopped-state "status after stop says $(grep state= "$TEST_TMP/st2")" \
	has_line "$TEST_TMP/st2" "state=stopped"
check_expr control/stop-is-still "the counts moved after stop, or status shows none" \
	'[ -n "$(cpu_rows "$TEST_TMP/st1")" ] && [ "$(cpu_rows "$TEST_TMP/st1")" = "$(cpu_rows "$TEST_TMP/st2")" ]'

"$G" snapshot "$NAME" -o "$TEST_TMP/a.gtsc" > "$TEST_TMP/sa" 2>&1
rc=$?
check control/snapshot "snapshot exited $rc: $(cat "$TEST_TMP/sa")" [ $rc = 0 ]
(cd "$TEST_TMP" && "$G" snapshot "$NAME" -o b.gtsc > "$TEST_TMP/sb")
events "$TEST_TMP/a.gtsc" > "$TEST_TMP/ea"
events "$TEST_TMP/b.gtsc" > "$TEST_TMP/eb"
na=$(wc -l < "$TEST_TMP/ea")
echo "# snapshot: $na syscall events retained"
check control/snapshot-has-data "the snapshot holds $na syscall events" [ "$na" -gt 0 ]
check control/snapshot-count "snapshot said $(snap_count "$TEST_TMP/sa") records, the file has $na" \
	[ "$(snap_count "$TEST_TMP/sa")" = "$na" ]
check control/snapshot-twice "two snapshots of a stopped session differ" cmp -s "$TEST_TMP/ea" "$TEST_TMP/eb"
"$G" report -i "$TEST_TMP/a.gtsc" --header > "$TEST_TMP/ha"
check control/snapshot-complete "the snapshot's report exited $?" [ $? = 0 ]
check control/snapshot-header "the snapshot's header has no flight counts" \
	has_line "$TEST_TMP/ha" "syscalls" "overwrite: $na records retained"

# rewind: a consuming read takes what it has not taken yet; rewind starts over.
"$G" snapshot "$NAME" --consume -o "$TEST_TMP/c1.gtsc" > "$TEST_TMP/s1"
"$G" snapshot "$NAME" --consume -o "$TEST_TMP/c2.gtsc" > "$TEST_TMP/s2"
"$G" rewind "$NAME"
check control/rewind "rewind exited $?" [ $? = 0 ]
"$G" snapshot "$NAME" --consume -o "$TEST_TMP/c3.gtsc" > "$TEST_TMP/s3"
check control/consume-all "the first consuming snapshot took $(snap_count "$TEST_TMP/s1") of $na" \
	[ "$(snap_count "$TEST_TMP/s1")" = "$na" ]
check control/consume-nothing-new "a second one took $(snap_count "$TEST_TMP/s2") records" \
	[ "$(snap_count "$TEST_TMP/s2")" = 0 ]
events "$TEST_TMP/c3.gtsc" > "$TEST_TMP/e3"
check control/rewind-again "after rewind the consuming snapshot differs from the first" \
	cmp -s "$TEST_TMP/ea" "$TEST_TMP/e3"

"$G" start "$NAME"
sleep 0.3
"$G" status "$NAME" > "$TEST_TMP/st3"
check control/start "status after start says $(grep state= "$TEST_TMP/st3")" \
	has_line "$TEST_TMP/st3" "state=recording"
check control/start-counts "the counts did not move after start" \
	[ "$(cpu_rows "$TEST_TMP/st2")" != "$(cpu_rows "$TEST_TMP/st3")" ]

kill -USR2 "$pid"
check control/usr2 "no readable $TEST_TMP/main.gtsc.1 after SIGUSR2" readable "$TEST_TMP/main.gtsc.1"

cp "$G" "$TEST_TMP/gtsc-bpf" && chmod 755 "$TEST_TMP" "$TEST_TMP/gtsc-bpf"
for cmd in status stop snapshot kill; do
	"$WORKLOADS/runas" 65534 "$TEST_TMP/gtsc-bpf" $cmd "$NAME" > "$TEST_TMP/o" 2>&1
	rc=$?
	check_expr control/non-root-$cmd "$cmd as nobody exited $rc: $(head -c 200 "$TEST_TMP/o")" \
		'[ $rc = 1 ] && has_line "$TEST_TMP/o" "needs root"'
done
"$G" status "$NAME" > "$TEST_TMP/o" 2>&1
check control/non-root-harmless "a refused non-root kill ended the session" \
	has_line "$TEST_TMP/o" "state=recording"

"$G" kill "$NAME"
check control/kill "kill exited $?" [ $? = 0 ]
"$G" report -i "$TEST_TMP/main.gtsc" --header > "$TEST_TMP/hm"
check control/main-complete "the main file's report exited $?" [ $? = 0 ]
check control/main-flight "the main file has no flight counts" has_line "$TEST_TMP/hm" "syscalls" "overwrite:"
"$G" status "$NAME" > "$TEST_TMP/o" 2>&1
rc=$?
check_expr control/ended "status of an ended session exited $rc: $(head -c 200 "$TEST_TMP/o")" \
	'[ $rc = 1 ] && has_line "$TEST_TMP/o" "has ended" "main.gtsc"'
"$G" snapshot "$NAME" > "$TEST_TMP/o" 2>&1
check control/ended-snapshot "snapshot of an ended session: $(head -c 200 "$TEST_TMP/o")" \
	has_line "$TEST_TMP/o" "has ended"
