#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Any tracepoint by name (-e GROUP:NAME), perf as the oracle: one run of
# pingpong.c (N pipe round trips between two processes, S signals it sends
# itself, an exec) is recorded system-wide by
# `gtsc-bpf record -e sched:sched_switch,signal:signal_generate,sched:sched_process_exec -a`
# and by `perf record` of the same events (filtered to the workload's pids
# in the kernel) at the same time.  For the workload's pids, both tools'
# lines "TID EVENT: FIELDS" (perf script's trace text, gtsc report's
# text) are the same multiset: equal counts per event and equal decoded
# fields (prev_comm, next_pid, prev_state; sig, result; filename).  A run
# in which a tool lost events is retried, up to three runs.  Then: `sched:*`
# records the set the kernel has, unknown and missing tracepoints give their
# sentences, -- CMD and -C keep to the workload, and the JSON is typed.
. "$(dirname "$0")/lib.sh"

T=tracepoints
ROUNDS=200
SIGS=7
EVENTS=sched:sched_switch,signal:signal_generate,sched:sched_process_exec

# gtsc_lines TRACE PID...: "TID EVENT: FIELDS" of those pids' tracepoint lines, sorted.
gtsc_lines() {
	local trace=$1 re
	shift
	re=$(echo "$@" | tr ' ' '|')
	"$GTSC" report -i "$trace" |
		sed -nE 's/^ *[0-9.]+ \[[0-9]+\] [^ ]*\/([0-9]+)(:([0-9]+))? (sched_switch|signal_generate|sched_process_exec): (.*)$/\1 \3 \4: \5/p' |
		awk -v re="^($re)\$" '{ tid = $2 ~ /^[0-9]+$/ ? $2 : $1; if ($1 !~ re) next
			$1 = ""; if ($2 == tid) $2 = ""; sub(/^ +/, ""); print tid, $0 }' | sort
}

perf_lines() {
	perf_once "$1" tid,cpu,time,event,trace |
		sed -nE 's/^ *([0-9]+) +\[[0-9]+\] +[0-9.]+: +[a-z_]+:([a-z_]+): +(.*)$/\1 \2: \3/p' | sort
}

one_run() {
	local d=$1 job gpid filter ack="" ok=0
	mkdir -p "$d"
	mkfifo "$d/go" "$d/ctl" "$d/ack"
	"$WORKLOADS/pingpong" $ROUNDS $SIGS < "$d/go" > "$d/pid" &
	job=$!
	exec 3> "$d/go"
	wait_for "$d/pid" "pid=" 5
	wpid=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$d/pid")
	cpid=$(sed -n 's/.*child=//p' "$d/pid")
	filter="common_pid == $wpid || common_pid == $cpid"
	perf record -q -a -m 16M -D -1 --control "fifo:$d/ctl,$d/ack" \
		-e sched:sched_switch --filter "$filter" -e signal:signal_generate --filter "$filter" \
		-e sched:sched_process_exec --filter "$filter" -o "$d/perf.data" > "$d/perf.out" 2>&1 &
	perf_pid=$!
	"$GTSC" record -e $EVENTS -a -o "$d/g.gtsc" 2> "$d/gtsc.err" &
	gpid=$!
	if wait_for "$d/gtsc.err" "recording" "$REC_WAIT"; then
		echo enable > "$d/ctl"
		read -r -t 10 ack < "$d/ack"
	fi
	if [ "$ack" = ack ]; then
		ok=1
		echo g >&3
		wait $job
	fi
	exec 3>&-
	[ $ok = 1 ] || kill $job 2> /dev/null
	sleep 0.2 # the exec'd image's last switch
	kill -INT $perf_pid $gpid 2> /dev/null
	wait $perf_pid $gpid
	return $((1 - ok))
}

