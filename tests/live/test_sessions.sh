#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Concurrent sessions: two recorders on the same tracepoints with disjoint
# -p filters each see exactly their own storm (2N + 2 events, storm.c), and
# the one whose ring is too small to keep up drops without changing the
# other's counts.  `list` shows both with their sources and filters, then
# neither once they are killed; a SIGKILLed recorder's entry is gone after
# the next `list`.
. "$(dirname "$0")/lib.sh"

NA=20000
NB=30000

# start_storm NAME N: a storm blocked on its fifo; sets SPID_NAME.
start_storm() {
	mkfifo "$TEST_TMP/go$1"
	"$WORKLOADS/storm" "$2" < "$TEST_TMP/go$1" > "$TEST_TMP/pid$1" &
	eval "SPID_$1=$!"
}

# record_storm NAME PID [OPTIONS]: a named session following PID.  -d is a
# safety net only (each is killed after its storm), far beyond the storms:
# with 60, CI's 7.3.4 guest once ended session 6 of eight on its own 64
# events before its storm's end (a -d counts from each recorder's start,
# and the eight take up to 30 s to start).
record_storm() {
	local name=$1 pid=$2
	shift 2
	"$GTSC" record -e syscalls -p "$pid" --name "gt-$name" -d 400 -o "$TEST_TMP/$name.gtsc" "$@" \
		2> "$TEST_TMP/err$name" &
}

# PID's syscall events in a trace, its channel's dropped and written, others'
# events, and the events the kernel skipped (recursion).
storm_counts() {
	"$GTSC" report -i "$1" --json > "$TEST_TMP/j"
	local head chan recorded others
	head=$(head -1 "$TEST_TMP/j")
	chan=$(printf '%s\n' "$head" | grep -o '"name":"syscalls"[^}]*')
	recorded=$(count_lines "$TEST_TMP/j" "\"pid\":$2," '"event":"sys_e')
	others=$(grep '"event":"sys_e' "$TEST_TMP/j" | grep -vc "\"pid\":$2,")
	echo "$recorded $(json_field "$chan" dropped) $(json_field "$chan" events) $others" \
		"$(json_field "$head" recursion_misses)"
}

start_storm a $NA
start_storm b $NB
exec 3> "$TEST_TMP/goa" 4> "$TEST_TMP/gob"
wait_for "$TEST_TMP/pida" "$SPID_a" 5
wait_for "$TEST_TMP/pidb" "$SPID_b" 5
record_storm a "$SPID_a" --channel syscalls:size=4K # too small: it must drop
ra=$!
record_storm b "$SPID_b"
rb=$!
if ! wait_for "$TEST_TMP/erra" recording "$REC_WAIT" || ! wait_for "$TEST_TMP/errb" recording "$REC_WAIT"; then
	fail sessions/start "recorders did not start: $(head -c 200 "$TEST_TMP/erra") $(head -c 200 "$TEST_TMP/errb")"
	kill "$SPID_a" "$SPID_b" $ra $rb 2>/dev/null
	exit 0
fi

"$GTSC" list > "$TEST_TMP/list1"
check sessions/list-both "list: $(tr '\n' '|' < "$TEST_TMP/list1")" \
	has_line "$TEST_TMP/list1" gt-a recording syscalls "pids=$SPID_a"
check sessions/list-both-b "list: $(tr '\n' '|' < "$TEST_TMP/list1")" \
	has_line "$TEST_TMP/list1" gt-b recording syscalls "pids=$SPID_b"

echo g >&3
echo g >&4
exec 3>&- 4>&-
wait "$SPID_a" "$SPID_b"
"$GTSC" kill gt-a > /dev/null 2>&1
"$GTSC" kill gt-b > /dev/null 2>&1
wait $ra $rb
"$GTSC" list > "$TEST_TMP/list2"
check sessions/list-neither "ended sessions still listed: $(tr '\n' '|' < "$TEST_TMP/list2")" \
	not grep -q 'gt-[ab] ' "$TEST_TMP/list2"

