# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Shared by the live tests.  Sourced, not run.  Uses only bash, grep, awk and
# coreutils/busybox, so the same scripts run on the host and in the VM lane.
#   GTSC       the gtsc-bpf binary
#   WORKLOADS  directory of the static workloads (tests/live/*.c)
#   TMPDIR     scratch space

GTSC=${GTSC:-./gtsc-bpf}
WORKLOADS=${WORKLOADS:-.output/tests/live}
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gtsc-live.XXXXXX")
trap 'rm -rf "$TEST_TMP"' EXIT

pass() { echo "PASS live/$1"; }
fail() { echo "FAIL live/$1: $2"; }

# check NAME COND_DESCRIPTION COMMAND...: PASS if the command succeeds.
check() {
	local name=$1 why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}

# The most resident memory, in MiB, a bounded-memory command may use.
# The 3 M event conversions (test_convert.sh): the reader holds one drain
# round of records (bigger when the recorder lagged under load) and its
# look-ahead worker up to three decoded chunks (~20 MiB); measured 48 MiB
# with one thread, 68 with the worker, 76 at load 10 (6.18 host).  The
# trace decoded whole is over 100 MiB of records plus their index: staying
# under 96 shows the conversion streams.  Under ASan (the SANITIZE=1 lane
# sets ASAN_OPTIONS) its 16 MiB quarantine, redzones and shadow pages add
# about a half.
rss_limit_mib() {
	if [ -n "${ASAN_OPTIONS:-}" ]; then echo 144; else echo 96; fi
}

# not COMMAND...: succeeds when COMMAND fails ("check NAME WHY not grep ...").
not() { ! "$@"; }

# check_expr NAME WHY 'EXPR': for conditions with && or ||, which `check`
# would split (the shell would run check on the first part only).
check_expr() {
	if eval "$3"; then pass "$1"; else fail "$1" "$2"; fi
}

# has_line FILE SUBSTRING...: some line of FILE contains every substring.
has_line() {
	local f=$1
	shift
	awk -v n=$# 'BEGIN { for (i = 1; i <= n; i++) want[i] = ARGV[i]; ARGC = 1 }
		{ ok = 1; for (i = 1; i <= n; i++) if (index($0, want[i]) == 0) { ok = 0; break }
		  if (ok) { found = 1; exit } }
		END { exit !found }' "$@" < "$f"
}

# count_lines FILE SUBSTRING...: how many lines contain every substring.
count_lines() {
	local f=$1
	shift
	awk -v n=$# 'BEGIN { for (i = 1; i <= n; i++) want[i] = ARGV[i]; ARGC = 1 }
		{ ok = 1; for (i = 1; i <= n; i++) if (index($0, want[i]) == 0) { ok = 0; break }
		  c += ok }
		END { print c + 0 }' "$@" < "$f"
}

# json_field LINE KEY: the raw value of "KEY": in a flat JSON line.
json_field() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\\(\"[^\"]*\"\\|[^,}]*\\).*/\\1/p" | tr -d '"'
}

# others_skips N: N (the trailer's recursion_misses) is at most what other
# tasks' events may account for.  The kernel counts every task's skipped
# events on a hook, inside the session's filters or not, and nothing can
# tell them apart once every program is skipped.  A test following its own
# tasks asserts their counts exactly; it then allows a few skips of others:
# CI's 7.3.4-rt guest counted 4 (test_rt.sh, syscalls) and 2
# (test_tp_preempt.sh, task:task_rename, a classic program) with every
# event of the test's tasks recorded (2026-11-27).  Rescued events that
# were not subtracted would be hundreds or thousands there.
others_skips() {
	[ "${1:-x}" -ge 0 ] 2> /dev/null && [ "$1" -le 8 ]
}

