#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/sessions.sh: what N concurrent sessions on the same attach points
# cost a traced task.  Each session is its own `gtsc-bpf record` with its
# own BPF object, so N sessions run N programs per event.  Measured with
# the getppid loop (ns per call, the best of BENCH_RUNS runs: other load on
# a shared machine only ever adds) for N = 0 1 2 4:
#   filtered   each session follows another process (-p): every program
#              runs, finds the task is not its own and returns;
#   recording  each session records everything (-a): N records per event.
#   kprobe     (only where kprobes work) -p filtered sessions that also
#              probe the getppid handler (-k), so the probe fires per call.
# Usage: bench/sessions.sh [GTSC_BINARY]   (root; BENCH_N, BENCH_RUNS)
set -euo pipefail
cd "$(dirname "$0")/.."

GTSC=${1:-./gtsc-bpf}
OUT=${OUTPUT:-.output}/bench
N=${BENCH_N:-1000000}
RUNS=${BENCH_RUNS:-5}
TMP=$(mktemp -d)
SLEEPER=
trap 'kill $SLEEPER $(jobs -pr) 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT

mkdir -p "$OUT"
[ -x "$OUT/getppid" ] || cc -O2 -static -o "$OUT/getppid" bench/workloads/getppid.c
NCPU=$(nproc)
if [ "$NCPU" -gt 1 ]; then
	export BENCH_CPU=$((NCPU - 1)) # the workload; recorders stay off its CPU
	PIN="taskset -c 0-$((NCPU - 2))"
else
	PIN=
fi
sleep 1000 &
SLEEPER=$!

# start_sessions N OPTIONS...: N recorders, waits until all record.
start_sessions() {
	local n=$1 i
	shift
	for i in $(seq 1 "$n"); do
		$PIN "$GTSC" record "$@" --name "bench-s$i" -o "$TMP/s$i.gtsc" 2> "$TMP/err$i" &
	done
	for i in $(seq 1 "$n"); do
		for _ in $(seq 1 200); do
			grep -q recording "$TMP/err$i" 2>/dev/null && break
			sleep 0.05
		done
	done
}

stop_sessions() {
	local p
	for p in $(jobs -pr); do
		[ "$p" = "$SLEEPER" ] || kill -INT "$p"
	done
	for p in $(jobs -pr); do
		[ "$p" = "$SLEEPER" ] || wait "$p" || true
	done
}

best() {
	sort -n | head -1
}

# measure N OPTIONS...: best ns per getppid with N sessions running.
measure() {
	local n=$1 r
	shift
	for r in $(seq 1 "$RUNS"); do
		[ "$n" = 0 ] || start_sessions "$n" "$@"
		"$OUT/getppid" "$N" | sed -n 's/^ns_per_iter=\([0-9.]*\).*/\1/p'
		[ "$n" = 0 ] || stop_sessions
	done | best
}

row() {
	local label=$1 n
	shift
	printf '%-10s' "$label"
	for n in 0 1 2 4; do
		printf ' %10s' "$(measure $n "$@")"
	done
	printf '\n'
}

echo "# kernel $(uname -r), $NCPU CPUs, $N getppid calls per run, best of $RUNS runs"
printf '%-10s %10s %10s %10s %10s   (ns per getppid call, by number of sessions)\n' \
	mode 0 1 2 4
row filtered -e syscalls -p "$SLEEPER"
row recording -e syscalls -a
if ! "$GTSC" features | grep -q '^kprobe=no'; then
	fn=$(grep -m1 -o '__[a-z0-9]*_sys_getppid' /proc/kallsyms || echo sys_getppid)
	row kprobe -e syscalls -k "$fn" -p "$SLEEPER"
	row kprobe-rec -e syscalls -k "$fn" -a
fi
