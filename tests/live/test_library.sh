#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# libgtsc as an embedder meets it: `make install` into a scratch DESTDIR,
# the examples built from that tree through pkg-config alone, then run on
# real activity: embed_minimal on kmem, read_trace against `report --json`,
# fork_probe (a BPF object of its own writing with gtsc_printf).  Only the
# API is exported from libgtsc.so.  The VM lane has no compiler: SKIP there.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
for tool in cc pkg-config make; do
	if ! command -v $tool > /dev/null || [ ! -f "$ROOT/Makefile" ]; then
		echo "SKIP live/library: no compiler in the VM"
		exit 0
	fi
done

D=$TEST_TMP/dest
PC="env PKG_CONFIG_PATH=$D/usr/lib/pkgconfig pkg-config --define-prefix"
export LD_LIBRARY_PATH=$D/usr/lib

make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/usr > "$TEST_TMP/install" 2>&1
missing=
for f in bin/gtsc-bpf lib/libgtsc.a lib/libgtsc.so lib/libgtsc.so.0 lib/pkgconfig/gtsc.pc \
	lib/gtsc/channel.bpf.o include/gtsc/gtsc.h include/gtsc/records.h include/gtsc/file.h \
	include/gtsc/gtsc.bpf.h include/gtsc/gtsc_shared.h include/gtsc/vmlinux.h; do
	[ -e "$D/usr/$f" ] || missing="$missing $f"
done
check library/install "make install: missing$missing; $(tail -c 300 "$TEST_TMP/install")" \
	[ -z "$missing" ]

