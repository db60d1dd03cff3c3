#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Hybrid: a discard channel next to an overwrite one keeps its exact drop
# accounting.  The storm of test_drops.sh (2N + 2 syscall events, fixed by
# storm.c) goes into a tiny discard syscalls ring while its kmem events go
# into a small flight channel: recorded + dropped = generated on the one,
# overwritten = written - retained on the other.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flight_both.sh"

N=200000
mkfifo "$TEST_TMP/go"
"$WORKLOADS/storm" $N < "$TEST_TMP/go" > "$TEST_TMP/pid" &
spid=$!
exec 3> "$TEST_TMP/go"
wait_for "$TEST_TMP/pid" "$spid" 5
"$GTSC" record -e syscalls,kmem -p "$spid" -d 120 --channel syscalls:size=4K \
	--channel kmem:mode=overwrite,size=16K -o "$TEST_TMP/t.gtsc" 2> "$TEST_TMP/err" &
rpid=$!
if ! wait_for "$TEST_TMP/err" "recording" "$REC_WAIT"; then
	fail hybrid/start "record did not start: $(head -c 300 "$TEST_TMP/err")"
	kill $spid $rpid 2>/dev/null
	exit 0
fi
echo g >&3
exec 3>&-
wait $spid
stop_after_workload $rpid
wait $rpid
rc=$?
check hybrid/record-exit "record exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j"
info=$(head -1 "$TEST_TMP/j")
sys=$(printf '%s' "$info" | grep -o '"name":"syscalls"[^}]*')
kmem=$(printf '%s' "$info" | grep -o '"name":"kmem"[^}]*')
dropped=$(json_field "$sys" dropped)
recorded=$(count_lines "$TEST_TMP/j" "\"pid\":$spid," '"event":"sys_e')
kw=$(json_field "$kmem" events)
kr=$(json_field "$kmem" retained)
ko=$(json_field "$kmem" overwritten)
echo "# hybrid: syscalls recorded=$recorded dropped=$dropped expected=$((2 * N + 2));" \
	"kmem written=$kw retained=$kr overwritten=$ko"
check_expr hybrid/modes "modes: syscalls $(json_field "$sys" mode), kmem $(json_field "$kmem" mode)" \
	'[ "$(json_field "$sys" mode)" = discard ] && [ "$(json_field "$kmem" mode)" = overwrite ]'
check hybrid/dropped "a 4 KiB ring under a storm of $N calls dropped nothing" [ "${dropped:-0}" -gt 0 ]
check hybrid/exact "recorded $recorded + dropped $dropped != $((2 * N + 2)) generated" \
	[ $((recorded + dropped)) = $((2 * N + 2)) ]
check hybrid/flight-kept "the kmem flight channel kept $kr of $kw" [ "${kr:-0}" -gt 0 ]
check hybrid/flight-exact "kmem overwritten $ko != written $kw - retained $kr" [ "$ko" = $((kw - kr)) ]
