#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The shared syscall dispatch (dispatch.h, doc/notes/sessions-dispatch.md):
# the first session attaches its programs as the head, and later ones go
# in the head's chain: one link per hook however many sessions record
# (counted through bpf(2) by bpfls).  A session that joins while another
# records and outlives it, and one whose head was SIGKILLed beside a
# SIGKILLed member, each record exactly their storm (2N + 2 events,
# storm.c); the dead member's slot is emptied, an ended or dead head's own
# work retired (its links live on in the member), and once every recorder
# has ended no link of ours is left.
# The mask: a -p session follows its target's forked children, a -a head
# sees them too, a late -p joiner stays exact, and the bits are where they
# belong.  Where the feature probe turns the dispatch off (preemptible
# kernels: 7.x, PREEMPT_RT), the same sessions must be exact, each with
# its own links.
. "$(dirname "$0")/lib.sh"

BPFLS="$WORKLOADS/bpfls"
# a's storm is the long one, still running when b joins on the host; in a
# TCG guest b takes seconds to start whatever a's length, and 600,002 events
# reported as JSON cost the guest ~30 s of the lane's budget (tests/vm/run.sh).
NA=300000
[ -n "${GTSC_VM:-}" ] && NA=60000
NB=20000
NC=20000
ND=30000

if "$GTSC" features | grep -qx 'sys_dispatch=yes'; then
	ON=1
	echo "# dispatch on"
else
	ON=0
	echo "# dispatch off: $("$GTSC" features | grep sys_dispatch)"
fi
# our syscall programs' links (gtsc_sys_enter_*, gtsc_sys_exit_*)
links() { "$BPFLS" links gtsc_sys_e; }
if [ "$(links)" != 0 ]; then
	echo "SKIP live/dispatch: another recorder records syscalls; the counts below would be its too"
	exit 0
fi

start_storm() {
	mkfifo "$TEST_TMP/go$1"
	"$WORKLOADS/storm" "$2" < "$TEST_TMP/go$1" > "$TEST_TMP/pid$1" &
	eval "SPID_$1=$!"
	wait_for "$TEST_TMP/pid$1" "$(eval echo "\$SPID_$1")" 5
}

record_storm() {
	local name=$1 pid=$2
	"$GTSC" record -e syscalls -p "$pid" --name "gt-d$name" -d 400 -b 16M \
		-o "$TEST_TMP/$name.gtsc" 2> "$TEST_TMP/err$name" &
	eval "R_$name=$!"
	wait_for "$TEST_TMP/err$name" recording "$REC_WAIT"
}

# storm_exact NAME PID N: the trace has PID's 2N + 2 events (recorded plus
# dropped) and no other process's.
storm_exact() {
	"$GTSC" report -i "$TEST_TMP/$1.gtsc" --json > "$TEST_TMP/j"
	local head chan rec drop others
	head=$(head -1 "$TEST_TMP/j")
	chan=$(printf '%s\n' "$head" | grep -o '"name":"syscalls"[^}]*')
	rec=$(count_lines "$TEST_TMP/j" "\"pid\":$2," '"event":"sys_e')
	drop=$(json_field "$chan" dropped)
	others=$(grep '"event":"sys_e' "$TEST_TMP/j" | grep -vc "\"pid\":$2,")
	echo "# session $1: recorded $rec, dropped $drop, others' $others (want $((2 * $3 + 2)))"
	[ $((rec + ${drop:-0})) = $((2 * $3 + 2)) ] && [ "$others" = 0 ]
}

slot_of() { "$BPFLS" table | awk -v p="$1" '$1 == p { print $3 }'; }
# filled FILE HOOK SLOT: bpfls slots listed SLOT for HOOK.
filled() {
	awk -v h="$2" -v s="$3" '$1 == h { for (i = 2; i <= NF; i++) if ($i == s) f = 1 }
		END { exit !f }' "$1"
}
# in_chain FILE SLOT: SLOT filled on both hooks; out_of_chain: on neither.
in_chain() { filled "$1" enter "$2" && filled "$1" exit "$2"; }
out_of_chain() { ! filled "$1" enter "$2" && ! filled "$1" exit "$2"; }

# 1. b joins while a records (a's storm released first: it may still run)
start_storm a $NA
start_storm b $NB
exec 3> "$TEST_TMP/goa" 4> "$TEST_TMP/gob"
record_storm a "$SPID_a" || fail dispatch/start-a "$(head -c 300 "$TEST_TMP/erra")"
if [ $ON = 1 ]; then
	check_expr dispatch/lone-head \
		"a alone: its line's slot '$(slot_of "$R_a")' (the head: -1), links $(links)" \
		'[ "$(slot_of "$R_a")" = -1 ] && [ "$(links)" = 2 ]'
