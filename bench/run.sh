#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/run.sh: what tracing a syscall costs, gtsc-bpf next to a bare BPF
# recorder (the floor, bench/bare) and the usual tools, in one run.
#
# Every workload (bench/workloads) times its own loop and prints
# ns_per_iter, so tracer startup and teardown never count.  A run is one
# workload under one tracer; runs are interleaved round by round so a slow
# minute on a shared machine hits every tracer alike, and each cell is the
# median of its runs.  The workload is pinned to the last CPU and the
# tracer's own processes to the others: what is measured is the cost in the
# traced task, not a consumer stealing its CPU.
#
# Issue 13 (recording cost) in the same run: a kmem-heavy loop recorded
# with `-e kmem` next to trace-cmd and perf recording the same six kmem
# events; bare's empty programs on the same hooks (the attach floor) and
# its array-ring prototype (the cheaper-reserve lever); a pass with
# kernel.bpf_stats_enabled for the ns each program spends per run (floor,
# record, filter, capture); bench/sessions.sh --goal (eight sessions
# against one).  Each goal line says MET or NOT MET with its numbers.
#
# Nothing here fails the build: a tracer that is missing or fails shows as
# "n/a (reason)".  The table also goes to $OUTPUT/bench/results.txt.
#
# Knobs (environment):
#   BENCH_RUNS=5          runs per cell, fast tracers
#   BENCH_SLOW_RUNS=3     runs per cell, strace / perf trace / bpftrace
#   BENCH_N=2000000       syscalls per run, fast tracers
#   BENCH_N_SLOW=50000    syscalls per run, slow tracers (results are per call)
#   BENCH_N_KMEM=200000   iterations of the kmem loop per run (9 kmem events each)
#   BENCH_ONLY="untraced bare gtsc"   a subset of the configurations (gtsc_lz4, not in
#                         the default set: gtsc-bpf with format 1.1's codec)
#   BENCH_GTSC_OPTS="--compress=zlib" more options for gtsc-bpf record
#   BENCH_GTSC_BASE=path  another gtsc-bpf build (main's, say), configuration gtsc_base:
#                         BENCH_ONLY="untraced gtsc_base gtsc" compares two builds in one run
#   BENCH_TMP=dir         where trace files go (default: a dir in /dev/shm)
#   BENCH_SIZE=0          skip bench/size.sh (bytes per event), run at the end
#   BENCH_SESSIONS=0      skip bench/sessions.sh --goal (8 sessions against one)
#   BENCH_BUDGET=0        skip the bpf_stats pass (ns per event inside the programs)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUTPUT:-.output}/bench
RUNS=${BENCH_RUNS:-5}
SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
N_FAST=${BENCH_N:-2000000}
N_SLOW=${BENCH_N_SLOW:-50000}
TIMEOUT=${BENCH_TIMEOUT:-180}

WORKLOADS=${BENCH_WORKLOADS:-"getppid openread kmem pingpong"}
# Units of +ns/call: syscalls for getppid/openread, an iteration of the
# kmem loop (9 kmem events), context switches for pingpong (its
# ns_per_iter is per switch).
declare -A SPI=([getppid]=1 [openread]=3 [kmem]=1 [pingpong]=1)
# Events a recorder sees per iteration passed to the workload (pingpong: a
# round trip, two switches): the lost percentage's denominator.
declare -A EPI=([getppid]=2 [openread]=6 [kmem]=9 [pingpong]=2)
# What each tracer records for a workload: raw syscalls, the six kmem
# tracepoints gtsc-bpf's `-e kmem` attaches (trace-cmd and perf record
# exactly those), or sched_switch (issue 11's ping-pong: the cost of a
# tracepoint recorded by name).
KMEM_TPS="kmem:kmalloc kmem:kfree kmem:kmem_cache_alloc kmem:kmem_cache_free kmem:mm_page_alloc kmem:mm_page_free"
declare -A GTSC_EV=([getppid]=syscalls [openread]=syscalls [kmem]=kmem [pingpong]=sched:sched_switch)
declare -A GTSC_CH=([getppid]=syscalls [openread]=syscalls [kmem]=kmem [pingpong]=events)
declare -A BARE_EV=([getppid]=syscalls [openread]=syscalls [kmem]=kmem)
declare -A PERF_EV=([getppid]=raw_syscalls:sys_enter,raw_syscalls:sys_exit
	[openread]=raw_syscalls:sys_enter,raw_syscalls:sys_exit [kmem]=${KMEM_TPS// /,}
	[pingpong]=sched:sched_switch)
declare -A TC_EV=([getppid]=raw_syscalls [openread]=raw_syscalls [kmem]=$KMEM_TPS
	[pingpong]=sched:sched_switch)
declare -A TC_ON=([getppid]=raw_syscalls/sys_exit [openread]=raw_syscalls/sys_exit
	[kmem]=kmem/kmalloc [pingpong]=sched/sched_switch)
# Tracers that record sched_switch or kmem; the others are syscall tracers only.
SCHED_CFGS=" untraced gtsc gtsc_base perf_record trace_cmd "
KMEM_CFGS=" untraced bare_nil bare bare_arr gtsc gtsc_rb gtsc_base gtsc_lz4 perf_record trace_cmd "
N_PINGPONG=${BENCH_N_PINGPONG:-200000} # round trips: ~2 s a run at ~5 us a switch
N_KMEM=${BENCH_N_KMEM:-200000}         # ~0.3 s untraced at ~1.5 us an iteration
WL=getppid # the workload being measured (set by measure)

CONFIGS=${BENCH_ONLY:-"untraced bare_nil bare bare_arr gtsc_raw gtsc gtsc_rb gtsc_lz4 gtsc_live perf_record trace_cmd bpftrace perf_trace strace"}
SLOW=" bpftrace perf_trace strace "
declare -A LABEL=([untraced]=untraced [bare]="bare BPF" [bare_nil]="empty BPF progs"
	[bare_arr]="bare array ring" [gtsc]=gtsc-bpf [gtsc_rb]="gtsc ring buffer"
	[gtsc_raw]="gtsc no-capture"
	[gtsc_live]="gtsc live" [gtsc_lz4]="gtsc lz4" [gtsc_base]="gtsc base"
	[perf_record]="perf record" [trace_cmd]="trace-cmd" [bpftrace]="bpftrace printf"
	[perf_trace]="perf trace" [strace]="strace -f")
declare -A NA # config -> why it cannot run at all

TRACEFS=/sys/kernel/tracing
TC_INSTANCE=gtsc-bench # trace-cmd records into its own instance, never the top buffer

NCPU=$(nproc)
if [ "$NCPU" -gt 1 ]; then
	export BENCH_CPU=$((NCPU - 1))
	TRACER_CPUS="0-$((NCPU - 2))"
else
	TRACER_CPUS=""
fi

SCRATCH=
BG_PIDS=""

cleanup() {
	local p
	for p in $BG_PIDS; do
		kill "$p" 2>/dev/null || true
	done
	tc_instance_remove
	stats_restore
	[ -n "$SCRATCH" ] && rm -rf "$SCRATCH"
}

# Run a tracer off the workload's CPU (see the top of the file).
on_tracer_cpus() {
	if [ -n "$TRACER_CPUS" ]; then
		taskset -c "$TRACER_CPUS" "$@"
	else
		"$@"
	fi
}

# Sum, over all matches of an extended regex in the files that exist, of
# the first number inside each match; 0 when nothing matches.
sum_matches() {
	local re=$1 f files=()
	shift
	for f in "$@"; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || {
		echo 0
		return
	}
	awk -v re="$re" '{
		while (match($0, re)) {
			m = substr($0, RSTART, RLENGTH)
			$0 = substr($0, RSTART + RLENGTH)
			if (match(m, /[0-9]+/))
				s += substr(m, RSTART, RLENGTH)
		}
	} END { print s + 0 }' "${files[@]}"
}

