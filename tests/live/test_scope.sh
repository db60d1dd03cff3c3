#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Per-session filters applied in the kernel: -C COMM records only tasks of
# that comm (forks keep it), --cgroup DIR only tasks in that cgroup v2
# directory or below it; both without -p/-a, while the rest of the system
# keeps running.  3 children x 5 getppid (forker.c) must come out exactly.
. "$(dirname "$0")/lib.sh"

# scoped NAME OPTIONS...: a named system-wide session with filters, in the background.
scoped() {
	local name=$1
	shift
	"$GTSC" record -e syscalls --name "gt-$name" -o "$TEST_TMP/$name.gtsc" "$@" 2> "$TEST_TMP/err$name" &
	if ! wait_for "$TEST_TMP/err$name" recording "$REC_WAIT"; then
		fail "scope/$name-start" "record $* did not start: $(head -c 300 "$TEST_TMP/err$name")"
		return 1
	fi
}

# finish NAME: ends the session, leaves its trace as JSON in $TEST_TMP/NAME.j
finish() {
	"$GTSC" kill "gt-$1" > /dev/null 2>&1
	wait
	"$GTSC" report -i "$TEST_TMP/$1.gtsc" --json | grep '"event":"sys_e' > "$TEST_TMP/$1.j"
}

# Events in FILE from pids other than those listed.
foreign() {
	local f=$1 p pat=
	shift
	for p in "$@"; do pat="$pat\\|\"pid\":$p,"; done
	grep -vc "${pat#\\|}" "$f"
}

if scoped comm -C forker; then
	"$WORKLOADS/forker" 3 5 > "$TEST_TMP/out"
	finish comm
	n=$(count_lines "$TEST_TMP/comm.j" '"event":"sys_exit","name":"getppid"')
	others=$(grep -vc '"comm":"forker"' "$TEST_TMP/comm.j")
	check scope/comm-exact "-C forker recorded $n getppid exits, expected 15" [ "$n" = 15 ]
	check scope/comm-only "-C forker recorded $others events of other comms" [ "$others" = 0 ]
fi

"$GTSC" record -e syscalls --cgroup "$TEST_TMP" -d 1 -o "$TEST_TMP/x.gtsc" 2> "$TEST_TMP/err"
rc=$?
check scope/cgroup-not-cgroup-exit "--cgroup on a plain directory exited $rc, expected 1" [ $rc = 1 ]
check scope/cgroup-not-cgroup "$(head -c 200 "$TEST_TMP/err")" \
	has_line "$TEST_TMP/err" "is not a cgroup v2 directory"

cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg2" ]; then
	echo "SKIP live/scope/cgroup: no cgroup2 mount"
	exit 0
fi
dir=$cg2/gtsc-test-$$
mkdir "$dir" || { fail scope/cgroup-mkdir "cannot create $dir"; exit 0; }
if scoped cgroup --cgroup "$dir"; then
	sh -c "echo \$\$ > $dir/cgroup.procs && exec $WORKLOADS/forker 3 5" > "$TEST_TMP/out" &
	fp=$!
	wait $fp
	finish cgroup
	n=$(count_lines "$TEST_TMP/cgroup.j" '"event":"sys_exit","name":"getppid"')
	others=$(foreign "$TEST_TMP/cgroup.j" $fp $(sed -n 's/^child=//p' "$TEST_TMP/out"))
	check scope/cgroup-exact "--cgroup recorded $n getppid exits, expected 15" [ "$n" = 15 ]
	check scope/cgroup-only "--cgroup recorded $others events of tasks outside it" [ "$others" = 0 ]
fi
rmdir "$dir"
