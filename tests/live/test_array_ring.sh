#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Array rings (every discard channel's default where the kernel has them;
# --channel NAME:ring=array asks for one): the same exact counts as the BPF
# ring buffer.
#   - a getppid storm (storm.c: 2N + 2 events) into a big ring drops nothing
#     and records all, into the smallest ring (64 KiB) drops and still
#     recorded + dropped = generated, the DROPPED records summing to it;
#   - the strace oracle and the kmem-in-interrupts test (perf the oracle)
#     pass with every channel on the BPF ring buffer too (GTSC_RING=ringbuf,
#     what a kernel before 5.12 gets; their results named ringbuf/...);
#   - stop and start of a daemon session (programs stay attached): exactly
#     the calls made while it was on;
#   - a kernel without the feature, and an overwrite channel, are refused
#     with one sentence.
. "$(dirname "$0")/lib.sh"

T=array-ring
if ! "$GTSC" features | grep -q '^array_ring=yes'; then
	# the refusal is what this kernel can show
	GTSC_RING= "$GTSC" record -q -e syscalls --channel syscalls:ring=array -o "$TEST_TMP/n.gtsc" -- true \
		2> "$TEST_TMP/nerr"
	check $T/refused "a kernel without array rings recorded, or said: $(head -c 300 "$TEST_TMP/nerr")" \
		has_line "$TEST_TMP/nerr" "ring=array cannot be used on this kernel"
	exit 0
fi

# storm_counts TEST TRACE: the syscalls channel's dropped and written, the storm's records.
storm_counts() {
	"$GTSC" report -i "$2" --json > "$TEST_TMP/j"
	chan=$(head -1 "$TEST_TMP/j" | grep -o '"name":"syscalls"[^}]*')
	dropped=$(json_field "$chan" dropped)
	written=$(json_field "$chan" events)
	recorded=$(count_lines "$TEST_TMP/j" "\"pid\":$spid," '"event":"sys_e')
	drops=$(grep '"event":"DROPPED"' "$TEST_TMP/j" | sed -n 's/.*"count":\([0-9]*\).*/\1/p' |
		awk '{s += $1} END {print s + 0}')
	echo "# $1: recorded=$recorded dropped=$dropped written=$written expected=$((2 * N + 2))"
}

N=200000
STORM_ARGS="--channel syscalls:ring=array,size=64M" \
	storm_record $T/big "$TEST_TMP/b.gtsc" "$WORKLOADS/storm" $N && {
	storm_counts big "$TEST_TMP/b.gtsc"
	check $T/big-exact "recorded $recorded (dropped $dropped) of $((2 * N + 2)) generated" \
		[ "$recorded.${dropped:-x}" = "$((2 * N + 2)).0" ]
	check $T/big-written "the kernel counted $written written, the file has $recorded" \
		[ "$written" = "$recorded" ]
}

STORM_ARGS="--channel syscalls:ring=array,size=64K" \
	storm_record $T/tiny "$TEST_TMP/t.gtsc" "$WORKLOADS/storm" $N && {
	storm_counts tiny "$TEST_TMP/t.gtsc"
	check $T/tiny-dropped "a 64 KiB array ring under a storm of $N calls dropped nothing" \
		[ "${dropped:-0}" -gt 0 ]
	check $T/tiny-exact "recorded $recorded + dropped $dropped != $((2 * N + 2)) generated" \
		[ $((recorded + dropped)) = $((2 * N + 2)) ]
	check $T/tiny-written "the kernel counted $written written, the file has $recorded" \
		[ "$written" = "$recorded" ]
	check $T/tiny-drop-records "DROPPED records sum to $drops, the trailer says $dropped" \
		[ "$drops" = "$dropped" ]
}

# Other tests, every channel on the ring buffer: their PASS/FAIL lines renamed.
for t in strace_oracle kmem_irq; do
	GTSC_RING=ringbuf bash "$(dirname "$0")/test_$t.sh" 2>&1 |
		sed -E "s#^(PASS|FAIL|SKIP) live/#\1 live/ringbuf/#"
done

# stop/start without detaching: a session of the storm's comm, on while it
# makes N1 calls, stopped for N2, started again for N3.
NAME=gtsc-arr-$$
cp "$WORKLOADS/storm" "$TEST_TMP/gtsc-arr-storm"
# No ring= and no GTSC_RING: the default must be the array ring.
GTSC_RING= "$GTSC" record --name "$NAME" --daemon -a -C gtsc-arr-storm -e syscalls=getppid \
	-o "$TEST_TMP/s.gtsc" 2> "$TEST_TMP/serr"