read -r rec_a drop_a written_a others_a skipped_a <<< "$(storm_counts "$TEST_TMP/a.gtsc" "$SPID_a")"
read -r rec_b drop_b written_b others_b skipped_b <<< "$(storm_counts "$TEST_TMP/b.gtsc" "$SPID_b")"
echo "# session a: recorded=$rec_a dropped=$drop_a skipped=$skipped_a; session b: recorded=$rec_b dropped=$drop_b skipped=$skipped_b"
check sessions/own-only-a "session a recorded $others_a events of other processes" [ "$others_a" = 0 ]
check sessions/own-only-b "session b recorded $others_b events of other processes" [ "$others_b" = 0 ]
check sessions/a-drops "session a's 4 KiB ring dropped nothing under $NA calls" [ "${drop_a:-0}" -gt 0 ]
check sessions/a-exact "session a: recorded $rec_a + dropped $drop_a != $((2 * NA + 2))" \
	[ $((rec_a + drop_a)) = $((2 * NA + 2)) ]
check sessions/b-exact "session b: recorded $rec_b, dropped $drop_b, expected $((2 * NB + 2)) and 0" \
	[ "$rec_b:$drop_b" = "$((2 * NB + 2)):0" ]

# SIGKILL: the recorder cannot clean up; the next list finds and removes its entry.
"$GTSC" record -e syscalls -a --name gt-killed -o "$TEST_TMP/k.gtsc" 2> "$TEST_TMP/errk" &
rk=$!
wait_for "$TEST_TMP/errk" recording "$REC_WAIT"
"$GTSC" list > "$TEST_TMP/list3"
check sessions/list-live "a live session is not listed: $(tr '\n' '|' < "$TEST_TMP/list3")" \
	has_line "$TEST_TMP/list3" gt-killed recording
kill -KILL $rk
wait $rk 2> /dev/null
"$GTSC" list > "$TEST_TMP/list4"
check sessions/killed-not-listed "a SIGKILLed session is listed: $(tr '\n' '|' < "$TEST_TMP/list4")" \
	not grep -q gt-killed "$TEST_TMP/list4"
check sessions/killed-entry-removed "list left the dead session's socket" [ ! -e /run/gtsc/gt-killed.sock ]

# Eight sessions on the same hooks, each following its own storm (issue 13's
# multi-session case): each records exactly its storm's 2N + 2 events, N
# different for each, none of the other seven's, and drops nothing.
S8="1 2 3 4 5 6 7 8"
rs8=()
t8_0=$SECONDS
for i in $S8; do
	start_storm "8_$i" $((1000 * i + i))
done
for i in $S8; do
	eval "exec $((10 + i))> \"\$TEST_TMP/go8_$i\""
	eval "p=\$SPID_8_$i"
	wait_for "$TEST_TMP/pid8_$i" "$p" 5
	record_storm "8_$i" "$p" -b 4M
	rs8+=($!)
done
ok8=1
# 90 s: eight BPF loads at once take a TCG guest longer than one (6.12-rt
# missed 10 s with every recorder started, its counts exact; 7.3.4 took 60 s
# for all eight with the syscalls' three rescue programs, 2026-11-27)
for i in $S8; do
	wait_for "$TEST_TMP/err8_$i" recording 90 || ok8=0
done
check sessions/eight-start "of 8 recorders, some did not start: $(cat "$TEST_TMP"/err8_* | grep -v recording | head -c 300)" \
	[ $ok8 = 1 ]
t8=$SECONDS
for i in $S8; do
	echo g >&$((10 + i))
	eval "exec $((10 + i))>&-"
done
for i in $S8; do
	eval "wait \$SPID_8_$i"
	"$GTSC" kill "gt-8_$i" > /dev/null 2>&1
done
wait "${rs8[@]}"
echo "# eight: the recorders started in $((t8 - t8_0)) s, the storms took $((SECONDS - t8)) s"
bad8=""
for i in $S8; do
	eval "p=\$SPID_8_$i"
	read -r rec drop written others skipped <<< "$(storm_counts "$TEST_TMP/8_$i.gtsc" "$p")"
	want=$((2 * (1000 * i + i) + 2))
	echo "# session 8_$i: recorded $rec (want $want), written $written, dropped $drop," \
		"others' $others, skipped $skipped"
	[ "$rec:$drop:$others" = "$want:0:0" ] && continue
	bad8="$bad8 session $i: recorded $rec (want $want), written $written, dropped $drop, others' $others, skipped $skipped;"
	"$GTSC" check -q -i "$TEST_TMP/8_$i.gtsc" 2>&1 | sed 's/^/# check 8_'"$i"': /' | head -20
done
check sessions/eight-exact "each of 8 sessions must record exactly its own storm:$bad8" [ -z "$bad8" ]
