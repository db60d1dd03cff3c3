#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A traced program names itself with terminal escapes and bytes that are not
# UTF-8 (escname: prctl, then a fork) and opens a path holding them.  No text
# report may print them raw; every JSON line parses with python3 and jq and
# gives the bytes back (surrogateescape).
. "$(dirname "$0")/lib.sh"

COMM='\33]0;x\7\33[2J\377\233' # as the text reports must show it
mkdir -p "$TEST_TMP/d"
"$GTSC" record -q -o "$TEST_TMP/t.gtsc" -- "$WORKLOADS/escname" "$TEST_TMP/d" 2> "$TEST_TMP/err"
rc=$?
check escape/record-exit "record failed: $(head -c 300 "$TEST_TMP/err")" [ $rc = 0 ]

# raw ESC, BEL, a lone C1 byte or 0xff: what a terminal would act on or garble
raw() { LC_ALL=C grep -c $'[\x1b\x07\x9b\xff]' "$1"; }
for mode in plain syscalls kmem summary; do
	case $mode in
	plain) args= ;;
	*) args=--$mode ;;
	esac
	"$GTSC" report -i "$TEST_TMP/t.gtsc" $args > "$TEST_TMP/$mode" 2>&1
	n=$(raw "$TEST_TMP/$mode")
	check escape/$mode-no-raw "$n lines of report $args hold a raw control byte" [ "$n" = 0 ]
done
check escape/plain-comm "report does not show the comm as $COMM" \
	has_line "$TEST_TMP/plain" "] $COMM/" "task_fork:"
check escape/syscalls-comm "report --syscalls does not show the comm as $COMM" \
	has_line "$TEST_TMP/syscalls" " $COMM/" 'openat(' '\33[31m\303\251\376\177\1"'
check escape/summary-comm "report --summary --per-process does not show $COMM" \
	has_line <("$GTSC" report -i "$TEST_TMP/t.gtsc" --summary --per-process) " $COMM ("

"$GTSC" report -i "$TEST_TMP/t.gtsc" --json > "$TEST_TMP/j"
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --json > "$TEST_TMP/sj"
if ! command -v python3 > /dev/null; then
	echo "SKIP live/escape/json-python: no python3 on this machine"
else
	for f in j sj; do
		out=$(python3 - "$TEST_TMP/$f" <<'PY'
import json, sys
want = b"\x1b]0;x\x07\x1b[2J\xff\x9b"
path = b"esc\x1b[31m\xc3\xa9\xfe\x7f\x01"
comms = paths = 0
for n, line in enumerate(open(sys.argv[1], "rb"), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        print("line %d does not parse: %s" % (n, e)); sys.exit(1)
    c = o.get("comm")
    if c is not None and c.encode("utf-8", "surrogateescape") == want:
        comms += 1
    if path in line and b"\x1b" in line:
        print("line %d holds a raw ESC" % n); sys.exit(1)
    for d in o.get("data", []):
        if d.get("text", "").encode("utf-8", "surrogateescape").endswith(path):
            paths += 1
print(comms, paths)
PY
)
		check escape/json-python-$f "python3: $out" [ $? = 0 ]
		check_expr escape/json-bytes-$f "python3 got the comm back in ${out% *} lines" \
			'[ "${out%% *}" -gt 0 ] 2>/dev/null'
	done
	# the last $out is of the --syscalls --json lines; the path rides in report --json's data
	out=$(python3 - "$TEST_TMP/j" <<'PY'
import json, sys
path = b"esc\x1b[31m\xc3\xa9\xfe\x7f\x01"
print(sum(d.get("text", "").encode("utf-8", "surrogateescape").endswith(path)
          for l in open(sys.argv[1], "rb") for d in json.loads(l).get("data", [])))
PY
)
	check_expr escape/json-path-bytes "python3 got the openat path back $out times" \
		'[ "$out" -gt 0 ] 2>/dev/null'
fi
if ! command -v jq > /dev/null; then
	echo "SKIP live/escape/json-jq: no jq on this machine"
else
	for f in j sj; do
		n=$(jq -c . < "$TEST_TMP/$f" 2> "$TEST_TMP/jqerr" | wc -l)
		check escape/json-jq-$f "jq parsed $n of $(wc -l < "$TEST_TMP/$f") lines: $(head -c 200 "$TEST_TMP/jqerr")" \
			[ "$n" = "$(wc -l < "$TEST_TMP/$f")" ]
	done
fi