# ---------------------------------------------------------------- build --

build() {
	local w bpfo=$OUT/bare.bpf.o

	mkdir -p "$OUT"
	# The workloads are the benchmark: without them there is nothing to run.
	for w in $WORKLOADS; do
		cc -O2 -Wall -Wextra -o "$OUT/$w" "bench/workloads/$w.c"
	done

	# bare.bpf.c reads x86-64 pt_regs by name.
	if [ "$(uname -m)" != x86_64 ]; then
		NA[bare]="x86-64 only"
		NA[bare_nil]=${NA[bare]} NA[bare_arr]=${NA[bare]}
	elif ! { clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ivmlinux/x86 -Iinclude \
		-c bench/bare/bare.bpf.c -o "$bpfo" &&
		bpftool gen skeleton "$bpfo" name bare_bpf >"$OUT/bare.skel.h" &&
		cc -O2 -g -Wall -Wextra -Iinclude -I"$OUT" bench/bare/bare.c \
			-lbpf -lelf -lz -o "$OUT/bare"; } >"$OUT/bare.build.log" 2>&1; then
		NA[bare]="build failed, see $OUT/bare.build.log"
		NA[bare_nil]=${NA[bare]} NA[bare_arr]=${NA[bare]}
	fi
}

# ---------------------------------------------------------------- tracers --
#
# cfg_NAME LOG CMD...: run CMD (a workload) under the tracer; the workload's
# "ns_per_iter=" line must end up in LOG.  Sets LOST to the number of events
# the tracer said it lost, or "-" when it never loses any (or never says).
# Returns non-zero when the tracer failed.  The trace goes to
# $SCRATCH/trace*, which the caller deletes after each run.  (LOST, not
# stdout: a $(...) subshell would hide BG_PIDS from the cleanup trap.)

cfg_untraced() {
	local log=$1
	shift
	timeout "$TIMEOUT" "$@" >"$log" 2>&1 || return
	LOST=-
}

cfg_bare() {
	local log=$1
	shift
	on_tracer_cpus timeout "$TIMEOUT" "$OUT/bare" -m "${BARE_MODE:-rec}" -e "${BARE_EV[$WL]}" \
		-o "$SCRATCH/trace" -- "$@" >"$log" 2>&1 || return
	LOST=$(sum_matches 'dropped=[0-9]+' "$log")
}

# The attach floor: programs on the same hooks that return at once.
cfg_bare_nil() {
	BARE_MODE=nil cfg_bare "$@"
}

# Issue 13's cheaper-reserve prototype: a per-CPU mmapable array ring with a
# fetch-add and a per-record commit (bench/bare/bare.bpf.c), same records.
cfg_bare_arr() {
	BARE_MODE=arr cfg_bare "$@"
}

# Issue 13's cheaper reserve, gtsc-bpf's default since e05a4d3 (array
# rings), against what it replaced: the workload's channel on the BPF ring
# buffer (--channel CH:ring=ringbuf), everything else as cfg_gtsc.
cfg_gtsc_rb() {
	BENCH_GTSC_OPTS="--channel ${GTSC_CH[$WL]}:ring=ringbuf ${BENCH_GTSC_OPTS:-}" cfg_gtsc "$@"
}

# Format 1.1's codec, to compare the recording cost of the zstd default with.
cfg_gtsc_lz4() {
	BENCH_GTSC_OPTS="--compress=lz4 ${BENCH_GTSC_OPTS:-}" cfg_gtsc "$@"
}

# The records bare writes: syscall numbers and registers, no captured memory.
cfg_gtsc_raw() {
	BENCH_GTSC_OPTS="--no-capture ${BENCH_GTSC_OPTS:-}" cfg_gtsc "$@"
}

# record --live: the same recording, each event also decoded in the recorder
# and printed as it comes, to /dev/null (as many calls as gtsc: millions of
# lines); the workload's own output goes to the log through sh.
cfg_gtsc_live() {
	local log=$1
	shift
	rm -f "$log.wl"
	BENCH_LIVE_OUT=/dev/null BENCH_GTSC_OPTS="--live ${BENCH_GTSC_OPTS:-}" cfg_gtsc "$log" \
		sh -c 'exec "$@" > "$0"' "$log.wl" "$@" || return
	cat "$log.wl" >> "$log"
}

# The same recording by the build BENCH_GTSC_BASE names.
cfg_gtsc_base() {
	GTSC_BIN=$BENCH_GTSC_BASE cfg_gtsc "$@"
}

