#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# report --syscalls / --summary on real traces: the syscall table the trace
# says it used (tracefs, or the compiled-in one when the recorder had no
# tracefs), identical output from a reader without tracefs, strace's
# unfinished/resumed form, the summary, JSON, the filters and time columns.
. "$(dirname "$0")/lib.sh"

# hide_sysfs_kernel CMD...: runs CMD in a mount namespace where /sys/kernel
# holds only btf (what CO-RE needs): no tracefs, no debugfs, and nowhere to
# mount them.
hide_sysfs_kernel() {
	unshare -m sh -c '
		set -e
		d=$1; shift
		mkdir -p "$d"
		mount -o bind /sys/kernel/btf "$d"
		mount -t tmpfs none /sys/kernel
		mkdir /sys/kernel/btf
		mount -o bind "$d" /sys/kernel/btf
		[ ! -e /sys/kernel/tracing/events ]
		[ ! -e /sys/kernel/debug/tracing ]
		"$@"' sh "$TEST_TMP/btf" "$@"
}

W=$WORKLOADS/oracle
mkdir -p "$TEST_TMP/w"
"$GTSC" record -q -e syscalls -o "$TEST_TMP/t.gtsc" -- "$W" "$TEST_TMP/w" > /dev/null 2> "$TEST_TMP/err"
rc=$?
check syscall-report/record "record exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls > "$TEST_TMP/out" 2> "$TEST_TMP/rerr"
rc=$?
check syscall-report/exit "report failed: $(head -c 300 "$TEST_TMP/rerr")" [ $rc = 0 ]
check syscall-report/header-tracefs "the header does not say the tracefs table and decode tables v2" \
	has_line "$TEST_TMP/out" '# syscall table: tracefs' 'decode tables: v2 (trace recorded with v2)'
check syscall-report/names "no openat with named, decoded arguments" \
	has_line "$TEST_TMP/out" "openat(dfd: AT_FDCWD, filename: \"$TEST_TMP/w/oracle-file\", flags: O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, mode: 0640) = 3"
check syscall-report/exit-line "no +++ exited with 0 +++" has_line "$TEST_TMP/out" '+++ exited with 0 +++'

# The reader needs nothing from the machine: same output without tracefs.
hide_sysfs_kernel "$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls > "$TEST_TMP/out-notracefs" 2> "$TEST_TMP/nerr"
rc=$?
check syscall-report/no-tracefs-reader "without tracefs: rc $rc, $(head -c 200 "$TEST_TMP/nerr") $(diff "$TEST_TMP/out" "$TEST_TMP/out-notracefs" | head -c 300)" \
	cmp -s "$TEST_TMP/out" "$TEST_TMP/out-notracefs"

# Recorded without tracefs: the compiled-in table, and the report says so.
hide_sysfs_kernel "$GTSC" record -q -e syscalls -o "$TEST_TMP/b.gtsc" -- "$W" "$TEST_TMP/w" > /dev/null 2> "$TEST_TMP/berr"
rc=$?
check syscall-report/record-no-tracefs "record without tracefs exited $rc: $(head -c 300 "$TEST_TMP/berr")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/b.gtsc" --syscalls > "$TEST_TMP/bout" 2>&1
check syscall-report/header-builtin "the header does not say the builtin table" \
	has_line "$TEST_TMP/bout" '# syscall table: builtin'
for want in \
	"openat(dfd: AT_FDCWD, filename: \"$TEST_TMP/w/oracle-file\", flags: O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, mode: 0640) = 3" \
	'write(fd: 3, buf: "hello oracle\n", count: 13) = 13' \
	'mmap(addr: NULL, len: 8192, prot: PROT_READ|PROT_WRITE, flags: MAP_PRIVATE|MAP_ANONYMOUS, fd: -1, off: 0) = 0x' \
	'socket(family: AF_INET, type: SOCK_STREAM|SOCK_CLOEXEC, protocol: IPPROTO_TCP) = 3' \
	'kill(pid: 999999999, sig: SIGTERM) = -1 ESRCH (No such process)'; do
	check "syscall-report/builtin-decodes-${want%%(*}" "the builtin-table trace lacks: $want" \
		has_line "$TEST_TMP/bout" "$want"
	check "syscall-report/tracefs-decodes-${want%%(*}" "the tracefs trace lacks: $want" \
		has_line "$TEST_TMP/out" "$want"
done

# strace's interleaving: a read blocked in one thread while the other runs.
"$GTSC" record -q -e syscalls -o "$TEST_TMP/r.gtsc" -- "$WORKLOADS/blockread" > "$TEST_TMP/rout" 2>&1
tid=$(sed -n 's/^tid=//p' "$TEST_TMP/rout")
"$GTSC" report -i "$TEST_TMP/r.gtsc" --syscalls -T > "$TEST_TMP/rep" 2>&1
check syscall-report/unfinished "no 'read(fd: 3,  <unfinished ...>' from thread $tid" \
	has_line "$TEST_TMP/rep" ":$tid read(fd: 3,  <unfinished ...>"
check syscall-report/resumed "no '<... read resumed>buf: \"x\", count: 1) = 1 <duration>' from thread $tid" \
	has_line "$TEST_TMP/rep" ":$tid <... read resumed>buf: \"x\", count: 1) = 1 <0."