perf_oracle() {
	local run d
	for run in 1 2 3; do
		d=$TEST_TMP/run$run
		if ! one_run "$d"; then
			fail $T/perf-record "a recorder did not start: $(head -c 200 "$d/gtsc.err") $(head -c 200 "$d/perf.out")"
			return
		fi
		perf_lines "$d/perf.data" > "$d/perf.lines"
		gtsc_lines "$d/g.gtsc" $wpid $cpid > "$d/gtsc.lines"
		cmp -s "$d/perf.lines" "$d/gtsc.lines" && break
		echo "# run $run: $(diff "$d/perf.lines" "$d/gtsc.lines" | grep -c '^[<>]') lines differ; $(grep -i lost "$d/perf.out" | head -c 100)"
	done
	pass $T/perf-record
	for ev in sched_switch signal_generate sched_process_exec; do
		p=$(count_lines "$d/perf.lines" " $ev: ")
		g=$(count_lines "$d/gtsc.lines" " $ev: ")
		echo "# $ev: perf $p gtsc $g"
		check_expr $T/count-$ev "perf has $p $ev events of the workload, gtsc $g" '[ "$p" = "$g" ] && [ "$g" -gt 0 ]'
	done
	check $T/fields "decoded fields differ (< perf > gtsc): $(diff "$d/perf.lines" "$d/gtsc.lines" | grep '^[<>]' | head -4 | tr '\n' ';')" \
		cmp -s "$d/perf.lines" "$d/gtsc.lines"
	# the workload's own numbers: on one CPU each round switches to the child and
	# back (blocked or preempted), SIGS signals, one exec
	sw=$(count_lines "$d/gtsc.lines" " sched_switch: prev_comm=pingpong ")
	check_expr $T/workload-switches "$sw switches for $ROUNDS rounds" '[ "$sw" -ge $((2 * ROUNDS)) ]'
	n=$(count_lines "$d/gtsc.lines" "$wpid signal_generate: sig=10 " "pid=$wpid " "res=0")
	check $T/workload-signals "$n SIGUSR1 of $wpid, $SIGS sent" [ "$n" = $SIGS ]
	n=$(count_lines "$d/gtsc.lines" "$wpid sched_process_exec: filename=/proc/self/exe pid=$wpid")
	check $T/workload-exec "$n execs of /proc/self/exe by $wpid" [ "$n" = 1 ]
}

if command -v perf > /dev/null 2>&1; then
	perf_oracle
else
	echo "SKIP live/$T/perf-oracle: perf not installed"
fi

# Syscall events built from raw_syscalls (tracepoint.bpf.c, where the feature
# syscall_tp_classic is no: 7.x) are the entries the classic program copies:
# the same report and report --json, line for line, of one deterministic run
# recorded once each way: storm.c with address randomization off and an
# empty environment (the same registers in raw_syscalls:sys_enter's args),
# recorded by pid (-p: tp_btf off, which forces the classic program on 7.x,
# takes the task source and with it -- CMD's comm) from its blocking read
# on: sys_exit_read, 5 getppid, exit_group.  As multisets: a call's
# raw_syscalls and syscalls lines come in either order.  Only pids differ:
# getppid's return (the test's shell) and nothing else.
SYSEV=syscalls:sys_enter_getppid,syscalls:sys_exit_getppid,raw_syscalls:sys_enter,raw_syscalls:sys_exit,syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_exit_group

# sys_run DIR [FEATURES_OFF]: DIR/{txt,json}, the storm's lines with its pids replaced.
sys_run() {
	local d=$1 g job pid ppid hp i
	mkdir -p "$d"
	mkfifo "$d/go"
	linux64 -R env -i "$WORKLOADS/storm" 5 < "$d/go" > "$d/out" &
	job=$!
	exec 3> "$d/go"
	for i in $(seq 100); do
		[ -s "$d/out" ] && break
		sleep 0.05
	done
	pid=$(head -1 "$d/out")
	ppid=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/${pid:-0}/status" 2> /dev/null)
	GTSC_FEATURES_OFF=$2 "$GTSC" record -v --allow-missing -e $SYSEV -p "${pid:-0}" \
		-o "$d/t.gtsc" 2> "$d/err" &
	g=$!
	wait_for "$d/err" recording "$REC_WAIT"
	echo g >&3
	exec 3>&-
	wait $job
	stop_after_workload $g
	wait $g
	echo $? > "$d/rc"
	hp=$(printf '0x%x' "${ppid:-0}")
	"$GTSC" report -i "$d/t.gtsc" | grep "/$pid sys_" |
		sed -E "s/^ *[0-9.]+ \[[0-9]+\] [^ ]*\/[0-9]+ //; s/\b($ppid|$hp)\b/PPID/g" | sort > "$d/txt"
	"$GTSC" report -i "$d/t.gtsc" --json | grep "\"pid\":$pid," | grep -v '"event":"task_' |
		sed -E "s/\"(time|ts_ns|cpu|pid|tid)\":[0-9.]+,?//g; s/\b$ppid\b/PPID/g" | sort > "$d/json"
}

