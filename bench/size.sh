#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/size.sh: bytes per event on disk, for each workload and each of
# gtsc-bpf's codecs, next to trace-cmd and perf record recording the same
# events of the same run, plus each recorder's CPU time per million events.
#
# One run per workload: the workload is started behind a FIFO gate, every
# recorder attaches to its pid (gtsc-bpf once per codec, each a session of
# its own: sessions see exactly their own events), and the gate opens when
# all of them are recording.  So every file holds the same events, and
# bytes per event compares codecs, not runs.  Sizes are whole files
# (headers, metadata, symbols included) over the events each file holds;
# a recorder's lost events are shown, never hidden.
#
# Workloads:
#   getppid   1,000,001 getppid calls (2 M events), syscalls only: the storm
#   tar       tar czf of /usr/share/doc, syscalls + kmem
#   make      this project's own `make -j2` in a scratch copy, syscalls + kmem
#   pipesock  pipes and unix socketpairs opened, used, closed: kmem-heavy
#
# CPU: user + sys of each recorder process (its children too), less what a
# gtsc-bpf session costs when it records nothing (BPF load, attach, the
# 50 ms drains), measured once in the same run.
#
# Bytes per event is not disturbed by a busy machine; CPU time a little.
# Nothing here fails the build.  The table also goes to $OUTPUT/bench/size.txt.
#
# Knobs (environment):
#   SIZE_CODECS="default nocapture lz4 zlib none"   gtsc-bpf --compress values ("default": none
#                                             given; "nocapture": the default codec with
#                                             --no-capture, what trace-cmd and perf record hold)
#   SIZE_WORKLOADS="getppid tar make pipesock"
#   SIZE_PIPESOCK_N=20000                     pipesock iterations
#   BENCH_TMP=dir                             where the traces go (default: a dir in /dev/shm)
#   GTSC=path                                 the gtsc-bpf binary (default ./gtsc-bpf)
#   SIZE_KEEP=1                               keep the traces (their directory is printed)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=$(realpath -m "${OUTPUT:-.output}/bench")
GTSC=${GTSC:-$PWD/gtsc-bpf}
CODECS=${SIZE_CODECS:-"default nocapture lz4 zlib none"}
WORKLOADS=${SIZE_WORKLOADS:-"getppid tar make pipesock"}
PIPESOCK_N=${SIZE_PIPESOCK_N:-20000}
TRACEFS=/sys/kernel/tracing
TC_INSTANCE=gtsc-size
KMEM_EVENTS="kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc mm_page_free"

[ "$(id -u)" = 0 ] || { echo "size: needs root (it records traces)" >&2; exit 1; }
[ -x "$GTSC" ] || { echo "size: build $GTSC first (make)" >&2; exit 1; }
mkdir -p "$OUT"
TMP=$(mktemp -d "${BENCH_TMP:-/dev/shm}/gtsc-size.XXXXXX")
BG_PIDS=""

cleanup() {
	local p
	for p in $BG_PIDS; do
		kill "$p" 2>/dev/null || true
	done
	[ ! -d "$TRACEFS/instances/$TC_INSTANCE" ] || {
		echo 0 >"$TRACEFS/instances/$TC_INSTANCE/events/enable" 2>/dev/null || true
		rmdir "$TRACEFS/instances/$TC_INSTANCE" 2>/dev/null || true
	}
	if [ -n "${SIZE_KEEP:-}" ]; then
		echo "size: traces kept in $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

HAVE_TC=1 HAVE_PERF=1
command -v trace-cmd >/dev/null && [ -d "$TRACEFS/instances" ] || HAVE_TC=0
command -v perf >/dev/null || HAVE_PERF=0

for w in getppid pipesock; do
	cc -O2 -Wall -Wextra -o "$OUT/$w" "bench/workloads/$w.c"
done

# The make workload builds a copy of this tree as committed, from clean.
make_src() {
	[ -d "$TMP/src" ] && return
	mkdir -p "$TMP/src"
	git archive HEAD | tar -x -C "$TMP/src"
}

# workload -> "gtsc -e list" and the command; the command runs in $TMP/run.
events_of() { [ "$1" = getppid ] && echo syscalls || echo syscalls,kmem; }
cmd_of() {
	case $1 in
	getppid) echo "$OUT/getppid 909091" ;; # + its tenth of warm-up = 1,000,001 calls
	tar) echo "tar czf $TMP/doc.tgz /usr/share/doc" ;;
	make) echo "make -C $TMP/src -j2 -s" ;;
	pipesock) echo "$OUT/pipesock $PIPESOCK_N" ;;
	esac
}

