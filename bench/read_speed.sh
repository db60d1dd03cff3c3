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
# dir in /var/tmp), GTSC=./gtsc-bpf.  READ_BENCH_KEEP=dir: the traces are
# kept there and read again by the next run that names it (no recording).
# BASE=another gtsc-bpf (main's): it reads the same files, alternating run
# by run with GTSC, after every mode's output of both was checked to be the
# same byte for byte (else exit 1); its columns follow, and "new x", its
# CPU time / GTSC's on the 1.2 file.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${READ_BENCH_N:-330000}
SECS=${READ_BENCH_KMEM_SECS:-3}
RUNS=${READ_BENCH_RUNS:-5}
GTSC=${GTSC:-./gtsc-bpf}
OUT=${OUTPUT:-.output}/bench
BASE=${BASE:-}
TMP=$(mktemp -d "${READ_BENCH_TMP:-/var/tmp}/gtsc-read-speed.XXXXXX")
KEEP=${READ_BENCH_KEEP:-}
BG=""

cleanup() {
	local p
	for p in $BG; do
		kill "$p" 2> /dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

[ -x "$GTSC" ] || { echo "read_speed: build $GTSC first (make)" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "read_speed: no $BASE" >&2; exit 1; }
if [ -n "$KEEP" ] && [ -f "$KEEP/kmem_lz4.gtsc" ]; then
	TRACES=$KEEP
else
	[ "$(id -u)" = 0 ] || { echo "read_speed: needs root (it records traces)" >&2; exit 1; }
	TRACES=${KEEP:-$TMP}
	mkdir -p "$TRACES"
fi
mkdir -p "$OUT"
cc -O2 -Wall -o "$OUT/openread" bench/workloads/openread.c
cc -O2 -Wall -D_GNU_SOURCE -o "$OUT/kmem_load" tests/live/kmem_load.c

# start NAME OPTIONS...: a recorder writing $TRACES/NAME.gtsc, once it records.
start() {
	local name=$1
	shift
	"$GTSC" record -o "$TRACES/$name.gtsc" "$@" 2> "$TMP/$name.err" &
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

record() {
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
}
[ "$TRACES" = "${KEEP:-}" ] && [ -f "$TRACES/kmem_lz4.gtsc" ] || record

median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# time_one THREADS BIN FILE ARGS...: "wall user sys" of one report.
time_one() {
	local threads=$1 bin=$2 file=$3 t
	shift 3
	t=$( { TIMEFORMAT='%R %U %S'; time GTSC_READER_THREADS=$threads \
		"$bin" report -i "$file" "$@" > /dev/null 2> "$TMP/rerr" ||
		echo "exit $?" >> "$TMP/rerr"; } 2>&1 | tail -1)
	# a report that failed has no time worth a row
	if grep -q '^exit ' "$TMP/rerr"; then
		echo "read_speed: $bin report -i $file $*: $(head -c 300 "$TMP/rerr")" >&2
		exit 1
	fi
	echo "$t"
}

# medians NAME: "cpu wall" of the times in $TMP/times.NAME
medians() {
	echo "$(awk '{ print $2 + $3 }' "$TMP/times.$1" | median) $(awk '{ print $1 }' "$TMP/times.$1" | median)"
}

# same_output TRACE ARGS...: BASE and GTSC print the same for both files, or exit 1.
same_output() {
	local trace=$1 c
	shift
	for c in zstd lz4; do
		GTSC_READER_THREADS=1 "$BASE" report -i "$TRACES/${trace}_$c.gtsc" "$@" > "$TMP/out.base" 2>&1 || true
		GTSC_READER_THREADS=1 "$GTSC" report -i "$TRACES/${trace}_$c.gtsc" "$@" > "$TMP/out.new" 2>&1 || true
		if ! cmp -s "$TMP/out.base" "$TMP/out.new"; then
			echo "read_speed: report $* of ${trace}_$c: $GTSC and $BASE print differently" >&2
			exit 1
		fi
	done
}

# row TRACE ARGS...: both files (and BASE), one thread and the worker; runs alternate.
row() {
	local trace=$1 th i zc zw lc lw bc bw
	shift
	[ -z "$BASE" ] || same_output "$trace" "$@"
	for th in 1 0; do
		rm -f "$TMP"/times.*
		for i in $(seq "$RUNS"); do
			time_one $th "$GTSC" "$TRACES/${trace}_zstd.gtsc" "$@" >> "$TMP/times.z"
			time_one $th "$GTSC" "$TRACES/${trace}_lz4.gtsc" "$@" >> "$TMP/times.l"
			[ -z "$BASE" ] ||
				time_one $th "$BASE" "$TRACES/${trace}_zstd.gtsc" "$@" >> "$TMP/times.b"
		done
		read -r zc zw <<< "$(medians z)"
		read -r lc lw <<< "$(medians l)"
		bc=0 bw=0
		[ -z "$BASE" ] || read -r bc bw <<< "$(medians b)"
		awk -v m="report $*" -v th="$([ $th = 1 ] && echo 1 || echo worker)" -v zc="$zc" \
			-v zw="$zw" -v lc="$lc" -v lw="$lw" -v bc="$bc" -v base="$BASE" 'BEGIN {
			printf "%-30s %-7s %7.3f %7.3f %7.3f %7.3f %6.2fx %6.2fx", m, th, zc, zw, lc, lw,
				(zc > 0 ? lc / zc : 0), (zw > 0 ? lw / zw : 0)
			if (base != "")
				printf " %7.3f %6.2fx", bc, (zc > 0 ? bc / zc : 0)
			printf "\n" }'
	done
}

{
	printf '# %s syscall events (%s, %s), %s kmem events (%s, %s); %s, load %s; medians of %s\n' \
		"$("$GTSC" report -i "$TRACES/sys_zstd.gtsc" --header | awk '$2 == "syscalls" { print $6 }')" \
		"$(du -h "$TRACES/sys_zstd.gtsc" | cut -f1)" "$(du -h "$TRACES/sys_lz4.gtsc" | cut -f1)" \
		"$("$GTSC" report -i "$TRACES/kmem_zstd.gtsc" --kmem --json -n 1 2> /dev/null |
			sed -n 's/.*"table":"summary".*"events":\([0-9]*\).*/\1/p')" \
		"$(du -h "$TRACES/kmem_zstd.gtsc" | cut -f1)" "$(du -h "$TRACES/kmem_lz4.gtsc" | cut -f1)" \
		"$(uname -r)" "$(cut -d' ' -f1 /proc/loadavg)" "$RUNS"
	printf '%-30s %-7s %7s %7s %7s %7s %7s %7s%s\n' mode threads 1.2cpu 1.2wall lz4cpu lz4wall \
		"cpu x" "wall x" "${BASE:+ basecpu   new x}"
	row sys
	row sys --syscalls
	row sys --syscalls --json
	row sys --summary
	row kmem --kmem --caller -n 0
} | tee "$OUT/read_speed.txt"