if ! command -v linux64 > /dev/null 2>&1; then
	echo "SKIP live/$T/syscalls-raw: no linux64 (setarch) to turn address randomization off"
else
	# the other way round from this kernel's: tp_btf off leaves the classic program
	if "$GTSC" features | grep -q '^syscall_tp_classic=yes'; then
		other=syscall_tp_classic
	else
		other=tp_btf
	fi
	for run in 1 2 3; do
		sys_run "$TEST_TMP/sysA$run" ""
		sys_run "$TEST_TMP/sysB$run" $other
		cmp -s "$TEST_TMP/sysA$run/txt" "$TEST_TMP/sysB$run/txt" &&
			cmp -s "$TEST_TMP/sysA$run/json" "$TEST_TMP/sysB$run/json" && break
		echo "# syscalls-raw run $run: $(diff "$TEST_TMP/sysA$run/txt" "$TEST_TMP/sysB$run/txt" | grep -cE '^([<>]|[-+][^-+])') lines differ"
	done
	a=$TEST_TMP/sysA$run
	b=$TEST_TMP/sysB$run
	nraw=$(grep -l 'built from raw_syscalls' "$a/err" "$b/err" | wc -l)
	n=$(count_lines "$a/txt" 'sys_exit_getppid: PPID')
	echo "# syscalls-raw: $(wc -l < "$a/txt") lines each way, GTSC_FEATURES_OFF=$other for the second"
	check_expr $T/syscalls-raw-path "record exited $(cat "$a/rc") and $(cat "$b/rc"); $nraw of the two runs built syscall events from raw_syscalls, not 1: $(grep -v '^libbpf' "$a/err" "$b/err" | head -c 300)" \
		'[ "$nraw" = 1 ] && [ "$(cat "$a/rc")" = 0 ] && [ "$(cat "$b/rc")" = 0 ]'
	check_expr $T/syscalls-raw-text "$n sys_exit_getppid lines (5 made); report differs (< default > other): $(diff "$a/txt" "$b/txt" | grep -E '^([<>]|[-+][^-+])' | head -4 | tr '\n' ';')" \
		'[ "$n" = 5 ] && cmp -s "$a/txt" "$b/txt"'
	check_expr $T/syscalls-raw-json "$(wc -l < "$a/json") lines; report --json differs: $(diff "$a/json" "$b/json" | grep -E '^([<>]|[-+][^-+])' | head -2 | tr '\n' ';')" \
		'[ -s "$a/json" ] && cmp -s "$a/json" "$b/json"'
fi

# sched:* is what this kernel has: list-events 'sched:*' equals the trace's formats.
"$GTSC" list-events 'sched:*' > "$TEST_TMP/sched.list"
echo | "$GTSC" record -e 'sched:*' -o "$TEST_TMP/s.gtsc" -- "$WORKLOADS/pingpong" 20 1 2> "$TEST_TMP/s.err" > /dev/null
rc=$?
"$GTSC" list-events -i "$TEST_TMP/s.gtsc" > "$TEST_TMP/sched.trace" 2>&1
check $T/glob-record "record -e 'sched:*' failed ($rc): $(head -c 300 "$TEST_TMP/s.err")" [ $rc = 0 ]
check_expr $T/glob-set "the trace saved $(wc -l < "$TEST_TMP/sched.trace") formats, the kernel has $(wc -l < "$TEST_TMP/sched.list"): $(diff "$TEST_TMP/sched.list" "$TEST_TMP/sched.trace" | head -3 | tr '\n' ';')" \
	'[ -s "$TEST_TMP/sched.list" ] && cmp -s "$TEST_TMP/sched.list" "$TEST_TMP/sched.trace"'
