#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Preemption inside traced syscalls (rtpair.c): two SCHED_FIFO tasks on one
# CPU, the higher one waking every 50 us and preempting the other, also
# inside the BPF programs on its syscalls where the kernel lets it
# (PREEMPT_RT runs BPF programs preemptible).  The preempting task's events
# on the same hook are then skipped by the kernel's per-program recursion
# guard and must be recorded by the rescue programs (gtsc_shared.h).  Each
# task's getppid events are known from the code: recorded + dropped must
# equal them exactly, with a ring large enough (nothing dropped) and with a
# 4 KiB one (drops counted), so none of theirs may be left skipped; the
# kernel's skipped count covers other tasks' events too (others_skips in
# lib.sh).  Meaningful on -rt kernels; must hold everywhere.
. "$(dirname "$0")/lib.sh"

N=4000
M=2000
K=4

# rt_run NAME [RECORD OPTIONS]: records one rtpair run into $TEST_TMP/NAME.gtsc.
rt_run() {
	local name=$1 wpid rpid rc
	shift
	rm -f "$TEST_TMP/go"
	mkfifo "$TEST_TMP/go"
	"$WORKLOADS/rtpair" $N $M $K < "$TEST_TMP/go" > "$TEST_TMP/pid" 2> "$TEST_TMP/werr" &
	wpid=$!
	exec 3> "$TEST_TMP/go"
	wait_for "$TEST_TMP/pid" "$wpid" 5
	"$GTSC" record -e syscalls=getppid,write -s 1024 -p "$wpid" --name "gt-rt-$name" -d 120 \
		-o "$TEST_TMP/$name.gtsc" "$@" \
		2> "$TEST_TMP/err$name" &
	rpid=$!
	if ! wait_for "$TEST_TMP/err$name" recording "$REC_WAIT"; then
		fail "rt/$name-start" "record did not start: $(head -c 300 "$TEST_TMP/err$name")"
		kill $wpid $rpid 2> /dev/null
		exec 3>&-
		return 1
	fi
	echo g >&3
	exec 3>&-
	wait $wpid
	rc=$?
	"$GTSC" kill "gt-rt-$name" > /dev/null 2>&1
	wait $rpid
	if [ $rc = 2 ]; then
		echo "SKIP live/rt/$name: $(head -c 200 "$TEST_TMP/werr")"
		return 1
	fi
	check "rt/$name-workload" "rtpair exited $rc: $(head -c 200 "$TEST_TMP/werr")" [ $rc = 0 ]
	"$GTSC" report -i "$TEST_TMP/$name.gtsc" --json > "$TEST_TMP/$name.j"
}

# rt_counts NAME: "<parent's write events> <child's getppid events> <dropped> <skipped> <by hook>".
rt_counts() {
	local j=$TEST_TMP/$1.j head chan parent child
	head=$(head -1 "$j")
	chan=$(printf '%s\n' "$head" | grep -o '"name":"syscalls"[^}]*')
	parent=$(cat "$TEST_TMP/pid")
	child=$(grep '"name":"getppid"' "$j" | grep -o '"tid":[0-9]*' | sort -u | head -1 | cut -d: -f2)
	echo "$(count_lines "$j" "\"tid\":$parent," '"name":"write"')" \
		"$(count_lines "$j" "\"tid\":${child:-none}," '"name":"getppid"')" \
		"$(json_field "$chan" dropped)" "$(json_field "$head" recursion_misses)" \
		"$(json_field "$head" recursion_misses_by)"
}

if rt_run big --channel syscalls:size=32M; then
	read -r p c d s by <<< "$(rt_counts big)"
	echo "# rt big ring: parent $p, child $c (expected $((2 * N)), $((2 * M * K))), dropped $d, skipped $s${by:+ ($by)}"
	check rt/exact-parent "parent: recorded $p write events, expected $((2 * N))" [ "$p" = $((2 * N)) ]
	check rt/exact-child "child: recorded $c getppid events, expected $((2 * M * K))" \
		[ "$c" = $((2 * M * K)) ]
	check rt/no-drops "a large ring dropped $d" [ "${d:-x}" = 0 ]
	check rt/none-skipped "the trailer counts $s events the kernel skipped ($by), more than other tasks' may be" \
		others_skips "$s"
fi

if rt_run small --channel syscalls:size=4K; then
	read -r p c d s by <<< "$(rt_counts small)"
	echo "# rt 4 KiB ring: recorded $((p + c)), dropped $d, skipped $s${by:+ ($by)}, expected $((2 * N + 2 * M * K))"
	check rt/small-drops "a 4 KiB ring dropped nothing" [ "${d:-0}" -gt 0 ]
	check rt/small-exact "recorded $((p + c)) + dropped $d != $((2 * N + 2 * M * K))" \
		[ $((p + c + d)) = $((2 * N + 2 * M * K)) ]
	check rt/small-none-skipped "the trailer counts $s events the kernel skipped ($by), more than other tasks' may be" \
		others_skips "$s"
fi
