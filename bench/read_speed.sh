#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/read_speed.sh: how fast a default (1.2: columns + zstd) trace reads
# against an LZ4 (1.1) trace of the same run, in every report mode.  Two
# recorders, one per codec, record the same events at the same time (-C
# COMM for bench/workloads/openread, -a for tests/live/kmem_load), then
# each mode reads each file RUNS times, as it comes (the reader's prefetch
# worker on) and with GTSC_READER_THREADS=1.  Printed: medians of CPU
# (user + sys) and wall seconds, and the speed of the 1.2 file against the
# LZ4 file (LZ4's time / 1.2's: >= 1.0 is as fast or faster).  Ratios are
# what to read on a shared machine; wall clock only means something on an
# idle one (the worker needs the second CPU).
#
# Knobs: READ_BENCH_N=330000 (openread iterations: ~2.2 M events),
# READ_BENCH_KMEM_SECS=3, READ_BENCH_RUNS=5, READ_BENCH_TMP=dir (default a
# dir in /var/tmp), GTSC=./gtsc-bpf.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${READ_BENCH_N:-330000}
SECS=${READ_BENCH_KMEM_SECS:-3}
RUNS=${READ_BENCH_RUNS:-5}
GTSC=${GTSC:-./gtsc-bpf}
OUT=${OUTPUT:-.output}/bench
TMP=$(mktemp -d "${READ_BENCH_TMP:-/var/tmp}/gtsc-read-speed.XXXXXX")
BG=""

cleanup() {
	local p
	for p in $BG; do
		kill "$p" 2> /dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "read_speed: needs root (it records traces)" >&2; exit 1; }
[ -x "$GTSC" ] || { echo "read_speed: build $GTSC first (make)" >&2; exit 1; }
mkdir -p "$OUT"
cc -O2 -Wall -o "$OUT/openread" bench/workloads/openread.c
cc -O2 -Wall -D_GNU_SOURCE -o "$OUT/kmem_load" tests/live/kmem_load.c

# start NAME OPTIONS...: a recorder writing $TMP/NAME.gtsc, once it records.
start() {
	local name=$1
	shift
	"$GTSC" record -o "$TMP/$name.gtsc" "$@" 2> "$TMP/$name.err" &
	BG="$BG $!"
	eval "pid_$name=$!"
	until grep -q recording "$TMP/$name.err" 2> /dev/null; do sleep 0.1; done
}

# stop NAME...: ends the recorders, waits for their files.
stop() {
	local name p
	for name in "$@"; do
		p=$(eval echo "\$pid_$name")
		kill -INT "$p"
		wait "$p" || true
	done
}

echo hello > "$TMP/file"
echo "# recording openread N=$N and kmem_load for ${SECS}s, each with both codecs at once" >&2
start sys_zstd -e syscalls -b 256M -C openread
start sys_lz4 -e syscalls -b 256M -C openread --compress=lz4
"$OUT/openread" "$N" "$TMP/file" > /dev/null
stop sys_zstd sys_lz4
start kmem_zstd -e kmem -a
start kmem_lz4 -e kmem -a --compress=lz4
for _ in 1 2; do
	echo g | timeout "$SECS" "$OUT/kmem_load" "$TMP/k.$RANDOM" 100000000 > /dev/null || true
done
stop kmem_zstd kmem_lz4

median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# time_runs THREADS FILE ARGS...: "cpu wall", medians of RUNS reports.
time_runs() {
	local threads=$1 file=$2 t i
	shift 2
	: > "$TMP/times"
	for i in $(seq "$RUNS"); do
		t=$( { TIMEFORMAT='%R %U %S'; time GTSC_READER_THREADS=$threads \
			"$GTSC" report -i "$file" "$@" > /dev/null 2> "$TMP/rerr" ||
			echo "exit $?" >> "$TMP/rerr"; } 2>&1 | tail -1)
		# a report that failed has no time worth a row
		if grep -q '^exit ' "$TMP/rerr"; then
			echo "read_speed: report -i $file $*: $(head -c 300 "$TMP/rerr")" >&2
			exit 1
		fi
		echo "$t" >> "$TMP/times"
	done
	echo "$(awk '{ print $2 + $3 }' "$TMP/times" | median) $(awk '{ print $1 }' "$TMP/times" | median)"
}

# row TRACE ARGS...: both files, one thread and the worker.
row() {
	local trace=$1 th zc zw lc lw
	shift
	for th in 1 0; do
		read -r zc zw <<< "$(time_runs $th "$TMP/${trace}_zstd.gtsc" "$@")"
		read -r lc lw <<< "$(time_runs $th "$TMP/${trace}_lz4.gtsc" "$@")"
		awk -v m="report $*" -v th="$([ $th = 1 ] && echo 1 || echo worker)" -v zc="$zc" \
			-v zw="$zw" -v lc="$lc" -v lw="$lw" 'BEGIN {
			printf "%-30s %-7s %7.3f %7.3f %7.3f %7.3f %6.2fx %6.2fx\n", m, th, zc, zw, lc, lw,
				(zc > 0 ? lc / zc : 0), (zw > 0 ? lw / zw : 0) }'
	done
}

{
	printf '# %s syscall events (%s, %s), %s kmem events (%s, %s); %s, load %s; medians of %s\n' \
		"$("$GTSC" report -i "$TMP/sys_zstd.gtsc" --header | awk '$2 == "syscalls" { print $6 }')" \
		"$(du -h "$TMP/sys_zstd.gtsc" | cut -f1)" "$(du -h "$TMP/sys_lz4.gtsc" | cut -f1)" \
		"$("$GTSC" report -i "$TMP/kmem_zstd.gtsc" --kmem --json -n 1 2> /dev/null |
			sed -n 's/.*"table":"summary".*"events":\([0-9]*\).*/\1/p')" \
		"$(du -h "$TMP/kmem_zstd.gtsc" | cut -f1)" "$(du -h "$TMP/kmem_lz4.gtsc" | cut -f1)" \
		"$(uname -r)" "$(cut -d' ' -f1 /proc/loadavg)" "$RUNS"
	printf '%-30s %-7s %7s %7s %7s %7s %7s %7s\n' mode threads 1.2cpu 1.2wall lz4cpu lz4wall \
		"cpu x" "wall x"
	row sys
	row sys --syscalls
	row sys --syscalls --json
	row sys --summary
	row kmem --kmem --caller -n 0
} | tee "$OUT/read_speed.txt"
