#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/convert_speed.sh: how fast a trace converts to formats other tools
# read.  One workload (bench/workloads/openread: openat, read, close; N
# times) is recorded twice, by gtsc-bpf (-e syscalls: sys_enter/sys_exit)
# and by perf record (raw_syscalls:sys_enter/sys_exit, the same events),
# and each converter turns its file into a trace:
#
#   gtsc-bpf convert --to ctf        CTF 1.8 directory (babeltrace2, Trace Compass)
#   gtsc-bpf convert --to perfetto   Trace Event Format JSON (ui.perfetto.dev)
#   perf data convert --to-ctf       CTF 1.8 directory (through libbabeltrace's writer)
#
# Times are the medians of RUNS runs, CPU (user + sys) and wall clock;
# events/s uses CPU time (each converter is single-threaded) over the
# events in its input: the same calls, two events each.  The table also
# goes to $OUTPUT/bench/convert_speed.txt.
#
# Knobs (environment):
#   CONVERT_BENCH_N=200000   workload iterations (3 calls, 6 events each)
#   CONVERT_BENCH_RUNS=3     runs per converter
#   BENCH_TMP=dir            where the traces go (default: a dir in /dev/shm)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUTPUT:-.output}/bench
N=${CONVERT_BENCH_N:-200000}
RUNS=${CONVERT_BENCH_RUNS:-3}
GTSC=${GTSC:-./gtsc-bpf}

[ "$(id -u)" = 0 ] || { echo "convert_speed: needs root (it records traces)" >&2; exit 1; }
[ -x "$GTSC" ] || { echo "convert_speed: build $GTSC first (make)" >&2; exit 1; }
mkdir -p "$OUT"
TMP=$(mktemp -d "${BENCH_TMP:-/dev/shm}/gtsc-convert-speed.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

cc -O2 -Wall -Wextra -o "$OUT/openread" bench/workloads/openread.c
echo hello > "$TMP/file"

echo "recording openread $N with gtsc-bpf and perf record ..." >&2
"$GTSC" record -q -e syscalls -b 256M -o "$TMP/t.gtsc" -- "$OUT/openread" "$N" "$TMP/file" > /dev/null
gtsc_events=$("$GTSC" convert -i "$TMP/t.gtsc" --to ctf -o "$TMP/t.ctf" 2>&1 |
	sed -n 's/.*: \([0-9]*\) events from .*/\1/p')
have_perf=1
if ! command -v perf > /dev/null 2>&1 ||
	! perf record -q -m 64M -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o "$TMP/perf.data" \
		-- "$OUT/openread" "$N" "$TMP/file" > /dev/null 2> "$TMP/perf.err" ||
	! perf data convert -i "$TMP/perf.data" --to-ctf "$TMP/p.ctf" > "$TMP/perf.err" 2>&1; then
	have_perf=0
	echo "convert_speed: perf record or perf data convert failed: $(tail -1 "$TMP/perf.err")" >&2
fi
perf_events=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/perf.err" 2> /dev/null || true)

# median SECONDS...
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# run LABEL EVENTS OUTDIR CMD...: times CMD's runs (OUTDIR removed before each), prints a row.
run() {
	local label=$1 events=$2 dir=$3 t cpu=() wall=() i
	shift 3
	for i in $(seq "$RUNS"); do
		rm -rf "$dir"
		t=$( { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1)
		wall+=("${t%% *}")
		cpu+=("$(echo "$t" | awk '{ printf "%.3f", $2 + $3 }')")
	done
	awk -v l="$label" -v n="$events" -v s="$(median "${cpu[@]}")" -v w="$(median "${wall[@]}")" \
		-v b="$(du -sk "$dir" | cut -f1)" 'BEGIN {
		printf "%-32s %9d %7.3f %7.3f %10.0f %9d\n", l, n, s, w, n / s, b }'
}

{
	printf '# openread N=%s, %s, median of %s runs\n' "$N" "$(uname -r)" "$RUNS"
	printf '%-32s %9s %7s %7s %10s %9s\n' converter events cpu_s wall_s events/s out_KiB
	run "gtsc-bpf convert --to ctf" "$gtsc_events" "$TMP/t.ctf" \
		"$GTSC" convert -i "$TMP/t.gtsc" --to ctf -o "$TMP/t.ctf"
	run "gtsc-bpf convert --to perfetto" "$gtsc_events" "$TMP/t.json" \
		"$GTSC" convert -i "$TMP/t.gtsc" --to perfetto -o "$TMP/t.json"
	if [ $have_perf = 1 ]; then
		run "perf data convert --to-ctf" "$perf_events" "$TMP/p.ctf" \
			perf data convert -i "$TMP/perf.data" --to-ctf "$TMP/p.ctf"
	else
		printf '%-32s n/a (perf record or data convert failed)\n' perf
	fi
} | tee "$OUT/convert_speed.txt"
