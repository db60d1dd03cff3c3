#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Native overwrite rings against the emulated flight channels, on a kernel
# that has both (default Debian's 6.19.6, the first with BPF_F_RB_OVERWRITE),
# booted by the VM lane with bench/vm_flight_lane.sh as its lane: per event,
# the programs' own cost (bpf_stats) and a traced getpgid's wall time, REPS
# runs each, alternating; prints the medians and their ratio.  Numbers are
# qemu TCG's: compare them with each other, not with the host's.
#   bench/vm_flight.sh [KERNEL]      (VM_CACHE, BENCH_N, BENCH_REPS pass on)
set -euo pipefail
cd "$(dirname "$0")/.."
KERNEL=${1:-6.19}
OUT=${OUTPUT:-.output}

VM_LANE=bench/vm_flight_lane.sh tests/vm/run.sh "$KERNEL" | grep -v '^PASS' || true
log=$(ls -t "$OUT"/vm/*"$KERNEL"*.log | head -1)
grep '^BENCH ' "$log" | sed 's/^BENCH /# /'
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
field() { grep "^BENCH $1 " "$log" | sed -n "s/.* $2=\([0-9]*\).*/\1/p" | median; }
pn=$(field native prog_ns)
pe=$(field emulated prog_ns)
wn=$(field native storm_ns_per_call)
we=$(field emulated storm_ns_per_call)
pd=$(field discard prog_ns)
wd=$(field discard storm_ns_per_call)
wb=$(grep '^BENCH bare ' "$log" | sed -n 's/.*storm_ns_per_call=\([0-9]*\).*/\1/p')
if [ "${pn:-0}" = 0 ] || [ "${pe:-0}" = 0 ]; then
	echo "vm_flight: no measurements in $log" >&2
	exit 1
fi
echo "kernel $(basename "$log" .log): per program run native ${pn} ns, emulated ${pe} ns" \
	"(native/emulated $(awk -v a="$pn" -v b="$pe" 'BEGIN { printf "%.2f", a / b }'))"
echo "discard ring (reference): ${pd:-?} ns per program run"
echo "getpgid wall: bare ${wb:-?} ns, native ${wn} ns (+$((wn - ${wb:-0}))), emulated ${we} ns" \
	"(+$((we - ${wb:-0}))), discard ${wd:-?} ns"
