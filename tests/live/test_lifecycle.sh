#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# SIGINT and SIGTERM end record with a complete file; SIGKILL leaves a file
# that reads up to its last chunk and says it is truncated; the file is 0600.
. "$(dirname "$0")/lib.sh"

for sig in INT TERM; do
	# one stderr file per run: the INT run's "recording" must not release the TERM run
	"$GTSC" record -e syscalls -a -o "$TEST_TMP/$sig.gtsc" 2> "$TEST_TMP/err.$sig" &
	rpid=$!
	wait_for "$TEST_TMP/err.$sig" recording "$REC_WAIT"
	sleep 0.5
	kill -$sig $rpid
	wait $rpid
	rc=$?
	check lifecycle/sig$sig-exit "record exited $rc after SIG$sig" [ $rc = 0 ]
	"$GTSC" report -i "$TEST_TMP/$sig.gtsc" --header > "$TEST_TMP/h" 2>&1
	rc=$?
	check lifecycle/sig$sig-complete "report after SIG$sig exited $rc: $(grep WARN "$TEST_TMP/h")" [ $rc = 0 ]
done
mode=$(stat -c %a "$TEST_TMP/INT.gtsc")
check lifecycle/mode-0600 "trace file mode is $mode" [ "$mode" = 600 ]

"$GTSC" record -e syscalls -a -o "$TEST_TMP/k.gtsc" 2> "$TEST_TMP/err" &
rpid=$!
wait_for "$TEST_TMP/err" recording "$REC_WAIT"
sleep 1
kill -KILL $rpid
wait $rpid 2>/dev/null
"$GTSC" report -i "$TEST_TMP/k.gtsc" > "$TEST_TMP/r" 2> "$TEST_TMP/e"
rc=$?
n=$(grep -c 'sys_e' "$TEST_TMP/r")
check lifecycle/killed-exit "report of a killed recording exited $rc, expected 3" [ $rc = 3 ]
check lifecycle/killed-says-truncated "no truncation sentence: $(head -c 200 "$TEST_TMP/e")" grep -q "trailer\|truncated" "$TEST_TMP/e"
check lifecycle/killed-has-events "a killed 1 s recording yields $n events" [ "$n" -gt 0 ]

# A command's exit ends the recording, and record exits as the command did
# (perf record, strace): its code, 128+N for signal N, 127 not found, 126 not
# executable.
"$GTSC" record -q -o "$TEST_TMP/c.gtsc" -- sh -c 'exit 3' 2> "$TEST_TMP/err"
rc=$?
check lifecycle/command-exit "record of a command exiting 3 exited $rc" [ $rc = 3 ]
"$GTSC" record -q -o "$TEST_TMP/c.gtsc" -- sh -c 'kill -9 $$' 2> "$TEST_TMP/err"
rc=$?
check lifecycle/command-killed "record of a command killed by SIGKILL exited $rc, expected 137" [ $rc = 137 ]
"$GTSC" record -q -o "$TEST_TMP/c.gtsc" -- "$TEST_TMP/no-such-command" 2> "$TEST_TMP/err"
rc=$?
check_expr lifecycle/command-not-found "record of a missing command: rc $rc, $(head -c 200 "$TEST_TMP/err")" \
	'[ $rc = 127 ] && has_line "$TEST_TMP/err" "cannot run" "No such file"'
echo x > "$TEST_TMP/not-exec"
chmod 644 "$TEST_TMP/not-exec"
"$GTSC" record -q -o "$TEST_TMP/c.gtsc" -- "$TEST_TMP/not-exec" 2> "$TEST_TMP/err"
rc=$?
check lifecycle/command-not-executable "record of a non-executable file exited $rc, expected 126" [ $rc = 126 ]
"$GTSC" report -i "$TEST_TMP/c.gtsc" > /dev/null 2>&1
rc=$?
check lifecycle/command-failed-trace-whole "the trace of a command that could not run: report exited $rc" [ $rc = 0 ]

# --compress: the same 20000 getppid calls (they fit the rings: no drop even
# where compressing is slow, as in the VM lane) read back whole from each codec,
# zstd's columns the smallest, then zlib, lz4 and the uncompressed one.
for c in zstd lz4 zlib none; do
	(sleep 0.3; echo g) | "$GTSC" record -q -e syscalls --compress=$c -o "$TEST_TMP/z-$c.gtsc" \
		-- "$WORKLOADS/storm" 20000 > /dev/null 2> "$TEST_TMP/err-$c"
	n=$("$GTSC" report -i "$TEST_TMP/z-$c.gtsc" --summary 2> /dev/null | awk '$NF == "getppid" { print $3 }')
	check lifecycle/compress-$c "--compress=$c: $n getppid calls read back, $(head -c 200 "$TEST_TMP/err-$c")" \
		[ "$n" = 20000 ]
done
sz() { stat -c %s "$TEST_TMP/z-$1.gtsc"; }
check_expr lifecycle/compress-sizes "sizes zstd $(sz zstd), zlib $(sz zlib), lz4 $(sz lz4), none $(sz none)" \
	'[ "$(sz zstd)" -lt "$(sz zlib)" ] && [ "$(sz zlib)" -lt "$(sz lz4)" ] && [ "$(sz lz4)" -lt "$(sz none)" ]'
"$GTSC" record --compress=xz -a -d 1 -o "$TEST_TMP/x.gtsc" 2> "$TEST_TMP/err"
rc=$?
check_expr lifecycle/compress-unknown "--compress=xz: rc $rc, $(head -c 200 "$TEST_TMP/err")" \
	'[ $rc = 2 ] && has_line "$TEST_TMP/err" "--compress takes zstd, lz4, zlib or none"'

# On a terminal, record refreshes one status line about once a second;
# nothing of it when stderr is a file.  script(1) gives it a terminal.
if command -v script > /dev/null; then
	script -q -c "$GTSC record -e syscalls -o $TEST_TMP/p.gtsc -a -d 2.5" "$TEST_TMP/tty" > /dev/null 2>&1
	n=$(grep -o 'events ([0-9]*/s), [0-9]* dropped, [0-9.]* MiB written' "$TEST_TMP/tty" | wc -l)
	check lifecycle/progress-tty "$n status lines on a terminal in 2.5 s, expected 2: $(tail -c 300 "$TEST_TMP/tty")" \
		[ "$n" = 2 ]
	"$GTSC" record -e syscalls -o "$TEST_TMP/p.gtsc" -a -d 1.5 2> "$TEST_TMP/notty"
	check lifecycle/progress-not-tty "a status line in a file: $(head -c 300 "$TEST_TMP/notty")" \
		not grep -q 'MiB written' "$TEST_TMP/notty"
else
	echo "SKIP live/lifecycle/progress-tty: no script(1) here to give record a terminal"
fi
