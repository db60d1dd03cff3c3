#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# report and convert of a rotated recording's files named out of order:
# read in the order they were recorded (each file's end, from its trailer;
# one without a trailer last), as trace-cmd report merges its -i files.
. "$(dirname "$0")/lib.sh"

# The workload runs until the recorder has begun its fourth file (at most
# ~30 s): a fixed run of 1.4 s made only 2 files in CI's TCG VMs.
"$GTSC" record -q -e syscalls --switch-output=400ms -o "$TEST_TMP/s.gtsc" -- \
	sh -c 'i=0; while [ "$(ls "$1".* 2> /dev/null | wc -l)" -lt 4 ] && [ $i -lt 150 ]; do
		ls / > /dev/null; sleep 0.2; i=$((i + 1)); done' sh "$TEST_TMP/s.gtsc" 2> "$TEST_TMP/err"
rc=$?
mapfile -t F < <(ls "$TEST_TMP"/s.gtsc.*)
check_expr report-files/record "record exited $rc and made ${#F[@]} files: $(head -c 300 "$TEST_TMP/err")" \
	'[ $rc = 0 ] && [ ${#F[@]} -ge 3 ]'
[ ${#F[@]} -ge 3 ] || exit 0
n=${#F[@]}
# the same files last first, then the first in the middle
REV=()
for ((i = n - 1; i >= 0; i--)); do REV+=("${F[i]}"); done
MIX=("${F[@]:1:1}" "${F[0]}" "${F[@]:2}")
for mode in "" --json --syscalls --summary; do
	# shellcheck disable=SC2086
	"$GTSC" report $mode -i "${F[@]}" > "$TEST_TMP/in-order" 2>&1
	# shellcheck disable=SC2086
	"$GTSC" report $mode -i "${REV[@]}" > "$TEST_TMP/rev" 2>&1
	rc=$?
	# shellcheck disable=SC2086
	"$GTSC" report $mode -i "${MIX[@]}" > "$TEST_TMP/mix" 2>&1
	m=${mode#--}
	check_expr "report-files/reversed-${m:-text}" "report $mode of the files last first (exit $rc) differs from in order: $(diff "$TEST_TMP/in-order" "$TEST_TMP/rev" | head -4)" \
		'[ $rc = 0 ] && [ "$(wc -l < "$TEST_TMP/in-order")" -gt 20 ] && cmp -s "$TEST_TMP/in-order" "$TEST_TMP/rev" && cmp -s "$TEST_TMP/in-order" "$TEST_TMP/mix"'
done
"$GTSC" report -i "${REV[@]}" | grep -v '^#' | awk '{ print $1 }' > "$TEST_TMP/times"
check_expr report-files/time-order "event times go back: $(sort -nc "$TEST_TMP/times" 2>&1)" \
	'[ -s "$TEST_TMP/times" ] && [ -z "$(sort -nc "$TEST_TMP/times" 2>&1)" ]'
"$GTSC" convert --to perfetto -i "${F[@]}" -o "$TEST_TMP/p1.json" 2> /dev/null
"$GTSC" convert --to perfetto -i "${REV[@]}" -o "$TEST_TMP/p2.json" 2> /dev/null
check report-files/convert "convert of the files last first differs from in order" \
	cmp -s "$TEST_TMP/p1.json" "$TEST_TMP/p2.json"

# the last file without its trailer (a killed recorder): still last
last=${F[n - 1]}
head -c $(($(stat -c %s "$last") - 64)) "$last" > "$TEST_TMP/cut"
"$GTSC" report -i "${F[@]:0:n-1}" "$TEST_TMP/cut" > "$TEST_TMP/cut-in-order" 2>&1
"$GTSC" report -i "$TEST_TMP/cut" "${F[@]:0:n-1}" > "$TEST_TMP/cut-first" 2>&1
rc=$?
check_expr report-files/no-trailer-last "the cut last file named first (exit $rc): $(diff "$TEST_TMP/cut-in-order" "$TEST_TMP/cut-first" | head -4)" \
	'[ $rc = 3 ] && cmp -s "$TEST_TMP/cut-in-order" "$TEST_TMP/cut-first"'
