#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Function probes (-k).  Where kprobes work (the VM lane): N forks give
# exactly N kernel_clone hits for the forking pid, globs resolve to the
# kernel's own set, %return latencies are positive and entries equal
# returns.  Where they do not (this project's host): the one-sentence
# refusal, and --allow-missing still records the other sources.
. "$(dirname "$0")/lib.sh"

# The host's lane: kprobes are missing, and that must be said cleanly.
refusal() {
	"$GTSC" record -e syscalls -k kernel_clone -a -d 1 -o "$TEST_TMP/r.gtsc" 2> "$TEST_TMP/err"
	local rc=$?
	check kprobe/refusal-exit "record -k exited $rc on a kernel without kprobes, expected 1" [ $rc = 1 ]
	check kprobe/refusal-one-line "$(wc -l < "$TEST_TMP/err") lines: $(head -c 300 "$TEST_TMP/err")" \
		[ "$(wc -l < "$TEST_TMP/err")" = 1 ]
	check kprobe/refusal-says-what "no mechanism and no alternative named: $(head -c 300 "$TEST_TMP/err")" \
		has_line "$TEST_TMP/err" "cannot be recorded on this kernel: " "kprobe" "still record" "--allow-missing"
	check kprobe/refusal-no-file "a refused recording left $TEST_TMP/r.gtsc behind" [ ! -e "$TEST_TMP/r.gtsc" ]
	"$GTSC" record -q -k kernel_clone --allow-missing -e syscalls -o "$TEST_TMP/m.gtsc" \
		-- "$WORKLOADS/forker" 3 5 > "$TEST_TMP/out" 2> "$TEST_TMP/err"
	rc=$?
	check kprobe/allow-missing-exit "record --allow-missing exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
	"$GTSC" report -i "$TEST_TMP/m.gtsc" --json > "$TEST_TMP/j"
	n=$(count_lines "$TEST_TMP/j" '"event":"sys_exit","name":"getppid"')
	check kprobe/allow-missing-records "the other sources recorded $n getppid exits of 15" [ "$n" = 15 ]
	check kprobe/allow-missing-warns "no warning that -k was left out: $(head -c 300 "$TEST_TMP/err")" \
		has_line "$TEST_TMP/err" "function probes (-k) left out"
}

# kernel_clone hits of the pid on the "pid N (forker) K" line of report --functions.
forker_hits() {
	awk '$1 == "pid" && $3 == "(forker)" { print $4 }' "$1"
}

exact_forks() {
	"$GTSC" record -q -e syscalls -k kernel_clone -o "$TEST_TMP/f.gtsc" -- "$WORKLOADS/forker" 7 1 \
		> "$TEST_TMP/out" 2> "$TEST_TMP/err"
	rc=$?
	check kprobe/record-exit "record -k kernel_clone exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
	"$GTSC" report -i "$TEST_TMP/f.gtsc" --functions > "$TEST_TMP/fn"
	check kprobe/forks-exact "$(forker_hits "$TEST_TMP/fn") kernel_clone hits for forker, expected 7: $(head -3 "$TEST_TMP/fn")" \
		[ "$(forker_hits "$TEST_TMP/fn")" = 7 ]
	check kprobe/forks-total "hits line: $(grep '^kernel_clone' "$TEST_TMP/fn")" has_line "$TEST_TMP/fn" "kernel_clone hits=7"
	check kprobe/btf-prototype "no BTF prototype: $(sed -n 2p "$TEST_TMP/fn")" \
		has_line "$TEST_TMP/fn" "kernel_clone(struct kernel_clone_args *args)"
	"$GTSC" report -i "$TEST_TMP/f.gtsc" > "$TEST_TMP/r"
	n=$(count_lines "$TEST_TMP/r" " func_entry: kernel_clone(args=0x")
	check kprobe/report-lines "$n func_entry lines with named args, expected 7" [ "$n" = 7 ]
}

# The recording kernel's set for a glob: names from available_filter_functions.
kernel_set() {
	local t
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -r $t/available_filter_functions ] || continue
		grep -v ' ' $t/available_filter_functions | grep "^$1" | sort -u
		return
	done
}

glob_set() {
	"$GTSC" record -q -k 'vfs_re*' -e syscalls -o "$TEST_TMP/g.gtsc" -- "$WORKLOADS/forker" 1 1 \
		> /dev/null 2> "$TEST_TMP/err"
	rc=$?
	check kprobe/glob-exit "record -k 'vfs_re*' exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
	"$GTSC" report -i "$TEST_TMP/g.gtsc" --functions | awk '$2 ~ /^hits=/ { print $1 }' | sort > "$TEST_TMP/got"
	kernel_set vfs_re > "$TEST_TMP/want"
	check kprobe/glob-has-vfs_read "vfs_read not among: $(tr '\n' ' ' < "$TEST_TMP/got")" grep -qx vfs_read "$TEST_TMP/got"
	check kprobe/glob-not-vfs_write "vfs_write matched 'vfs_re*'" not grep -qx vfs_write "$TEST_TMP/got"
	check kprobe/glob-all-match "a name outside the glob: $(grep -v '^vfs_re' "$TEST_TMP/got" | head -3)" \
		not grep -qv '^vfs_re' "$TEST_TMP/got"
	check kprobe/glob-kernel-set "probed $(wc -l < "$TEST_TMP/got"), the kernel lists $(wc -l < "$TEST_TMP/want")" \
		cmp -s "$TEST_TMP/got" "$TEST_TMP/want"
}

