#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# record --stacks: every kmem allocation of sysload carries a kernel stack,
# saved in the trace and named by its symbols, so that report --kmem
# --folded prints flamegraph.pl's input: pipe2's pipe_buffer kcalloc under
# do_pipe2 -> alloc_pipe_info, the recorder's own BPF frames left out, the
# weights summing to the allocations (count) made, every one with its stack.  Without --stacks there
# is nothing to fold, and --stacks needs kmem or -k.
. "$(dirname "$0")/lib.sh"

T=kmem-stacks
"$GTSC" record -q -e kmem --stacks -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/sysload" "$TEST_TMP/f" > /dev/null 2> "$TEST_TMP/err"
rc=$?
check $T/record "record --stacks failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --kmem --folded > "$TEST_TMP/bytes" 2> "$TEST_TMP/rerr"
rc=$?
check $T/folded "report --folded failed: $(head -c 300 "$TEST_TMP/rerr")" [ $rc = 0 ]
check $T/pipe-stack "no folded stack through do_pipe2 and alloc_pipe_info" \
	has_line "$TEST_TMP/bytes" "do_pipe2;" "alloc_pipe_info;"
check $T/no-bpf-frames "the recorder's frames are in the stacks" \
	[ "$(grep -c 'bpf_prog_\|bpf_trace_run' "$TEST_TMP/bytes")" = 0 ]
check $T/format "a line is not 'frame;frame... weight'" \
	[ "$(grep -cv '^[^ ;][^ ]* [0-9][0-9]*$' "$TEST_TMP/bytes")" = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --kmem --folded=count > "$TEST_TMP/count"
folded=$(awk '{ s += $NF } END { print s + 0 }' "$TEST_TMP/count")
s=$("$GTSC" report -i "$TEST_TMP/t.gtsc" --kmem --json | grep '"table":"summary"')
ka=$(json_field "$s" kmalloc_allocs)
ca=$(json_field "$s" cache_allocs)
pa=$(json_field "$s" page_allocs)
allocs=$((${ka:-0} + ${ca:-0} + ${pa:-0}))
check $T/weights "folded counts sum to $folded of $allocs allocations" [ "$folded" = "$allocs" ]
check $T/every-stack "allocations recorded without a stack: $(grep '^\[no stack\]' "$TEST_TMP/count")" \
	[ "$(grep -c '^\[no stack\]' "$TEST_TMP/count")" = 0 ]

"$GTSC" record -q -e kmem -o "$TEST_TMP/n.gtsc" -- "$WORKLOADS/sysload" "$TEST_TMP/f" > /dev/null 2>&1
"$GTSC" report -i "$TEST_TMP/n.gtsc" --kmem --folded > /dev/null 2> "$TEST_TMP/nerr"
rc=$?
check_expr $T/without-stacks "--folded on a trace without stacks: rc $rc, '$(head -c 200 "$TEST_TMP/nerr")'" \
	'[ $rc = 1 ] && has_line "$TEST_TMP/nerr" "record it with --stacks"'
"$GTSC" record -q -e syscalls --stacks -o "$TEST_TMP/x.gtsc" -- /bin/true > /dev/null 2> "$TEST_TMP/xerr"
rc=$?
check_expr $T/needs-kmem "--stacks without kmem: rc $rc, '$(head -c 200 "$TEST_TMP/xerr")'" \
	'[ $rc = 2 ] && has_line "$TEST_TMP/xerr" "needs -e kmem or -k"'