# -- CMD follows the fork: every tracepoint line is the workload's parent or child
# (the exec'd image is named "exe" after /proc/self/exe)
"$GTSC" report -i "$TEST_TMP/s.gtsc" > "$TEST_TMP/s.txt"
sp=$(sed -n 's/.* sched_process_fork: comm=pingpong pid=\([0-9]*\) child_comm=pingpong child_pid=[0-9]*$/\1/p' "$TEST_TMP/s.txt")
sc=$(sed -n 's/.* sched_process_fork: comm=pingpong pid=[0-9]* child_comm=pingpong child_pid=\([0-9]*\)$/\1/p' "$TEST_TMP/s.txt")
others=$(grep -E ' sched_[a-z_]+: ' "$TEST_TMP/s.txt" | grep -Evc "/($sp|$sc) ")
check_expr $T/follow "-- CMD: $others lines of other tasks than $sp and its child ${sc:-?}" '[ -n "$sp" ] && [ -n "$sc" ] && [ "$others" = 0 ]'

# JSON: numbers as numbers, strings as strings, flags raw and decoded
"$GTSC" report -i "$TEST_TMP/s.gtsc" --json | grep -m1 '"event":"sched_switch".*"prev_state":1,' > "$TEST_TMP/j"
check $T/json-types "a sleeping sched_switch as JSON: $(head -c 300 "$TEST_TMP/j")" \
	has_line "$TEST_TMP/j" '"prev_comm":"pingpong"' '"prev_state_text":"S"' '"next_pid":'

# A program named with ESC, a tab, a quote, a backslash and a byte that is not
# UTF-8: its tracepoint fields are escaped in text (no raw control byte drives
# the terminal) and JSON (every line parses with Python's json.loads and gives
# the name's bytes back, README "JSON"); babeltrace2 reads the CTF conversion
# with as many sched_switch events as report --json has, and Perfetto has
# them as instants.
odd="$TEST_TMP/$(printf 'p\033[31m\t"\\\377q')"
cp "$WORKLOADS/pingpong" "$odd"
echo | "$GTSC" record -e sched:sched_switch,sched:sched_process_exec,signal:signal_generate \
	-o "$TEST_TMP/o.gtsc" -- "$odd" 20 2 2> "$TEST_TMP/o.err" > /dev/null
rc=$?
"$GTSC" report -i "$TEST_TMP/o.gtsc" > "$TEST_TMP/o.txt"
"$GTSC" report -i "$TEST_TMP/o.gtsc" --json > "$TEST_TMP/o.json"
n_ctl=$(grep -a ' sched_switch: ' "$TEST_TMP/o.txt" | tr -d '\n' | tr -dc '\000-\037\177' | wc -c)
n_esc=$(grep -acF 'prev_comm=p\33[31m\t"\\\377q' "$TEST_TMP/o.txt")
check_expr $T/text-escaped "rc $rc: $n_ctl raw control bytes in sched_switch lines, $n_esc escaped prev_comm: $(head -c 200 "$TEST_TMP/o.err")" \
	'[ $rc = 0 ] && [ "$n_ctl" = 0 ] && [ "$n_esc" -gt 0 ]'
if command -v python3 > /dev/null; then
out=$(python3 - "$TEST_TMP/o.json" <<'PY' 2>&1
import json, sys
bad = odd = 0
for n, l in enumerate(open(sys.argv[1], 'rb'), 1):
    try:
        o = json.loads(l)
    except ValueError as e:
        bad += 1
        print('line %d: %s' % (n, e))
        continue
    c = o.get('prev_comm')
    if c is not None and c.encode('utf-8', 'surrogateescape') == b'p\x1b[31m\t"\\\xffq':
        odd += 1
print('bad=%d odd=%d' % (bad, odd))
PY
)
check_expr $T/json-loads "$(echo "$out" | tail -3 | tr '\n' ';')" \
	'echo "$out" | grep -q "^bad=0 odd=[1-9]"'
else
	echo "SKIP live/$T/json-loads: no python3 (the VM lane's initramfs has none)"
fi
if command -v babeltrace2 > /dev/null; then
	n_json=$(grep -c '"event":"sched_switch"' "$TEST_TMP/o.json")
	"$GTSC" convert -i "$TEST_TMP/o.gtsc" --to ctf -o "$TEST_TMP/o.ctf" 2> "$TEST_TMP/c.err"
	babeltrace2 "$TEST_TMP/o.ctf" > "$TEST_TMP/o.bt" 2> "$TEST_TMP/bt.err"
	rc=$?
	n_bt=$(LC_ALL=C grep -ac '^\[[^]]*\] ([^)]*) [^ ]* sched_switch: .* prev_tid = [0-9]*, .* next_tid = [0-9]*' "$TEST_TMP/o.bt")
	check_expr $T/ctf-babeltrace2 "babeltrace2 rc $rc: $n_bt sched_switch with prev_tid/next_tid, report --json $n_json: $(head -c 200 "$TEST_TMP/c.err" "$TEST_TMP/bt.err")" \
		'[ $rc = 0 ] && [ "$n_json" -gt 0 ] && [ "$n_bt" = "$n_json" ]'
