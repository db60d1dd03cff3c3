#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `record -- CMD` follows every child CMD forks: 3 children x 5 getppid().
. "$(dirname "$0")/lib.sh"

"$GTSC" record -q -e syscalls -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/forker" 3 5 > "$TEST_TMP/out" 2> "$TEST_TMP/err"
rc=$?
check follow/record-exit "record failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j"
n=0
for c in $(sed -n 's/^child=//p' "$TEST_TMP/out"); do
	k=$(count_lines "$TEST_TMP/j" "\"pid\":$c," '"event":"sys_exit","name":"getppid"')
	[ "$k" = 5 ] && n=$((n + 1))
done
check follow/children-getppid "$n of 3 children have exactly 5 getppid exits" [ "$n" = 3 ]
f=$(count_lines "$TEST_TMP/j" '"event":"task_fork"' '"comm":"forker"')
check follow/fork-records "$f task_fork records named forker, expected 3" [ "$f" = 3 ]