cfg_gtsc() {
	local log=$1
	shift
	if [ -n "${BENCH_LIVE_OUT:-}" ]; then # --live's lines there, the summary in the log
		on_tracer_cpus timeout "$TIMEOUT" "${GTSC_BIN:-./gtsc-bpf}" record -e "${GTSC_EV[$WL]}" ${BENCH_GTSC_OPTS:-} \
			-o "$SCRATCH/trace" -- "$@" >"$BENCH_LIVE_OUT" 2>"$log" || return
	else
		on_tracer_cpus timeout "$TIMEOUT" "${GTSC_BIN:-./gtsc-bpf}" record -e "${GTSC_EV[$WL]}" ${BENCH_GTSC_OPTS:-} \
			-o "$SCRATCH/trace" -- "$@" >"$log" 2>&1 || return
	fi
	# Its summary is a table with a header row ("channel ... dropped
	# [overwritten]") and one row per channel; the workload's is ours.
	# Columns are found by name: the table has grown columns before.
	local skipped
	LOST=$(awk '$1 == "channel" && /dropped/ {
			for (i = 1; i <= NF; i++) col[$i] = i
			next
		}
		col["dropped"] && $1 == ch {
			n = $col["dropped"]
			if (col["overwritten"] && $col["overwritten"] ~ /^[0-9]+$/)
				n += $col["overwritten"]
			print n
			exit
		}' ch="${GTSC_CH[$WL]}" "$log")
	# Events the kernel did not run our programs for (one already running
	# on that CPU) are lost too: "the kernel skipped N events".
	skipped=$(sum_matches 'skipped [0-9]+ events' "$log")
	if [ -n "$LOST" ]; then
		LOST=$((LOST + skipped))
	elif [ "$skipped" != 0 ]; then
		LOST=$skipped
	else
		LOST=-
	fi
}

cfg_perf_record() {
	local log=$1 pct total
	shift
	on_tracer_cpus timeout "$TIMEOUT" perf record -e "${PERF_EV[$WL]}" \
		-o "$SCRATCH/trace" -- "$@" >"$log" 2>&1 || return
	# perf says "Processed N samples and lost P%!" only when it lost some.
	read -r total pct < <(grep -oE 'Processed [0-9]+ samples and lost [0-9.]+%' "$log" |
		awk '{print $2, $6 + 0}' | tail -1) || true
	LOST=$(awk -v t="${total:-0}" -v p="${pct:-0}" 'BEGIN {printf "%d", t * p / 100 + 0.5}')
}

# trace-cmd 3.1.6 here: "record CMD" fails ("Can't enable ftrace": it
# writes /proc/sys/kernel/ftrace_enabled, which is refused) and without -k
# its reset fails on set_ftrace_filter.  What works: -d -k, in its own
# instance, in the background, filtered to a workload that waits on a FIFO
# until the events are on; then SIGINT.
tc_instance_remove() {
	local d=$TRACEFS/instances/$TC_INSTANCE

	[ -d "$d" ] || return 0
	echo 0 >"$d/events/enable" 2>/dev/null || true
	rmdir "$d" 2>/dev/null || true
}

cfg_trace_cmd() {
	local log=$1 gate=$SCRATCH/gate inst=$TRACEFS/instances/$TC_INSTANCE wpid tpid i rc=0 ev evs=()
	shift
	for ev in ${TC_EV[$WL]}; do
		evs+=(-e "$ev")
	done
	rm -f "$gate"
	mkfifo "$gate"
	# No timeout(1) here: $! must be the workload itself, -P filters on it.
	BENCH_GATE=$gate "$@" >"$log" 2>&1 &
	wpid=$!
	on_tracer_cpus trace-cmd record -B "$TC_INSTANCE" -d -k "${evs[@]}" -P "$wpid" -c \
		-o "$SCRATCH/trace.dat" >"$log.tc" 2>&1 &
	tpid=$!
	BG_PIDS="$wpid $tpid"

	for i in $(seq 100); do
		[ "$(cat "$inst/events/${TC_ON[$WL]}/enable" 2>/dev/null)" = 1 ] && break
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.05
	done
	if ! kill -0 "$tpid" 2>/dev/null || [ "$i" = 100 ]; then
		kill "$wpid" 2>/dev/null || true
		wait "$wpid" "$tpid" 2>/dev/null || true
		BG_PIDS=""
		tail -3 "$log.tc" >>"$log"
		echo "trace-cmd did not start" >>"$log"
		return 1
	fi
	# Events are on; give the per-CPU readers a moment to start splicing.
	sleep 0.3
	timeout 10 sh -c "echo go >'$gate'" || rc="gate not opened by the workload"
	wait "$wpid" || rc="workload failed"
	kill -INT "$tpid" 2>/dev/null || true
	wait "$tpid" || rc="trace-cmd exited with $?"
	BG_PIDS=""
	tc_instance_remove
	cat "$log.tc" >>"$log"
	if [ "$rc" != 0 ]; then
		echo "error: $rc" >>"$log"
		return 1
	fi
	LOST=$(sum_matches '[0-9]+ events lost' "$log.tc")
}

BPFTRACE_PROG='
tracepoint:raw_syscalls:sys_enter /pid == cpid/ {
	printf("E %llu %d %d %d %ld %lx %lx %lx %lx %lx %lx\n", nsecs, cpu, pid, tid,
	       args->id, args->args[0], args->args[1], args->args[2],
	       args->args[3], args->args[4], args->args[5]);
}
tracepoint:raw_syscalls:sys_exit /pid == cpid/ {
	printf("X %llu %d %d %d %ld %ld\n", nsecs, cpu, pid, tid, args->id, args->ret);
}'

cfg_bpftrace() {
	local log=$1
	shift
	# -c takes one string and splits it on spaces: our workload paths have none.
	on_tracer_cpus timeout "$TIMEOUT" bpftrace -o "$SCRATCH/trace" -e "$BPFTRACE_PROG" -c "$*" \
		>"$log" 2>&1 || return
	LOST=$(sum_matches 'Lost [0-9]+ events' "$log" "$SCRATCH/trace")
}

cfg_perf_trace() {
	local log=$1
	shift
	on_tracer_cpus timeout "$TIMEOUT" perf trace -o "$SCRATCH/trace" -- "$@" >"$log" 2>&1 || return
	LOST=$(sum_matches 'LOST [0-9]+ events' "$log" "$SCRATCH/trace")
}

cfg_strace() {
	local log=$1
	shift
	on_tracer_cpus timeout "$TIMEOUT" strace -f -o "$SCRATCH/trace" "$@" >"$log" 2>&1 || return
	LOST=- # ptrace stops the tracee: nothing to lose
}

