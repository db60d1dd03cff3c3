#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# report's filters (--pid, --tid, --comm, --since, --until), text and JSON,
# against the unfiltered report of the same trace: the kept events are
# exactly the unfiltered lines of that task or time, byte for byte.
. "$(dirname "$0")/lib.sh"

T=$TEST_TMP/t.gtsc
"$GTSC" record -q -e syscalls,kmem -o "$T" -- \
	sh -c "$WORKLOADS/blockread > $TEST_TMP/tid; ls / > /dev/null" > /dev/null 2> "$TEST_TMP/err"
rc=$?
check report-filter/record "record exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
tid=$(sed -n 's/^tid=//p' "$TEST_TMP/tid")
"$GTSC" report -i "$T" | grep -v '^#' > "$TEST_TMP/all.txt"
"$GTSC" report -i "$T" --json | grep -v '"event":"trace_info"' > "$TEST_TMP/all.json"
pid=$(grep -m1 '"comm":"blockread"' "$TEST_TMP/all.json" | sed -n 's/.*"pid":\([0-9]*\),.*/\1/p')
check_expr report-filter/workload "no blockread process ($pid) or reader thread ($tid)" \
	'[ -n "$pid" ] && [ -n "$tid" ] && [ "$pid" != "$tid" ]'

# filtered NAME OPTIONS...: the event lines of report OPTIONS, text and --json.
filtered() {
	local name=$1
	shift
	"$GTSC" report -i "$T" "$@" 2> "$TEST_TMP/$name.err" | grep -v '^#' > "$TEST_TMP/$name.txt"
	"$GTSC" report -i "$T" --json "$@" 2>> "$TEST_TMP/$name.err" |
		grep -v '"event":"trace_info"' > "$TEST_TMP/$name.json"
}

# same NAME ORACLE_JSON ORACLE_TXT: both outputs of NAME are the oracles'
# lines, and there are some.
same() {
	local name=$1 ojson=$2 otxt=$3 n
	n=$(wc -l < "$ojson")
	check_expr report-filter/$name-json "--json kept $(wc -l < "$TEST_TMP/$name.json") events, the unfiltered JSON has $n: $(diff "$TEST_TMP/$name.json" "$ojson" | head -3)" \
		'[ "$n" -gt 0 ] && cmp -s "$TEST_TMP/$name.json" "$ojson"'
	check_expr report-filter/$name-text "text kept $(wc -l < "$TEST_TMP/$name.txt") lines, the unfiltered JSON has $n events: $(diff "$TEST_TMP/$name.txt" "$otxt" | head -3)" \
		'[ "$(wc -l < "$TEST_TMP/$name.txt")" = "$n" ] && cmp -s "$TEST_TMP/$name.txt" "$otxt"'
}

# --pid: the process's events, its threads' too (as report --syscalls --pid).
filtered pid --pid "$pid"
grep -E "\"(pid|tid)\":$pid," "$TEST_TMP/all.json" > "$TEST_TMP/pid.ojson"
awk -v p="$pid" '$3 ~ "/" p "(:|$)" || $3 ~ ":" p "$"' "$TEST_TMP/all.txt" > "$TEST_TMP/pid.otxt"
same pid "$TEST_TMP/pid.ojson" "$TEST_TMP/pid.otxt"

# --tid: the reader thread's alone, fewer than its process's.
filtered tid --tid "$tid"
grep "\"tid\":$tid," "$TEST_TMP/all.json" > "$TEST_TMP/tid.ojson"
awk -v t="$tid" '$3 ~ ":" t "$"' "$TEST_TMP/all.txt" > "$TEST_TMP/tid.otxt"
same tid "$TEST_TMP/tid.ojson" "$TEST_TMP/tid.otxt"
check_expr report-filter/tid-fewer "--tid $tid kept $(wc -l < "$TEST_TMP/tid.json"), --pid $pid $(wc -l < "$TEST_TMP/pid.json")" \
	'[ "$(wc -l < "$TEST_TMP/tid.json")" -lt "$(wc -l < "$TEST_TMP/pid.json")" ]'

# --comm: globs, a list; the comm an event shows (sh until its exec).
filtered comm --comm 'blockr*,ls'
grep -E '"comm":"(blockread|ls)"' "$TEST_TMP/all.json" > "$TEST_TMP/comm.ojson"
awk '$3 ~ "^(blockread|ls)/"' "$TEST_TMP/all.txt" > "$TEST_TMP/comm.otxt"
same comm "$TEST_TMP/comm.ojson" "$TEST_TMP/comm.otxt"

