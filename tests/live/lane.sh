#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Runs every live test against the running kernel (host or VM).  A script
# that dies, exits non-zero without a FAIL line, or prints no result is a
# FAIL under its own name; the lane exits 1 when anything failed.
# LANE_TESTS: a glob of scripts to run instead of all (tests/vm/lane_flight.sh).
cd "$(dirname "$0")"
. ./verdict.sh
export GTSC=${GTSC:-$(cd ../.. && pwd)/gtsc-bpf}
export WORKLOADS=${WORKLOADS:-$(cd ../.. && pwd)/${OUTPUT:-.output}/tests/live}
out=$(mktemp)
failed=0
for t in ${LANE_TESTS:-test_*.sh}; do
	bash "$t" 2>&1 | tee "$out"
	verdict "live/${t%.sh}" "${PIPESTATUS[0]}" "$out" | tee -a "$out"
	grep -q '^FAIL ' "$out" && failed=1
done
rm -f "$out"
exit $failed
