#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Faults: a recorder SIGKILLed under load, a full disk, a consumer stopped
# for seconds under a storm.  Each leaves a readable file that says how far
# it got (and the stopped one exact drop counts), and nothing of its session
# behind: the BPF programs, links and maps the recorder held (ids read from
# its /proc/PID/fdinfo, then looked up by id, so other sessions running at
# the same time do not count), pins and control socket.
. "$(dirname "$0")/lib.sh"

if ! command -v bpftool > /dev/null; then
	echo "SKIP live/faults: bpftool is missing: the leftover checks look BPF objects up by id"
	exit 0
fi

# held_ids PID: "prog_id:N", "map_id:N", "link_id:N" of every BPF fd PID holds.
held_ids() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		awk '/^(prog|map|link)_id:/ { print $1 $2 }' "$f" 2> /dev/null
	done | sort -u
}

# leftovers NAME IDS: what of session NAME outlived its recorder (the kernel
# frees maps after an RCU grace period: allowed 5 s).
leftovers() {
	local name=$1 ids=$2 left x kind i
	for i in $(seq 50); do
		left=
		for x in $ids; do
			kind=${x%%_id:*}
			bpftool "$kind" show id "${x#*:}" > /dev/null 2>&1 && left="$left $x"
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	x=$(ls /sys/fs/bpf 2> /dev/null | grep -F -- "$name")
	[ -n "$x" ] && left="$left pins:$x"
	[ -e "/run/gtsc/$name.sock" ] && left="$left /run/gtsc/$name.sock"
	echo $left
}

