#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Issue 14, trust: outputs never written through a link another user planted
# in a sticky shared directory (a scratch "etc" stands for /etc), sizes and
# durations refused in one sentence before any socket exists, control
# sockets refusing other users (SO_PEERCRED), a killed session's status,
# epitaphs pruned, -p of a kernel thread.
. "$(dirname "$0")/lib.sh"

G=$GTSC
RUNAS=$WORKLOADS/runas
chmod 755 "$TEST_TMP"
SH=$TEST_TMP/shared # as /tmp: sticky, world-writable
ETC=$TEST_TMP/etc   # what an attacker aims at
mkdir -m 1777 "$SH"
mkdir -m 755 "$ETC"
echo secret > "$ETC/file"
echo secret > "$ETC/old"
plant() { "$RUNAS" 65534 /bin/ln -s "$1" "$2"; }
plant "$ETC/file" "$SH/z.gtsc"
plant "$ETC/new" "$SH/dangling.gtsc"
plant "$ETC/old" "$SH/r.gtsc.old"
untouched() {
	[ "$(cat "$ETC/file")" = secret ] && [ "$(cat "$ETC/old")" = secret ] && [ ! -e "$ETC/new" ]
}

"$G" record -a -e syscalls -d 0.2 -q -o "$SH/z.gtsc" 2> "$TEST_TMP/e"
rc=$?
check_expr trust/record-planted-link "exit $rc, $ETC/file now $(head -c 20 "$ETC/file" | od -c)" \
	'[ $rc != 0 ] && untouched && has_line "$TEST_TMP/e" "symbolic link of uid 65534"'
"$G" record -a -e syscalls -d 0.2 -q -o "$SH/dangling.gtsc" 2> "$TEST_TMP/e"
rc=$?
check_expr trust/record-dangling-link "exit $rc; $(ls "$ETC")" '[ $rc != 0 ] && untouched'
for i in 1 2; do
	"$G" record -a -e syscalls -d 0.2 -q -o "$SH/r.gtsc" 2> "$TEST_TMP/e$i"
done
check_expr trust/old-over-planted-link "$(cat "$TEST_TMP/e2"); $(ls -l "$SH" | tr '\n' ' ')" \
	'untouched && [ -f "$SH/r.gtsc.old" ] && [ ! -L "$SH/r.gtsc.old" ] &&
	 "$G" report -i "$SH/r.gtsc.old" --header > /dev/null'
# A link of one's own is followed, as perf and trace-cmd do.
ln -s "$ETC/mine.gtsc" "$SH/own.gtsc"
"$G" record -a -e syscalls -d 0.2 -q -o "$SH/own.gtsc" 2> "$TEST_TMP/e"
check_expr trust/own-link-followed "$(cat "$TEST_TMP/e")" \
	'[ -L "$SH/own.gtsc" ] && "$G" report -i "$ETC/mine.gtsc" --header > /dev/null'

NAME=trust-$$
"$G" record --name "$NAME" --daemon -a -e syscalls --channel syscalls:mode=overwrite,size=64K \
	-o "$TEST_TMP/fl.gtsc" 2> "$TEST_TMP/err"
check trust/daemon "record --daemon failed: $(head -c 300 "$TEST_TMP/err")" [ $? = 0 ]
"$G" snapshot "$NAME" -o "$SH/z.gtsc" > "$TEST_TMP/o" 2>&1
rc=$?
check_expr trust/snapshot-planted-link "exit $rc: $(head -c 200 "$TEST_TMP/o")" \
	'[ $rc != 0 ] && untouched && has_line "$TEST_TMP/o" "symbolic link of uid 65534"'
"$G" snapshot "$NAME" -o "$SH/dangling.gtsc" > "$TEST_TMP/o" 2>&1
rc=$?
check_expr trust/snapshot-dangling-link "exit $rc: $(head -c 200 "$TEST_TMP/o")" \
	'[ $rc != 0 ] && untouched'
"$G" snapshot "$NAME" -o "$SH/snap.gtsc" > "$TEST_TMP/o" 2>&1
check_expr trust/snapshot-plain "$(head -c 200 "$TEST_TMP/o")" \
	'"$G" report -i "$SH/snap.gtsc" --header > /dev/null'

