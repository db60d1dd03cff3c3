#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/fuzz/run.sh HARNESS SECONDS OUTDIR: one AFL++ instance, niced, on
# the committed corpus for SECONDS; then executions, speed, map coverage,
# crashes and hangs.  Exits 1 if it found a crash or a hang: each one under
# OUTDIR/default/{crashes,hangs} replays with `HARNESS FILE`, and becomes a
# file in tests/fuzz/crashes once fixed (test_fuzz_regress replays them).
set -u
cd "$(dirname "$0")/../.."
bin=$1 secs=$2 out=$3

if ! command -v afl-fuzz > /dev/null; then
	echo "fuzz: afl-fuzz is missing: scripts/deps.sh installs afl++" >&2
	exit 1
fi
rm -rf "$out"
mkdir -p "$out"
# convert's CTF writer writes a directory: in memory, gone afterwards
FUZZ_CTF_DIR=$(mktemp -d /dev/shm/gtsc-fuzz-ctf.XXXXXX)
trap 'rm -rf "$FUZZ_CTF_DIR"' EXIT
export FUZZ_CTF_DIR
# no UI, no core binding (a shared machine), crashes seen even with a
# core_pattern that pipes; ASan's and UBSan's reports abort the input.
# LSAN_OPTIONS is ours: afl-fuzz's default has fast_unwind_on_malloc=0,
# which with detect_leaks=1 unwinds every malloc and free through libgcc,
# five times the cost of an execution.
# -t 10000: a hang is an input that never ends.  With -t 2000 a 5 M-exec
# campaign on this shared 2-core machine saved 9 "hangs" that were
# starvation: each replays in 21-33 ms.
AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:symbolize=0:allocator_may_return_null=1:malloc_context_size=8:quarantine_size_mb=16 \
LSAN_OPTIONS=exitcode=23:fast_unwind_on_malloc=1:symbolize=0:print_suppressions=0:suppressions=$PWD/tests/fuzz/lsan.supp \
UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
	nice -n 10 afl-fuzz -i tests/fuzz/corpus -x tests/fuzz/gtsc.dict -o "$out" -V "$secs" -t 10000 -- "$bin" \
	> "$out/afl.log" 2>&1
rc=$?
stats=$out/default/fuzzer_stats
if [ ! -f "$stats" ]; then
	echo "fuzz: afl-fuzz did not start (exit $rc):" >&2
	tail -20 "$out/afl.log" >&2
	exit 1
fi
get() { awk -F' *: *' -v k="$1" '$1 == k { print $2 }' "$stats"; }
crashes=$(get saved_crashes)
hangs=$(get saved_hangs)
echo "fuzz: $(get execs_done) executions in $(get run_time) s ($(get execs_per_sec)/s)," \
	"map coverage $(get bitmap_cvg), $(get corpus_count) inputs in the queue," \
	"$crashes crashes, $hangs hangs"
if [ "$crashes" != 0 ] || [ "$hangs" != 0 ]; then
	ls "$out"/default/crashes/id* "$out"/default/hangs/id* 2> /dev/null
	exit 1
fi
