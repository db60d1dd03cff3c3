#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Runs the test lanes and prints "N passed, N failed" last.
#   tests/run.sh            all lanes (unit, live when root, vm when qemu + images)
#   tests/run.sh LANE...    unit, live, vm, all; asan: unit and live again with
#                           the ASan + UBSan build in $OUTPUT/san (make test
#                           SANITIZE=1 builds it and runs this lane), their
#                           lines named asan-unit/..., asan-live/... (the unit
#                           tests' own as asan-SUITE/...), and one FAIL
#                           asan-report/... per sanitizer report; tsan: the
#                           reader's threaded unit test built with
#                           ThreadSanitizer (make SANITIZE=thread tsan-bins)
# Every test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# A SKIP is only for a lane that cannot run on this machine at all; it is
# counted and shown, never hidden.
set -u
cd "$(dirname "$0")/.."
OUT=${OUTPUT:-.output}
LANES=${*:-all}
LOG=$(mktemp)
SAN_LOGS=$(mktemp -d)
# A unit binary runs in about a second; one that hangs is a failure, not a stuck lane.
UNIT_TIMEOUT=${UNIT_TIMEOUT:-120}
trap 'rm -rf "$LOG" "$SAN_LOGS"' EXIT
PREFIX=

. tests/live/verdict.sh

# Names each result line after the build that ran it.
tag() {
	sed -u -E "s/^(PASS|FAIL|SKIP) /\1 $PREFIX/"
}

# The sanitizer build's environment, for a subshell running the asan lanes.
san_env() {
	OUT=$OUT/san
	PREFIX=asan-
	export GTSC=$PWD/$OUT/gtsc-bpf WORKLOADS=$PWD/$OUT/tests/live
	# a report ends the program with exit 99, which the tests see, and
	# lands in SAN_LOGS, which asan_reports counts whatever a test checks;
	# a 16 MiB quarantine (not 256) keeps the memory-bound tests' RSS honest
	export ASAN_OPTIONS=detect_leaks=1:exitcode=99:quarantine_size_mb=16:log_path=$SAN_LOGS/asan
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$SAN_LOGS/ubsan
	# the library test's `make install` builds the release tree, not this one
	unset MAKEFLAGS MAKELEVEL MAKEOVERRIDES SANITIZE
}

# The reader's worker under ThreadSanitizer (make SANITIZE=thread tsan-bins):
# a race report ends the test with exit 66, a FAIL like any other.
tsan_lane() {
	local t
	if ! ls "$OUT"/tsan/tests/unit/test_* > /dev/null 2>&1; then
		echo "SKIP tsan: not built (make SANITIZE=thread tsan-bins)" | tee -a "$LOG"
		return
	fi
	for t in "$OUT"/tsan/tests/unit/test_*; do
		PREFIX=tsan- TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
			counted "unit/${t##*/}" "$UNIT_TIMEOUT" "$t"
	done
}

# One FAIL per report file (named after the reporting pid), else one PASS.
asan_reports() {
	local f
	for f in "$SAN_LOGS"/*; do
		[ -f "$f" ] || continue
		echo "FAIL asan-report/${f##*/}: $(grep -m1 -E 'ERROR|runtime error' "$f" | head -c 300)"
		sed -n '1,12p' "$f" | sed 's/^/# /'
	done | tee -a "$LOG"
	[ -n "$(ls -A "$SAN_LOGS")" ] || echo "PASS asan-report/none" | tee -a "$LOG"
}

# counted NAME LIMIT CMD...: runs CMD (for at most LIMIT seconds unless
# LIMIT is empty), shows and logs its lines, then its verdict.
counted() {
	local name=$1 limit=$2 out rc
	shift 2
	out=$(mktemp)
	if [ -n "$limit" ]; then
		timeout -k 5 "$limit" "$@" 2>&1 | tag | tee "$out"
	else
		"$@" 2>&1 | tag | tee "$out"
	fi
	rc=${PIPESTATUS[0]}
	cat "$out" >> "$LOG"
	verdict "$PREFIX$name" "$rc" "$out" "$limit" | tee -a "$LOG"
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
		counted unit/lib_stages "$UNIT_TIMEOUT" bash tests/unit/lib_stages.sh
		counted unit/lib_prefix "$UNIT_TIMEOUT" bash tests/unit/lib_prefix.sh "$OUT/libgtsc-internal.a"
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

for l in $LANES; do
	case $l in
	all) for a in unit live vm; do run_lane $a; done ;;
	asan) (san_env && run_lane unit && run_lane live) && asan_reports ;;
	tsan) tsan_lane ;;
	*) run_lane "$l" ;;
	esac
done

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
