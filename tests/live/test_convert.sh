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
(sleep 0.3; echo g) | "$GTSC" record -q -e syscalls -o "$TEST_TMP/big.gtsc" -- "$WORKLOADS/storm" 1500000 \
	> /dev/null 2>&1
rss=$(python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(r, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' \
	"$GTSC" convert -i "$TEST_TMP/big.gtsc" --to perfetto -o "$TEST_TMP/big.json")
n=$(grep -c '"cat":"syscall"' "$TEST_TMP/big.json")
echo "# convert of 3 M events: exit, max RSS MiB: $rss"
check convert/perfetto-bounded "3 M events: exit and max RSS (MiB) '$rss', $n syscall slices" \
	[ "${rss%% *}" = 0 -a "${rss##* }" -lt 64 -a "$n" -ge 1500000 ]

# A progress line by bytes read, on a terminal, for a read of more than a
# second (printing 3 M events takes longer), never between the output's own
# lines on the same terminal.
if command -v script > /dev/null; then
	script -q -c "$GTSC report -i $TEST_TMP/big.gtsc > /dev/null" "$TEST_TMP/tty" > /dev/null 2>&1
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
