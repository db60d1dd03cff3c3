# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Sourced by tests/run.sh (per unit binary and lane) and tests/live/lane.sh
# (per script); bash and busybox only, for the VM lane.

# verdict NAME RC OUT [LIMIT]: a FAIL line for a program that died by a
# signal, ran past LIMIT seconds, exited non-zero without a FAIL line of its
# own, or printed no result at all (OUT holds what it printed): a crash or
# an early exit is never counted as zero failures.
verdict() {
	local name=$1 rc=$2 out=$3 limit=${4:-}
	if [ -n "$limit" ] && [ "$rc" = 124 ]; then
		echo "FAIL $name: timed out after $limit s"
	elif [ "$rc" -gt 128 ]; then
		echo "FAIL $name: killed by SIG$(kill -l $((rc - 128)) 2> /dev/null || echo $((rc - 128)))"
	elif [ "$rc" != 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL $name: exited $rc"
	elif ! grep -q '^\(PASS\|FAIL\|SKIP\) ' "$out"; then
		echo "FAIL $name: printed no PASS, FAIL or SKIP line (exit $rc)"
	fi
}
