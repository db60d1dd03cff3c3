#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Tracepoint fields printed with %ps name their kernel function, as perf
# script prints them, not hex.  timer:hrtimer_start and timer:timer_start
# ("function=%ps") are recorded system-wide by gtsc-bpf and perf record at
# the same time while sleeps arm timers; an event is the same in both when
# its timer and expiry are ("hrtimer=0x.. ... expires=N"), and for every
# such event the function gtsc-bpf's report names is the one perf script
# names.  The names come from the trace's own KSYMS chunk: the recorder
# saves the symbol of each value of such a field.
. "$(dirname "$0")/lib.sh"

T=tp-symbols
EVENTS=timer:hrtimer_start,timer:timer_start
if ! command -v perf > /dev/null; then
	echo "SKIP live/$T/perf-oracle: perf not installed"
	exit 0
fi

# "TIMER EXPIRES FUNCTION" of each hrtimer_start/timer_start line on stdin, sorted.
timer_keys() {
	sed -nE 's/.*(hrtimer|timer)_start: +(hr)?timer=(0x[0-9a-f]+) function=([^ ]+) expires=([0-9]+).*/\3 \5 \4/p' |
		sort -u
}

d=$TEST_TMP
# perf starts disabled and acks its enabling on a control fifo (as in
# test_kmem_perf.sh): both record the sleeps however long perf takes to start
mkfifo "$d/ctl" "$d/ack"
perf record -q -a -m 16M -D -1 --control "fifo:$d/ctl,$d/ack" -e timer:hrtimer_start \
	-e timer:timer_start -o "$d/perf.data" > "$d/perf.out" 2>&1 &
perf_pid=$!
"$GTSC" record -e $EVENTS -a -o "$d/g.gtsc" 2> "$d/gtsc.err" &
gpid=$!
wait_for "$d/gtsc.err" "recording" "$REC_WAIT"
echo enable > "$d/ctl"
ack=""
read -r -t 10 ack < "$d/ack"
check $T/perf-started "perf did not ack its enabling: '$ack' $(head -c 200 "$d/perf.out")" [ "$ack" = ack ]
for i in $(seq 20); do
	sleep 0.01
done
sleep 0.2
kill -INT $perf_pid $gpid 2> /dev/null
wait $perf_pid $gpid

perf script -i "$d/perf.data" -F event,trace 2> /dev/null | timer_keys > "$d/perf.keys"
"$GTSC" report -i "$d/g.gtsc" > "$d/g.txt" 2> "$d/report.err"
timer_keys < "$d/g.txt" > "$d/g.keys"
# the events both recorded, by timer and expiry: "TIMER EXPIRES PERF GTSC"
join -j 1 <(awk '{ print $1 "/" $2, $3 }' "$d/perf.keys" | sort) \
	<(awk '{ print $1 "/" $2, $3 }' "$d/g.keys" | sort) > "$d/joined"
both=$(wc -l < "$d/joined")
differ=$(awk '$2 != $3' "$d/joined" | wc -l)
names=$(awk '$3 !~ /^0x/ { print $3 }' "$d/joined" | sort -u | wc -l)
check_expr $T/same-events "perf $(wc -l < "$d/perf.keys") and gtsc $(wc -l < "$d/g.keys") timer starts, $both in common: $(head -c 200 "$d/gtsc.err")" \
	'[ "$both" -ge 20 ]'
check_expr $T/function-names "$differ of $both common timer starts name another function than perf script: $(awk '$2 != $3' "$d/joined" | head -3 | tr '\n' ' ')" \
	'[ "$both" -gt 0 -a "$differ" = 0 ]'
check_expr $T/named "$names distinct function names in $both common events: $(head -3 "$d/joined" | tr '\n' ' ')" \
	'[ "$names" -ge 2 ]'
check $T/wakeup "no hrtimer_wakeup (the sleeps' own timers) among gtsc's timer starts" \
	grep -q ' hrtimer_wakeup$' "$d/g.keys"