# perf_once PERF_DATA FIELDS: `perf script --ns -F FIELDS` (FIELDS holding
# cpu and time) with a sample identical to the one before it left out,
# their number in PERF_DATA.dups.  perf record (6.1.192, Debian 12's) once
# wrote one kmalloc sample twice into its file, 128 bytes apart just past
# its 64 MiB ring's size, same nanosecond and fields (`perf report -D`
# lists both), test_kmem_irq 2026-11-27: the "perf one more than gtsc-bpf"
# its CI runs kept failing on.  Two events cannot share a nanosecond on
# one CPU.
perf_once() {
	perf script -i "$1" --ns -F "$2" 2> /dev/null |
		awk -v dups="$1.dups" '$0 == prev { n++; next } { prev = $0; print } END { print n + 0 > dups }'
}

# stop_after_perf PERF_PID GTSC_PID: ends a perf-oracle run, gtsc-bpf's exit
# status.  Reaped is not done: a task runs on after exit_notify(), its
# parent's wait may return meanwhile, and a softirq's frees on its way out
# carry its pid.  So both wait for those last steps, and perf stops first:
# gtsc-bpf stops recording at once on SIGINT and perf later, so that with
# both stopped at once a CI run had one kfree(NULL) of a workload's parent
# in perf only, with nothing dropped or skipped (test_kmem_irq.sh; that one
# may as well have been a sample perf wrote twice: perf_once).
stop_after_perf() {
	sleep 0.2
	kill -INT "$1" 2> /dev/null
	wait "$1"
	kill -INT "$2" 2> /dev/null
	wait "$2"
}

# wait_for FILE SUBSTRING [SECONDS]: until FILE has a line with SUBSTRING.
# Seconds to wait for a recorder's "recording" (the wait ends at the
# message): loading and verifying its programs takes ~0.5 s on the 6.18 host
# but passed 10 s in a loaded TCG guest of 7.3.4-rt, which loads four
# programs a syscall hook; a workload released after a timed-out wait ran
# before the recording and left it empty (CI, 2026-11-28: filter/pid-all).
REC_WAIT=60

wait_for() {
	local i
	for i in $(seq 1 $((${3:-10} * 20))); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# stop_after_workload RPID: the workload has exited; stop its recorder now.
# A fixed -d window ends a recording before the workload under a loaded
# TCG guest (4 s cut 7.3.4's hybrid storm short by 13,343 events, counted
# nowhere since they were never generated inside the window), so recordings
# run under a long -d and are stopped by SIGINT, which drains every ring.
stop_after_workload() {
	kill -INT "$1" 2> /dev/null
}

# storm_record TEST TRACE WORKLOAD [ARGS...]: WORKLOAD prints its pid and
# blocks in read(0); it is recorded with -p (syscalls only, 4 KiB rings,
# until it exits) into TRACE, then released.  Sets spid.  Fails, after a FAIL
# line, when the recorder did not start; stderr stays in $TEST_TMP/err.
# STORM_ARGS: more record options (word-split); STORM_HOOK: a command run
# with the recorder's pid once the storm is released (to stop the recorder);
# STORM_LINGER: seconds the recorder keeps draining in its own rounds after
# the storm has exited, before SIGINT (whose last drain writes the rest at
# once).
storm_record() {
	local test=$1 trace=$2 rpid
	shift 2
	mkfifo "$TEST_TMP/go"
	"$@" < "$TEST_TMP/go" > "$TEST_TMP/pid" &
	spid=$!
	exec 3> "$TEST_TMP/go" # opening the fifo lets it start and block in read(0)
	wait_for "$TEST_TMP/pid" "$spid" 5
	# shellcheck disable=SC2086
	"$GTSC" record -e syscalls -p "$spid" -d 120 --channel syscalls:size=4K ${STORM_ARGS:-} \
		-o "$trace" 2> "$TEST_TMP/err" &
	rpid=$!
	if ! wait_for "$TEST_TMP/err" "recording" "$REC_WAIT"; then
		fail "$test/start" "record did not start: $(head -c 300 "$TEST_TMP/err")"
		kill $spid $rpid 2>/dev/null
		exec 3>&-
		rm -f "$TEST_TMP/go"
		return 1
	fi
	echo g >&3
	exec 3>&-
	rm -f "$TEST_TMP/go"
	${STORM_HOOK:-:} $rpid
	wait $spid
	sleep "${STORM_LINGER:-0}"
	stop_after_workload $rpid
	wait $rpid
	rc=$?
	check "$test/record-exit" "record failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
}
