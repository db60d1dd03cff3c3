#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A 32-bit (ia32) process's syscalls carry i386 numbers: the report names
# them from the i386 table (getpid is 20 there, writev on x86-64), with
# their return values and errno, strace's "runs in 32 bit mode" line after
# the execve, and no x86-64 name for any of its calls.
. "$(dirname "$0")/lib.sh"

# SKIP only when the kernel cannot run 32-bit programs at all.
ia32_off() {
	local cfg
	[ -r /proc/config.gz ] || return 1
	cfg=$(zcat /proc/config.gz 2> /dev/null) || return 1
	printf '%s\n' "$cfg" | grep -q '^CONFIG_IA32_EMULATION=y' || return 0
	printf '%s\n' "$cfg" | grep -q '^CONFIG_IA32_EMULATION_DEFAULT_DISABLED=y' &&
		! grep -q 'ia32_emulation=on' /proc/cmdline && return 0
	grep -q 'ia32_emulation=off' /proc/cmdline
}
if ia32_off; then
	echo "SKIP live/compat: the kernel has no IA32 emulation (/proc/config.gz, /proc/cmdline)"
	exit 0
fi
if [ ! -r /proc/config.gz ] && [ -x "$WORKLOADS/compat32" ] &&
	! "$WORKLOADS/compat32" 2>&1 | grep -q usage; then
	echo "SKIP live/compat: no /proc/config.gz and a 32-bit program does not run here"
	exit 0
fi

missing=$TEST_TMP/no-such-file-$$
"$GTSC" record -q -e syscalls -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/compat32" "$missing" \
	> "$TEST_TMP/out" 2> "$TEST_TMP/err"
rc=$?
# compat32 ends with exit_group(3): record exits as its command did.
check compat/record-exit "record exited $rc, expected the command's 3: $(head -c 300 "$TEST_TMP/err")" [ $rc = 3 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls > "$TEST_TMP/s" 2> "$TEST_TMP/rerr" &&
	"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --json > "$TEST_TMP/j" 2>> "$TEST_TMP/rerr" &&
	"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --summary > "$TEST_TMP/sum" 2>> "$TEST_TMP/rerr" &&
	"$GTSC" report -i "$TEST_TMP/t.gtsc" > "$TEST_TMP/plain" 2>> "$TEST_TMP/rerr"
rc=$?
check compat/report-exit "report failed: $(head -c 300 "$TEST_TMP/rerr")" [ $rc = 0 ]

# pid=N pipe=FD wrote=777 open=-1 nr_getpid=20 nr_write=4 nr_open=5
read -r pid fd wrote open ngp nwr nop < <(sed 's/[a-z_]*=//g' "$TEST_TMP/out")
check_expr compat/workload "workload printed: $(cat "$TEST_TMP/out")" \
	'[ "$wrote" = 777 ] && [ "$open" = -1 ] && [ "$ngp" = 20 ] && [ "$nwr" = 4 ] && [ "$nop" = 5 ]'
S="/$pid "
check compat/mode-line "no '[ Process PID=$pid runs in 32 bit mode. ]' after the execve" \
	has_line "$TEST_TMP/s" "[ Process PID=$pid runs in 32 bit mode. ]"
check compat/getpid "no getpid() = $pid" has_line "$TEST_TMP/s" "$S" "getpid() = $pid"
check compat/write "no write(0x$(printf %x "$fd"), ..., 0x309) = 777" \
	has_line "$TEST_TMP/s" "$S" "write(0x$(printf %x "$fd"), 0x" ", 0x309) = 777"
check compat/open-enoent "no open(...) = -1 ENOENT" \
	has_line "$TEST_TMP/s" "$S" " open(0x" ") = -1 ENOENT (No such file or directory)"
check compat/exit-group "no exit_group(0x3) = ?" has_line "$TEST_TMP/s" "$S" "exit_group(0x3) = ?"
# i386 20, 4, 5 and 252 are writev, stat, fstat and ioprio_get on x86-64.
n=$(grep "$S" "$TEST_TMP/s" | grep -Ec ' (writev|stat|fstat|ioprio_get)\(')
check compat/no-x86-64-names "$n lines of pid $pid with the x86-64 name of an i386 number" [ "$n" = 0 ]
# After the execve every call of the process is a compat one.
native=$(grep "\"pid\":$pid," "$TEST_TMP/j" | awk '/"syscall":"execve"/ { on = 1; next } on' |
	grep -vc '"compat":true')
check compat/all-flagged "$native calls of pid $pid after its execve not flagged compat" [ "$native" = 0 ]
check compat/json "no JSON getpid, nr 20, compat, = $pid" \
	has_line "$TEST_TMP/j" "\"pid\":$pid," '"syscall":"getpid","nr":20,"compat":true,"abi":"i386"' "\"ret\":$pid,"
check compat/json-errno "no JSON open with errno ENOENT" \
	has_line "$TEST_TMP/j" "\"pid\":$pid," '"syscall":"open","nr":5,"compat":true' '"errno":"ENOENT"'
check compat/summary "no 'getpid [i386]' row in the summary" has_line "$TEST_TMP/sum" " getpid [i386]"
check compat/summary-apart "the summary does not keep native execve apart from i386 calls" \
	has_line "$TEST_TMP/sum" " execve"
check compat/plain "no plain sys_exit getpid nr=20 ret=$pid" \
	has_line "$TEST_TMP/plain" "sys_exit: name=getpid nr=20 ret=$pid"
