#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# report --kmem and check on a real trace of the kmem workload (kmem_load.c,
# released at once): its pipes make ROUNDS kcallocs of 16 pipe_buffers (640
# bytes, served from kmalloc-1024) in alloc_pipe_info, each kfree'd in
# free_pipe_info; the tables name them from the trace; every table has a
# JSON form; GFP flags are named by the recording kernel; check finds the
# trace whole, and a cut copy truncated.
. "$(dirname "$0")/lib.sh"

T=kmem-report
ROUNDS=50
echo g > "$TEST_TMP/go"
"$GTSC" record -q -e kmem -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/kmem_load" "$TEST_TMP/f" $ROUNDS \
	< "$TEST_TMP/go" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
rc=$?
check $T/record "record failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
pid=$(sed -n 's/^pid=//p' "$TEST_TMP/out")

"$GTSC" report -i "$TEST_TMP/t.gtsc" --kmem --all -n 0 > "$TEST_TMP/txt" 2> "$TEST_TMP/rerr"
rc=$?
check $T/runs "report --kmem --all failed: $(head -c 300 "$TEST_TMP/rerr")" [ $rc = 0 ]
line=$(grep ' alloc_pipe_info+0x' "$TEST_TMP/txt" | head -1)
# call site, kind, allocs, frees, bytes_req, bytes_alloc, avg, frag, x-cpu, x-cpu%, failed
echo "# $line"
check $T/pipe-site "alloc_pipe_info is not $ROUNDS allocs of 640 (1024) bytes, all freed: '$line'" \
	[ "$(echo "$line" | awk '{ print $2, $3, $4, $5, $6, $7 }')" = \
	"kmalloc $ROUNDS $ROUNDS $((640 * ROUNDS)) $((1024 * ROUNDS)) 640" ]
check $T/summary "no perf-style summary" has_line "$TEST_TMP/txt" "Total bytes requested:"
check $T/cache-table "kmalloc-1024 is not in the cache table" has_line "$TEST_TMP/txt" " kmalloc-1024 "
check $T/size-table "no 513-1024 size class" has_line "$TEST_TMP/txt" " 513-1024 "
check $T/gfp-names "0x400dc0 is not GFP_KERNEL_ACCOUNT|__GFP_ZERO by the trace's formats" \
	has_line "$TEST_TMP/txt" "0x400dc0" "GFP_KERNEL_ACCOUNT|__GFP_ZERO"
check $T/gfp-from-trace "GFP names did not come from the trace" \
	has_line "$TEST_TMP/txt" "names from the recording kernel's tracefs formats"

"$GTSC" report -i "$TEST_TMP/t.gtsc" --kmem --all -n 0 --json > "$TEST_TMP/j"
# errors has rows only when something did not pair up
tables=$(sed -n 's/^{"table":"\([a-z_]*\)".*/\1/p' "$TEST_TMP/j" | grep -v '^errors$' | sort -u | tr '\n' ' ')
bad=$(grep -vc '^{"table":"[a-z_]*",.*}$' "$TEST_TMP/j")
check $T/json-tables "JSON tables: $tables" [ "$tables" = "cache callsite gfp leaks page_order size summary " ]
check $T/json-lines "$bad lines are not one JSON object of a table" [ "$bad" = 0 ]
s=$(grep '"table":"summary"' "$TEST_TMP/j")
check $T/json-summary "summary bytes_req $(json_field "$s" bytes_req) below $((640 * ROUNDS))" \
	[ "$(json_field "$s" bytes_req)" -ge $((640 * ROUNDS)) ]

"$GTSC" report -i "$TEST_TMP/t.gtsc" --kmem --pid "$pid" --sort hits -n 3 > "$TEST_TMP/top"
rows=$(awk '/^BY CALL SITE/ { on = 1; next } on && /^ [a-z_0-9.]+\+0x/ { n++ } /^$/ { on = 0 } END { print n + 0 }' "$TEST_TMP/top")
check $T/top-n "-n 3 printed $rows call sites" [ "$rows" = 3 ]

"$GTSC" check -i "$TEST_TMP/t.gtsc" > "$TEST_TMP/chk"
rc=$?
# A fresh trace is sound: kmem pairs the kernel completes through untraced
# paths are notes, skipped events warnings; neither is a finding.
whole() { [ $rc = 0 ] && has_line "$TEST_TMP/chk" "record ABI"; }
check $T/check-whole "check on a fresh trace: rc $rc: $(grep -v '^note:' "$TEST_TMP/chk" | head -c 400)" whole
size=$(wc -c < "$TEST_TMP/t.gtsc")
head -c $((size - 100)) "$TEST_TMP/t.gtsc" > "$TEST_TMP/cut.gtsc"
"$GTSC" check -i "$TEST_TMP/cut.gtsc" > "$TEST_TMP/chk2"
rc=$?
cut_seen() { [ $rc = 3 ] && has_line "$TEST_TMP/chk2" "truncated"; }
check $T/check-truncated "check on a cut trace: rc $rc, $(head -c 300 "$TEST_TMP/chk2")" cut_seen