tc_events() {
	local e="-e raw_syscalls"
	[ "$1" = getppid ] && { echo "$e"; return; }
	for k in $KMEM_EVENTS; do
		e="$e -e kmem:$k"
	done
	echo "$e"
}

perf_events() {
	local e="raw_syscalls:sys_enter,raw_syscalls:sys_exit"
	[ "$1" = getppid ] && { echo "$e"; return; }
	for k in $KMEM_EVENTS; do
		e="$e,kmem:$k"
	done
	echo "$e"
}

# "user+sys" seconds from a /usr/bin/time -f '%U %S' file.
cpu_of() { awk 'NF == 2 { s = $1 + $2 } END { printf "%.3f", s + 0 }' "$1" 2>/dev/null || echo 0; }

# Records in a gtsc-bpf trace and its drops: the header's channel table.
gtsc_counts() {
	# columns counted from the end: the header's "ring size" is two words
	"$GTSC" report -i "$1" --header 2>/dev/null | awk '
		$2 == "channel" { for (i = 2; i <= NF; i++) col[$i] = NF - i; next }
		("events" in col) && $1 == "#" && $(NF - col["events"]) ~ /^[0-9]+$/ {
			ev += $(NF - col["events"]); dr += $(NF - col["dropped"])
		}
		END { print ev + 0, dr + 0 }'
}

tc_counts() {
	local ev lost
	ev=$(trace-cmd report -i "$1" 2>/dev/null | grep -cE '^ *[^ ].*\[[0-9]+\] +[0-9]+\.[0-9]+: ') || true
	lost=$(grep -oE '[0-9]+ events lost' "$2" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	echo "${ev:-0} ${lost:-0}"
}

perf_counts() {
	local ev lost
	ev=$(perf report -i "$1" --stats 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')
	lost=$(perf report -i "$1" --stats 2>/dev/null | awk '$1 == "LOST" && $2 == "events:" { print $3; exit }')
	echo "${ev:-0} ${lost:-0}"
}

# Ctrl-C to a recorder run under /usr/bin/time (PID is time's): `record -p`
# goes on after its processes exit, as perf's -a would.
stop_rec() {
	local c
	for c in $(pgrep -P "$1"); do
		kill -INT "$c" 2>/dev/null || true
	done
}

# wait_for FILE PATTERN: up to 30 s for a recorder to say it is recording.
wait_for() {
	local i
	for i in $(seq 300); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# One workload, every recorder at once.  Writes "$TMP/$wl/NAME.{trace,log,time}".
run_workload() {
	local wl=$1 d=$TMP/$1 gate wpid c opt pids="" tcpid="" perfpid="" i
	mkdir -p "$d" "$TMP/run"
	gate=$d/gate
	mkfifo "$gate"
	[ "$wl" = make ] && make_src
	# the gate: the shell blocks on the FIFO, then becomes the workload
	# shellcheck disable=SC2046 # the command is words on purpose
	(cd "$TMP/run" && exec sh -c 'read _ <"$0"; exec "$@"' "$gate" $(cmd_of "$wl")) \
		>"$d/workload.log" 2>&1 &
	wpid=$!
	BG_PIDS="$wpid"
	for c in $CODECS; do
		case $c in
		default) opt="" ;;
		nocapture) opt="--no-capture" ;;
		*) opt="--compress=$c" ;;
		esac
		/usr/bin/time -f '%U %S' -o "$d/gtsc-$c.time" "$GTSC" record -p "$wpid" \
			-e "$(events_of "$wl")" $opt -o "$d/gtsc-$c.trace" >"$d/gtsc-$c.log" 2>&1 &
		pids="$pids $!"
	done
	if [ $HAVE_TC = 1 ]; then
		# shellcheck disable=SC2046
		(cd "$d" && exec /usr/bin/time -f '%U %S' -o "$d/trace-cmd.time" trace-cmd record \
			-B "$TC_INSTANCE" -d -k $(tc_events "$wl") -P "$wpid" -c -o "$d/trace-cmd.trace" \
			>"$d/trace-cmd.log" 2>&1) &
		tcpid=$!
	fi
	if [ $HAVE_PERF = 1 ]; then
		/usr/bin/time -f '%U %S' -o "$d/perf.time" perf record -q -e "$(perf_events "$wl")" \
			-p "$wpid" -o "$d/perf.trace" >"$d/perf.log" 2>&1 &
		perfpid=$!
	fi
	BG_PIDS="$wpid $pids $tcpid $perfpid"
	for c in $CODECS; do
		wait_for "$d/gtsc-$c.log" "recording as session" ||
			echo "size: $wl: gtsc-bpf ($c) did not start: $(tail -1 "$d/gtsc-$c.log")" >&2
	done
	if [ -n "$tcpid" ]; then
		for i in $(seq 100); do
			[ "$(cat "$TRACEFS/instances/$TC_INSTANCE/events/raw_syscalls/sys_exit/enable" 2>/dev/null)" = 1 ] && break
			sleep 0.1
		done
	fi
	sleep 1 # perf says nothing when it starts; trace-cmd's readers start splicing
	echo "size: $wl: recording with$(for c in $CODECS; do printf ' gtsc(%s)' "$c"; done)" \
		"${tcpid:+trace-cmd} ${perfpid:+perf} ..." >&2
	echo go >"$gate"
	wait "$wpid" || echo "size: $wl: the workload failed: $(tail -1 "$d/workload.log")" >&2
	# trace-cmd first: it copies /proc/kallsyms at the end, and refuses a
	# file whose size changes meanwhile, as it does when the gtsc-bpf
	# sessions unload their programs
	if [ -n "$tcpid" ]; then
		stop_rec "$tcpid"
		wait "$tcpid" || true
	fi
	for i in $pids; do
		stop_rec "$i"
	done
	for i in $pids $perfpid; do
		wait "$i" || true
	done
	BG_PIDS=""
	if [ -d "$TRACEFS/instances/$TC_INSTANCE" ]; then
		echo 0 >"$TRACEFS/instances/$TC_INSTANCE/events/enable" 2>/dev/null || true
		rmdir "$TRACEFS/instances/$TC_INSTANCE" 2>/dev/null || true
	fi
	rm -rf "$TMP/run" "$TMP/doc.tgz"
	[ "$wl" != make ] || rm -rf "$TMP/src"
}