check_tools() {
	local c

	for c in $CONFIGS; do
		declare -F "cfg_$c" >/dev/null || {
			echo "bench: unknown configuration '$c'" >&2
			exit 2
		}
	done
	if [ "$(id -u)" != 0 ]; then
		for c in bare bare_nil bare_arr gtsc gtsc_rb gtsc_raw gtsc_live gtsc_lz4 gtsc_base perf_record trace_cmd \
			bpftrace perf_trace; do
			NA[$c]=${NA[$c]:-"needs root"}
		done
	fi
	command -v perf >/dev/null || NA[perf_record]="perf not installed" NA[perf_trace]="perf not installed"
	command -v strace >/dev/null || NA[strace]="strace not installed"
	command -v bpftrace >/dev/null || NA[bpftrace]="bpftrace not installed"
	command -v trace-cmd >/dev/null || NA[trace_cmd]="trace-cmd not installed"
	[ -d "$TRACEFS/instances" ] || NA[trace_cmd]=${NA[trace_cmd]:-"no tracefs at $TRACEFS"}
	if [ ! -x ./gtsc-bpf ] || ! ./gtsc-bpf record --help >/dev/null 2>&1; then
		NA[gtsc]="gtsc-bpf record not available yet"
		NA[gtsc_raw]=${NA[gtsc]} NA[gtsc_live]=${NA[gtsc]} NA[gtsc_lz4]=${NA[gtsc]}
	fi
	if [ -z "${BENCH_GTSC_BASE:-}" ]; then
		NA[gtsc_base]="no BENCH_GTSC_BASE"
	elif ! "$BENCH_GTSC_BASE" record --help >/dev/null 2>&1; then
		NA[gtsc_base]="$BENCH_GTSC_BASE record not available"
	fi
}

# ---------------------------------------------------------------- driver --

is_slow() { [[ $SLOW == *" $1 "* ]]; }

# The events a run should produce: those of the warm-up (a tenth) and of
# the timed loop.  Startup syscalls are left out.
expected_events() {
	local iters=$1 wl=$2
	echo $(((iters + iters / 10) * EPI[$wl]))
}

iters_for() {
	local cfg=$1 wl=$2 n=$N_FAST
	is_slow "$cfg" && n=$N_SLOW
	[ "$wl" != pingpong ] || n=$N_PINGPONG
	[ "$wl" != kmem ] || n=$N_KMEM
	echo $((n / SPI[$wl]))
}

# Whether configuration $1 records what workload $2 is measured on.
runs_on() {
	case $2 in
	pingpong) [[ $SCHED_CFGS == *" $1 "* ]] ;;
	kmem) [[ $KMEM_CFGS == *" $1 "* ]] ;;
	*) true ;;
	esac
}

workload_cmd() {
	local wl=$1 iters=$2
	case $wl in
	getppid) echo "$OUT/getppid $iters" ;;
	openread) echo "$OUT/openread $iters $SCRATCH/small.txt" ;;
	pingpong) echo "$OUT/pingpong $iters" ;;
	kmem) echo "$OUT/kmem $iters" ;;
	esac
}

# One run of one workload under one tracer; appends "ns lost iters" to the
# raw file, or the reason to $raw.fail.  A cell with two failures is given up
# (trace-cmd is flaky here); one with no successful run shows as n/a.
measure() {
	local cfg=$1 wl=$2 iters log ns raw why rc

	raw=$OUT/raw/$wl.$cfg
	runs_on "$cfg" "$wl" || return 0
	[ ! -f "$raw.fail" ] || [ "$(wc -l <"$raw.fail")" -lt 2 ] || return 0
	WL=$wl
	iters=$(iters_for "$cfg" "$wl")
	log=$OUT/raw/$wl.$cfg.log
	LOST=-
	# shellcheck disable=SC2046 # the workload command is words on purpose
	if "cfg_$cfg" "$log" $(workload_cmd "$wl" "$iters"); then
		ns=$(grep -oE 'ns_per_iter=[0-9.]+' "$log" | tail -1 | cut -d= -f2) || true
		why="no ns_per_iter in its output"
	else
		rc=$?
		ns=
		# The tool's first complaint, not the harness's "error:" summary.
		why=$(grep -v -e ns_per_iter -e RLIMIT_MEMLOCK -e '^error: ' "$log" |
			grep -iE 'error|fail|not |denied|segm|abort|invalid' | head -2 |
			sed 's/^ *//' | paste -sd ';' | sed 's/;/; /g') || true
		why=${why:-$(grep '^error: ' "$log" | head -1 || true)}
		[ "$rc" != 124 ] || why="timed out after ${TIMEOUT}s"
		[ -n "$why" ] || why="exit status $rc: $(tail -1 "$log")"
	fi
	rm -f "$SCRATCH"/trace*
	if [ -z "$ns" ]; then
		echo "$why" | cut -c1-90 >>"$raw.fail"
		printf '  %-9s %-16s failed: %s\n' "$wl" "${LABEL[$cfg]}" "$why" >&2
		cp "$log" "$log.failed"
		return 0
	fi
	echo "$ns ${LOST:--} $iters" >>"$raw"
	printf '  %-9s %-16s %10.1f ns/iter  lost %s\n' "$wl" "${LABEL[$cfg]}" "$ns" "${LOST:--}" >&2
}