return_latency() {
	"$GTSC" record -q -e syscalls -k 'kernel_clone%return' -o "$TEST_TMP/l.gtsc" \
		-- "$WORKLOADS/forker" 5 1 > /dev/null 2> "$TEST_TMP/err"
	rc=$?
	check kprobe/return-exit "record -k kernel_clone%return exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
	"$GTSC" report -i "$TEST_TMP/l.gtsc" > "$TEST_TMP/r"
	e=$(count_lines "$TEST_TMP/r" " func_entry: kernel_clone(")
	x=$(count_lines "$TEST_TMP/r" " func_return: func=kernel_clone ")
	check kprobe/return-counts "$e entries and $x returns, expected 5 and 5" [ "$e:$x" = 5:5 ]
	bad=$(grep ' func_return: ' "$TEST_TMP/r" | sed -n 's/.*latency_ns=\([0-9]*\).*/\1/p' | awk '$1 <= 0' | wc -l)
	check kprobe/return-positive "$bad returns without a positive latency" [ "$bad" = 0 ]
	"$GTSC" report -i "$TEST_TMP/l.gtsc" --functions > "$TEST_TMP/fn"
	line=$(grep '^kernel_clone ' "$TEST_TMP/fn")
	check kprobe/return-ordered "percentiles out of order: $line" \
		awk -v l="$line" 'BEGIN { n = split(l, f, /[ =]/); for (i = 1; i < n; i++) v[f[i]] = f[i + 1];
			exit !(v["returns"] == 5 && v["p50_ns"] > 0 && v["p50_ns"] <= v["p99_ns"] && v["p99_ns"] <= v["max_ns"]) }'
}

# --stacks: each of N kernel_clone hits carries the kernel stack of the fork
# that made it, and --folded weighs them by hits: N in all, every one through
# the clone syscall and ending in kernel_clone itself.
hit_stacks() {
	"$GTSC" record -q -e syscalls -k kernel_clone --stacks -o "$TEST_TMP/s.gtsc" \
		-- "$WORKLOADS/forker" 6 1 > /dev/null 2> "$TEST_TMP/err"
	rc=$?
	check kprobe/stacks-exit "record -k --stacks exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
	"$GTSC" report -i "$TEST_TMP/s.gtsc" --functions --folded > "$TEST_TMP/sf" 2> "$TEST_TMP/serr"
	rc=$?
	check kprobe/stacks-folded "report --functions --folded exited $rc: $(head -c 300 "$TEST_TMP/serr")" [ $rc = 0 ]
	n=$(awk '/sys_clone;/ && / [0-9]+$/ && $1 ~ /;kernel_clone$/ { s += $NF } END { print s + 0 }' "$TEST_TMP/sf")
	check kprobe/stacks-weights "$n clone stacks ending in kernel_clone, expected 6: $(head -c 400 "$TEST_TMP/sf")" \
		[ "$n" = 6 ]
	check kprobe/stacks-all "other lines: $(grep -v 'sys_clone;' "$TEST_TMP/sf" | head -c 300)" \
		[ "$(grep -vc 'sys_clone;' "$TEST_TMP/sf")" = 0 ]
}

# Two sessions on the same function at once, each following its own command,
# held on its own fifo until both sessions record.
concurrent() {
	local n
	mkfifo "$TEST_TMP/go3" "$TEST_TMP/go5"
	exec 3<> "$TEST_TMP/go3" 4<> "$TEST_TMP/go5" # read-write: opening never blocks
	for n in 3 5; do
		"$GTSC" record -e syscalls -k kernel_clone --name "gt-kp$n" -o "$TEST_TMP/c$n.gtsc" \
			-- sh -c "read x < $TEST_TMP/go$n; exec $WORKLOADS/forker $n 1" \
			> /dev/null 2> "$TEST_TMP/err$n" &
	done
	for n in 3 5; do
		wait_for "$TEST_TMP/err$n" recording "$REC_WAIT"
	done
	echo go >&3
	echo go >&4
	wait
	exec 3>&- 4>&-
	for n in 3 5; do
		"$GTSC" report -i "$TEST_TMP/c$n.gtsc" --functions > "$TEST_TMP/cf$n"
		check kprobe/concurrent-$n "session for forker $n saw: $(grep -E '^kernel_clone|pid' "$TEST_TMP/cf$n" | tr '\n' ' ') $(head -c 200 "$TEST_TMP/err$n")" \
			has_line "$TEST_TMP/cf$n" "kernel_clone hits=$n"
	done
}

# Resolution happens before anything loads: the same answer with or without kprobes.
"$GTSC" record -k no_such_function_xyz -a -d 1 -o "$TEST_TMP/u.gtsc" 2> "$TEST_TMP/err"
rc=$?
check kprobe/unknown-exit "record -k no_such_function_xyz exited $rc, expected 2" [ $rc = 2 ]
check kprobe/unknown-says "$(head -c 300 "$TEST_TMP/err")" \
	has_line "$TEST_TMP/err" "no traceable kernel function matches 'no_such_function_xyz'"

if "$GTSC" features | grep -q '^kprobe=no'; then
	if [ -n "${GTSC_VM:-}" ]; then
		fail kprobe/available "kprobe=no inside the VM ($GTSC_VM): $("$GTSC" features | grep '^kprobe')"
	else
		refusal
	fi
	exit 0
fi
"$GTSC" features | grep '^kprobe' | sed 's/^/# /'
exact_forks
glob_set
return_latency
hit_stacks
concurrent
