#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/sessions.sh: what N concurrent sessions on the same attach points
# cost a traced task.  Each session is its own `gtsc-bpf record` with its
# own BPF object, so N sessions run N programs per event (syscalls: one
# attached, the first session's, calling the others' where the kernel
# allows, doc/notes/sessions-dispatch.md; GTSC_FEATURES_OFF=sys_dispatch
# measures them attached each on its own, as before).  Measured with
# the getppid loop (ns per call, the best of BENCH_RUNS runs: other load on
# a shared machine only ever adds) for N = 0 1 2 4 8:
#   filtered   each session follows another process (-p): every program
#              runs, finds the task is not its own and returns;
#   recording  each session records everything (-a): N records per event.
#   kprobe     (only where kprobes work) -p filtered sessions that also
#              probe the getppid handler (-k), so the probe fires per call.
#
# --goal: issue 13's goal alone (what `make bench` runs): eight sessions
# with different pid filters, one of them recording the workload, cost
# <= 1.5x one session recording it, in added ns per call; runs of 0, 1 and
# 8 sessions interleaved, the ratio from medians (best runs bracketed).
#
# Usage: bench/sessions.sh [--goal] [GTSC_BINARY]   (root; BENCH_N, BENCH_RUNS)
set -euo pipefail
cd "$(dirname "$0")/.."

GOAL=0
if [ "${1:-}" = --goal ]; then
	GOAL=1
	shift
