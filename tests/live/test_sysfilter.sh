#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The in-kernel syscall filter (-e syscalls=LIST): names, globs and strace
# classes let through exactly the chosen calls, counted against capload's
# `calls N` (N getppid, N + 1 getpid, N / 2 getuid), and nothing else.
. "$(dirname "$0")/lib.sh"

N=1000

# names_in FILE: "name count" for every sys_enter, sorted.
names_in() {
	grep -o '"event":"sys_enter","name":"[a-z0-9_]*"' "$1" | sed 's/.*"name":"//; s/"$//' |
		sort | uniq -c | awk '{ printf "%s %s ", $2, $1 }'
}

# run NAME EVENTS EXPECTED: record capload calls N with -e EVENTS; the
# syscalls entered must be EXPECTED ("name count ..." sorted by name), and
# each must have as many exits.
run() {
	local name=$1 events=$2 want=$3 got enters exits
	"$GTSC" record -q -e "$events" -o "$TEST_TMP/$name.gtsc" -- "$WORKLOADS/capload" calls $N \
		> /dev/null 2> "$TEST_TMP/err"
	if [ $? != 0 ]; then
		fail "sysfilter/$name" "record -e '$events' failed: $(head -c 300 "$TEST_TMP/err")"
		return
	fi
	"$GTSC" report -i "$TEST_TMP/$name.gtsc" --json > "$TEST_TMP/$name.j"
	got=$(names_in "$TEST_TMP/$name.j")
	enters=$(count_lines "$TEST_TMP/$name.j" '"event":"sys_enter"')
	exits=$(count_lines "$TEST_TMP/$name.j" '"event":"sys_exit"')
	if [ "$got" != "$want" ]; then
		fail "sysfilter/$name" "-e '$events' recorded '$got', not '$want'"
	elif [ "$enters" != "$exits" ]; then
		fail "sysfilter/$name" "-e '$events': $enters enters but $exits exits"
	else
		pass "sysfilter/$name"
	fi
}

run names 'syscalls=getppid,getuid' "getppid $N getuid $((N / 2)) "
run glob 'syscalls=getp*' "getpid $((N + 1)) getppid $N "
run class 'syscalls=%pure' "getpid $((N + 1)) getppid $N getuid $((N / 2)) "
run mixed 'syscalls=%creds,getppid' "getppid $N getuid $((N / 2)) "
run with-kmem 'kmem,syscalls=getppid' "getppid $N "
n=$(count_lines "$TEST_TMP/with-kmem.j" '"event":"kmem_cache_free"')
check sysfilter/with-kmem-source "-e kmem,syscalls=getppid recorded no kmem event" [ "$n" -gt 0 ]

# With -a: only the chosen syscall, from every process but the recorder.
( while :; do "$WORKLOADS/capload" calls 100 > /dev/null; done ) &
busy=$!
"$GTSC" record -q -a -d 1 -e syscalls=getppid -o "$TEST_TMP/a.gtsc" 2> "$TEST_TMP/err"
rc=$?
kill $busy 2>/dev/null
wait 2>/dev/null
check sysfilter/all-exit "record -a failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/a.gtsc" --json > "$TEST_TMP/a.j"
n=$(count_lines "$TEST_TMP/a.j" '"event":"sys_e')
m=$(count_lines "$TEST_TMP/a.j" '"event":"sys_e' '"name":"getppid"')
check sysfilter/all "-a -e syscalls=getppid: $m of $n syscall events are getppid" [ "$n" -gt 0 -a "$n" = "$m" ]