median() {
	sort -g | awk '{ a[NR] = $1 } END {
		if (NR == 0) exit
		printf "%.1f\n", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

minimum() {
	sort -g | head -1
}

# Column $1 of a raw file ("ns lost iters" lines), "-" entries left out.
col() {
	awk -v c="$1" '$c != "-" { print $c }' "$2"
}

# (traced - untraced) / syscalls per iteration, or empty without both.
added() {
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v m="$1" -v b="$2" -v s="$3" 'BEGIN { printf "%.1f", (m - b) / s }'
}

ratio() {
	if [ -z "$1" ] || [ -z "$2" ]; then
		echo -
		return
	fi
	awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { if (b == 0) print "-"; else printf f, a / b }'
}

declare -A ADD ADD_BEST # "$wl.$cfg" -> added ns per syscall: medians, best runs
declare -A SPREAD      # "$wl.$cfg" -> (max - min) / median of ns/iter, in %
NOISY=15               # % spread past which a verdict is called inconclusive

summarize() {
	local wl cfg raw spi base base_best med best add lost lost_s iters runs spread fmt

	fmt='%-9s %-16s %10s %9s %8s %7s %9s %7s %10s  %s\n'
	# shellcheck disable=SC2059 # one format for header and rows
	printf "$fmt" workload tracer ns/iter +ns/call x-untrac x-bare +ns/best spread runs lost
	for wl in $WORKLOADS; do
		spi=${SPI[$wl]}
		base=$(col 1 "$OUT/raw/$wl.untraced" 2>/dev/null | median) || true
		base_best=$(col 1 "$OUT/raw/$wl.untraced" 2>/dev/null | minimum) || true
		for cfg in $CONFIGS; do
			raw=$OUT/raw/$wl.$cfg
			runs_on "$cfg" "$wl" || continue
			if [ -n "${NA[$cfg]:-}" ] || [ ! -s "$raw" ]; then
				printf '%-9s %-16s n/a (%s)\n' "$wl" "${LABEL[$cfg]}" \
					"${NA[$cfg]:-$(tail -1 "$raw.fail" 2>/dev/null || echo 'no runs')}"
				continue
			fi
			med=$(col 1 "$raw" | median)
			best=$(col 1 "$raw" | minimum)
			add=$(added "$med" "$base" "$spi")
			ADD[$wl.$cfg]=$add
			ADD_BEST[$wl.$cfg]=$(added "$best" "$base_best" "$spi")
			SPREAD[$wl.$cfg]=$(col 1 "$raw" | sort -g | awk -v m="$med" 'NR == 1 { lo = $1 }
				{ hi = $1 } END { printf "%.0f", (hi - lo) / m * 100 }')
			spread=${SPREAD[$wl.$cfg]}%
			iters=$(col 3 "$raw" | tail -1)
			runs="$(wc -l <"$raw")x$iters"
			lost=$(col 2 "$raw" | median)
			if [ -z "$lost" ]; then
				lost_s=-
			else
				lost_s=$(awk -v l="$lost" -v e="$(expected_events "$iters" "$wl")" \
					'BEGIN { printf "%.1f%%", l / e * 100 }')
			fi
			[ ! -s "$raw.fail" ] ||
				lost_s="$lost_s ($(wc -l <"$raw.fail") runs failed: $(tail -1 "$raw.fail"))"
			if [ "$cfg" = untraced ]; then
				# shellcheck disable=SC2059
				printf "$fmt" "$wl" "${LABEL[$cfg]}" "$med" - - - - "$spread" "$runs" "$lost_s"
				continue
			fi
			# shellcheck disable=SC2059
			printf "$fmt" "$wl" "${LABEL[$cfg]}" "$med" "${add:-?}" "$(ratio "$med" "$base" %.2f)" \
				"$(ratio "$add" "${ADD[$wl.bare]:-}" %.2f)" "${ADD_BEST[$wl.$cfg]:-?}" \
				"$spread" "$runs" "$lost_s"
		done
	done
}

# One goal line: "what: ratio (best runs: ratio), goal: MET|NOT MET", the
# ratio from medians, the bracketed one from each configuration's best run.
# Runs that spread more than NOISY% make the line say so: a busy machine,
# not gtsc-bpf, may have decided it.
goal() {
	local what=$1 num=$2 den=$3 num_best=$4 den_best=$5 op=$6 limit=$7 cells=$8 r rb c worst=0

	r=$(ratio "$num" "$den" %.2f)
	rb=$(ratio "$num_best" "$den_best" %.2f)
	for c in $cells; do
		[ "${SPREAD[$c]:-0}" -le "$worst" ] || worst=${SPREAD[$c]}
	done
	# An added cost at or below zero (untraced runs slower than traced ones)
	# is noise, not a ratio: never MET.
	echo "$what: ${r}x (best runs: ${rb}x), goal $op ${limit}x:" \
		"$(awk -v r="$r" -v l="$limit" -v op="$op" -v n="$num" -v d="$den" 'BEGIN {
			if (n + 0 <= 0 || d + 0 <= 0) { print "NOT MET (invalid: an added cost <= 0)"; exit }
			ok = (op == "<=") ? r <= l : r >= l; print ok ? "MET" : "NOT MET" }')" \
		"$([ "$worst" -le "$NOISY" ] || echo "(inconclusive: runs spread up to $worst%)")"
}

# "verdict WL: LABEL lost N ..., goal 0": the worst run's count, so that
# one lossy run of five is not hidden by a median.
zero_loss() {
	local wl=$1 cfg=$2 raw=$OUT/raw/$1.$2 n

	if [ ! -s "$raw" ]; then
		echo "verdict $wl: ${LABEL[$cfg]} losses n/a (no runs)"
		return
	fi
	n=$(awk '$2 != "-" && $2 + 0 > m { m = $2 + 0 } END { print m + 0 }' "$raw")
	echo "verdict $wl: ${LABEL[$cfg]} lost $n events in its worst of $(wc -l <"$raw") runs," \
		"goal 0: $([ "$n" = 0 ] && echo MET || echo 'NOT MET')"
}

# Issue 13: with captures on, <= 0.67x trace-cmd and <= 1.1x the bare
# recorder in added ns per call (kmem: per iteration), and nothing lost.
goal13() {
	local wl=$1 g=${ADD[$1.gtsc]} t=${ADD[$1.trace_cmd]:-} b=${ADD[$1.bare]:-}

	if [ -n "$t" ]; then
		goal "verdict $wl: gtsc-bpf +$g / trace-cmd +$t" "$g" "$t" \
			"${ADD_BEST[$wl.gtsc]}" "${ADD_BEST[$wl.trace_cmd]}" "<=" 0.67 \
			"$wl.untraced $wl.gtsc $wl.trace_cmd"
	else
		echo "verdict $wl: trace-cmd n/a, no comparison"
	fi
	if [ -n "$b" ]; then
		goal "verdict $wl: gtsc-bpf +$g / bare BPF +$b" "$g" "$b" \
			"${ADD_BEST[$wl.gtsc]}" "${ADD_BEST[$wl.bare]}" "<=" 1.1 \
			"$wl.untraced $wl.gtsc $wl.bare"
	else
		echo "verdict $wl: bare BPF n/a, no floor to compare with"
	fi
	zero_loss "$wl" gtsc
}

# Not goals: what the attach floor and the array-ring prototype measured.
levers() {
	local wl=$1 n=${ADD[$1.bare_nil]:-} a=${ADD[$1.bare_arr]:-} b=${ADD[$1.bare]:-}

	gtsc_ring_levers "$wl"
	[ -n "$b" ] || return 0
	[ -z "$n" ] || echo "lever $wl: attach floor (empty programs) +$n of bare BPF's +$b" \
		"($(ratio "$n" "$b" %.2f)x)"
	[ -z "$a" ] || echo "lever $wl: array ring +$a / ring buffer +$b: $(ratio "$a" "$b" %.2f)x" \
		"(best runs: $(ratio "${ADD_BEST[$wl.bare_arr]}" "${ADD_BEST[$wl.bare]}" %.2f)x)," \
		"$(lost_of "$wl" bare_arr) lost"
}

# gtsc-bpf's default (array rings) against the same on its ring buffer.
gtsc_ring_levers() {
	local wl=$1 r=${ADD[$1.gtsc_rb]:-} g=${ADD[$1.gtsc]:-}

	[ -n "$r" ] && [ -n "$g" ] || return 0
	echo "lever $wl: gtsc array ring (default) +$g / gtsc ring buffer +$r:" \
		"$(ratio "$g" "$r" %.2f)x (best runs: $(ratio "${ADD_BEST[$wl.gtsc]}" \
		"${ADD_BEST[$wl.gtsc_rb]}" %.2f)x), $(lost_of "$wl" gtsc_rb) lost on the ring buffer"
}

lost_of() {
	awk '$2 != "-" && $2 + 0 > m { m = $2 + 0 } END { print m + 0 }' "$OUT/raw/$1.$2" 2>/dev/null ||
		echo "?"
}

verdict() {
	local wl g b p f t

	echo
	for wl in $WORKLOADS; do
		g=${ADD[$wl.gtsc]:-}
		b=${ADD[$wl.bare]:-}
		p=${ADD[$wl.perf_trace]:-}
		if [ -z "$g" ]; then
			echo "verdict $wl: gtsc-bpf n/a (${NA[gtsc]:-$(tail -1 "$OUT/raw/$wl.gtsc.fail" 2>/dev/null ||
				echo "not in this run")})"
			continue
		fi
		if [ "$wl" = pingpong ]; then # sched_switch by name: at or below trace-cmd's cost
			t=${ADD[$wl.trace_cmd]:-}
			if [ -n "$t" ]; then
				goal "verdict $wl: gtsc-bpf +$g ns/switch / trace-cmd +$t" "$g" "$t" \
					"${ADD_BEST[$wl.gtsc]}" "${ADD_BEST[$wl.trace_cmd]}" "<=" 1.0 \
					"$wl.untraced $wl.gtsc $wl.trace_cmd"
			else
				echo "verdict $wl: trace-cmd n/a, no comparison"
			fi
			zero_loss "$wl" gtsc
			continue
		fi
		if [ "$wl" != kmem ]; then
			# Issue 2's floor goal, with the same records: gtsc --no-capture when it ran.
			f=gtsc
			[ -n "${ADD[$wl.gtsc_raw]:-}" ] && f=gtsc_raw
			if [ -n "$b" ]; then
				goal "verdict $wl: ${LABEL[$f]} +${ADD[$wl.$f]} ns/call / bare BPF +$b" \
					"${ADD[$wl.$f]}" "$b" "${ADD_BEST[$wl.$f]}" "${ADD_BEST[$wl.bare]}" \
					"<=" 1.3 "$wl.untraced $wl.bare $wl.$f"
			fi
			if [ -n "$p" ]; then
				goal "verdict $wl: perf trace +$p ns/call / gtsc-bpf +$g" "$p" "$g" \
					"${ADD_BEST[$wl.perf_trace]}" "${ADD_BEST[$wl.gtsc]}" ">=" 10 \
					"$wl.untraced $wl.gtsc"
			else
				echo "verdict $wl: perf trace n/a, no comparison"
			fi
		fi
		goal13 "$wl"
		levers "$wl"
	done
}

