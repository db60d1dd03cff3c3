#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Bad input gets one clear sentence and a non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"

# expect NAME EXPECTED_RC SUBSTRING CMD...: exit code and a one-line message.
expect() {
	local name=$1 want=$2 msg=$3
	shift 3
	"$@" > "$TEST_TMP/o" 2> "$TEST_TMP/e"
	local rc=$? lines
	lines=$(wc -l < "$TEST_TMP/e")
	if [ $rc != "$want" ]; then
		fail "errors/$name" "exit $rc, expected $want: $(head -c 200 "$TEST_TMP/e")"
	elif ! grep -qF -- "$msg" "$TEST_TMP/e"; then
		fail "errors/$name" "message lacks '$msg': $(head -c 200 "$TEST_TMP/e")"
	elif [ "$lines" -gt 2 ]; then
		fail "errors/$name" "$lines lines of error output"
	else
		pass "errors/$name"
	fi
}

expect no-target 2 "say what to trace" "$GTSC" record
expect bad-option 2 "lists the options" "$GTSC" record --bogus -a
expect bad-source 2 "unknown event source 'bogus'" "$GTSC" record -e bogus -a
expect bad-syscall 2 "unknown syscall 'bogus'" "$GTSC" record -e syscalls=openat,bogus -a
expect empty-glob 2 "'zzz*' matches no syscall" "$GTSC" record -e 'syscalls=zzz*' -a
expect bad-class 2 "unknown syscall class '%bogus'" "$GTSC" record -e syscalls=%bogus -a
expect empty-filter 2 "names no syscall" "$GTSC" record -e syscalls= -a
expect bad-capture-size 2 "-s: '5000' is too large (a size from 1 to 4K)" "$GTSC" record -s 5000 -a
expect bad-size 2 "-b: 'lots' is not a size" "$GTSC" record -b lots -a
expect no-such-pid 2 "there is no process" "$GTSC" record -p 999999999
expect bad-command 2 "is not a command" "$GTSC" frobnicate
expect bad-channel 1 "carries no events" "$GTSC" record --channel nosuch:size=1M -a -d 1 -o "$TEST_TMP/x"
expect missing-file 1 "No such file" "$GTSC" report -i "$TEST_TMP/nonexistent"
head -c 5000 /dev/urandom > "$TEST_TMP/garbage"
expect not-a-trace 1 "not a gtsc trace" "$GTSC" report -i "$TEST_TMP/garbage"
: > "$TEST_TMP/empty"
expect empty-file 1 "" "$GTSC" report -i "$TEST_TMP/empty"
expect exec-fails 127 "cannot run" "$GTSC" record -q -o "$TEST_TMP/x" -- "$TEST_TMP/nonexistent-cmd"
cp "$GTSC" "$TEST_TMP/gtsc-bpf" && chmod 755 "$TEST_TMP" "$TEST_TMP/gtsc-bpf"
expect not-root 1 "needs root, or CAP_BPF and CAP_PERFMON" \
	"$WORKLOADS/runas" 65534 "$TEST_TMP/gtsc-bpf" record -a -d 1 -o /tmp/gtsc-nobody.gtsc
