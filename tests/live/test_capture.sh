#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Captured user memory (see capload.c): paths at openat, written data cut at
# -s with the truncation flag, read data at sys_exit, a path in a page never
# touched retried at exit, an unreadable pointer flagged FAULT, sockaddrs,
# execve argv; exact drop accounting for records with payload.
. "$(dirname "$0")/lib.sh"

# item ARG KIND FLAGS INDEX LEN: the start of one payload item in the JSON.
item() {
	printf '{"arg":%s,"kind":"%s","flags":%s,"index":%s,"len":%s,' "$@"
}

path=$TEST_TMP/capture-$$-path
"$GTSC" record -q -e syscalls -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/capload" files "$path" \
	> "$TEST_TMP/out" 2> "$TEST_TMP/err"
rc=$?
check capture/record-exit "record exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j" 2> "$TEST_TMP/rerr"
rc=$?
check capture/report-exit "report failed: $(head -c 300 "$TEST_TMP/rerr")" [ $rc = 0 ]
sed 's/[a-z]*=//g' "$TEST_TMP/out" > "$TEST_TMP/vals" # no <(...): the VM has no /dev/fd
read -r port pid alias < "$TEST_TMP/vals"
P="\"pid\":$pid,"
J=$TEST_TMP/j
ENTER='"event":"sys_enter"'
EXIT='"event":"sys_exit"'

n=$(count_lines "$J" "$P" "$ENTER" '"name":"openat"' "$(item 1 str 0 0 ${#path})\"text\":\"$path\"}")
check capture/openat-path "the path $path is captured at $n openat enters, not 2" [ "$n" = 2 ]
# "capture-data-0123456789abcdefghi": the first 32 of 100 bytes (strace's -s default).
hex32=636170747572652d646174612d30313233343536373839616263646566676869
check capture/write-cut "no write of 100 bytes captured as 32 and flagged truncated" \
	has_line "$J" "$P" "$ENTER" '"name":"write"' '"count":100}' "$(item 1 buf 1 0 32)\"hex\":\"$hex32\"}"
check capture/write-whole "no write of \"hello\" captured whole" \
	has_line "$J" "$P" "$ENTER" '"name":"write"' '"count":5}' "$(item 1 buf 0 0 5)\"hex\":\"68656c6c6f\"}"
check capture/read-exit "no read = 105 with its first 32 bytes captured at exit" \
	has_line "$J" "$P" "$EXIT" '"name":"read"' '"ret":105,' "$(item 1 buf 1 0 32)\"hex\":\"$hex32\"}"
check capture/pread-exit "no pread64 = 5 with \"hello\" captured at exit" \
	has_line "$J" "$P" "$EXIT" '"name":"pread64"' '"ret":5,' "$(item 1 buf 0 0 5)\"hex\":\"68656c6c6f\"}"
n=$(count_lines "$J" "$P" "$ENTER" '"name":"read"' '"data"')
check capture/read-not-at-enter "$n read enters carry data (the buffer is filled by the call)" [ "$n" = 0 ]

# The alias path lies in a page this process never touched: the read at
# enter faults, the one at exit (after the kernel's own copy) succeeds.
apath=$path-alias
n=$(count_lines "$J" "$P" "$ENTER" '"name":"openat"' "\"filename\":\"$alias\"")
m=$(count_lines "$J" "$P" "$ENTER" '"name":"openat"' "\"filename\":\"$alias\"" '"data"')
check capture/fault-enter "the untouched path's openat enter: $n records, $m with data (want 1, 0)" \
	[ "$n" = 1 -a "$m" = 0 ]
check capture/fault-retried "the untouched path is not captured at openat's exit" \
	has_line "$J" "$P" "$EXIT" '"name":"openat"' '"ret":-2,' "$(item 1 str 0 0 ${#apath})\"text\":\"$apath\"}"
check capture/fault-final "openat(0x8) = -EFAULT has no FAULT item of length 0" \
	has_line "$J" "$P" "$EXIT" '"name":"openat"' '"ret":-14,' "$(item 1 str 2 0 0)\"text\":\"\"}"