# The socket's own check: a uid that can reach /run/gtsc (DAC override) is still refused.
cp "$G" "$TEST_TMP/gtsc-bpf" && chmod 755 "$TEST_TMP/gtsc-bpf"
for cmd in status kill; do
	"$RUNAS" -k 65534 "$TEST_TMP/gtsc-bpf" $cmd "$NAME" > "$TEST_TMP/o" 2>&1
	rc=$?
	check_expr trust/peercred-$cmd "$cmd as uid 65534 exited $rc: $(head -c 200 "$TEST_TMP/o")" \
		'[ $rc = 1 ] && has_line "$TEST_TMP/o" "only from root or its owner (uid 0), not from uid 65534"'
done
"$G" status "$NAME" > "$TEST_TMP/o" 2>&1
check trust/peercred-harmless "a refused kill ended the session" \
	has_line "$TEST_TMP/o" "state=recording"
"$G" kill "$NAME" > /dev/null 2>&1

# Sizes and durations: one sentence, at once, and no socket left behind.
bad_value() {
	local name=$1 msg=$2 t0 s
	shift 2
	t0=$SECONDS # busybox date has no %N
	timeout 10 "$G" record --name "$NAME-$name" -a -o "$TEST_TMP/b.gtsc" "$@" \
		> /dev/null 2> "$TEST_TMP/e"
	local rc=$?
	s=$((SECONDS - t0))
	check_expr "trust/bad-$name" "exit $rc in ${s}s: $(head -c 200 "$TEST_TMP/e")" \
		'[ $rc = 2 ] && [ $s -le 2 ] && [ "$(wc -l < "$TEST_TMP/e")" = 1 ] &&
		 has_line "$TEST_TMP/e" "$msg" && [ ! -e "/run/gtsc/$NAME-$name.sock" ]'
	rm -f "/run/gtsc/$NAME-$name.sock" # the old code's hung recorder left it
}
bad_value b-negative "-b: '-5' is negative" -b -5
bad_value b-u64max "-b: '18446744073709551615' is too large" -b 18446744073709551615
bad_value b-overflow "-b: '16777216T' is too large" -b 16777216T
bad_value b-suffix "-b: '8Q' has an unknown suffix" -b 8Q
bad_value b-zero "-b: '0' is zero" -b 0
bad_value channel-negative "--channel syscalls: size '-1' is negative" --channel syscalls:size=-1
bad_value channel-nr-sub "nr_sub '99999999999' is too large" --channel syscalls:nr_sub=99999999999
bad_value d-negative "-d: '-1' is negative" -d -1
bad_value d-nan "-d: 'nan' is not a duration" -d nan
bad_value s-zero "-s: '0' is zero" -s 0

# -p of a kernel thread: no syscalls to record, said in one sentence.
"$G" record -p 2 -e syscalls -d 0.2 -o "$TEST_TMP/k.gtsc" 2> "$TEST_TMP/e"
rc=$?
check_expr trust/kthread-syscalls "exit $rc: $(head -c 200 "$TEST_TMP/e")" \
	'[ $rc = 2 ] && has_line "$TEST_TMP/e" "is a kernel thread, which makes no syscalls"'

# A SIGKILLed recorder: status says it died, the second time too; old epitaphs go.
printf 'old\n' > "/run/gtsc/$NAME-stale.ended"
touch -d "$(date -d @$(($(date +%s) - 2 * 86400)) '+%Y-%m-%d %H:%M:%S')" "/run/gtsc/$NAME-stale.ended"
printf 'new\n' > "/run/gtsc/$NAME-fresh.ended"
"$G" record --name "$NAME-k" -a -e syscalls -o "$TEST_TMP/k.gtsc" 2> "$TEST_TMP/e" &
kpid=$!
wait_for "$TEST_TMP/e" "recording" "$REC_WAIT"
check_expr trust/prune-old-epitaphs "$(ls /run/gtsc | grep "$NAME" | tr '\n' ' ')" \
	'[ ! -e "/run/gtsc/$NAME-stale.ended" ] && [ -e "/run/gtsc/$NAME-fresh.ended" ]'
kill -9 $kpid
wait $kpid 2> /dev/null
for i in 1 2; do
	"$G" status "$NAME-k" > "$TEST_TMP/s$i" 2>&1
	check trust/killed-status-$i "status said: $(head -c 200 "$TEST_TMP/s$i")" \
		has_line "$TEST_TMP/s$i" "recorder died"
done
check trust/killed-no-socket "the dead recorder's socket stayed" [ ! -e "/run/gtsc/$NAME-k.sock" ]
rm -f "/run/gtsc/$NAME"*.ended
