#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/report_speed.sh: how fast traces decode, strace-style, at report
# time.  One workload (bench/workloads/openread: openat of a path, read of
# 4 KiB, close; N times) is recorded twice, by gtsc-bpf and by `perf trace
# record` (raw_syscalls enter/exit, like ours), and each reader turns its
# file into text:
#
#   gtsc-bpf report --syscalls            one decoded line per call
#   gtsc-bpf report --syscalls --json     one object per call, decoded + raw
#   gtsc-bpf report --summary             per syscall stats (no lines)
#   gtsc-bpf report                       the raw event printer, per event
#   perf trace -i                         one decoded line per call (-o /dev/stdout:
#                                         it writes to stderr otherwise)
#   perf script                           one line per event (enter, exit)
#
# Each reader writes to /dev/null; times are the medians of RUNS runs, CPU
# (user + sys) and wall clock.  The rates use CPU time: every reader is
# single-threaded, and CPU time is what a busy shared machine disturbs
# least.  Calls/s compares the readers on the same work (every reader gets
# the same calls); lines/s is their output rate.  The table also goes to
# $OUTPUT/bench/report_speed.txt.
#
# Knobs (environment):
#   REPORT_BENCH_N=500000   workload iterations (3 calls, 6 events each)
#   REPORT_BENCH_RUNS=3     runs per reader
#   BENCH_TMP=dir           where the traces go (default: a dir in /dev/shm)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUTPUT:-.output}/bench
N=${REPORT_BENCH_N:-500000}
RUNS=${REPORT_BENCH_RUNS:-3}
GTSC=${GTSC:-./gtsc-bpf}

[ "$(id -u)" = 0 ] || { echo "report_speed: needs root (it records traces)" >&2; exit 1; }
[ -x "$GTSC" ] || { echo "report_speed: build $GTSC first (make)" >&2; exit 1; }
mkdir -p "$OUT"
TMP=$(mktemp -d "${BENCH_TMP:-/dev/shm}/gtsc-report-speed.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

cc -O2 -Wall -Wextra -o "$OUT/openread" bench/workloads/openread.c
echo hello > "$TMP/file"
CALLS=$(((N + N / 10) * 3)) # the workload warms up with N/10 iterations

echo "recording $CALLS calls with gtsc-bpf and perf trace record ..." >&2
"$GTSC" record -q -e syscalls -b 256M -o "$TMP/t.gtsc" -- "$OUT/openread" "$N" "$TMP/file" > /dev/null
"$GTSC" report -i "$TMP/t.gtsc" --header | grep WARNING >&2 || true
have_perf=1
if ! command -v perf > /dev/null 2>&1 ||
	! perf trace record -m 256M -o "$TMP/perf.data" -- "$OUT/openread" "$N" "$TMP/file" > /dev/null 2> "$TMP/perf.err"; then
	have_perf=0
	echo "report_speed: perf trace record failed: $(tail -1 "$TMP/perf.err" 2> /dev/null)" >&2
fi

# median SECONDS...
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# run LABEL CMD...: times CMD's runs, counts its output lines once, prints a row.
run() {
	local label=$1 t cpu=() wall=() lines i
	shift
	lines=$("$@" 2> /dev/null | wc -l)
	for i in $(seq "$RUNS"); do
		t=$( { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1)
		wall+=("${t%% *}")
		cpu+=("$(echo "$t" | awk '{ printf "%.3f", $2 + $3 }')")
	done
	awk -v l="$label" -v n="$lines" -v c="$CALLS" -v s="$(median "${cpu[@]}")" \
		-v w="$(median "${wall[@]}")" 'BEGIN {
		printf "%-34s %9d %7.3f %7.3f %10.0f %10.0f\n", l, n, s, w, n / s, c / s }'
}

{
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# run LABEL CMD...: times CMD's runs, counts its output lines once, prints a row.

{
	printf '# %s calls (openread N=%s), %s, median of %s runs\n' "$CALLS" "$N" "$(uname -r)" "$RUNS"
	printf '%-34s %9s %7s %7s %10s %10s\n' reader lines cpu_s wall_s lines/s calls/s
	run "gtsc-bpf report --syscalls" "$GTSC" report -i "$TMP/t.gtsc" --syscalls
	run "gtsc-bpf report --syscalls -T" "$GTSC" report -i "$TMP/t.gtsc" --syscalls -T
	run "gtsc-bpf report --syscalls --json" "$GTSC" report -i "$TMP/t.gtsc" --syscalls --json
	run "gtsc-bpf report --summary" "$GTSC" report -i "$TMP/t.gtsc" --summary
	run "gtsc-bpf report (raw events)" "$GTSC" report -i "$TMP/t.gtsc"
	if [ $have_perf = 1 ]; then
		run "perf trace -i" perf trace -i "$TMP/perf.data" -o /dev/stdout
		run "perf script" perf script -i "$TMP/perf.data"
	else
		printf '%-34s n/a (perf trace record failed)\n' perf
	fi
} | tee "$OUT/report_speed.txt"