# 127.0.0.1:PORT as struct sockaddr_in bytes.
sa_any=020000007f0000010000000000000000
sa_port=0200$(printf '%04x' "$port")7f0000010000000000000000
check capture/bind-sockaddr "no bind(127.0.0.1:0) sockaddr" \
	has_line "$J" "$P" "$ENTER" '"name":"bind"' "$(item 1 sockaddr 0 0 16)\"hex\":\"$sa_any\"}"
check capture/getsockname-exit "no getsockname sockaddr with port $port at exit" \
	has_line "$J" "$P" "$EXIT" '"name":"getsockname"' "$(item 1 sockaddr 0 0 16)\"hex\":\"$sa_port\"}"
check capture/sendto "no sendto of \"udp-payload\" to port $port" \
	has_line "$J" "$P" "$ENTER" '"name":"sendto"' "$(item 1 buf 0 0 11)\"hex\":\"7564702d7061796c6f6164\"}" \
	"$(item 4 sockaddr 0 0 16)\"hex\":\"$sa_port\"}"
check capture/recvfrom "no recvfrom = 11 with \"udp-payload\" and the sender's sockaddr" \
	has_line "$J" "$P" "$EXIT" '"name":"recvfrom"' '"ret":11,' \
	"$(item 1 buf 0 0 11)\"hex\":\"7564702d7061796c6f6164\"}" "$(item 4 sockaddr 0 0 16)\"hex\":\"0200"