fi
echo g >&3
exec 3>&-
record_storm b "$SPID_b" || fail dispatch/start-b "$(head -c 300 "$TEST_TMP/errb")"
kill -0 "$SPID_a" 2> /dev/null && echo "# b joined while a's storm ran"
if [ $ON = 1 ]; then
	check dispatch/one-dispatch "links with two sessions: $(links), want the head's 2" \
		[ "$(links)" = 2 ]
	sa=$(slot_of "$R_a")
	sb=$(slot_of "$R_b")
	"$BPFLS" slots > "$TEST_TMP/slots1"
	check_expr dispatch/join-slots "slots a=$sa b=$sb, filled: $(tr '\n' '|' < "$TEST_TMP/slots1")" \
		'[ "$sa" = -1 ] && [ "$sb" = 0 ] &&
		 [ "$(tr "\n" "|" < "$TEST_TMP/slots1")" = "enter 0|exit 0|" ]'
else
	check dispatch/own-links "links with two sessions: $(links), want 2 or more each" \
		[ "$(links)" -ge 4 ]
fi
# a (the head) ends first: its programs go on calling b's slot, their own work off
wait "$SPID_a"
kill -INT "$R_a"
wait "$R_a"
if [ $ON = 1 ]; then
	read -r _ w _ _ <<< "$("$BPFLS" mask "$SPID_b")"
	check_expr dispatch/head-retired \
		"after a ended: links $(links) (want its 2, held by b), the word $w (want bit 31)" \
		'[ "$(links)" = 2 ] && [ "$(( (${w:-0} >> 31) & 1 ))" = 1 ]'
fi
echo g >&4
exec 4>&-
wait "$SPID_b"
kill -INT "$R_b"
wait "$R_b"
check dispatch/join-a-exact "session a not exact (see above)" storm_exact a "$SPID_a" $NA
check dispatch/join-b-exact "session b not exact (see above)" storm_exact b "$SPID_b" $NB

# 2. c records alone (the head), d and k join, c and k are SIGKILLed: d
# stays exact, k's slot is emptied, c's own work retired while its links
# live on in d.
sleep 1000 &
KPID=$!
start_storm c $NC
start_storm d $ND
exec 5> "$TEST_TMP/goc" 6> "$TEST_TMP/god"
record_storm c "$SPID_c" || fail dispatch/start-c "$(head -c 300 "$TEST_TMP/errc")"
record_storm d "$SPID_d" || fail dispatch/start-d "$(head -c 300 "$TEST_TMP/errd")"
record_storm k "$KPID" || fail dispatch/start-k "$(head -c 300 "$TEST_TMP/errk")"
sc=$(slot_of "$R_c")
sd=$(slot_of "$R_d")
sk=$(slot_of "$R_k")
if [ $ON = 1 ]; then
	check_expr dispatch/c-head "slots c=$sc d=$sd k=$sk, want -1 0 1" \
		'[ "$sc" = -1 ] && [ "$sd" = 0 ] && [ "$sk" = 1 ]'
fi
kill -KILL "$R_c" "$R_k"
wait "$R_c" "$R_k" 2> /dev/null
echo g >&6
exec 6>&-
wait "$SPID_d"
"$GTSC" list > /dev/null # reaps, as d's own consumer loop does once a second
"$BPFLS" slots > "$TEST_TMP/slots2"
if [ $ON = 1 ]; then
	read -r _ w _ _ <<< "$("$BPFLS" mask "$SPID_d")"
	check_expr dispatch/dead-slot-emptied \
		"k's slot $sk still filled, or d's $sd not: $(tr '\n' '|' < "$TEST_TMP/slots2")" \
		'in_chain "$TEST_TMP/slots2" "$sd" && out_of_chain "$TEST_TMP/slots2" "$sk"'
	check dispatch/dead-head-retired "the word after c's death: $w, want bit 31 set" \
		[ "$(( (${w:-0} >> 31) & 1 ))" = 1 ]
	check_expr dispatch/dead-lines-removed "c's or k's line is still in /run/gtsc/dispatch" \
		'[ -z "$(slot_of "$R_c")" ] && [ -z "$(slot_of "$R_k")" ]'
	check dispatch/head-links-survive "links after c's death: $(links), want its 2 (held by d)" \
		[ "$(links)" = 2 ]
fi
kill -INT "$R_d"
wait "$R_d"
check dispatch/after-kill-d-exact "session d not exact (see above)" storm_exact d "$SPID_d" $ND
echo g >&5
exec 5>&-
wait "$SPID_c"
kill "$KPID"
wait "$KPID" 2> /dev/null

