#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A short VM lane: the flight tests only (both implementations where the
# kernel has native overwrite rings).  VM_LANE=tests/vm/lane_flight.sh
# tests/vm/run.sh 6.19
cd "$(dirname "$0")"
. ./verdict.sh
export GTSC=${GTSC:-$(cd ../.. && pwd)/gtsc-bpf}
export WORKLOADS=${WORKLOADS:-$(cd ../.. && pwd)/${OUTPUT:-.output}/tests/live}
out=$(mktemp)
failed=0
for t in test_flight*.sh; do
	bash "$t" 2>&1 | tee "$out"
	verdict "live/${t%.sh}" "${PIPESTATUS[0]}" "$out" | tee -a "$out"
	grep -q '^FAIL ' "$out" && failed=1
done
rm -f "$out"
exit $failed
