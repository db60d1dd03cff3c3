#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Runs the test lanes and prints "N passed, N failed" last.
#   tests/run.sh            all lanes (unit, live when root, vm when qemu + images)
#   tests/run.sh unit|live|vm
# Every test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# A SKIP is only for a lane that cannot run on this machine at all; it is
# counted and shown, never hidden.
set -u
cd "$(dirname "$0")/.."
OUT=${OUTPUT:-.output}
LANES=${1:-all}
LOG=$(mktemp)
# A unit binary runs in about a second; one that hangs is a failure, not a stuck lane.
UNIT_TIMEOUT=${UNIT_TIMEOUT:-120}
trap 'rm -f "$LOG"' EXIT

. tests/live/verdict.sh

# counted NAME LIMIT CMD...: runs CMD (for at most LIMIT seconds unless
# LIMIT is empty), shows and logs its lines, then its verdict.
counted() {
	local name=$1 limit=$2 out rc
	shift 2
	out=$(mktemp)
	if [ -n "$limit" ]; then
		timeout -k 5 "$limit" "$@" 2>&1 | tee "$out"
	else
		"$@" 2>&1 | tee "$out"
	fi
	rc=${PIPESTATUS[0]}
	cat "$out" >> "$LOG"
	verdict "$name" "$rc" "$out" "$limit" | tee -a "$LOG"
	rm -f "$out"
}

run_lane() {
	local lane=$1 t
	case $lane in
	unit)
		for t in "$OUT"/tests/unit/test_*; do
			[ -x "$t" ] || continue
			counted "unit/${t##*/}" "$UNIT_TIMEOUT" "$t"
		done
		;;
	live)
		if [ "$(id -u)" != 0 ]; then
			echo "SKIP live: needs root (the live lane loads BPF programs)" | tee -a "$LOG"
			return
		fi
		counted live "" bash tests/live/lane.sh
		;;
	vm)
		if [ -x tests/vm/run.sh ]; then
			counted vm "" tests/vm/run.sh
		fi
		;;
	esac
}

if [ "$LANES" = all ]; then
	for l in unit live vm; do run_lane $l; done
else
	run_lane "$LANES"
fi

pass=$(grep -c '^PASS ' "$LOG")
fail=$(grep -c '^FAIL ' "$LOG")
skip=$(grep -c '^SKIP ' "$LOG")
if [ "$fail" -gt 0 ]; then
	echo
	echo "Failures:"
	grep '^FAIL ' "$LOG"
fi
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
