#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The guest side of bench/vm_flight.sh (its VM_LANE): the cost per event of
# a flight channel, native (BPF_F_RB_OVERWRITE) against emulated (slot
# arrays, GTSC_FEATURES_OFF=ringbuf_overwrite), on one kernel that has both.
# Per run: a daemon session records -a syscalls into a 1 MiB overwrite
# channel while seqstorm makes N getpgid calls pinned to CPU 0; the cost is
# the programs' own (kernel.bpf_stats_enabled: run_time_ns / run_cnt summed
# over the recorder's programs, from its /proc/PID/fdinfo), and the storm's
# wall time per call.  Runs alternate, REPS of each; a discard channel of
# the same size (drained into a file) is the reference.
cd "$(dirname "$0")"
export GTSC=${GTSC:-$(cd ../.. && pwd)/gtsc-bpf}
export WORKLOADS=${WORKLOADS:-$(cd ../.. && pwd)/${OUTPUT:-.output}/tests/live}
N=${BENCH_N:-200000}
REPS=${BENCH_REPS:-3}

# prog_stats PID: "RUN_TIME_NS RUN_CNT" summed over PID's BPF programs.
prog_stats() {
	cat /proc/"$1"/fdinfo/* 2> /dev/null |
		awk '/^run_time_ns:/ { t += $2 } /^run_cnt:/ { c += $2 } END { print t + 0, c + 0 }'
}

# storm_ns: wall ns per getpgid call of one storm.
storm_ns() {
	local t0 t1
	t0=$EPOCHREALTIME
	"$WORKLOADS/seqstorm" "$N" 0 < /dev/null > /dev/null
	t1=$EPOCHREALTIME
	echo $(( (${t1/./} - ${t0/./}) * 1000 / N ))
}

one() {
	local impl=$1 off= mode=overwrite pid st t c
	[ "$impl" = emulated ] && off=ringbuf_overwrite
	[ "$impl" = discard ] && mode=discard
	GTSC_FEATURES_OFF=$off "$GTSC" record --name bench --daemon -a -e syscalls \
		--channel syscalls:mode=$mode,size=1M -o /tmp/bench.gtsc 2> /tmp/bench.err || {
		echo "FAIL bench/$impl-record: $(head -c 200 /tmp/bench.err)"
		return
	}
	pid=$("$GTSC" status bench | sed -n 's/^  pid=//p')
	st=$(prog_stats "$pid")
	wall=$(storm_ns)
	set -- $(prog_stats "$pid")
	t=$(($1 - ${st% *}))
	c=$(($2 - ${st#* }))
	"$GTSC" kill bench > /dev/null 2>&1
	rm -f /tmp/bench.gtsc*
	if [ "$c" -lt "$N" ]; then
		echo "FAIL bench/$impl: $c program runs for $N calls"
		return
	fi
	echo "BENCH $impl prog_ns=$((t / c)) runs=$c storm_ns_per_call=$wall"
}

echo 1 > /proc/sys/kernel/bpf_stats_enabled
if ! "$GTSC" features | grep -q '^ringbuf_overwrite=yes'; then
	echo "SKIP bench/flight: this kernel has no BPF_F_RB_OVERWRITE"
	exit 0
fi
echo "BENCH bare storm_ns_per_call=$(storm_ns)"
for i in $(seq "$REPS"); do
	one native
	one emulated
	one discard
done
echo "PASS bench/flight"