# 4. the mask (dispatch.h): e records -a (the head: it sees every event
# first, no bit of its own), f records -p a forker that forks NF children
# after both started (their bits set at fork, before they run), g joins
# last with -p a storm.  Each child's MF getppid calls, enter and exit, are
# in f's trace and in e's; g is exact; the bits are where they belong
# (bpfls mask: "every W mask M").  Dispatch off: exact all the same.
NF=4
MF=3000
NG=20000
bit() { echo $((($1 >> $2) & 1)); }
mkfifo "$TEST_TMP/gof"
(
	read -r _ < "$TEST_TMP/gof"
	exec "$WORKLOADS/forker" $NF $MF
) > "$TEST_TMP/fout" &
FPID=$!
"$GTSC" record -e syscalls=getppid -a --name gt-de -d 400 -b 16M -o "$TEST_TMP/e.gtsc" \
	2> "$TEST_TMP/erre" &
R_e=$!
wait_for "$TEST_TMP/erre" recording "$REC_WAIT" || fail dispatch/start-e "$(head -c 300 "$TEST_TMP/erre")"
record_storm f "$FPID" || fail dispatch/start-f "$(head -c 300 "$TEST_TMP/errf")"
start_storm g $NG
exec 7> "$TEST_TMP/gog"
record_storm g "$SPID_g" || fail dispatch/start-g "$(head -c 300 "$TEST_TMP/errg")"
if [ $ON = 1 ]; then
	se=$(slot_of "$R_e")
	sf=$(slot_of "$R_f")
	sg=$(slot_of "$R_g")
	read -r _ w _ m <<< "$("$BPFLS" mask "$FPID")"
	read -r _ _ _ mg <<< "$("$BPFLS" mask "$SPID_g")"
	check_expr dispatch/mask-bits \
		"slots e=$se f=$sf g=$sg: every $w, forker's mask $m, storm's $mg" \
		'[ "$se" = -1 ] && [ "$sf" = 0 ] && [ "$sg" = 1 ] && [ "$w" = 0 ] &&
		 [ "$(bit "$w" "$sg")" = 0 ] && [ "$(bit "$m" "$sf")" = 1 ] &&
		 [ "$(bit "$m" "$sg")" = 0 ] && [ "$(bit "$mg" "$sg")" = 1 ] &&
		 [ "$(bit "$mg" "$sf")" = 0 ]'
fi
echo g > "$TEST_TMP/gof"
echo g >&7
exec 7>&-
wait "$FPID" "$SPID_g"
kids=$(sed -n 's/^child=//p' "$TEST_TMP/fout")
if [ $ON = 1 ]; then
	nb=0
	for c in $kids; do
		read -r _ _ _ mc <<< "$("$BPFLS" mask "$c")"
		[ "$mc" != none ] && [ "$(bit "$mc" "$sf")" = 1 ] && nb=$((nb + 1))
	done
	check dispatch/mask-fork "$nb of $NF children ($kids) have f's bit $sf" [ "$nb" = $NF ]
fi
kill -INT "$R_e" "$R_f" "$R_g"
wait "$R_e" "$R_f" "$R_g"
# kids_exact NAME: each child's MF getppid enters and exits are in NAME's trace, none dropped
kids_exact() {
	local n=0 c en ex
	"$GTSC" report -i "$TEST_TMP/$1.gtsc" --json > "$TEST_TMP/j$1"
	for c in $kids; do
		en=$(count_lines "$TEST_TMP/j$1" "\"pid\":$c," '"event":"sys_enter","name":"getppid"')
		ex=$(count_lines "$TEST_TMP/j$1" "\"pid\":$c," '"event":"sys_exit","name":"getppid"')
		[ "$en" = $MF ] && [ "$ex" = $MF ] && n=$((n + 1))
	done
	echo "# session $1: $n of $NF children with $MF getppid enters and exits"
	[ $n = $NF ]
}
check dispatch/mask-p-children "f lost forked children's calls (see above)" kids_exact f
check dispatch/mask-all-children "e (-a) lost the children's calls (see above)" kids_exact e
check dispatch/mask-late-joiner-exact "session g not exact (see above)" storm_exact g "$SPID_g" $NG

# 3. nothing of ours stays attached
check dispatch/none-left "links after every recorder ended: $(links)" \
	[ "$(links)" = 0 ]
check dispatch/no-holder "a live holder is still listed: $("$BPFLS" slots | tr '\n' '|')" \
	[ "$("$BPFLS" slots)" = none ]