else
	echo "SKIP live/$T/ctf-babeltrace2: no babeltrace2 (scripts/deps.sh test installs it)"
fi
if command -v python3 > /dev/null; then
"$GTSC" convert -i "$TEST_TMP/o.gtsc" --to perfetto -o "$TEST_TMP/o.pf" 2> /dev/null
out=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for e in d["traceEvents"] if e.get("name") == "sched_switch" and e.get("ph") == "i"
          and "next_pid" in e.get("args", {})))' "$TEST_TMP/o.pf" 2>&1)
check_expr $T/perfetto-instants "perfetto: $out sched_switch instants with args, report --json $(grep -c '"event":"sched_switch"' "$TEST_TMP/o.json")" \
	'[ "$out" = "$(grep -c "\"event\":\"sched_switch\"" "$TEST_TMP/o.json")" ] && [ "$out" -gt 0 ]'
else
	echo "SKIP live/$T/perfetto-instants: no python3 (the VM lane's initramfs has none)"
fi

# errors: a typo names the closest tracepoint; one the kernel lacks is one sentence
"$GTSC" record -e sched:sched_swich -a -d 1 -o "$TEST_TMP/e.gtsc" 2> "$TEST_TMP/e1" > /dev/null
rc=$?
check_expr $T/unknown "rc $rc: $(head -c 300 "$TEST_TMP/e1")" \
	'[ $rc != 0 ] && [ "$(wc -l < "$TEST_TMP/e1")" = 1 ] && grep -q "unknown tracepoint .sched:sched_swich.; closest: sched:sched_switch" "$TEST_TMP/e1"'
"$GTSC" record -e nosuchgroup:nosuchevent -a -d 1 -o "$TEST_TMP/e.gtsc" 2> "$TEST_TMP/e2" > /dev/null
rc=$?
check_expr $T/missing "rc $rc: $(head -c 300 "$TEST_TMP/e2")" \
	'[ $rc != 0 ] && [ "$(wc -l < "$TEST_TMP/e2")" = 1 ] && grep -q "this kernel has no tracepoint .nosuchgroup:nosuchevent." "$TEST_TMP/e2"'
echo | "$GTSC" record -e nosuchgroup:nosuchevent,sched:sched_process_exec --allow-missing \
	-C pingpong,exe -o "$TEST_TMP/m.gtsc" -- "$WORKLOADS/pingpong" 5 1 2> "$TEST_TMP/e3" > /dev/null
rc=$?
n=$("$GTSC" report -i "$TEST_TMP/m.gtsc" 2> /dev/null | grep -c ' exe/[0-9]* sched_process_exec: filename=/proc/self/exe')
check_expr $T/allow-missing "rc $rc, $n execs recorded: $(head -c 300 "$TEST_TMP/e3")" \
	'[ $rc = 0 ] && [ "$n" = 1 ] && grep -q "left out" "$TEST_TMP/e3"'

# The trace decodes from its own formats: the same report with tracefs unmounted.
if command -v unshare > /dev/null 2>&1; then
	unshare -m sh -c 'umount -l /sys/kernel/debug/tracing 2> /dev/null; umount -l /sys/kernel/tracing 2> /dev/null
		[ ! -e /sys/kernel/tracing/events/sched ] || exit 9
		exec "$0" report -i "$1"' "$GTSC" "$TEST_TMP/s.gtsc" > "$TEST_TMP/s.notracefs" 2> "$TEST_TMP/u.err"
	rc=$?
	check_expr $T/no-tracefs "rc $rc (9: tracefs still there), output differs: $(diff "$TEST_TMP/s.txt" "$TEST_TMP/s.notracefs" | head -3 | tr '\n' ';') $(head -c 200 "$TEST_TMP/u.err")" \
		'[ $rc = 0 ] && cmp -s "$TEST_TMP/s.txt" "$TEST_TMP/s.notracefs"'
else
	echo "SKIP live/$T/no-tracefs: no unshare"
fi