# What a gtsc-bpf session costs when it records nothing: the same -p attach, a gated `true`.
idle_cpu() {
	local d=$TMP/idle wpid
	mkdir -p "$d"
	mkfifo "$d/gate"
	sh -c 'read _ <"$0"; sleep 1' "$d/gate" &
	wpid=$!
	BG_PIDS="$wpid"
	/usr/bin/time -f '%U %S' -o "$d/t" "$GTSC" record -p "$wpid" -o "$d/trace" >"$d/log" 2>&1 &
	BG_PIDS="$wpid $!"
	wait_for "$d/log" "recording as session" || true
	echo go >"$d/gate"
	wait "$wpid" || true
	stop_rec "${BG_PIDS#* }"
	wait $BG_PIDS || true
	BG_PIDS=""
	cpu_of "$d/t"
}

row() {
	local wl=$1 name=$2 trace=$3 counts=$4 time=$5 ref=$6 bytes ev lost bpe cpu x
	[ -s "$trace" ] || { printf '%-9s %-18s n/a (no trace: %s)\n' "$wl" "$name" "$(tail -1 "${trace%.trace}.log" 2>/dev/null)"; return; }
	bytes=$(stat -c %s "$trace")
	read -r ev lost <<<"$counts"
	[ "$ev" -gt 0 ] || { printf '%-9s %-18s n/a (no events counted)\n' "$wl" "$name"; return; }
	bpe=$(awk -v b="$bytes" -v e="$ev" 'BEGIN { printf "%.2f", b / e }')
	cpu=$(awk -v c="$(cpu_of "$time")" -v i="${IDLE:-0}" -v e="$ev" -v g="$name" 'BEGIN {
		if (g ~ /^gtsc/) c -= i; if (c < 0) c = 0; printf "%.3f", c / e * 1e6 }')
	x=$(awk -v a="$bpe" -v b="${ref:-}" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }')
	printf '%-9s %-18s %10s %8s %12s %8s %8s %9s\n' "$wl" "$name" "$ev" "$lost" "$bytes" "$bpe" "$x" "$cpu"
	BPE[$wl.$name]=$bpe
}

