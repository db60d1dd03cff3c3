#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `check`'s exit status on real traces: 0 for every sound one (real programs,
# system-wide under load, pid-filtered, a flight snapshot and its session's
# main file, a hybrid session), 0 with a warning for one with drops (drops
# are not findings: perf and trace-cmd warn), 3 for a file cut mid-chunk and
# one with a flipped byte.  What explains an apparent error (overwritten
# flight records, channels a snapshot leaves out, kmem pairs the kernel
# completes through untraced paths) is a note, never a finding.
. "$(dirname "$0")/lib.sh"

T=check
# Something to archive: the kernel headers, or in the VM (which has none) these tests.
TAR_SRC=/usr/include/linux
[ -d "$TAR_SRC" ] || TAR_SRC=$(cd "$(dirname "$0")" && pwd)

# checked NAME FILE RC [LINE]: check -i FILE exits RC, and prints LINE if given.
checked() {
	local name=$1 file=$2 want=$3 line=${4:-} rc
	"$GTSC" check -i "$file" > "$TEST_TMP/$name.chk" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$T/$name" "exit $rc, expected $want: $(grep -v '^note:' "$TEST_TMP/$name.chk" | head -c 600 | tr '\n' '|')"
	elif [ -n "$line" ] && ! has_line "$TEST_TMP/$name.chk" "$line"; then
		fail "$T/$name" "no line with '$line': $(head -c 600 "$TEST_TMP/$name.chk" | tr '\n' '|')"
	else
		pass "$T/$name"
	fi
}

# Real programs: tar and gzip, syscalls and kmem.
"$GTSC" record -q -e syscalls,kmem -o "$TEST_TMP/tar.gtsc" -- tar czf "$TEST_TMP/x.tgz" -C / "${TAR_SRC#/}" \
	2> "$TEST_TMP/err"
check $T/tar-record "record of tar czf exited $?: $(head -c 300 "$TEST_TMP/err")" [ $? = 0 ]
checked tar "$TEST_TMP/tar.gtsc" 0 "record ABI"

# System-wide under load, and pid-filtered on the same load.
( while :; do tar czf - -C / "${TAR_SRC#/}" > /dev/null 2>&1; done ) &
load=$!
"$GTSC" record -q -e syscalls,kmem -a -d 1 -o "$TEST_TMP/all.gtsc" 2> "$TEST_TMP/err"
check $T/system-record "record -a exited $?: $(head -c 300 "$TEST_TMP/err")" [ $? = 0 ]
"$GTSC" record -q -e syscalls,kmem -p $load -d 1 -o "$TEST_TMP/pid.gtsc" 2> "$TEST_TMP/err"
check $T/pid-record "record -p exited $?: $(head -c 300 "$TEST_TMP/err")" [ $? = 0 ]
kill $load
wait $load 2> /dev/null
checked system-wide "$TEST_TMP/all.gtsc" 0 "record ABI"
checked pid-filtered "$TEST_TMP/pid.gtsc" 0 "record ABI"
n=$(grep -c 'double free\|allocated twice\|still live' "$TEST_TMP/system-wide.chk")
m=$(grep -v '^note:' "$TEST_TMP/system-wide.chk" | grep -c 'double free\|still live')
echo "# system-wide: $n kmem pairing notes, $m outside notes"
check $T/kmem-as-notes "kmem pairing reported outside notes: $(grep -v '^note:' "$TEST_TMP/system-wide.chk" | grep 'double free\|still live' | head -c 300)" \
	[ "$m" = 0 ]

# A flight session: its snapshot and its main file.
NAME=check-$$
"$GTSC" record --name "$NAME" --daemon -a -e syscalls,kmem --channel syscalls:mode=overwrite,size=64K \
	--channel kmem:mode=overwrite,size=64K -o "$TEST_TMP/main.gtsc" 2> "$TEST_TMP/err"
rc=$?
check $T/flight-daemon "record --daemon exited $rc: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]
trap '"$GTSC" kill "$NAME" > /dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT
tar czf /dev/null -C / "${TAR_SRC#/}"
echo g | "$WORKLOADS/storm" 20000 > /dev/null # 40002 syscall events: the 64 KiB rings overwrite
"$GTSC" snapshot "$NAME" -o "$TEST_TMP/snap.gtsc" > "$TEST_TMP/snap.out" 2>&1
check $T/snapshot-taken "snapshot exited $?: $(head -c 300 "$TEST_TMP/snap.out")" [ $? = 0 ]
"$GTSC" kill "$NAME" > /dev/null 2>&1
checked flight-snapshot "$TEST_TMP/snap.gtsc" 0 "note: The syscalls channel is a flight channel: it kept the newest"
checked flight-main "$TEST_TMP/main.gtsc" 0 "note: The syscalls channel is a flight channel: it kept the newest"

# Hybrid: syscalls to a discard channel (every record), kmem into a small
# flight one that kmem_load's 200 rounds of pipes, files and sockets overrun.
echo g > "$TEST_TMP/kgo"
"$GTSC" record -q -e syscalls,kmem --channel kmem:mode=overwrite,size=16K -o "$TEST_TMP/hyb.gtsc" \
	-- "$WORKLOADS/kmem_load" "$TEST_TMP/kf" 200 < "$TEST_TMP/kgo" > /dev/null 2> "$TEST_TMP/err"
check $T/hybrid-record "record exited $?: $(head -c 300 "$TEST_TMP/err")" [ $? = 0 ]
checked hybrid "$TEST_TMP/hyb.gtsc" 0 "note: The kmem channel is a flight channel"

# Damage: a file cut in the middle of a chunk, and one with a flipped byte.
size=$(stat -c %s "$TEST_TMP/tar.gtsc")
head -c $((size / 2)) "$TEST_TMP/tar.gtsc" > "$TEST_TMP/cut.gtsc"
checked truncated "$TEST_TMP/cut.gtsc" 3 "truncated"
cp "$TEST_TMP/tar.gtsc" "$TEST_TMP/flip.gtsc"
byte=$(od -An -tu1 -j $((size / 2)) -N1 "$TEST_TMP/flip.gtsc" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 0x40)))" |
	dd of="$TEST_TMP/flip.gtsc" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
checked flipped-byte "$TEST_TMP/flip.gtsc" 3 "CRC"

# Drops (test_drops.sh's storm into a 4 KiB ring): a warning, not a finding.
storm_record check/drops "$TEST_TMP/drops.gtsc" "$WORKLOADS/storm" 200000 || exit 0
checked drops "$TEST_TMP/drops.gtsc" 0 "warning: The syscalls channel dropped"
check $T/drops-said "no 'incomplete' summary: $(tail -c 300 "$TEST_TMP/drops.chk")" \
	has_line "$TEST_TMP/drops.chk" "no findings, but the trace is incomplete"
