#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Runs the test lanes and prints "N passed, N failed" last.
#   tests/run.sh            all lanes (unit, live when root, vm when qemu + images)
#   tests/run.sh unit|live|vm
# Every test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# A SKIP is only for a lane that cannot run on this machine at all; it is
# counted and shown, never hidden.
#   SANITIZE=1 tests/run.sh ...  the ASan + UBSan build (make test SANITIZE=1):
#                           unit and live lanes, their lines named asan-unit/...,
#                           asan-live/...
set -u
cd "$(dirname "$0")/.."
OUT=${OUTPUT:-.output}
LANES=${1:-all}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
PREFIX=
if [ "${SANITIZE:-}" = 1 ]; then
	OUT=$OUT/san
	export GTSC=$PWD/$OUT/gtsc-bpf WORKLOADS=$PWD/$OUT/tests/live
	# a report (a leak too) ends the program with exit 99, which the tests see
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	# the library test's `make install` builds the release tree, not this one
	unset MAKEFLAGS MAKELEVEL MAKEOVERRIDES SANITIZE
	[ "$LANES" = all ] && LANES="unit live"
	PREFIX=asan-
fi

# Names each result line after the build that ran it.
tag() {
	sed -u -E "s/^(PASS|FAIL|SKIP) /\1 $PREFIX/"
}

run_lane() {
	local lane=$1
	case $lane in
	unit)
		for t in "$OUT"/tests/unit/test_*; do
			[ -x "$t" ] || continue
			"$t" 2>&1 | tag | tee -a "$LOG" || true
		done
		;;
	live)
		if [ "$(id -u)" != 0 ]; then
			echo "SKIP live: needs root (the live lane loads BPF programs)" | tee -a "$LOG"
			return
		fi
		bash tests/live/lane.sh 2>&1 | tag | tee -a "$LOG" || true
		;;
	vm)
		if [ -x tests/vm/run.sh ]; then
			tests/vm/run.sh 2>&1 | tee -a "$LOG" || true
		fi
		;;
	esac
}

if [ "$LANES" = all ]; then
	for l in unit live vm; do run_lane $l; done
else
	for l in $LANES; do run_lane $l; done
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