declare -A BPE
IDLE=0
report() {
	local wl c d tc_bpe counts
	printf '%-9s %-18s %10s %8s %12s %8s %8s %9s\n' workload recorder events lost bytes B/event x-tc "cpu s/M"
	for wl in $WORKLOADS; do
		d=$TMP/$wl
		tc_bpe="" counts="0 0"
		if [ $HAVE_TC = 1 ] && [ -s "$d/trace-cmd.trace" ]; then
			counts=$(tc_counts "$d/trace-cmd.trace" "$d/trace-cmd.log")
			tc_bpe=$(awk -v b="$(stat -c %s "$d/trace-cmd.trace")" -v e="${counts%% *}" \
				'BEGIN { if (e > 0) printf "%.2f", b / e }')
		fi
		for c in $CODECS; do
			row "$wl" "gtsc-bpf $c" "$d/gtsc-$c.trace" "$(gtsc_counts "$d/gtsc-$c.trace")" \
				"$d/gtsc-$c.time" "$tc_bpe"
		done
		[ $HAVE_TC = 0 ] || row "$wl" "trace-cmd (zstd)" "$d/trace-cmd.trace" "$counts" "$d/trace-cmd.time" "$tc_bpe"
		[ $HAVE_PERF = 0 ] || row "$wl" "perf record" "$d/perf.trace" "$(perf_counts "$d/perf.trace")" \
			"$d/perf.time" "$tc_bpe"
	done
}

verdict() {
	local wl g t
	echo
	g=${BPE[getppid.gtsc-bpf default]:-}
	[ -z "$g" ] || echo "goal getppid: $g B/event, goal <= 1.0: $(awk -v g="$g" 'BEGIN { print g <= 1.0 ? "MET" : "NOT MET" }')"
	for wl in $WORKLOADS; do
		[ "$wl" != getppid ] || continue
		g=${BPE[$wl.gtsc-bpf default]:-}
		t=${BPE[$wl.trace-cmd (zstd)]:-}
		[ -n "$g" ] && [ -n "$t" ] || { echo "goal $wl: n/a (gtsc-bpf ${g:-n/a}, trace-cmd ${t:-n/a})"; continue; }
		awk -v g="$g" -v t="$t" -v w="$wl" 'BEGIN {
			printf "goal %s: %.2fx trace-cmd'"'"'s bytes per event, goal <= 0.80x: %s\n", w, g / t,
				g / t <= 0.8 ? "MET" : "NOT MET" }'
	done
}

main() {
	local wl load0 start
	load0=$(cut -d' ' -f1 /proc/loadavg)
	start=$(date +%s)
	[ $HAVE_TC = 1 ] || echo "size: trace-cmd not available: its column is left out" >&2
	[ $HAVE_PERF = 1 ] || echo "size: perf not available: its column is left out" >&2
	IDLE=$(idle_cpu)
	for wl in $WORKLOADS; do
		run_workload "$wl"
		# trace-cmd refuses to finish its file when /proc/kallsyms changes
		# size while it copies it (any BPF program loaded meanwhile): once more
		if [ $HAVE_TC = 1 ] && [ ! -s "$TMP/$wl/trace-cmd.trace" ]; then
			echo "size: $wl: trace-cmd did not finish its file ($(grep -m1 -i error \
				"$TMP/$wl/trace-cmd.log")); the run once more" >&2
			rm -rf "${TMP:?}/$wl"
			run_workload "$wl"
		fi
	done
	{
		echo "gtsc-bpf size bench $(date -u +%FT%TZ), kernel $(uname -r), $(nproc) CPUs"
		echo "one run per workload, every recorder attached to it at once; whole files over the events"
		echo "each holds; x-tc: B/event over trace-cmd's; cpu s/M: recorder CPU (user+sys) per million"
		echo "events, gtsc-bpf's less an idle session's ${IDLE} s; default = $("$GTSC" record --help 2>&1 |
			grep -oE 'compress=ALG +[a-z0-9]+' | awk '{ print $2 }')"
		echo "load average: $load0 before, $(cut -d' ' -f1 /proc/loadavg) after"
		echo
		report
		verdict
		echo
		echo "size bench time: $(($(date +%s) - start)) s"
	} | tee "$OUT/size.txt"
}

main "$@"
