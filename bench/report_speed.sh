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
#   BASE=another gtsc-bpf   issue #12's reading goal: BASE (the build before
#                           the goal, fc315b6: LZ4) and GTSC each record the
#                           workload at once (-C: the same calls),
#                           each with its own default codec, then every mode
#                           reads, runs alternating: BASE its own trace, GTSC
#                           its own, GTSC BASE's.  Outputs are checked first
#                           (both builds print BASE's trace byte for byte the
#                           same, and both traces the same number of lines),
#                           then a row a mode with "goal x", BASE's CPU / GTSC's
#                           on their own traces (>= 1.00: MET), and "strict x",
#                           GTSC's on BASE's trace / on its own.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUTPUT:-.output}/bench
N=${REPORT_BENCH_N:-500000}
RUNS=${REPORT_BENCH_RUNS:-3}
GTSC=${GTSC:-./gtsc-bpf}
BASE=${BASE:-}
BG=""

[ "$(id -u)" = 0 ] || { echo "report_speed: needs root (it records traces)" >&2; exit 1; }
[ -x "$GTSC" ] || { echo "report_speed: build $GTSC first (make)" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "report_speed: no $BASE" >&2; exit 1; }
mkdir -p "$OUT"
TMP=$(mktemp -d "${BENCH_TMP:-/dev/shm}/gtsc-report-speed.XXXXXX")
# BG as it is at exit: the recorders still running
trap 'kill $BG 2> /dev/null || true; rm -rf "$TMP"' EXIT

cc -O2 -Wall -Wextra -o "$OUT/openread" bench/workloads/openread.c
echo hello > "$TMP/file"
CALLS=$(((N + N / 10) * 3)) # the workload warms up with N/10 iterations

# the workload under a name of its own for -C: other benchmarks run openread
COMM=rsopen$$
cp "$OUT/openread" "$TMP/$COMM"

# start BIN FILE: BIN records the workload's syscalls into FILE (its default codec), once it records.
start() {
	"$1" record -e syscalls -b 256M -C "$COMM" -o "$2" 2> "$2.err" &
	BG="$BG $!"
	until grep -q recording "$2.err" 2> /dev/null; do sleep 0.1; done
}

echo "recording $CALLS calls with gtsc-bpf${BASE:+ and $BASE at once} and perf trace record ..." >&2
if [ -n "$BASE" ]; then
	start "$GTSC" "$TMP/t.gtsc"
	start "$BASE" "$TMP/base.gtsc"
	"$TMP/$COMM" "$N" "$TMP/file" > /dev/null
	# shellcheck disable=SC2086 # the recorders' pids
	kill -INT $BG
	# shellcheck disable=SC2086
	wait $BG || true
	BG=""
else
	"$GTSC" record -q -e syscalls -b 256M -o "$TMP/t.gtsc" -- "$OUT/openread" "$N" "$TMP/file" > /dev/null
fi
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

# time_one CMD...: "wall cpu" seconds of one run of CMD.
time_one() {
	local t
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1)
	echo "$t" | awk '{ printf "%s %.3f\n", $1, $2 + $3 }'
}

# run LABEL CMD...: times CMD's runs, counts its output lines once, prints a row.
run() {
	local label=$1 t cpu=() wall=() lines
	shift
	lines=$("$@" 2> /dev/null | wc -l)
	for _ in $(seq "$RUNS"); do
		t=$(time_one "$@")
		wall+=("${t%% *}")
		cpu+=("${t##* }")
	done
	awk -v l="$label" -v n="$lines" -v c="$CALLS" -v s="$(median "${cpu[@]}")" \
		-v w="$(median "${wall[@]}")" 'BEGIN {
		printf "%-34s %9d %7.3f %7.3f %10.0f %10.0f\n", l, n, s, w, n / s, c / s }'
}

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

[ -n "$BASE" ] || exit 0

# same_output MODE...: BASE and GTSC print BASE's trace alike, and GTSC's as many lines, or exit 1.
same_output() {
	"$BASE" report -i "$TMP/base.gtsc" "$@" > "$TMP/out.base" 2>&1 || true
	"$GTSC" report -i "$TMP/base.gtsc" "$@" > "$TMP/out.new" 2>&1 || true
	if ! cmp -s "$TMP/out.base" "$TMP/out.new"; then
		echo "report_speed: report $* of BASE's trace: $GTSC and $BASE print differently" >&2
		exit 1
	fi
	"$GTSC" report -i "$TMP/t.gtsc" "$@" > "$TMP/out.new" 2>&1 || true
	if [ "$(wc -l < "$TMP/out.base")" != "$(wc -l < "$TMP/out.new")" ]; then
		echo "report_speed: report $*: $GTSC's trace prints $(wc -l < "$TMP/out.new") lines, $BASE's $(wc -l < "$TMP/out.base")" >&2
		exit 1
	fi
}

# goal MODE...: one mode of issue #12's reading goal, runs alternating (see BASE above).
goal() {
	same_output "$@"
	rm -f "$TMP"/times.*
	for _ in $(seq "$RUNS"); do
		time_one "$BASE" report -i "$TMP/base.gtsc" "$@" >> "$TMP/times.b"
		time_one "$GTSC" report -i "$TMP/t.gtsc" "$@" >> "$TMP/times.n"
		time_one "$GTSC" report -i "$TMP/base.gtsc" "$@" >> "$TMP/times.l"
	done
	awk -v m="report $*" -v runs="$RUNS" '
		function med(a, n,  i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return a[int((n + 1) / 2)]
		}
		FILENAME ~ /times.b$/ { bw[FNR] = $1; bc[FNR] = $2 }
		FILENAME ~ /times.n$/ { nw[FNR] = $1; nc[FNR] = $2 }
		FILENAME ~ /times.l$/ { lw[FNR] = $1; lc[FNR] = $2 }
		END {
			b = med(bc, runs); n = med(nc, runs); l = med(lc, runs)
			printf "%-28s %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %6.2fx %6.2fx  %s\n", m, b,
				med(bw, runs), n, med(nw, runs), l, med(lw, runs), b / n, l / n,
				(b >= n ? "MET" : "NOT MET")
		}' "$TMP/times.b" "$TMP/times.n" "$TMP/times.l"
}

{
	echo
	printf '# issue #12 reading goal: %s (its default codec) against %s (its own), %s calls, load %s, medians of %s alternating\n' \
		"$GTSC" "$BASE" "$CALLS" "$(cut -d' ' -f1 /proc/loadavg)" "$RUNS"
	printf '%-28s %7s %7s %7s %7s %7s %7s %7s %7s  %s\n' mode basecpu basewall newcpu newwall \
		lz4cpu lz4wall "goal x" "strict" verdict
	goal
	goal --syscalls
	goal --syscalls --json
	goal --summary
} | tee -a "$OUT/report_speed.txt"