# --since is inclusive, --until exclusive, at an event's exact time: the
# reader thread's first event after its fork.  Its fork and its process's
# exec come before it, and its lines still show their comm.
at=$(awk -v t="$tid" '$3 ~ ":" t "$" && !/task_fork/ { print $1; exit }' "$TEST_TMP/all.txt")
filtered since --since "$at"
awk -v s="$at" '$1 >= s' "$TEST_TMP/all.txt" > "$TEST_TMP/since.otxt"
grep -n . "$TEST_TMP/all.txt" | awk -F: -v s="$at" '{ split($2, f, " ") } f[1] >= s { print $1 }' > "$TEST_TMP/since.nr"
awk 'NR == FNR { want[$1] = 1; next } want[FNR]' "$TEST_TMP/since.nr" "$TEST_TMP/all.json" > "$TEST_TMP/since.ojson"
same since "$TEST_TMP/since.ojson" "$TEST_TMP/since.otxt"
check report-filter/since-inclusive "--since $at does not start at the event of that time: $(head -c 200 "$TEST_TMP/since.txt")" \
	[ "$(awk 'NR == 1 { print $1 }' "$TEST_TMP/since.txt")" = "$at" ]
check_expr report-filter/since-comm "--since $at: lines lost their comm (their task records came before): $(grep -m1 ' ?/' "$TEST_TMP/since.txt")" \
	'has_line "$TEST_TMP/since.txt" " blockread/$pid:$tid " && not has_line "$TEST_TMP/since.txt" " ?/"'
filtered until --until "$at"
awk -v s="$at" '$1 < s' "$TEST_TMP/all.txt" > "$TEST_TMP/until.otxt"
awk 'NR == FNR { skip[$1] = 1; next } !skip[FNR]' "$TEST_TMP/since.nr" "$TEST_TMP/all.json" > "$TEST_TMP/until.ojson"
same until "$TEST_TMP/until.ojson" "$TEST_TMP/until.otxt"
check_expr report-filter/until-exclusive "--until $at ends at $(tail -n1 "$TEST_TMP/until.txt" | awk '{ print $1 }')" \
	'[ -n "$(tail -n1 "$TEST_TMP/until.txt" | awk -v s="$at" "\$1 < s")" ]'
check_expr report-filter/since-until-all "--since and --until $at: $(wc -l < "$TEST_TMP/since.txt") + $(wc -l < "$TEST_TMP/until.txt") lines of $(wc -l < "$TEST_TMP/all.txt")" \
	'[ $(($(wc -l < "$TEST_TMP/since.txt") + $(wc -l < "$TEST_TMP/until.txt"))) = "$(wc -l < "$TEST_TMP/all.txt")" ]'

# all at once: the intersection
filtered both --tid "$tid" --until "$at" --comm blockread
check_expr report-filter/intersection "--tid, --until and --comm kept $(wc -l < "$TEST_TMP/both.txt") lines: $(head -c 200 "$TEST_TMP/both.txt")" \
	'[ "$(wc -l < "$TEST_TMP/both.txt")" = "$(awk -v s="$at" "\$1 < s" "$TEST_TMP/tid.txt" | wc -l)" ] && [ -s "$TEST_TMP/both.txt" ]'

# report --syscalls takes --tid too: the reader's read alone
"$GTSC" report -i "$T" --syscalls --tid "$tid" > "$TEST_TMP/sys.txt" 2>&1
check_expr report-filter/syscalls-tid "--syscalls --tid $tid: $(grep -v '^#' "$TEST_TMP/sys.txt" | head -3)" \
	'has_line "$TEST_TMP/sys.txt" "blockread/$pid:$tid read(" && [ -z "$(grep -v "^#" "$TEST_TMP/sys.txt" | grep -v ":$tid ")" ]'

# bad values: one sentence, exit 2
for bad in "--pid 0" "--tid x" "--comm ," "--since -1" "--until 1q"; do
	# shellcheck disable=SC2086
	"$GTSC" report -i "$T" $bad > /dev/null 2> "$TEST_TMP/bad"
	rc=$?
	check_expr "report-filter/bad${bad%% *}" "report $bad: rc $rc, '$(head -c 200 "$TEST_TMP/bad")'" \
		'[ $rc = 2 ] && [ "$(wc -l < "$TEST_TMP/bad")" = 1 ] && grep -q "^gtsc-bpf: ${bad%% *}" "$TEST_TMP/bad"'
done
