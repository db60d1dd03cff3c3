#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Runs every live test against the running kernel (host or VM).  A script
# that dies, exits non-zero without a FAIL line, or prints no result is a
# FAIL under its own name; the lane exits 1 when anything failed.
# LANE_TESTS: a glob of scripts to run instead of all (tests/vm/lane_flight.sh).
# LANE_SCRIPT_TIMEOUT: seconds one script may run (480; the slowest took
# ~100 s in a TCG guest) before it is killed and FAILs under its own name,
# so that one hang costs one script, not the results of every script after.
cd "$(dirname "$0")"
. ./verdict.sh
export GTSC=${GTSC:-$(cd ../.. && pwd)/gtsc-bpf}
export WORKLOADS=${WORKLOADS:-$(cd ../.. && pwd)/${OUTPUT:-.output}/tests/live}
limit=${LANE_SCRIPT_TIMEOUT:-480}
out=$(mktemp)
failed=0
for t in ${LANE_TESTS:-test_*.sh}; do
	t0=$SECONDS
	timeout -k 10 "$limit" bash "$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "# live/${t%.sh}: $((SECONDS - t0)) s"
	# busybox's timeout (the VM lane) exits 128+TERM where GNU's exits 124.
	[ "$rc" = 143 ] && [ -n "${GTSC_VM:-}" ] && rc=124
	verdict "live/${t%.sh}" "$rc" "$out" "$limit" | tee -a "$out"
	grep -q '^FAIL ' "$out" && failed=1
done
rm -f "$out"
exit $failed