# A man page per command of `gtsc-bpf --help`, each naming its command, and
# the bash completion, which completes commands and a command's options.
cmds=$("$GTSC" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
nopage=
for c in $cmds; do
	p=$D/usr/share/man/man1/gtsc-bpf-$c.1
	# help2man escapes '-' as '\-': "gtsc-bpf-kill \- end ...", "usage: gtsc\-bpf kill",
	# "usage: gtsc\-bpf list\-events"
	grep -q "^gtsc-bpf-$c .- " "$p" 2> /dev/null && grep -q "^usage: gtsc.-bpf ${c//-/.-}" "$p" ||
		nopage="$nopage $c"
done
check library/man-pages "no proper man page for:$nopage ($(echo $cmds | wc -w) commands)" \
	[ -n "$cmds" -a -z "$nopage" -a -s "$D/usr/share/man/man1/gtsc-bpf.1" ]
# Each command's page has its examples, one a line (help2man would fill
# them into one paragraph), and report's page every mode's options.
noex=
for c in $cmds; do
	grep -A2 '^\.SS "examples\?:"' "$D/usr/share/man/man1/gtsc-bpf-$c.1" 2> /dev/null | grep -q '^\.nf' ||
		noex="$noex $c"
done
check library/man-examples "no examples, or filled into a paragraph, in the pages of:$noex" [ -z "$noex" ]
rp=$D/usr/share/man/man1/gtsc-bpf-report.1
nomode=$(for o in string.-limit failed sort raw.-ip folded; do
	grep -q "^ *.-.-$o\|^ *.-[a-zA-Z], .-.-$o" "$rp" 2> /dev/null || printf '%s ' "--${o/.-/-}"; done)
check library/man-report-modes "gtsc-bpf-report(1) does not describe: $nomode" [ -z "$nomode" ]
compl=$(PATH=$D/usr/bin:$PATH bash -c ". $D/usr/share/bash-completion/completions/gtsc-bpf
	COMP_WORDS=(gtsc-bpf rec); COMP_CWORD=1; _gtsc_bpf; echo \${COMPREPLY[*]}
	COMP_WORDS=(gtsc-bpf report --summ); COMP_CWORD=2; _gtsc_bpf; echo \${COMPREPLY[*]}
	COMP_WORDS=(gtsc-bpf convert --to ''); COMP_CWORD=3; _gtsc_bpf; echo \${COMPREPLY[*]}" 2>&1)
check library/completion "completion of 'rec', 'report --summ' and 'convert --to ' gave: $compl" \
	[ "$compl" = "record"$'\n'"--summary"$'\n'"perfetto ctf" ]
make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/usr > "$TEST_TMP/uninstall" 2>&1
left=$(cd "$D" && find . -type f | head -5 | tr '\n' ' ')
check library/uninstall "make uninstall left: $left" [ -z "$left" ]
make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/usr > "$TEST_TMP/install" 2>&1

# The exported symbols are exactly the functions the public headers mark GTSC_API.
grep -hv '^#' "$D"/usr/include/gtsc/*.h | tr '\n\t' '  ' | grep -o 'GTSC_API [^(;]*(' | awk '{ sub(/\($/, ""); sub(/.*[ *]/, ""); print }' |
	sort > "$TEST_TMP/api"
nm -D --defined-only "$D/usr/lib/libgtsc.so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
	sort > "$TEST_TMP/exported"
check library/exports "exported but not API: $(comm -13 "$TEST_TMP/api" "$TEST_TMP/exported" | head -5 | tr '\n' ' ')" \
	[ -z "$(comm -13 "$TEST_TMP/api" "$TEST_TMP/exported")" ]
check library/exports-all "API not exported: $(comm -23 "$TEST_TMP/api" "$TEST_TMP/exported" | tr '\n' ' ')" \
	[ -s "$TEST_TMP/api" -a -z "$(comm -23 "$TEST_TMP/api" "$TEST_TMP/exported")" ]

# Both libraries define exactly libgtsc.map's functions and nothing else:
# libgtsc.a is one object whose other symbols are local (Makefile), so a
# static embedder's own names cannot collide with the library's internals.
map_syms() {
	sed -n 's/^[[:space:]]*\(gtsc_[a-z0-9_]*\);$/T \1/p' "$1" | sort
}
# nm -g --defined-only, without the .so's version nodes (GTSC_0.1 ...)
defined_syms() {
	nm -g --defined-only "$1" | awk 'NF == 3 && !($2 == "A" && $3 ~ /^GTSC_[0-9.]+$/) {
		sub(/@.*/, "", $3); print $2, $3 }' | sort
}
map_syms "$ROOT/src/user/lib/libgtsc.map" > "$TEST_TMP/map"
for l in libgtsc.a libgtsc.so; do
	defined_syms "$D/usr/lib/$l" > "$TEST_TMP/$l.syms"
	check_expr library/symbols-${l#libgtsc.} "$l against libgtsc.map's $(wc -l < "$TEST_TMP/map") functions: $(diff "$TEST_TMP/map" "$TEST_TMP/$l.syms" | grep '^[<>]' | head -4 | tr '\n' ' ')" \
		'[ -s "$TEST_TMP/map" ] && cmp -s "$TEST_TMP/map" "$TEST_TMP/$l.syms"'
done

# The CLI is a libgtsc user like any other: its objects link against the
# installed libgtsc.so, where only the API is visible, and the result runs
# (libbpf besides: the CLI routes libbpf's own log, process-wide).
cc "$ROOT/${OUTPUT:-.output}"/cli/*.o $($PC --libs gtsc) -lbpf -o "$TEST_TMP/gtsc-bpf-shared" \
	2> "$TEST_TMP/cli-ld"
rc=$?
check library/cli-public-only "the CLI needs more than libgtsc.so exports: $(grep -o "undefined reference to [^ ]*" "$TEST_TMP/cli-ld" | sort -u | head -8 | tr '\n' ' ')" \
	[ $rc = 0 ]
"$TEST_TMP/gtsc-bpf-shared" features > "$TEST_TMP/feat-shared" 2>&1
rc=$?
check_expr library/cli-shared-runs "the CLI on libgtsc.so: rc $rc, $(head -c 200 "$TEST_TMP/feat-shared")" \
	'[ $rc = 0 ] && cmp -s "$TEST_TMP/feat-shared" <("$GTSC" features 2>&1)'

# cc FILE.c $(pkg-config --cflags --libs --static gtsc): with libgtsc.so, and fully static.
build_ok=1
for e in embed_minimal read_trace; do
	cc -Wall -Werror "$ROOT/examples/$e.c" $($PC --cflags --libs --static gtsc) \
		-o "$TEST_TMP/$e" 2>> "$TEST_TMP/cc" || build_ok=
done
cc "$ROOT/examples/embed_minimal.c" $($PC --cflags --libs --static gtsc) -static \
	-o "$TEST_TMP/embed_static" 2>> "$TEST_TMP/cc" || build_ok=
check library/build "examples do not build from the installed tree: $(head -c 400 "$TEST_TMP/cc")" \
	[ -n "$build_ok" ]
check library/build-shared "embed_minimal does not link libgtsc.so" \
	grep -q 'libgtsc.so.0' <(ldd "$TEST_TMP/embed_minimal" 2> /dev/null)

# embed_minimal against real kmem activity for about a second, then SIGTERM.
"$TEST_TMP/embed_minimal" > "$TEST_TMP/emb.out" 2> "$TEST_TMP/emb.err" &
epid=$!
if wait_for "$TEST_TMP/emb.err" "recording" "$REC_WAIT"; then
	for i in 1 2 3 4 5; do
		ls -R /usr/include > /dev/null 2>&1
		sleep 0.2
	done
fi
kill -TERM $epid 2> /dev/null
wait $epid
rc=$?
consumed=$(sed -n 's/^consumed: \([0-9]*\) records.*/\1/p' "$TEST_TMP/emb.out")
check library/embed-run "exit $rc: $(head -c 300 "$TEST_TMP/emb.err")" [ $rc = 0 ]
check library/embed-consumed "consumed '${consumed}' records: $(head -c 200 "$TEST_TMP/emb.out")" \
	[ "${consumed:-0}" -gt 0 ]
check library/embed-dropped "last line '$(tail -n 1 "$TEST_TMP/emb.out")', want dropped: 0" \
	[ "$(tail -n 1 "$TEST_TMP/emb.out")" = "dropped: 0" ]

# read_trace counts what `report --json` prints: every record but kmem_cache
# (names only) and task comm (names of tasks alive at start), plus the header.
"$D/usr/bin/gtsc-bpf" record -q -e syscalls,kmem -o "$TEST_TMP/t.gtsc" -- ls -R /usr/include/linux \
	> /dev/null 2> "$TEST_TMP/rec.err"
"$TEST_TMP/read_trace" "$TEST_TMP/t.gtsc" > "$TEST_TMP/rt.out" 2> "$TEST_TMP/rt.err"
rc=$?
records=$(sed -n 's/^records: //p' "$TEST_TMP/rt.out")
names=$(awk '$5 == "kmem_cache" || ($5 == "task" && $6 == "comm") { n++ } END { print n + 0 }' "$TEST_TMP/rt.out")
json=$("$D/usr/bin/gtsc-bpf" report -i "$TEST_TMP/t.gtsc" --json | wc -l)
check library/read-trace "read_trace exit $rc, records '$records' - $names names != $json json lines - 1: $(head -c 200 "$TEST_TMP/rt.err")" \
	[ $rc = 0 -a -n "$records" -a "$((records - names))" = "$((json - 1))" -a "$records" -gt 0 ]
check library/read-trace-decode "no decoded syscall or call site in read_trace's output" \
	has_line "$TEST_TMP/rt.out" "sys_enter execve"

# fork_probe: its own BPF object linked with the installed channel.bpf.o.
mkdir -p "$TEST_TMP/fp"
cp "$ROOT"/examples/fork_probe/{Makefile,fork_probe.c,fork_probe.bpf.c} "$TEST_TMP/fp/"
if make -s -C "$TEST_TMP/fp" PKG_CONFIG_PATH="$D/usr/lib/pkgconfig" > "$TEST_TMP/fp.build" 2>&1; then
	"$TEST_TMP/fp/fork_probe" 10 > "$TEST_TMP/fp.out" 2> "$TEST_TMP/fp.err" &
	fpid=$!
	wait_for "$TEST_TMP/fp.err" "recording" "$REC_WAIT"
	"$WORKLOADS/forker" 4 1 > "$TEST_TMP/forker.out"
	sleep 0.3
	kill -TERM $fpid
	wait $fpid
	rc=$?
	n=0
	for c in $(sed -n 's/^child=//p' "$TEST_TMP/forker.out"); do
		has_line "$TEST_TMP/fp.out" " child=$c child_tid=$c" && n=$((n + 1))
	done
	check library/fork-probe "exit $rc, $n of 4 forker children printed: $(head -c 300 "$TEST_TMP/fp.err")" \
		[ $rc = 0 -a $n = 4 ]
	check library/fork-probe-dropped "$(tail -n 1 "$TEST_TMP/fp.out")" \
		has_line "$TEST_TMP/fp.out" "forks, 0 dropped"
else
	fail library/fork-probe "fork_probe does not build from the installed tree: $(tail -c 400 "$TEST_TMP/fp.build")"
fi

# Flight channels through the API: snapshot, consume after stop, rewind.
if cc -Wall -Werror "$ROOT/tests/live/library/flight_api.c" $($PC --cflags --libs --static gtsc) \
	-o "$TEST_TMP/flight_api" 2> "$TEST_TMP/fa.cc"; then
	# The session is system-wide and never records itself: make the
	# syscalls it must keep, or a quiet machine leaves it nothing.
	( while :; do cat /proc/self/stat > /dev/null; done ) &
	noise=$!
	"$TEST_TMP/flight_api" "$TEST_TMP/snap.gtsc" > "$TEST_TMP/fa.out" 2> "$TEST_TMP/fa.err"
	rc=$?
	kill $noise 2> /dev/null
	wait $noise 2> /dev/null
	val() { sed -n "s/^$1=//p" "$TEST_TMP/fa.out"; }
	# syscall records: none while recording (the flight channel is the kernel's)
	check library/flight-consume "exit $rc: running $(val consumed_running), after stop $(val first), then $(val second): $(head -c 200 "$TEST_TMP/fa.err")" \
		[ $rc = 0 -a "$(val consumed_running)" = 0 -a "$(val first)" -gt 0 -a "$(val second)" = 0 ]
	check library/flight-rewind "rewind $(val rewind): $(val again) records again, $(val first) the first time" \
		[ "$(val rewind)" = 0 -a "$(val again)" = "1,$(val first)" ]
	check library/flight-dropped "$(grep dropped "$TEST_TMP/fa.out" | tr '\n' ' ')" \
		[ "$(val dropped_unknown)" = 1 -a "$(val dropped)" = "0,0" ]
	retained=$("$D/usr/bin/gtsc-bpf" report -i "$TEST_TMP/snap.gtsc" --json | head -n 1 |
		sed -n 's/.*"retained":\([0-9]*\).*/\1/p')
	lines=$("$D/usr/bin/gtsc-bpf" report -i "$TEST_TMP/snap.gtsc" --json | grep -c '"event":"sys_')
	check library/flight-snapshot "snapshot $(val snapshot): $lines syscall records, trailer retained '$retained'" \
		[ "$(val snapshot)" = 0 -a -n "$retained" -a "$lines" = "$retained" -a "${retained:-0}" -gt 0 ]
else
	fail library/flight-api "flight_api does not build: $(head -c 300 "$TEST_TMP/fa.cc")"
fi