rc=$?
check $T/daemon "record --daemon exited $rc: $(head -c 300 "$TEST_TMP/serr")" [ $rc = 0 ]
if [ $rc = 0 ]; then
	trap '"$GTSC" kill "$NAME" > /dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT
	# gtsc_arr_heads (mmapable, 128-byte heads) has one entry an array
	# ring, the task ring and each CPU's syscalls and kmem rings here; a
	# session on ring buffers keeps one unused entry.
	dpid=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$TEST_TMP/serr")
	heads=$(for f in /proc/"$dpid"/fdinfo/*; do
		grep -q "^map_flags:.0x400$" "$f" 2> /dev/null && grep -q "^value_size:.128$" "$f" &&
			sed -n 's/^max_entries:.//p' "$f"
	done)
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	# PREEMPT_RT and 7.x (bpf_preemptible) too, since GTSC_ARR_TRIES is 32 (session.c)
	check $T/default "a default session has ${heads:-no} array heads, want $((1 + 2 * cpus)) (task + syscalls and kmem of $cpus CPUs)" \
		[ "$heads" = $((1 + 2 * cpus)) ]
	echo g | "$TEST_TMP/gtsc-arr-storm" 1000 > /dev/null
	"$GTSC" stop "$NAME"
	echo g | "$TEST_TMP/gtsc-arr-storm" 500 > /dev/null
	"$GTSC" start "$NAME"
	echo g | "$TEST_TMP/gtsc-arr-storm" 300 > /dev/null
	"$GTSC" kill "$NAME" > "$TEST_TMP/kill" 2>&1
	"$GTSC" report -i "$TEST_TMP/s.gtsc" --json > "$TEST_TMP/sj" 2>&1
	n=$(count_lines "$TEST_TMP/sj" '"comm":"gtsc-arr-storm"' '"name":"getppid"')
	check $T/stop-start "$n getppid events, want $((2 * (1000 + 300))) (on for 1000 calls, off for 500, on for 300): $(head -c 200 "$TEST_TMP/kill")" \
		[ "$n" = $((2 * (1000 + 300))) ]
fi

# Refusals: one sentence, a non-zero exit, no file (for the syscalls
# channel asked for, not the others the default would put on array rings).
GTSC_RING= GTSC_FEATURES_OFF=array_ring "$GTSC" record -q -e syscalls --channel syscalls:ring=array \
	-o "$TEST_TMP/n.gtsc" -- true 2> "$TEST_TMP/nerr"
rc=$?
check_expr $T/refused-kernel "exit $rc without the feature: $(head -c 300 "$TEST_TMP/nerr")" \
	'[ $rc != 0 ] && [ "$(wc -l < "$TEST_TMP/nerr")" = 1 ] && has_line "$TEST_TMP/nerr" "channel syscalls: ring=array cannot be used on this kernel: turned off by GTSC_FEATURES_OFF"'
# ... but no ring= asked, a kernel without them records on the ring buffer.
echo g | GTSC_RING= GTSC_FEATURES_OFF=array_ring "$GTSC" record -q -e syscalls -o "$TEST_TMP/f.gtsc" \
	-- "$WORKLOADS/storm" 100 > /dev/null 2> "$TEST_TMP/ferr"
rc=$?
"$GTSC" report -i "$TEST_TMP/f.gtsc" --json > "$TEST_TMP/fj" 2>&1
n=$(count_lines "$TEST_TMP/fj" '"name":"getppid"')
check $T/fallback "exit $rc, $n getppid events (want 200) without array rings: $(head -c 300 "$TEST_TMP/ferr")" \
	[ "$rc.$n" = "0.200" ]
"$GTSC" record -q -e syscalls --channel syscalls:ring=array,mode=overwrite \
	-o "$TEST_TMP/o.gtsc" -- true 2> "$TEST_TMP/oerr"
rc=$?
check_expr $T/refused-overwrite "exit $rc for an overwrite array channel: $(head -c 300 "$TEST_TMP/oerr")" \
	'[ $rc != 0 ] && [ "$(wc -l < "$TEST_TMP/oerr")" = 1 ] && has_line "$TEST_TMP/oerr" "ring=array is for discard channels"'