# wait_size FILE BYTES [SECONDS]: until FILE holds at least BYTES.
wait_size() {
	local i
	for i in $(seq 1 $((${3:-10} * 20))); do
		[ "$(stat -c %s "$1" 2> /dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# records FILE: the record count check prints ("...; N records").
records() {
	"$GTSC" check -i "$1" | sed -n 's/.*; \([0-9]*\) records$/\1/p'
}

# ---- SIGKILL under load ----
T=faults/kill
name=faults-kill-$$
n=$((400000000 + $$)) # a storm that outlives the test, found by its count
"$GTSC" record -q -e syscalls --name "$name" -o "$TEST_TMP/k.gtsc" \
	-- sh -c "echo g | $WORKLOADS/storm $n" > /dev/null 2> "$TEST_TMP/kerr" &
rpid=$!
if wait_size "$TEST_TMP/k.gtsc" $((2 << 20)) 20; then
	ids=$(held_ids $rpid)
	kill -9 $rpid
	wait $rpid 2> /dev/null
	rc=$?
	pkill -f "storm $n$"
	check $T/killed "record was not killed by SIGKILL: rc $rc" [ $rc = 137 ]
	check $T/held "no BPF object read from the recorder's fds" [ -n "$ids" ]
	"$GTSC" check -i "$TEST_TMP/k.gtsc" > "$TEST_TMP/kchk"
	rc=$?
	check_expr $T/check-damaged "check rc $rc: $(head -c 300 "$TEST_TMP/kchk")" \
		'[ $rc = 3 ] && has_line "$TEST_TMP/kchk" "no trailer"'
	nrec=$(records "$TEST_TMP/k.gtsc")
	"$GTSC" report -i "$TEST_TMP/k.gtsc" > "$TEST_TMP/kout" 2> "$TEST_TMP/kwarn"
	rc=$?
	lines=$(grep -c ' getppid()' "$TEST_TMP/kout")
	# report's 3: it read what the file holds and warned that it is damaged
	check_expr $T/readable "report rc $rc, $lines getppid lines of $nrec records: $(head -c 300 "$TEST_TMP/kwarn")" \
		'[ $rc = 3 ] && [ "$lines" -gt 10000 ] && [ "${nrec:-0}" -gt "$lines" ] &&
		 has_line "$TEST_TMP/kwarn" "no trailer"'
	# the dead recorder's socket goes with the first request that finds it
	"$GTSC" status "$name" > "$TEST_TMP/kst" 2>&1
	check $T/status-died "status: $(head -c 300 "$TEST_TMP/kst")" has_line "$TEST_TMP/kst" "died"
	left=$(leftovers "$name" "$ids")
	check $T/nothing-left "left behind:$left" [ -z "$left" ]
else
	fail $T/start "the file did not reach 2 MiB: $(head -c 300 "$TEST_TMP/kerr")"
	kill -9 $rpid
	pkill -f "storm $n$"
fi

# ---- a full disk ----
T=faults/full-disk
name=faults-full-$$
mkdir "$TEST_TMP/full"
if mount -t tmpfs -o size=2m gtsc-faults "$TEST_TMP/full"; then
	"$GTSC" record --name "$name" -e syscalls -o "$TEST_TMP/full/t.gtsc" \
		-- sh -c "echo g | $WORKLOADS/storm 20000000" > /dev/null 2> "$TEST_TMP/ferr" &
	rpid=$!
	wait_size "$TEST_TMP/full/t.gtsc" 4096 10
	ids=$(held_ids $rpid)
	wait $rpid
	rc=$?
	grep -v "recording the command as session" "$TEST_TMP/ferr" > "$TEST_TMP/fsay"
	check_expr $T/one-sentence "rc $rc, said: $(head -c 400 "$TEST_TMP/fsay")" \
		'[ $rc != 0 ] && [ "$(wc -l < "$TEST_TMP/fsay")" = 1 ] &&
		 has_line "$TEST_TMP/fsay" "writing $TEST_TMP/full/t.gtsc failed after" "No space left on device"'
	"$GTSC" check -i "$TEST_TMP/full/t.gtsc" > "$TEST_TMP/fchk"
	rc=$?
	check_expr $T/check-truncated "check rc $rc: $(head -c 300 "$TEST_TMP/fchk")" \
		'[ $rc = 3 ] && has_line "$TEST_TMP/fchk" "truncated"'
	"$GTSC" report -i "$TEST_TMP/full/t.gtsc" --header > "$TEST_TMP/fh" 2>&1
	check $T/report-how-far "report --header: $(head -c 300 "$TEST_TMP/fh")" \
		has_line "$TEST_TMP/fh" "WARNING: the file is truncated: it ends inside chunk" "records up to there are readable"
	nrec=$(records "$TEST_TMP/full/t.gtsc")
	check $T/readable "check read ${nrec:-no} records" [ "${nrec:-0}" -gt 10000 ]
	check $T/held "no BPF object read from the recorder's fds" [ -n "$ids" ]
	left=$(leftovers "$name" "$ids")
	check $T/nothing-left "left behind:$left" [ -z "$left" ]
	umount "$TEST_TMP/full"
else
	echo "SKIP live/$T: cannot mount a 2 MiB tmpfs"
fi

# ---- the consumer stopped for 2 s under a storm ----
T=faults/stopped
name=faults-stop-$$
N=1000000

# stop_consumer RPID: SIGSTOP for 2 s, once the storm runs; the fds it held.
stop_consumer() {
	ids=$(held_ids $1)
	sleep 0.1
	kill -STOP $1
	sleep 2
	stopped=$(awk '{ print $3 }' /proc/$1/stat)
	kill -CONT $1
}

# storm_record stops the recorder once the storm has exited
STORM_ARGS="--name $name --channel syscalls:size=64K" STORM_HOOK=stop_consumer \
	storm_record $T "$TEST_TMP/s.gtsc" "$WORKLOADS/storm" $N || exit 0
check $T/stopped "the recorder's state while stopped was '$stopped', not T" [ "$stopped" = T ]
"$GTSC" report -i "$TEST_TMP/s.gtsc" --json > "$TEST_TMP/sj"
chan=$(head -1 "$TEST_TMP/sj" | grep -o '"name":"syscalls"[^}]*')
dropped=$(json_field "$chan" dropped)
recorded=$(count_lines "$TEST_TMP/sj" "\"pid\":$spid," '"event":"sys_e')
echo "# stopped 2 s: recorded=$recorded dropped=$dropped expected=$((2 * N + 2))"
check $T/dropped "a consumer stopped 2 s under a storm into 64 KiB rings dropped nothing" \
	[ "${dropped:-0}" -gt 0 ]
check $T/exact "recorded $recorded + dropped $dropped != $((2 * N + 2)) generated" \
	[ $((recorded + ${dropped:-0})) = $((2 * N + 2)) ]
check $T/held "no BPF object read from the recorder's fds" [ -n "$ids" ]
left=$(leftovers "$name" "$ids")
check $T/nothing-left "left behind:$left" [ -z "$left" ]
