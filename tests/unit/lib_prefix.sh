#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The library's global names (src/user/lib/README.md): a global that
# libgtsc-internal.a defines is gtsc_* and listed in libgtsc.map (the
# public API), or gt_* (internal).  One FAIL line per other name, else
# PASS lines.  A new internal global is named gt_*; a new public one goes
# into libgtsc.map.
#   tests/unit/lib_prefix.sh [ARCHIVE [MAP]]
#   (default $OUTPUT/libgtsc-internal.a, src/user/lib/libgtsc.map)
set -u
export LC_ALL=C
TOP=$(dirname "$0")/../..
AR=${1:-$TOP/${OUTPUT:-.output}/libgtsc-internal.a}
MAP=${2:-$TOP/src/user/lib/libgtsc.map}

# Known exceptions, "symbol reason" (do not add without a reason).
ALLOWED="
gtsc_printf_hash include/gtsc/records.h names it (GTSC_PRINTF_ID is the same hash, computed by the compiler)
"

[ -f "$AR" ] || { echo "FAIL lib_prefix: no $AR (make unit-bins builds it)"; exit 1; }
[ -f "$MAP" ] || { echo "FAIL lib_prefix: no $MAP"; exit 1; }
# What the compiler adds is not ours to name: a name reserved to the
# implementation (__*) or no C identifier at all (ASan defines an
# __odr_asan.NAME beside each global NAME in `make test SANITIZE=1`).
syms=$(nm -g --defined-only "$AR" | awk 'NF == 3 && $3 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ && $3 !~ /^__/ { print $3 }' |
	sort -u)
[ -n "$syms" ] || { echo "FAIL lib_prefix: nm finds no global in $AR"; exit 1; }
api=$(grep -oP '^\s+\K\w+(?=;)' "$MAP" | sort -u)

fails=0
fail() {
	echo "FAIL lib_prefix/$1: $2"
	fails=$((fails + 1))
}
n_api=0 n_int=0
while read -r s; do
	if grep -qxF "$s" <<<"$api"; then
		case $s in
		gtsc_*) n_api=$((n_api + 1)) ;;
		*) fail "$s" "in libgtsc.map without the gtsc_ prefix" ;;
		esac
		continue
	fi
	grep -q "^$s " <<<"$ALLOWED" && continue
	case $s in
	gt_*) n_int=$((n_int + 1)) ;;
	gtsc_*) fail "$s" "gtsc_ is the public API's, and libgtsc.map does not list it (internal: gt_)" ;;
	*) fail "$s" "an internal global without the gt_ prefix" ;;
	esac
done <<<"$syms"
# an allow-list entry that no longer applies goes
while read -r s _; do
	[ -n "$s" ] || continue
	grep -qxF "$s" <<<"$syms" && ! grep -qxF "$s" <<<"$api" ||
		fail "$s" "allowed below but no longer an internal global: remove it from ALLOWED"
done <<<"$ALLOWED"
if [ $fails -eq 0 ]; then
	echo "PASS lib_prefix/api: $n_api gtsc_ globals, all in libgtsc.map"
	echo "PASS lib_prefix/internal: $n_int gt_ globals, $(grep -c . <<<"$ALLOWED") allowed exceptions"
fi
[ $fails -eq 0 ]
