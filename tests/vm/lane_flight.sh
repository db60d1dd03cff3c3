#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A short VM lane: the flight tests only (both implementations where the
# kernel has native overwrite rings):
#   VM_LANE=tests/vm/lane_flight.sh tests/vm/run.sh 6.19
LANE_TESTS='test_flight*.sh' exec bash "$(dirname "$0")/lane.sh"
