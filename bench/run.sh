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
# Nothing here fails the build: a tracer that is missing or fails shows as
# "n/a (reason)".  The table also goes to $OUTPUT/bench/results.txt.
#
# Knobs (environment):
#   BENCH_RUNS=5          runs per cell, fast tracers
#   BENCH_SLOW_RUNS=3     runs per cell, strace / perf trace / bpftrace
#   BENCH_N=2000000       syscalls per run, fast tracers
#   BENCH_N_SLOW=50000    syscalls per run, slow tracers (results are per call)
#   BENCH_ONLY="untraced bare gtsc"   a subset of the configurations (gtsc_lz4, not in
#                         the default set: gtsc-bpf with format 1.1's codec)
#   BENCH_GTSC_OPTS="--compress=zlib" more options for gtsc-bpf record
#   BENCH_TMP=dir         where trace files go (default: a dir in /dev/shm)
#   BENCH_SIZE=0          skip bench/size.sh (bytes per event), run at the end
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUTPUT:-.output}/bench
RUNS=${BENCH_RUNS:-5}
SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
N_FAST=${BENCH_N:-2000000}
N_SLOW=${BENCH_N_SLOW:-50000}
TIMEOUT=${BENCH_TIMEOUT:-180}

WORKLOADS=${BENCH_WORKLOADS:-"getppid openread pingpong"}
# Events per iteration: syscalls for getppid/openread, context switches for
# pingpong (its ns_per_iter is per switch), so +ns/call reads "per event".
declare -A SPI=([getppid]=1 [openread]=3 [pingpong]=1)
# What each tracer records for a workload: raw syscalls, or sched_switch
# (issue 11's ping-pong: the cost of a tracepoint recorded by name).
declare -A GTSC_EV=([getppid]=syscalls [openread]=syscalls [pingpong]=sched:sched_switch)
declare -A GTSC_CH=([getppid]=syscalls [openread]=syscalls [pingpong]=events)
declare -A PERF_EV=([getppid]=raw_syscalls:sys_enter,raw_syscalls:sys_exit
	[openread]=raw_syscalls:sys_enter,raw_syscalls:sys_exit [pingpong]=sched:sched_switch)
declare -A TC_EV=([getppid]=raw_syscalls [openread]=raw_syscalls [pingpong]=sched:sched_switch)
declare -A TC_ON=([getppid]=raw_syscalls/sys_exit [openread]=raw_syscalls/sys_exit
	[pingpong]=sched/sched_switch)
# Tracers that record sched_switch too; the rest are syscall tracers only.
SCHED_CFGS=" untraced gtsc perf_record trace_cmd "
N_PINGPONG=${BENCH_N_PINGPONG:-200000} # round trips: ~2 s a run at ~5 us a switch
WL=getppid # the workload being measured (set by measure)

CONFIGS=${BENCH_ONLY:-"untraced bare gtsc_raw gtsc gtsc_lz4 gtsc_live perf_record trace_cmd bpftrace perf_trace strace"}
SLOW=" bpftrace perf_trace strace "
declare -A LABEL=([untraced]=untraced [bare]="bare BPF" [gtsc]=gtsc-bpf [gtsc_raw]="gtsc no-capture"
	[gtsc_live]="gtsc live" [gtsc_lz4]="gtsc lz4"
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
	elif ! { clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ivmlinux/x86 -Iinclude \
		-c bench/bare/bare.bpf.c -o "$bpfo" &&
		bpftool gen skeleton "$bpfo" name bare_bpf >"$OUT/bare.skel.h" &&
		cc -O2 -g -Wall -Wextra -Iinclude -I"$OUT" bench/bare/bare.c \
			-lbpf -lelf -lz -o "$OUT/bare"; } >"$OUT/bare.build.log" 2>&1; then
		NA[bare]="build failed, see $OUT/bare.build.log"
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
	on_tracer_cpus timeout "$TIMEOUT" "$OUT/bare" -o "$SCRATCH/trace" -- "$@" >"$log" 2>&1 || return
	LOST=$(sum_matches 'dropped=[0-9]+' "$log")
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

cfg_gtsc() {
	local log=$1
	shift
	if [ -n "${BENCH_LIVE_OUT:-}" ]; then # --live's lines there, the summary in the log
		on_tracer_cpus timeout "$TIMEOUT" ./gtsc-bpf record -e "${GTSC_EV[$WL]}" ${BENCH_GTSC_OPTS:-} \
			-o "$SCRATCH/trace" -- "$@" >"$BENCH_LIVE_OUT" 2>"$log" || return
	else
		on_tracer_cpus timeout "$TIMEOUT" ./gtsc-bpf record -e "${GTSC_EV[$WL]}" ${BENCH_GTSC_OPTS:-} \
			-o "$SCRATCH/trace" -- "$@" >"$log" 2>&1 || return
	fi
	# Its summary is a table with a header row ("channel ... dropped
	# [overwritten]") and one row per channel; the workload's is ours.
	# Columns are found by name: the table has grown columns before.
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
	[ -n "$LOST" ] || LOST=-
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
	local log=$1 gate=$SCRATCH/gate inst=$TRACEFS/instances/$TC_INSTANCE wpid tpid i rc=0
	shift
	rm -f "$gate"
	mkfifo "$gate"
	# No timeout(1) here: $! must be the workload itself, -P filters on it.
	BENCH_GATE=$gate "$@" >"$log" 2>&1 &
	wpid=$!
	on_tracer_cpus trace-cmd record -B "$TC_INSTANCE" -d -k -e "${TC_EV[$WL]}" -P "$wpid" -c \
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
		for c in bare gtsc gtsc_raw gtsc_live gtsc_lz4 perf_record trace_cmd bpftrace perf_trace; do
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
}

# ---------------------------------------------------------------- driver --

is_slow() { [[ $SLOW == *" $1 "* ]]; }

# The events a run should produce: enter + exit for every syscall of the
# warm-up (a tenth) and the timed loop.  Startup syscalls are left out.
expected_events() {
	local iters=$1 wl=$2
	echo $((2 * (iters + iters / 10) * SPI[$wl]))
}

iters_for() {
	local cfg=$1 wl=$2 n=$N_FAST
	is_slow "$cfg" && n=$N_SLOW
	[ "$wl" != pingpong ] || n=$N_PINGPONG
	echo $((n / SPI[$wl]))
}

workload_cmd() {
	local wl=$1 iters=$2
	case $wl in
	getppid) echo "$OUT/getppid $iters" ;;
	openread) echo "$OUT/openread $iters $SCRATCH/small.txt" ;;
	pingpong) echo "$OUT/pingpong $iters" ;;
	esac
}