# --------------------------------------------------------------- budget --
#
# One more run of each BPF configuration with kernel.bpf_stats_enabled=1:
# the programs' run_time_ns and run_cnt (bpftool), sampled every 0.25 s
# while the workload runs, first sample to last.  Programs are found by id
# in the recorder's fdinfo, so other sessions on the same hooks are left
# out; but a program runs for every task's events, and the other tasks'
# (filtered out early) are in its average: "share" estimates the workload's
# part from its own rate.  Not timed: the statistics add two clock reads to
# every program run.

BUDGET_CFGS="bare_nil bare bare_arr gtsc_raw gtsc gtsc_rb"
declare -A HOOK_RE=([getppid]='sys_en|sys_ex' [openread]='sys_en|sys_ex'
	[kmem]='kmalloc|kfree|cache_al|cache_fr|page_al|page_fr')
declare -A INPROG INPROG_ROW # "$wl.$cfg" -> ns per event in the programs; its table row
STATS_WAS=                   # the sysctl's value before the pass, restored after

# The ids of the BPF programs that processes $@ hold, as programs or links.
prog_ids() {
	local p

	for p in "$@"; do
		grep -hs '^prog_id:' /proc/"$p"/fdinfo/* | awk '{ print $2 }'
	done | sort -un | paste -sd' '
}

# Until killed: "t_ns id name run_time_ns run_cnt" lines into $1 for every
# program of the recorder (its command line names $SCRATCH/trace).
stats_sampler() {
	local out=$1 ids
	set +e # a recorder not started yet, or gone, is no error here
	# shellcheck disable=SC2046 # pids are words
	while :; do
		ids=$(prog_ids $(pgrep -f "$SCRATCH/trace"))
		[ -z "$ids" ] || bpftool -j prog show 2>/dev/null | jq -r --arg ids " $ids " \
			--arg t "$(date +%s%N)" '.[] | .id as $i | select($ids | contains(" \($i) ")) |
			"\($t) \(.id) \(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"' >>"$out"
		sleep 0.25
	done
}

stats_run() {
	local cfg=$1 wl=$2 iters log samples spid nsi

	WL=$wl
	iters=$(iters_for "$cfg" "$wl")
	log=$OUT/raw/$wl.$cfg.stats.log
	samples=$OUT/raw/$wl.$cfg.stats
	: >"$samples"
	stats_sampler "$samples" &
	spid=$!
	[ -z "$TRACER_CPUS" ] || taskset -apc "$TRACER_CPUS" "$spid" >/dev/null
	BG_PIDS=$spid
	LOST=-
	# One session alone is the head of the syscall dispatch
	# (doc/notes/sessions-dispatch.md): its own programs, attached, their
	# runs its own (the word read for the chain included).
	# shellcheck disable=SC2046 # the workload command is words on purpose
	"cfg_$cfg" "$log" $(workload_cmd "$wl" "$iters") || true
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	BG_PIDS=""
	rm -f "$SCRATCH"/trace*
	nsi=$(grep -oE 'ns_per_iter=[0-9.]+' "$log" | tail -1 | cut -d= -f2) || true
	# Per program its first and last sample; summed over the hook's programs.
	# Events are the first programs' runs: gtsc's rescue programs (_r, _r2)
	# run for the same events, and averaging over every run hid them (the
	# kmem budget read ~1,541 ns an iteration, a third of what ran).
	INPROG_ROW[$wl.$cfg]=$(awk -v re="${HOOK_RE[$wl]}" -v nsi="${nsi:-0}" -v epi="${EPI[$wl]}" \
		-v unit=$((EPI[$wl] / SPI[$wl])) '$3 ~ re {
			if (!($2 in t0)) { t0[$2] = $1; r0[$2] = $4; c0[$2] = $5; rescue[$2] = $3 ~ /_r2?$/ }
			t1[$2] = $1; r1[$2] = $4; c1[$2] = $5
		} END {
			for (id in t0) { rt += r1[id] - r0[id]; runs += c1[id] - c0[id]
				if (rescue[id]) rrt += r1[id] - r0[id]; else ev += c1[id] - c0[id]
				if (t1[id] - t0[id] > win) win = t1[id] - t0[id] }
			if (ev <= 0) exit
			share = nsi > 0 ? win / nsi * epi / ev * 100 : 0
			if (share > 100)
				share = 100
			printf "%.1f %.1f %d %.0f %.1f %.1f\n", rt / ev, rt / ev * unit, ev, share, runs / ev,
				rrt / ev * unit
		}' "$samples")
	INPROG[$wl.$cfg]=$(echo "${INPROG_ROW[$wl.$cfg]}" | cut -d' ' -f1)
	printf '  %-9s %-16s %s ns per event in its programs (stats)\n' "$wl" "${LABEL[$cfg]}" \
		"${INPROG[$wl.$cfg]:-?}" >&2
}

budget_pass() {
	local wl cfg

	[ "$(id -u)" = 0 ] && command -v bpftool >/dev/null && command -v jq >/dev/null || return 0
	STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled) || return 0
	sysctl -qw kernel.bpf_stats_enabled=1 || return 0
	echo "bench: bpf_stats pass" >&2
	for wl in $WORKLOADS; do
		[ -n "${HOOK_RE[$wl]:-}" ] || continue
		for cfg in $BUDGET_CFGS; do
			[[ " $CONFIGS " == *" $cfg "* ]] && [ -z "${NA[$cfg]:-}" ] || continue
			runs_on "$cfg" "$wl" || continue
			stats_run "$cfg" "$wl"
		done
	done
	stats_restore
}

stats_restore() {
	[ -z "$STATS_WAS" ] || sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS" || true
	STATS_WAS=
}

# a - b, or "?" when either is missing.
minus() {
	[ -n "$1" ] && [ -n "$2" ] || {
		echo "?"
		return
	}
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'
}

# ns inside the programs per call (per iteration for kmem), or empty.
inprog_call() {
	awk -v v="${INPROG[$1.$2]:-}" -v u=$((EPI[$1] / SPI[$1])) \
		'BEGIN { if (v != "") printf "%.1f", v * u }'
}

# "IN/ADDED" for the part of the budget between configurations $2 and $3
# (or from nothing, $3 empty): inside the programs, and end to end.
part() {
	local wl=$1 hi=$2 lo=${3:-}

	if [ -z "$lo" ]; then
		echo "$(inprog_call "$wl" "$hi")/${ADD[$wl.$hi]:-?}" | sed 's|^/|?/|'
	else
		echo "$(minus "$(inprog_call "$wl" "$hi")" "$(inprog_call "$wl" "$lo")")/$(minus \
			"${ADD[$wl.$hi]:-}" "${ADD[$wl.$lo]:-}")"
	fi
}

# gtsc-bpf's rescue programs (kmem.bpf.c) for workload $1, when it ran any:
# ns in them per call, and the attach floors they add end to end (each is
# one more program the hook calls, priced as bare_nil's).
rescue_note() {
	local wl=$1 row progs rin floor nil

	row=${INPROG_ROW[$wl.gtsc]:-}
	[ -n "$row" ] || return 0
	progs=$(echo "$row" | cut -d' ' -f5)
	rin=$(echo "$row" | cut -d' ' -f6)
	awk -v p="$progs" 'BEGIN { exit !(p > 1.05) }' || return 0
	# The empty programs' in-program time is mostly the statistics' own clock reads.
	nil=$(awk -v f="$(inprog_call "$wl" bare_nil)" -v p="$progs" \
		'BEGIN { if (f != "") printf "%.1f", f * (p - 1); else print "?" }')
	floor=$(awk -v f="${ADD[$wl.bare_nil]:-}" -v p="$progs" \
		'BEGIN { if (f != "") printf "%.1f", f * (p - 1); else print "?" }')
	echo "rescue $wl: gtsc-bpf runs $progs programs an event; per" \
		"$([ "$wl" = kmem ] && echo iteration || echo call) its rescue programs take $rin ns in" \
		"programs (empty ones: $nil) and their attach floors add ~$floor end to end"
}

# The budget: per workload the table of in-program costs, then floor,
# record, filter and capture, inside the programs and added end to end.
budget() {
	local wl cfg row f

	[ -n "${INPROG_ROW[*]+x}" ] || return 0 # none with BENCH_BUDGET=0 (set -u: no ${#...})
	echo
	echo "inside the programs (kernel.bpf_stats_enabled; run_time_ns over the hook's programs per"
	echo "event, the first programs' run_cnt, while the workload ran; share: the workload's events"
	echo "among those, estimated from its rate; ns/call: enter + exit per syscall, for kmem the 9"
	echo "events of an iteration; progs/ev: programs run per event, each one more attach floor:"
	echo "gtsc-bpf's kmem rescue programs, kmem.bpf.c, are two)"
	printf '%-9s %-16s %9s %9s %10s %6s %8s\n' workload tracer ns/event ns/call events share \
		progs/ev
	for wl in $WORKLOADS; do
		for cfg in $BUDGET_CFGS; do
			row=${INPROG_ROW[$wl.$cfg]:-}
			[ -n "$row" ] || continue
			# shellcheck disable=SC2086 # five numbers (the sixth is rescue_note's)
			printf '%-9s %-16s %9s %9s %10s %5s%% %8s\n' "$wl" "${LABEL[$cfg]}" \
				$(echo "$row" | cut -d' ' -f1-5)
		done
	done
	for wl in $WORKLOADS; do
		[ -n "${INPROG_ROW[$wl.bare]:-}" ] || continue
		# gtsc's filter, counters and wakeup policy: against the same records.
		f=gtsc_raw
		[ "$wl" != kmem ] || f=gtsc
		echo "budget $wl per $([ "$wl" = kmem ] && echo iteration || echo call)," \
			"ns in programs/added end to end: floor (empty programs) $(part "$wl" bare_nil)," \
			"record (bare) $(part "$wl" bare bare_nil), filter+counters (gtsc)" \
			"$(part "$wl" $f bare)$([ "$wl" = kmem ] ||
				echo ", capture $(part "$wl" gtsc gtsc_raw)")"
		rescue_note "$wl"
		[ -z "${INPROG[$wl.bare_arr]:-}" ] ||
			echo "lever $wl: array ring $(inprog_call "$wl" bare_arr) / ring buffer" \
				"$(inprog_call "$wl" bare) ns in programs:" \
				"$(ratio "$(inprog_call "$wl" bare_arr)" "$(inprog_call "$wl" bare)" %.2f)x"
		[ -z "${INPROG[$wl.gtsc_rb]:-}" ] || [ -z "${INPROG[$wl.gtsc]:-}" ] ||
			echo "lever $wl: gtsc array ring (default) $(inprog_call "$wl" gtsc) / gtsc ring buffer" \
				"$(inprog_call "$wl" gtsc_rb) ns in programs:" \
				"$(ratio "$(inprog_call "$wl" gtsc)" "$(inprog_call "$wl" gtsc_rb)" %.2f)x"
	done
}

main() {
	local round cfg wl start load0 stats0

	# Other work on a 2-CPU machine shows up in every number: say how much.
	load0=$(cut -d' ' -f1 /proc/loadavg)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	[ -d "$TRACEFS/events" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null || true

	build
	check_tools
	# Trace files can reach hundreds of MB per run: keep them in memory, off
	# the disk, so writeback never competes with a run.
	if [ -n "${BENCH_TMP:-}" ]; then
		SCRATCH=$(mktemp -d "$BENCH_TMP/gtsc-bench.XXXXXX")
	elif [ -d /dev/shm ]; then
		SCRATCH=$(mktemp -d /dev/shm/gtsc-bench.XXXXXX)
	else
		SCRATCH=$(mktemp -d "$OUT/tmp.XXXXXX")
	fi
	head -c 200 /dev/urandom | base64 >"$SCRATCH/small.txt"
	rm -rf "$OUT/raw"
	mkdir -p "$OUT/raw"

	start=$(date +%s)
	echo "bench: $RUNS runs x $N_FAST syscalls (slow tracers: $SLOW_RUNS x $N_SLOW)," \
		"workload on CPU ${BENCH_CPU:-any}, tracers on CPU ${TRACER_CPUS:-any}" >&2
	for round in $(seq "$RUNS"); do
		echo "bench: round $round/$RUNS" >&2
		for wl in $WORKLOADS; do
			for cfg in $CONFIGS; do
				[ -z "${NA[$cfg]:-}" ] || continue
				if is_slow "$cfg" && [ "$round" -gt "$SLOW_RUNS" ]; then
					continue
				fi
				measure "$cfg" "$wl"
			done
		done
	done
	stats0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo "?")
	[ "${BENCH_BUDGET:-1}" = 0 ] || budget_pass
	# Issue 13's eight sessions against one: its own table.
	: >"$OUT/sessions.txt"
	if [ "${BENCH_SESSIONS:-1}" != 0 ] && [ -z "${NA[gtsc]:-}" ] && [ "$(id -u)" = 0 ]; then
		echo "bench: sessions" >&2
		bench/sessions.sh --goal >"$OUT/sessions.txt" || echo "bench: sessions.sh did not finish" >&2
	fi

	{
		echo "gtsc-bpf bench $(date -u +%FT%TZ), kernel $(uname -r), $NCPU CPUs," \
			"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
		echo "median of runs; workload pinned to CPU ${BENCH_CPU:-any}, tracers to ${TRACER_CPUS:-any}"
		echo "ns/iter: one loop iteration (getppid: 1 syscall; openread: openat+read+close = 3;"
		echo "  kmem: close(eventfd()), 9 kmem events; pingpong: one context switch)"
		echo "+ns/call: added ns per syscall (enter+exit recorded; kmem: per iteration, pingpong:"
		echo "  per switch); x-bare: +ns/call over bare BPF's"
		echo "+ns/best: +ns/call from each configuration's fastest run against untraced's fastest"
		echo "spread: (max-min)/median of ns/iter; lost: events the tool reported lost, % of expected"
		echo "  (gtsc-bpf: dropped + overwritten + the kernel's skipped events; median of runs)"
		echo "load average: $load0 before, $(cut -d' ' -f1 /proc/loadavg) after (anything near" \
			"or above 1 means other work shared the CPUs: trust +ns/best more)"
		echo "kernel.bpf_stats_enabled was $stats0 during the timed runs (1 adds two clock reads" \
			"to every BPF program run)"
		echo
		summarize
		verdict
		budget
		[ ! -s "$OUT/sessions.txt" ] || { echo; cat "$OUT/sessions.txt"; }
		echo
		echo "bench time: $(($(date +%s) - start)) s"
	} | tee "$OUT/results.txt"
	# Bytes per event on disk, next to trace-cmd and perf record: its own table.
	[ "${BENCH_SIZE:-1}" = 0 ] || bench/size.sh || echo "bench: size.sh did not finish" >&2
}

main "$@"