n=$(grep -c ":$tid <... read resumed>" "$TEST_TMP/rep")
check syscall-report/resumed-once "the read resumes $n times" [ "$n" = 1 ]
"$GTSC" report -i "$TEST_TMP/r.gtsc" --syscalls --no-arg-names --pid "$tid" > "$TEST_TMP/rpid" 2>&1
check syscall-report/pid-filter-whole "--pid $tid: the read is not one whole line" \
	has_line "$TEST_TMP/rpid" ":$tid read(3, \"x\", 1) = 1"
others=$(grep -v '^#' "$TEST_TMP/rpid" | grep -vc ":$tid ")
check syscall-report/pid-filter "--pid $tid: $others lines of other threads" [ "$others" = 0 ]

# Filters, failures, time columns.
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --syscall 'open*' > "$TEST_TMP/f1" 2>&1
n=$(grep -vc '^#' "$TEST_TMP/f1")
check syscall-report/syscall-glob "--syscall 'open*' gave $n lines, not the 3 openat" \
	[ "$n" = 3 -a "$(grep -c ' openat(' "$TEST_TMP/f1")" = 3 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --failed > "$TEST_TMP/f2" 2>&1
n=$(grep -v '^#' "$TEST_TMP/f2" | grep -vc ' = -1 E')
check syscall-report/failed "--failed printed $n lines of calls that did not fail" [ "$n" = 0 ]
check syscall-report/failed-ebadf "--failed lacks close's EBADF" \
	has_line "$TEST_TMP/f2" 'close(fd: 3) = -1 EBADF (Bad file descriptor)'
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --comm 'no-such-comm' > "$TEST_TMP/f3" 2>&1
check syscall-report/comm-filter "--comm no-such-comm printed calls" [ "$(grep -vc '^#' "$TEST_TMP/f3")" = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls -r > "$TEST_TMP/f4" 2>&1
check syscall-report/relative "-r: the first line is not at 0.000000" \
	[ "$(grep -v '^#' "$TEST_TMP/f4" | head -1 | awk '{ print $1 }')" = 0.000000 ]
t_mid=$(grep ' getuid(' "$TEST_TMP/out" | awk '{ print $1 }')
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --since "$t_mid" > "$TEST_TMP/f5" 2>&1
first=$(grep -v '^#' "$TEST_TMP/f5" | head -1)
check syscall-report/since "--since $t_mid: first line '$first'" \
	[ "$(echo "$first" | awk '{ print $1 }')" = "$t_mid" ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --until "$t_mid" > "$TEST_TMP/f6" 2>&1
check syscall-report/until "--until $t_mid still shows getuid" [ "$(grep -c ' getuid(' "$TEST_TMP/f6")" = 0 ]
check syscall-report/until-before "--until $t_mid lost the calls before it" has_line "$TEST_TMP/f6" ' getpid() = '


# JSON: one object per call, decoded and raw.
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --json > "$TEST_TMP/j" 2>&1
check syscall-report/json-header "no trace_info line with the syscall table" \
	has_line "$TEST_TMP/j" '{"event":"trace_info"' '"syscall_table":"tracefs","decode_tables":2'
check syscall-report/json-call "no openat object with raw and decoded flags and errno" \
	has_line "$TEST_TMP/j" '"syscall":"openat"' '{"name":"flags","type":"int","raw":"0","value":"O_RDONLY"}' \
	'"ret":-2,"ret_text":"-1 ENOENT (No such file or directory)","errno":"ENOENT"'
n=$(grep -c '"syscall":"openat"' "$TEST_TMP/j")
check syscall-report/json-count "$n openat objects, not 3" [ "$n" = 3 ]

# Summary: exact counts for the workload.
"$GTSC" report -i "$TEST_TMP/t.gtsc" --summary > "$TEST_TMP/s" 2>&1
check syscall-report/summary-openat "openat row is not 3 calls, 1 error" \
	awk '$NF == "openat" && $3 == 3 && $4 == 1 { ok = 1 } END { exit !ok }' "$TEST_TMP/s"
check syscall-report/summary-close "close row is not 19 calls, 1 error" \
	awk '$NF == "close" && $3 == 19 && $4 == 1 { ok = 1 } END { exit !ok }' "$TEST_TMP/s"
check syscall-report/summary-clone "clone counts the children's returns" \
	awk '$NF == "clone" && $3 == 3 { ok = 1 } END { exit !ok }' "$TEST_TMP/s"
"$GTSC" report -i "$TEST_TMP/t.gtsc" --summary --per-process > "$TEST_TMP/sp" 2>&1
n=$(grep -c '^ oracle.* syscalls$' "$TEST_TMP/sp")
check syscall-report/summary-per-process "$n process tables, not 4 (parent and three children)" [ "$n" = 4 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --summary --json > "$TEST_TMP/sj" 2>&1
check syscall-report/summary-json "no openat summary object" \
	has_line "$TEST_TMP/sj" '{"syscall":"openat","nr":257,"calls":3,"errors":1,'

"$GTSC" report -i "$TEST_TMP/nonexistent.gtsc" --syscalls > /dev/null 2>&1
rc=$?
check syscall-report/missing-file "a missing trace exits $rc, not 1" [ $rc = 1 ]