# One run of one workload under one tracer; appends "ns lost iters" to the
# raw file, or the reason to $raw.fail.  A cell with two failures is given up
# (trace-cmd is flaky here); one with no successful run shows as n/a.
measure() {
	local cfg=$1 wl=$2 iters log ns raw why rc

	raw=$OUT/raw/$wl.$cfg
	[ "$wl" != pingpong ] || [[ $SCHED_CFGS == *" $cfg "* ]] || return 0
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
			[ "$wl" != pingpong ] || [[ $SCHED_CFGS == *" $cfg "* ]] || continue
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
	echo "$what: ${r}x (best runs: ${rb}x), goal $op ${limit}x:" \
		"$(awk -v r="$r" -v l="$limit" -v op="$op" 'BEGIN {
			ok = (op == "<=") ? r <= l : r >= l; print ok ? "MET" : "NOT MET" }')" \
		"$([ "$worst" -le "$NOISY" ] || echo "(inconclusive: runs spread up to $worst%)")"
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
			continue
		fi
		# Against the floor with the same records: gtsc --no-capture when it ran.
		f=gtsc
		[ -n "${ADD[$wl.gtsc_raw]:-}" ] && f=gtsc_raw
		if [ -n "$b" ]; then
			goal "verdict $wl: ${LABEL[$f]} +${ADD[$wl.$f]} ns/call / bare BPF +$b" "${ADD[$wl.$f]}" "$b" \
				"${ADD_BEST[$wl.$f]}" "${ADD_BEST[$wl.bare]}" "<=" 1.3 \
				"$wl.untraced $wl.bare $wl.$f"
		else
			echo "verdict $wl: bare BPF n/a, no floor to compare with"
		fi
		if [ -n "$p" ]; then
			goal "verdict $wl: perf trace +$p ns/call / gtsc-bpf +$g" "$p" "$g" \
				"${ADD_BEST[$wl.perf_trace]}" "${ADD_BEST[$wl.gtsc]}" ">=" 10 \
				"$wl.untraced $wl.gtsc"
		else
			echo "verdict $wl: perf trace n/a, no comparison"
		fi
	done
}

main() {
	local round cfg wl start load0

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

	{
		echo "gtsc-bpf bench $(date -u +%FT%TZ), kernel $(uname -r), $NCPU CPUs," \
			"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
		echo "median of runs; workload pinned to CPU ${BENCH_CPU:-any}, tracers to ${TRACER_CPUS:-any}"
		echo "ns/iter: one loop iteration (getppid: 1 syscall; openread: openat+read+close = 3)"
		echo "+ns/call: added ns per syscall (enter+exit recorded); x-bare: +ns/call over bare BPF's"
		echo "+ns/best: +ns/call from each configuration's fastest run against untraced's fastest"
		echo "spread: (max-min)/median of ns/iter; lost: events the tool reported lost, % of expected"
		echo "load average: $load0 before, $(cut -d' ' -f1 /proc/loadavg) after (anything near" \
			"or above 1 means other work shared the CPUs: trust +ns/best more)"
		echo
		summarize
		verdict
		echo
		echo "bench time: $(($(date +%s) - start)) s"
	} | tee "$OUT/results.txt"
	# Bytes per event on disk, next to trace-cmd and perf record: its own table.
	[ "${BENCH_SIZE:-1}" = 0 ] || bench/size.sh || echo "bench: size.sh did not finish" >&2
}

main "$@"