# execve: the filename whole, argv elements cut at -s like strace.
exe=$WORKLOADS/capload
argv_item() {
	local s=$1 i=$2
	if [ ${#s} -gt 32 ]; then
		printf '%s"text":"%s"}' "$(item 1 str 1 "$i" 32)" "${s:0:32}"
	else
		printf '%s"text":"%s"}' "$(item 1 str 0 "$i" ${#s})" "$s"
	fi
}
check capture/execve "execve's filename and argv are not captured" \
	has_line "$J" "$P" "$ENTER" '"name":"execve"' "$(item 0 str 0 0 ${#exe})\"text\":\"$exe\"}" \
	"$(argv_item "$exe" 0)" "$(argv_item files 1)" "$(argv_item "$path" 2)"

# -s 5: the limit is exact ("hello" whole, no flag) and cuts the rest.
"$GTSC" record -q -s 5 -e syscalls=write,read,pread64 -o "$TEST_TMP/s.gtsc" --no-compress \
	-- "$WORKLOADS/capload" files "$path" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
rc=$?
check capture/s5-exit "record -s 5 failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
"$GTSC" report -i "$TEST_TMP/s.gtsc" --json > "$TEST_TMP/js"
check capture/s5-cut "-s 5: the 100-byte write is not cut to \"captu\"" \
	has_line "$TEST_TMP/js" "$ENTER" '"count":100}' "$(item 1 buf 1 0 5)\"hex\":\"6361707475\"}"
check capture/s5-exact "-s 5: the 5-byte write is not whole and unflagged" \
	has_line "$TEST_TMP/js" "$ENTER" '"count":5}' "$(item 1 buf 0 0 5)\"hex\":\"68656c6c6f\"}"
check capture/s5-read "-s 5: read = 105 is not cut to 5 bytes" \
	has_line "$TEST_TMP/js" "$EXIT" '"ret":105,' "$(item 1 buf 1 0 5)\"hex\":\"6361707475\"}"
# The trace says what it captured (uncompressed: the META chunk is plain text).
meta_says() {
	has_line "$1" "capture=on" && has_line "$1" "capture_size=5" &&
		has_line "$1" "syscall_filter=read,write,pread64"
}
check capture/meta "the trace's metadata lacks capture_size=5 or the filter" meta_says "$TEST_TMP/s.gtsc"

# The stack captures' edge (syscalls.bpf.c): a string under 160 bytes with
# its NUL is read on the stack, a longer one through the scratch; either way
# the path is whole.  -s 200: the 100-byte write and the read of 105 whole.
data_hex=$(printf '%s' 'capture-data-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-9876543210-end-of-data.!' |
	od -An -tx1 | tr -d ' \n')
for len in 158 159 160; do
	k=$((len - ${#TEST_TMP} - 3)) # TEST_TMP/ddd.../f
	dir=$TEST_TMP/$(printf 'd%.0s' $(seq "$k"))
	epath=$dir/f
	mkdir -p "$dir"
	"$GTSC" record -q -s 200 -e syscalls=openat,write,read -o "$TEST_TMP/e.gtsc" \
		-- "$WORKLOADS/capload" files "$epath" > /dev/null 2> "$TEST_TMP/err"
	rc=$?
	"$GTSC" report -i "$TEST_TMP/e.gtsc" --json > "$TEST_TMP/je" 2>> "$TEST_TMP/err"
	n=$(count_lines "$TEST_TMP/je" "$ENTER" '"name":"openat"' "$(item 1 str 0 0 ${#epath})\"text\":\"$epath\"}")
	check capture/edge-path-$len "a ${#epath}-byte path captured at $n openat enters, not 2 (rc $rc: $(head -c 200 "$TEST_TMP/err"))" \
		[ "$rc" = 0 -a "$n" = 2 ]
	rm -rf "$dir"
done
check capture/edge-write "-s 200: the 100-byte write is not captured whole" \
	has_line "$TEST_TMP/je" "$ENTER" '"count":100}' "$(item 1 buf 0 0 100)\"hex\":\"$data_hex\"}"
check capture/edge-read "-s 200: read = 105 is not captured whole" \
	has_line "$TEST_TMP/je" "$EXIT" '"ret":105,' "$(item 1 buf 0 0 105)\"hex\":\"${data_hex}68656c6c6f\"}"

# --no-capture: raw arguments only, the 80/40-byte records of before.
"$GTSC" record -q --no-capture -e syscalls -o "$TEST_TMP/n.gtsc" \
	-- "$WORKLOADS/capload" files "$path" > /dev/null 2> "$TEST_TMP/err"
"$GTSC" report -i "$TEST_TMP/n.gtsc" --json > "$TEST_TMP/jn"
n=$(count_lines "$TEST_TMP/jn" '"data":[')
m=$(count_lines "$TEST_TMP/jn" "$ENTER" '"name":"openat"')
check capture/no-capture "--no-capture: $n records with data, $m openat enters" [ "$n" = 0 -a "$m" -ge 4 ]

# Records with payload count exactly too: written + dropped = generated
# (2N + 2, see capload.c's wstorm) with a ring too small for them.
N=50000
storm_record capture/storm "$TEST_TMP/w.gtsc" "$WORKLOADS/capload" wstorm $N || exit 0
"$GTSC" report -i "$TEST_TMP/w.gtsc" --json > "$TEST_TMP/jw"
chan=$(head -1 "$TEST_TMP/jw" | grep -o '"name":"syscalls"[^}]*')
dropped=$(json_field "$chan" dropped)
written=$(json_field "$chan" events)
recorded=$(count_lines "$TEST_TMP/jw" "\"pid\":$spid," '"event":"sys_e')
with=$(count_lines "$TEST_TMP/jw" "\"pid\":$spid," "$ENTER" '"name":"write"' "$(item 1 buf 1 0 32)")
wenter=$(count_lines "$TEST_TMP/jw" "\"pid\":$spid," "$ENTER" '"name":"write"')
echo "# capture storm: recorded=$recorded dropped=$dropped written=$written expected=$((2 * N + 2))"
check capture/storm-dropped "a 4 KiB ring under $N captured writes dropped nothing" [ "${dropped:-0}" -gt 0 ]
check capture/storm-exact "recorded $recorded + dropped $dropped != $((2 * N + 2)) generated" \
	[ $((recorded + dropped)) = $((2 * N + 2)) ]
check capture/storm-written "the kernel counted $written written, the file has $recorded" \
	[ "$written" = "$recorded" ]
check capture/storm-payload "$with of $wenter write enters carry their 32 bytes" \
	[ "$with" = "$wenter" -a "$wenter" -gt 0 ]
