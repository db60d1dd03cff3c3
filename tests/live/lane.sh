#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Runs every live test against the running kernel (host or VM).
cd "$(dirname "$0")"
export GTSC=${GTSC:-$(cd ../.. && pwd)/gtsc-bpf}
export WORKLOADS=${WORKLOADS:-$(cd ../.. && pwd)/${OUTPUT:-.output}/tests/live}
for t in test_*.sh; do
	bash "$t"
done
