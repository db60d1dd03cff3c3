#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# convert --to perfetto: the Trace Event Format JSON parses, has one slice
# per recorded syscall (report --syscalls --json is the oracle), slices end
# after they start and nest per thread, the slab counter never goes below
# zero, drops land on the CPU tracks with the trailer's count, and a
# million-event trace converts in bounded memory.  Checked with python3's
# json module: the VM lane has no python3 (the host runs all of this).
. "$(dirname "$0")/lib.sh"

if ! command -v python3 > /dev/null; then
	echo "SKIP live/convert: no python3 here to read the JSON (the host lane checks convert)"
	exit 0
fi

# check_json NAME TRACE.json: prints "slices N bad-dur N overlaps N negative N drops N threads N"
check_json() {
	python3 - "$1" << 'PY'
import json, sys, collections
ev = json.load(open(sys.argv[1]))["traceEvents"]
sl = [e for e in ev if e["ph"] == "X"]
bad = sum(1 for e in sl if e["dur"] < 0)
by = collections.defaultdict(list)
for e in sl:
    by[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
over = 0
for spans in by.values():
    spans.sort(key=lambda s: (s[0], -s[1]))
    stack = []
    for s, t in spans:
        while stack and stack[-1] <= s:
            stack.pop()
        if stack and t > stack[-1] + 0.0005:  # starts inside, ends outside
            over += 1
        stack.append(t)
neg = sum(1 for e in ev if e["ph"] == "C" and e["args"]["live"] < 0)
drops = sum(e["args"]["count"] for e in ev if e.get("cat") == "drops")
names = sum(1 for e in ev if e["ph"] == "M" and e["name"] == "thread_name")
sys_sl = sum(1 for e in sl if e["cat"] == "syscall")
print(f"slices {sys_sl} bad-dur {bad} overlaps {over} negative {neg} drops {drops} threads {names}")
PY
}
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

"$GTSC" record -q -o "$TEST_TMP/t.gtsc" -- tar czf "$TEST_TMP/x.tgz" /usr/share/doc/bash 2> "$TEST_TMP/err"
"$GTSC" convert -i "$TEST_TMP/t.gtsc" --to perfetto -o "$TEST_TMP/t.json" 2> "$TEST_TMP/cerr"
rc=$?
check convert/perfetto-exit "convert exited $rc: $(head -c 300 "$TEST_TMP/cerr")" [ $rc = 0 ]
res=$(check_json "$TEST_TMP/t.json" 2>&1)
calls=$("$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --json | grep -c '"syscall":')
check convert/perfetto-parses "python3 could not read it: $(echo "$res" | tail -2)" [ -n "$(field slices "$res")" ]
check convert/perfetto-slices "$(field slices "$res") syscall slices, report --syscalls has $calls calls" \
	[ "$(field slices "$res")" = "$calls" -a "$calls" -gt 100 ]
check convert/perfetto-durations "$(field bad-dur "$res") slices end before they start" [ "$(field bad-dur "$res")" = 0 ]
check convert/perfetto-nesting "$(field overlaps "$res") slices overlap another of their thread" \
	[ "$(field overlaps "$res")" = 0 ]
check convert/perfetto-counter "the slab counter went below zero $(field negative "$res") times" \
	[ "$(field negative "$res")" = 0 ]
check convert/perfetto-threads "$(field threads "$res") named threads" [ "$(field threads "$res")" -ge 2 ]
grep -q '"name":"tar"' "$TEST_TMP/t.json"
check convert/perfetto-comm "no track named tar" [ $? = 0 ]

# Drops: a storm into a 4 KiB ring; the instants on the CPU tracks add up
# to the trailer's count.
N=100000
storm_record convert-drops "$TEST_TMP/d.gtsc" "$WORKLOADS/storm" $N || exit 0
dropped=$("$GTSC" report -i "$TEST_TMP/d.gtsc" --json | head -1 | grep -o '"name":"syscalls"[^}]*' |
	sed -n 's/.*"dropped":\([0-9]*\).*/\1/p')
"$GTSC" convert -i "$TEST_TMP/d.gtsc" --to perfetto -o "$TEST_TMP/d.json" 2> "$TEST_TMP/cerr"
res=$(check_json "$TEST_TMP/d.json" 2>&1)
check convert/perfetto-drops "drop instants sum to $(field drops "$res"), the trailer says $dropped" \
	[ "$(field drops "$res")" = "$dropped" -a "${dropped:-0}" -gt 0 ]

# Three million events in bounded memory: streamed, never the whole trace.
# A slow recorder (CI's ASan build once dropped 48,489 of them) loses some:
# each lost event costs at most one call's slice, so the counts below are
# checked against what the trailer says was dropped.
(sleep 0.3; echo g) | "$GTSC" record -q -e syscalls -o "$TEST_TMP/big.gtsc" -- "$WORKLOADS/storm" 1500000 \
	> /dev/null 2>&1
big_dropped=$("$GTSC" report -i "$TEST_TMP/big.gtsc" --json | head -1 | grep -o '"name":"syscalls"[^}]*' |
	sed -n 's/.*"dropped":\([0-9]*\).*/\1/p')
echo "# 3 M events recorded, ${big_dropped:-?} dropped"
check_expr convert/big-recorded \
	"the trailer says ${big_dropped:-?} of 3 M events dropped (over 10%, the checks below mean little)" \
	'[ -n "$big_dropped" ] && [ "$big_dropped" -le 300000 ]'
rss=$(python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(r, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' \
	"$GTSC" convert -i "$TEST_TMP/big.gtsc" --to perfetto -o "$TEST_TMP/big.json")
n=$(grep -c '"cat":"syscall"' "$TEST_TMP/big.json")
echo "# convert of 3 M events: exit, max RSS MiB: $rss"
check convert/perfetto-bounded \
	"3 M events: exit and max RSS (MiB) '$rss', $n syscall slices, ${big_dropped:-?} events dropped" \
	[ "${rss%% *}" = 0 -a "${rss##* }" -lt "$(rss_limit_mib)" -a "$n" -ge $((1500000 - ${big_dropped:-0})) ]
# A track per CPU the trace saw (issue #15), not only those with drops:
# this one has none.
cpus=$("$GTSC" report -i "$TEST_TMP/big.gtsc" --json | grep -o '"cpu":[0-9]*' | sort -u | wc -l)
tracks=$(grep -o '"args":{"name":"CPU [0-9]*"}' "$TEST_TMP/big.json" | sort -u | wc -l)
check convert/perfetto-cpu-tracks "$tracks CPU tracks, the trace has records of $cpus CPUs" \
	[ "$tracks" = "$cpus" -a "$cpus" -gt 0 ]

# A progress line by bytes read, on a terminal, for a read of more than a
# second, never between the output's own lines on the same terminal.  The
# output goes to a pipe read only after 1.5 s: the read lasts longer than a
# second however fast the printer is (3 M events print in under one).
if command -v script > /dev/null; then
	script -q -c "$GTSC report -i $TEST_TMP/big.gtsc | (sleep 1.5; cat > /dev/null)" "$TEST_TMP/tty" > /dev/null 2>&1
	check convert/progress-line "no progress line on the terminal: $(tail -c 200 "$TEST_TMP/tty")" \
		grep -q '% of [0-9.]* MiB read' "$TEST_TMP/tty"
	"$GTSC" report -i "$TEST_TMP/big.gtsc" 2> "$TEST_TMP/e" > /dev/null
	check convert/progress-not-tty "a progress line in a file: $(head -c 200 "$TEST_TMP/e")" \
		not grep -q 'MiB read' "$TEST_TMP/e"
fi

# Errors in one sentence: unknown format, missing input, a planted link.
"$GTSC" convert -i "$TEST_TMP/t.gtsc" --to xml -o "$TEST_TMP/x" 2> "$TEST_TMP/e"
rc=$?
check_expr convert/unknown-format "rc $rc: $(head -c 200 "$TEST_TMP/e")" '[ $rc = 2 ] && has_line "$TEST_TMP/e" "--to takes"'
ln -s "$TEST_TMP/victim" "$TEST_TMP/link.json"
"$GTSC" convert -i "$TEST_TMP/t.gtsc" --to perfetto -o "$TEST_TMP/link.json" 2> "$TEST_TMP/e"
rc=$?
check_expr convert/no-follow "rc $rc, victim $([ -e "$TEST_TMP/victim" ] && echo created): $(head -c 200 "$TEST_TMP/e")" \
	'[ $rc = 1 ] && [ ! -e "$TEST_TMP/victim" ] && has_line "$TEST_TMP/e" "symbolic link"'
head -c $(($(stat -c %s "$TEST_TMP/t.gtsc") / 2)) "$TEST_TMP/t.gtsc" > "$TEST_TMP/cut.gtsc"
"$GTSC" convert -i "$TEST_TMP/cut.gtsc" --to perfetto -o "$TEST_TMP/cut.json" 2> "$TEST_TMP/e"
rc=$?
res=$(check_json "$TEST_TMP/cut.json" 2>&1)
check_expr convert/truncated "rc $rc, $(head -c 200 "$TEST_TMP/e"); $res" \
	'[ $rc = 3 ] && [ -n "$(field slices "$res")" ]'

# ---- convert --to ctf: babeltrace2 (Debian's 2.0.4) is the oracle ----
# A recording with syscalls, kmem and task events (tar forks gzip) and one
# openat whose path and flags are known: every event of report --json is
# one babeltrace2 event with the same values (checked through babeltrace2's
# python bindings, bt2), absolute times, the environment, no warning; a
# storm's drops are babeltrace2's discarded-events warnings with the
# trailer's count.
if ! command -v babeltrace2 > /dev/null; then
	echo "SKIP live/convert/ctf: no babeltrace2 (scripts/deps.sh test installs it)"
	exit 0
fi
BT_PY=
for py in python3 /usr/bin/python3; do
	"$py" -c 'import bt2' 2> /dev/null && BT_PY=$py && break
done

# ctf_check EVENTS.jsonl DIR: prints "events N ctf N mismatched N empty N first_s N
# hostname H kernel K tracer T" and the first mismatches.
ctf_check() {
	"$BT_PY" - "$1" "$2" << 'PY'
import bt2, json, sys, collections
KMEM = {"kmalloc": "kmem_kmalloc", "kfree": "kmem_kfree", "kmem_cache_alloc": "kmem_cache_alloc",
        "kmem_cache_free": "kmem_cache_free", "mm_page_alloc": "kmem_mm_page_alloc",
        "mm_page_free": "kmem_mm_page_free"}
HEAD = ("time", "ts_ns", "cpu", "pid", "tid", "comm", "event")
def num(v):
    return int(v, 16) if isinstance(v, str) and v.startswith("0x") else v
# report --json's event as the CTF event it must be: LTTng's names, the same values
def expect(e, strings):
    ev, f = e["event"], {}
    if ev in ("sys_enter", "sys_exit"):
        unknown = e["name"].startswith("syscall_")
        # report --json's exits do not say compat: compared without the prefix
        name = ("compat_" if e.get("compat") else "") + "syscall_" + \
            ("entry_" if ev == "sys_enter" else "exit_") + ("unknown" if unknown else e["name"])
        if unknown:
            f["id"] = e["nr"]
        if ev == "sys_exit":
            f["ret"] = e["ret"]
        text = {d["arg"]: d["text"] for d in e.get("data", [])
                if d["kind"] == "str" and d["index"] == 0 and not d["flags"] & 2}
        for i, (k, v) in enumerate(e.get("args", {}).items()):
            f[k] = text.get(i, v) if (name, k) in strings else num(v)
    elif ev in KMEM:
        name = KMEM[ev]
        f = {k: (v if k == "call_site" else num(v)) for k, v in e.items() if k not in HEAD}
    elif ev == "task_fork":
        name = "sched_process_fork"
        # parent_tid: Trace Compass's fork handler needs it; the parent process's id
        f = {"parent_pid": e["parent_pid"], "child_comm": e["new_comm"], "child_tid": e["tid"],
             "child_pid": e["pid"], "parent_tid": e["parent_pid"]}
    elif ev == "task_exec":
        name, f = "sched_process_exec", {"new_comm": e["new_comm"], "tid": e["tid"]}
    elif ev == "task_exit":
        name, f = "sched_process_exit", {"exit_code": e["exit_code"], "tid": e["tid"]}
    elif ev == "func_entry":
        name = "func_entry_" + e["func"]
        f = {k: num(v) for k, v in e["args"].items()}
        f["ip"] = num(e["ip"])
    elif ev == "func_return":
        name, f = "func_return_" + e["func"], {"ret": num(e["ret"]), "latency_ns": e["latency_ns"]}
    elif ev == "printf":
        name, f = "printf", {"text": e["text"]}
    else:
        name = "?" + ev
    return (e["ts_ns"], e["cpu"], e["pid"], e["tid"], e["comm"], name, tuple(sorted(f.items())))

ctf, strings, env, first = [], set(), {}, None
for msg in bt2.TraceCollectionMessageIterator(sys.argv[2]):
    if type(msg) is bt2._StreamBeginningMessageConst and not env:
        env = msg.stream.trace.environment
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev, f = msg.event, {}
    c = ev.common_context_field
    for k, v in ev.payload_field.items():
        if isinstance(v, bt2._StringFieldConst):
            strings.add((ev.name, k))
            f[k] = str(v)
        else:
            f[k] = int(v)
    if first is None:
        first = msg.default_clock_snapshot.ns_from_origin
    name = ev.name[7:] if ev.name.startswith("compat_syscall_exit_") else ev.name
    ctf.append((msg.default_clock_snapshot.value, int(ev.packet.context_field["cpu_id"]),
                int(c["pid"]), int(c["tid"]), str(c["procname"]), name, tuple(sorted(f.items()))))
js = [json.loads(l) for l in open(sys.argv[1])]
exp = [expect(e, strings) for e in js if e["event"] not in ("trace_info", "DROPPED")]
# babeltrace2 before 2.0.5 shows an empty string as the value the field had
# in an earlier event (review.lttng.org/c/babeltrace/+/4528): such fields
# are left out on both sides, and counted.
keys = {(t[5], k, t[0], t[3]) for t in exp for k, v in t[6] if v == ""}
def blank(t):
    return t[:6] + (tuple((k, v) for k, v in t[6] if (t[5], k, t[0], t[3]) not in keys),)
exp, ctf = [blank(t) for t in exp], [blank(t) for t in ctf]
a, b = collections.Counter(exp), collections.Counter(ctf)
miss, extra = a - b, b - a
print(f"events {len(exp)} ctf {len(ctf)} mismatched {sum(miss.values()) + sum(extra.values())} "
      f"empty {len(keys)} first_s {(first or 0) // 10**9} hostname {env.get('hostname')} "
      f"kernel {env.get('kernel_release')} tracer {env.get('tracer_name')}")
for x in sorted(miss)[:2]:
    print("json:", x)
for x in sorted(extra)[:2]:
    print("ctf: ", x)
PY
}

known=$TEST_TMP/ctf-known
t0=$(date +%s)
"$GTSC" record -q -o "$TEST_TMP/c.gtsc" -- sh -c ": > $known; tar czf $TEST_TMP/c.tgz /usr/share/doc/bash" \
	2> "$TEST_TMP/err"
"$GTSC" convert -i "$TEST_TMP/c.gtsc" --to ctf -o "$TEST_TMP/c.ctf" 2> "$TEST_TMP/cerr"
rc=$?
check convert/ctf-exit "convert exited $rc: $(head -c 300 "$TEST_TMP/cerr")" [ $rc = 0 ]
babeltrace2 "$TEST_TMP/c.ctf" > "$TEST_TMP/c.txt" 2> "$TEST_TMP/bterr"
"$GTSC" report -i "$TEST_TMP/c.gtsc" --json > "$TEST_TMP/c.jsonl"
bt=$(wc -l < "$TEST_TMP/c.txt")
js=$(grep -vc '"event":"trace_info"\|"event":"DROPPED"' "$TEST_TMP/c.jsonl")
kinds=$(for e in syscall_entry_ syscall_exit_ kmem_kmalloc kmem_cache_alloc kmem_mm_page_alloc \
	sched_process_fork sched_process_exec sched_process_exit; do
	grep -q " $e" "$TEST_TMP/c.txt" || printf '%s ' "$e"; done)
check_expr convert/ctf-count "babeltrace2 prints $bt events, report --json has $js; missing kinds: '$kinds'" \
	'[ "$bt" = "$js" ] && [ "$js" -gt 1000 ] && [ -z "$kinds" ]'
check convert/ctf-openat "no babeltrace2 line has the openat of $known with O_WRONLY|O_CREAT|O_TRUNC: \
$(grep -m1 "filename = \"$known\"" "$TEST_TMP/c.txt")" \
	has_line "$TEST_TMP/c.txt" "syscall_entry_openat: " "procname = \"sh\"" "dfd = -100" \
	"filename = \"$known\"" "flags = 0x241"
check convert/ctf-no-warning "babeltrace2 said: $(head -c 300 "$TEST_TMP/bterr")" [ ! -s "$TEST_TMP/bterr" ]
if [ -n "$BT_PY" ]; then
	res=$(ctf_check "$TEST_TMP/c.jsonl" "$TEST_TMP/c.ctf" 2>&1)
	echo "# ctf: $(echo "$res" | head -1)"
	check_expr convert/ctf-values "$(echo "$res" | head -3 | cut -c 1-300)" \
		'[ "$(field events "$res")" = "$js" ] && [ "$(field mismatched "$res")" = 0 ]'
	first=$(field first_s "$res")
	check_expr convert/ctf-clock "first event at $first s from the epoch, recording began at $t0" \
		'[ "${first:-0}" -ge $((t0 - 5)) ] && [ "${first:-0}" -le $((t0 + 60)) ]'
	check_expr convert/ctf-env "environment: $(echo "$res" | head -1 | sed 's/.*hostname/hostname/')" \
		'[ "$(field hostname "$res")" = "$(hostname)" ] && [ "$(field kernel "$res")" = "$(uname -r)" ] &&
		 [ "$(field tracer "$res")" = gtsc-bpf ]'
else
	echo "SKIP live/convert/ctf-values: no python3 with babeltrace2's bt2 module (python3-bt2)"
fi

# Tracepoints recorded by name beside syscalls, kmem and task events: one
# babeltrace2 event per report --json event, each source there, no warning.
"$GTSC" record -q -e syscalls,kmem -e sched:sched_switch,sched:sched_wakeup -o "$TEST_TMP/ct.gtsc" \
	-- sh -c "ls / > /dev/null; sleep 0.1" > /dev/null 2> "$TEST_TMP/err"
"$GTSC" convert -i "$TEST_TMP/ct.gtsc" --to ctf -o "$TEST_TMP/ct.ctf" 2> "$TEST_TMP/cerr"
babeltrace2 "$TEST_TMP/ct.ctf" > "$TEST_TMP/ct.txt" 2> "$TEST_TMP/bterr"
tbt=$(wc -l < "$TEST_TMP/ct.txt")
tjs=$("$GTSC" report -i "$TEST_TMP/ct.gtsc" --json | grep -vc '"event":"trace_info"\|"event":"DROPPED"')
tkinds=$(for e in syscall_entry_ syscall_exit_ kmem_ sched_process_fork sched_switch; do
	grep -q " $e" "$TEST_TMP/ct.txt" || printf '%s ' "$e"; done)
check_expr convert/ctf-count-tracepoints "babeltrace2 prints $tbt events, report --json has $tjs; missing kinds: '$tkinds'; $(cat "$TEST_TMP/err" "$TEST_TMP/bterr" | head -c 300)" \
	'[ "$tbt" = "$tjs" ] && [ "$tjs" -gt 100 ] && [ -z "$tkinds" ] && [ ! -s "$TEST_TMP/bterr" ]'

# A 32-bit program's calls: compat_syscall_entry_* with raw arguments, as report --json has them.
if [ -x "$WORKLOADS/compat32" ] && [ -n "$BT_PY" ]; then
	"$GTSC" record -q -e syscalls -o "$TEST_TMP/c32.gtsc" -- "$WORKLOADS/compat32" "$TEST_TMP/missing" \
		> /dev/null 2>&1
	"$GTSC" convert -i "$TEST_TMP/c32.gtsc" --to ctf -o "$TEST_TMP/c32.ctf" 2> /dev/null
	"$GTSC" report -i "$TEST_TMP/c32.gtsc" --json > "$TEST_TMP/c32.jsonl"
	res=$(ctf_check "$TEST_TMP/c32.jsonl" "$TEST_TMP/c32.ctf" 2>&1)
	n=$(babeltrace2 "$TEST_TMP/c32.ctf" 2> /dev/null | grep -c ' compat_syscall_entry_')
	check_expr convert/ctf-compat "$n compat_syscall_entry_ events; $(echo "$res" | head -3 | cut -c 1-300)" \
		'[ "$n" -gt 5 ] && [ "$(field mismatched "$res")" = 0 ] && [ "$(field events "$res")" -gt 0 ]'
else
	echo "SKIP live/convert/ctf-compat: no compat32 workload (gcc-multilib) or no bt2"
fi

# Drops: the storm above ($TEST_TMP/d.gtsc); babeltrace2's warnings add up to the trailer's count.
"$GTSC" convert -i "$TEST_TMP/d.gtsc" --to ctf -o "$TEST_TMP/d.ctf" 2> "$TEST_TMP/cerr"
babeltrace2 "$TEST_TMP/d.ctf" 2> "$TEST_TMP/bterr" | wc -l > "$TEST_TMP/d.n"
said=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) events\? between .*/\1/p' "$TEST_TMP/bterr" |
	awk '{ s += $1 } END { print s + 0 }')
other=$(grep -vc '^WARNING: Tracer discarded [0-9]* events\? between ' "$TEST_TMP/bterr")
check_expr convert/ctf-drops "babeltrace2's discarded-events warnings add up to $said, the trailer says $dropped" \
	'[ "$said" = "$dropped" ] && [ "${dropped:-0}" -gt 0 ]'
check convert/ctf-drops-no-other-warning "$other other lines: $(grep -vm2 '^WARNING: Tracer discarded [0-9]* events\? between ' "$TEST_TMP/bterr")" \
	[ "$other" = 0 ]

# Output: converted again in place; never into what is not a CTF trace of ours, nor to stdout.
"$GTSC" convert -i "$TEST_TMP/c.gtsc" --to ctf -o "$TEST_TMP/d.ctf" 2> "$TEST_TMP/cerr"
rc=$?
n=$(babeltrace2 "$TEST_TMP/d.ctf" 2> /dev/null | wc -l)
check_expr convert/ctf-replace "rc $rc, $n events after converting another trace into d.ctf (want $js)" \
	'[ $rc = 0 ] && [ "$n" = "$js" ]'
mkdir "$TEST_TMP/notctf" && echo keep > "$TEST_TMP/notctf/notes"
"$GTSC" convert -i "$TEST_TMP/c.gtsc" --to ctf -o "$TEST_TMP/notctf" 2> "$TEST_TMP/e"
rc=$?
check_expr convert/ctf-foreign-dir "rc $rc, notes $(cat "$TEST_TMP/notctf/notes"): $(head -c 200 "$TEST_TMP/e")" \
	'[ $rc = 1 ] && [ "$(cat "$TEST_TMP/notctf/notes")" = keep ] && has_line "$TEST_TMP/e" "is not a ctf trace"'
"$GTSC" convert -i "$TEST_TMP/c.gtsc" --to ctf -o - 2> "$TEST_TMP/e" > /dev/null
rc=$?
check_expr convert/ctf-stdout "rc $rc: $(head -c 200 "$TEST_TMP/e")" '[ $rc = 2 ] && has_line "$TEST_TMP/e" "writes a directory"'

# The 3 M event trace above, in bounded memory: a packet per stream, never the
# trace (the reader holds two zstd chunks of up to 4 MiB of records each).
rss=$(python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(r, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' \
	"$GTSC" convert -i "$TEST_TMP/big.gtsc" --to ctf -o "$TEST_TMP/big.ctf")
n=$(babeltrace2 "$TEST_TMP/big.ctf" -c sink.utils.counter -p step=+0 2> /dev/null |
	awk '/ Event messages/ { print $1 }')
echo "# convert --to ctf of 3 M events: exit, max RSS MiB: $rss"
check_expr convert/ctf-bounded \
	"3 M events: exit and max RSS (MiB) '$rss', babeltrace2 counted $n, ${big_dropped:-?} dropped" \
	'[ "${rss%% *}" = 0 ] && [ "${rss##* }" -lt "$(rss_limit_mib)" ] &&
	 [ "${n:-0}" -ge $((3000000 - ${big_dropped:-0})) ]'

# A trace cut at a tenth (the 3 M event one: many chunks) converts as far as it goes
# (exit 3) into a CTF trace babeltrace2 reads whole.
head -c $(($(stat -c %s "$TEST_TMP/big.gtsc") / 10)) "$TEST_TMP/big.gtsc" > "$TEST_TMP/ccut.gtsc"
"$GTSC" convert -i "$TEST_TMP/ccut.gtsc" --to ctf -o "$TEST_TMP/ccut.ctf" 2> "$TEST_TMP/e"
rc=$?
n=$(babeltrace2 "$TEST_TMP/ccut.ctf" 2> "$TEST_TMP/bterr" | wc -l)
grep -v '^WARNING: Tracer discarded [0-9]* events\? between ' "$TEST_TMP/bterr" > "$TEST_TMP/bterr2"
js=$("$GTSC" report -i "$TEST_TMP/ccut.gtsc" --json 2> /dev/null | grep -vc '"event":"trace_info"\|"event":"DROPPED"')
check_expr convert/ctf-truncated "rc $rc, babeltrace2 read $n events (report --json $js): $(head -c 200 "$TEST_TMP/e") $(head -c 200 "$TEST_TMP/bterr2")" \
	'[ $rc = 3 ] && [ "$n" = "$js" ] && [ "$n" -gt 0 ] && [ ! -s "$TEST_TMP/bterr2" ]'
