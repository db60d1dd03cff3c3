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

# wait_for FILE SUBSTRING [SECONDS]: until FILE has a line with SUBSTRING.
wait_for() {
	local i
	for i in $(seq 1 $((${3:-10} * 20))); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
