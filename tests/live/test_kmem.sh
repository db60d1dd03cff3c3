#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# kmem: pipe2() kcallocs 16 struct pipe_buffer (40 bytes each on x86-64) in
# alloc_pipe_info and closing the pipe kfrees them in free_pipe_info: the
# trace must have that allocation with its exact size, flags and call site,
# and the free of the same pointer.
. "$(dirname "$0")/lib.sh"

"$GTSC" record -q -e kmem -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/sysload" "$TEST_TMP/f" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
rc=$?
check kmem/record-exit "record failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j"
pid=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$TEST_TMP/out")
P="\"pid\":$pid,"
# GFP_KERNEL_ACCOUNT | __GFP_ZERO = 0xcc0 | 0x400000 | 0x100 on 6.1 .. 6.18.
line=$(grep -F "$P" "$TEST_TMP/j" | grep -F '"event":"kmalloc","call_site":"alloc_pipe_info+' | grep -F '"bytes_req":640,"bytes_alloc":1024,"gfp_flags":"0x400dc0"' | head -1)
check kmem/kmalloc-pipe-buffers "no kmalloc(640) from alloc_pipe_info with GFP_KERNEL_ACCOUNT|__GFP_ZERO for pid $pid" [ -n "$line" ]
ptr=$(json_field "$line" ptr)
check kmem/kfree-same-ptr "no kfree of $ptr from free_pipe_info" \
	has_line "$TEST_TMP/j" '"event":"kfree","call_site":"free_pipe_info+' "\"ptr\":\"$ptr\""
check kmem/cache-names "no kmem_cache_alloc carries a cache name" \
	has_line "$TEST_TMP/j" "$P" '"event":"kmem_cache_alloc"' '"cache":"'
check kmem/page-alloc "no mm_page_alloc for the 1234-byte file write" \
	has_line "$TEST_TMP/j" "$P" '"event":"mm_page_alloc"' '"order":0,'
others=$(grep -v '"event":"trace_info"' "$TEST_TMP/j" | grep -vc "$P")
check kmem/only-command "$others kmem events from other processes" [ "$others" = 0 ]