fi
GTSC=${1:-./gtsc-bpf}
OUT=${OUTPUT:-.output}/bench
N=${BENCH_N:-1000000}
RUNS=${BENCH_RUNS:-5}
TMP=$(mktemp -d)
SLEEPERS=()
SESS=()
WPID=
cleanup() {
	local p
	for p in "${SESS[@]}" $WPID "${SLEEPERS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$OUT"
[ -x "$OUT/getppid" ] || cc -O2 -static -o "$OUT/getppid" bench/workloads/getppid.c
NCPU=$(nproc)
if [ "$NCPU" -gt 1 ]; then
	export BENCH_CPU=$((NCPU - 1)) # the workload; recorders stay off its CPU
	PIN="taskset -c 0-$((NCPU - 2))"
else
	PIN=
fi
# Processes for filtered sessions to follow: one each, so that no two
# sessions share a filter.
for _ in 1 2 3 4 5 6 7 8; do
	sleep 1000 &
	SLEEPERS+=($!)
done

# start_session I OPTIONS...: recorder I in the background.
start_session() {
	local i=$1
	shift
	$PIN "$GTSC" record "$@" --name "bench-s$i-$$" -o "$TMP/s$i.gtsc" 2>"$TMP/err$i" &
	SESS+=($!)
}

# Waits until sessions 1..N say they record.
wait_recording() {
	local n=$1 i
	for i in $(seq 1 "$n"); do
		for _ in $(seq 1 200); do
			grep -q recording "$TMP/err$i" 2>/dev/null && break
			sleep 0.05
		done
	done
}

stop_sessions() {
	local p
	for p in "${SESS[@]}"; do
		kill -INT "$p" 2>/dev/null || true
	done
	for p in "${SESS[@]}"; do
		wait "$p" || true
	done
	SESS=()
}

best() {
	sort -n | head -1
}

median() {
	sort -g | awk '{ a[NR] = $1 } END {
		if (NR) printf "%.1f\n", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# measure N OPTIONS...: best ns per getppid with N sessions running.
measure() {
	local n=$1 r i
	shift
	for r in $(seq 1 "$RUNS"); do
		for i in $(seq 1 "$n"); do
			start_session "$i" "$@"
		done
		wait_recording "$n"
		"$OUT/getppid" "$N" | sed -n 's/^ns_per_iter=\([0-9.]*\).*/\1/p'
		stop_sessions
	done | best
}

row() {
	local label=$1 n
	shift
	printf '%-10s' "$label"
	for n in 0 1 2 4 8; do
		printf ' %10s' "$(measure $n "$@")"
	done
	printf '\n'
}

# goal_run N: ns per getppid call with N sessions: the first follows the
# workload (held on a FIFO until every session records), the others one
# sleeper each.
goal_run() {
	local n=$1 i gate=$TMP/gate

	rm -f "$gate"
	mkfifo "$gate"
	BENCH_GATE=$gate "$OUT/getppid" "$N" >"$TMP/wl.out" &
	WPID=$!
	for i in $(seq 1 "$n"); do
		if [ "$i" = 1 ]; then
			start_session 1 -e syscalls -p "$WPID"
		else
			start_session "$i" -e syscalls -p "${SLEEPERS[$((i - 2))]}"
		fi
	done
	wait_recording "$n"
	echo go >"$gate"
	wait "$WPID"
	WPID=
	stop_sessions
	sed -n 's/^ns_per_iter=\([0-9.]*\).*/\1/p' "$TMP/wl.out"
}

goal() {
	local r n med0 best0 add1 add8 b1 b8 ratio ratio_b

	for r in $(seq 1 "$RUNS"); do
		for n in 0 1 8; do
			goal_run "$n" >>"$TMP/goal.$n"
		done
	done
	med0=$(median <"$TMP/goal.0")
	best0=$(best <"$TMP/goal.0")
	echo "# sessions: kernel $(uname -r), $NCPU CPUs, $N getppid calls per run, $RUNS runs each;"
	echo "# session 1 records the workload (-p), sessions 2-8 follow one sleeper each (-p)"
	printf '%-10s %10s %10s %10s\n' sessions ns/call +ns/call +ns/best
	for n in 0 1 8; do
		printf '%-10s %10s %10s %10s\n' "$n" "$(median <"$TMP/goal.$n")" \
			"$(awk -v a="$(median <"$TMP/goal.$n")" -v b="$med0" 'BEGIN { printf "%.1f", a - b }')" \
			"$(awk -v a="$(best <"$TMP/goal.$n")" -v b="$best0" 'BEGIN { printf "%.1f", a - b }')"
	done
	add1=$(awk -v a="$(median <"$TMP/goal.1")" -v b="$med0" 'BEGIN { print a - b }')
	add8=$(awk -v a="$(median <"$TMP/goal.8")" -v b="$med0" 'BEGIN { print a - b }')
	b1=$(awk -v a="$(best <"$TMP/goal.1")" -v b="$best0" 'BEGIN { print a - b }')
	b8=$(awk -v a="$(best <"$TMP/goal.8")" -v b="$best0" 'BEGIN { print a - b }')
	ratio=$(awk -v a="$add8" -v b="$add1" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	ratio_b=$(awk -v a="$b8" -v b="$b1" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	echo "verdict sessions: 8 sessions +$add8 ns/call / 1 session +$add1: ${ratio}x" \
		"(best runs: ${ratio_b}x), goal <= 1.5x:" \
		"$(awk -v r="$ratio" 'BEGIN { print (r != "-" && r <= 1.5) ? "MET" : "NOT MET" }')"
}

if [ "$GOAL" = 1 ]; then
	goal
	exit 0
fi
echo "# kernel $(uname -r), $NCPU CPUs, $N getppid calls per run, best of $RUNS runs"
printf '%-10s %10s %10s %10s %10s %10s   (ns per getppid call, by number of sessions)\n' \
	mode 0 1 2 4 8
row filtered -e syscalls -p "${SLEEPERS[0]}"
row recording -e syscalls -a
if ! "$GTSC" features | grep -q '^kprobe=no'; then
	fn=$(grep -m1 -o '__[a-z0-9]*_sys_getppid' /proc/kallsyms || echo sys_getppid)
	row kprobe -e syscalls -k "$fn" -p "${SLEEPERS[0]}"
	row kprobe-rec -e syscalls -k "$fn" -a
fi
