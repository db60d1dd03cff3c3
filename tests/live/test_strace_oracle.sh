#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# strace is the oracle: the same deterministic workload (oracle.c: file,
# memory, signal, loopback socket and process calls) runs under `strace -f`
# and under `gtsc-bpf record`, and every call of every thread must read the
# same in `report --syscalls --no-arg-names`: name, decoded arguments (flags,
# strings, sockaddrs ...) and return value.  Only what differs between two
# runs is normalised:
#   - pids and tids become P1, P2 ... (numbered by first appearance);
#   - an argument or return value that is an address (hex >= 0x10000) on both
#     sides is not compared, nor an address inside a struct (sa_handler=0x...),
#     nor one we print as a bare pointer where strace shows the memory behind
#     it (a struct gtsc-bpf does not capture) -- except for the calls in
#     CAPTURED, whose structs gtsc-bpf records: those must match;
#   - strace's column padding and /* comments */ are dropped;
#   - what the kernel makes up anew each run: ephemeral port numbers
#     (htons(N), N >= 1024) and getrandom's bytes (their count is compared);
#   - rt_sigreturn: name and return value only (strace decodes the signal
#     frame as if it were an argument).
# Lines only one tool prints are skipped: gtsc-bpf's "<... clone resumed>) = 0"
# of a new child and its records before the first execve, strace's signal
# and exit lines.
. "$(dirname "$0")/lib.sh"

if ! command -v strace > /dev/null 2>&1; then
	echo "SKIP live/strace-oracle: strace not installed"
	exit 0
fi

W=$WORKLOADS/oracle
dir=$TEST_TMP/work
mkdir -p "$dir"
strace -f -qq -s 32 -o "$TEST_TMP/strace.out" "$W" "$dir" > /dev/null 2>&1
src=$?
"$GTSC" record -q -e syscalls -o "$TEST_TMP/t.gtsc" -- "$W" "$dir" > /dev/null 2> "$TEST_TMP/err"
rc=$?
check strace-oracle/runs "workload under strace exited $src, record exited $rc: $(head -c 300 "$TEST_TMP/err")" \
	[ "$src.$rc" = 0.0 ]
"$GTSC" report -i "$TEST_TMP/t.gtsc" --syscalls --no-arg-names > "$TEST_TMP/gtsc.out" 2> "$TEST_TMP/rerr"
rc=$?
check strace-oracle/report "report failed: $(head -c 300 "$TEST_TMP/rerr")" [ $rc = 0 ]

# Calls whose pointed-to structs (stat, int[2], wait status, sigaction,
# sigset, timespec, rlimit, socklen) gtsc-bpf captures: no bare pointer for them.
CAPTURED="fstat stat lstat newfstatat pipe pipe2 socketpair wait4 rt_sigaction rt_sigprocmask"
CAPTURED="$CAPTURED rt_sigpending nanosleep getrlimit setrlimit prlimit64 accept accept4"
CAPTURED="$CAPTURED getsockname getpeername recvfrom setsockopt"

# canon TOOL FILE MAP: one line per call, "thread<TAB>name<TAB>args (\037 separated)<TAB>ret";
# MAP gets "tid P<n>" lines.
canon() {
	awk -v tool="$1" -v map="$3" -v bad="$TEST_TMP/bad" '
	# Splits the text after "name(" into arguments and the return value.
	function parse(s, a,    i, c, depth, q, cur, n, rest) {
		n = 0; depth = 0; q = 0; cur = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (q) {
				cur = cur c
				if (c == "\\") { i++; cur = cur substr(s, i, 1) }
				else if (c == "\"") q = 0
				continue
			}
			if (c == "\"") { q = 1; cur = cur c; continue }
			if (c == "(" || c == "[" || c == "{") depth++
			if (depth == 0 && (c == "," || c == ")")) {
				sub(/^ +/, "", cur); sub(/ +$/, "", cur)
				if (cur != "" || n > 0 || c == ",") a[++n] = cur
				cur = ""
				if (c == ")") break
				continue
			}
			if (c == ")" || c == "]" || c == "}") depth--
			cur = cur c
		}
		rest = substr(s, i + 1)
		sub(/^ *= */, "", rest)
		a[0] = rest
		return n
	}
	function emit(tid, text,    name, a, n, i, args, t) {
		name = substr(text, 1, index(text, "(") - 1)
		n = parse(substr(text, index(text, "(") + 1), a)
		if (!(tid in ord)) { ord[tid] = ++nthreads; print tid, "P" ord[tid] > map }
		args = ""
		for (i = 1; i <= n; i++) args = args (i > 1 ? "\037" : "") a[i]
		printf "P%d\t%s\t%s\t%s\n", ord[tid], name, args, a[0]
	}
	function handle(tid, text) {
		if (text ~ /^(---|\+\+\+)/) return
		if (text ~ / <unfinished \.\.\.>$/) {
			sub(/ <unfinished \.\.\.>$/, "", text); held[tid] = text; return
		}
		if (text ~ /^<\.\.\. [a-z0-9_]+ resumed>/) {
			if (!(tid in held)) return # began before this thread was traced
			sub(/^<\.\.\. [a-z0-9_]+ resumed>/, "", text)
			text = held[tid] text; delete held[tid]
		}
		emit(tid, text)
	}
	# A thread id that is not a number would be renumbered inside the
	# arguments of every call (an ASan run once showed two calls differing
	# with both sides printing the same): such a line is reported, not used.
	function good(tid) {
		if (tid ~ /^[0-9][0-9][0-9]+$/) return 1
		print "bad thread id \"" tid "\" in: " $0 > bad
		return 0
	}
	tool == "strace" { tid = $1; sub(/^[0-9]+ +/, ""); if (good(tid)) handle(tid, $0); next }
	tool == "gtsc" && /^#/ { next }
	tool == "gtsc" {
		who = $2; sub(/^ *[0-9.]+ [^ ]+ /, ""); tid = who
		sub(/.*\//, "", tid); sub(/.*:/, "", tid)
		if (!started) { if ($0 !~ /^execve\(/) next; started = 1 }
		if (good(tid)) handle(tid, $0)
	}' "$2"
}
canon strace "$TEST_TMP/strace.out" "$TEST_TMP/pa" > "$TEST_TMP/a"
canon gtsc "$TEST_TMP/gtsc.out" "$TEST_TMP/pb" > "$TEST_TMP/b"
check strace-oracle/thread-ids "lines without a thread id: $(head -c 600 "$TEST_TMP/bad" 2> /dev/null | tr '\n' '|')" \
	[ ! -s "$TEST_TMP/bad" ]

# compare: per thread, call by call.
awk -F'\t' -v pa="$TEST_TMP/pa" -v pb="$TEST_TMP/pb" -v out="$TEST_TMP/cmp" -v captured="$CAPTURED" '
	function pids(s, map,    k) {
		for (k in map) s = subpid(s, k, map[k])
		return s
	}
	function subpid(s, k, p,    r, i, j, b, a) {
		r = ""
		while ((i = index(s, k)) > 0) {
			b = i > 1 ? substr(s, i - 1, 1) : ""
			a = substr(s, i + length(k), 1)
			if (b !~ /[0-9a-fx]/ && a !~ /[0-9a-f]/) { r = r substr(s, 1, i - 1) p }
			else r = r substr(s, 1, i + length(k) - 1)
			s = substr(s, i + length(k))
		}
		return r s
	}
	function clean(s,    p, r) {
		gsub(/ \/\* [^*]*\*\//, "", s)
		r = ""
		while (match(s, /htons\([0-9]+\)/)) {
			p = substr(s, RSTART + 6, RLENGTH - 7) + 0
			r = r substr(s, 1, RSTART - 1) (p >= 1024 ? "htons(EPHEMERAL)" : substr(s, RSTART, RLENGTH))
			s = substr(s, RSTART + RLENGTH)
		}
		s = r s
		sub(/^[a-z_]+=/, "", s) # strace-style labels: child_tidptr=0x...
		if (s ~ /^[[{]/) gsub(/0x[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/, "ADDR", s)
		return s
	}
	function addr(s) { return s ~ /^0x[0-9a-f]+$/ && length(s) >= 7 }
	function hex(s) { return s ~ /^0x[0-9a-f]+$/ }
	# Same value?  A: strace, B: gtsc-bpf; STRICT: we capture what strace shows.
	function same(a, b, strict) {
		a = clean(a); b = clean(b)
		if (a == b) return 1
		if (addr(a) && addr(b)) return 1
		if (!strict && hex(b) && !hex(a) && a !~ /^-?[0-9]/ && a != "NULL") return 1 # memory we do not decode
		return 0
	}
	BEGIN {
		split(captured, cl, " ")
		for (k in cl) cap[cl[k]] = 1
		while ((getline l < pa) > 0) { split(l, f, " "); ma[f[1]] = f[2] }
		while ((getline l < pb) > 0) { split(l, f, " "); mb[f[1]] = f[2] }
	}
	FNR == NR { na[$1]++; A[$1, na[$1]] = $0; next }
	{ nb[$1]++; B[$1, nb[$1]] = $0 }
	END {
		bad = 0; calls = 0; strs = 0
		for (t in na) if (na[t] != nb[t]) {
			printf "%s: strace has %d calls, gtsc-bpf %d\n", t, na[t], nb[t] > out; bad++
		}
		for (t in na) for (i = 1; i <= na[t] && i <= nb[t]; i++) {
			split(A[t, i], x, "\t"); split(B[t, i], y, "\t")
			if (x[2] == "getrandom") { gsub(/\\x[0-9a-f][0-9a-f]/, "XX", x[3]); gsub(/\\x[0-9a-f][0-9a-f]/, "XX", y[3]) }
			n1 = split(pids(x[3], ma), a1, "\037"); n2 = split(pids(y[3], mb), a2, "\037")
			ok = x[2] == y[2] && same(pids(x[4], ma), pids(y[4], mb))
			if (ok && x[2] != "rt_sigreturn") {
				ok = n1 == n2
				for (k = 1; ok && k <= n1; k++) {
					ok = same(a1[k], a2[k], x[2] in cap)
					if (a2[k] ~ /^"/ && a1[k] == a2[k]) strs++
				}
			}
			calls++
			if (!ok) {
				bad++
				# as compared: thread ids renumbered on each side by its own map
				x[3] = pids(x[3], ma); y[3] = pids(y[3], mb)
				gsub(/\037/, ", ", x[3]); gsub(/\037/, ", ", y[3])
				printf "%s call %d:\n  strace:   %s(%s) = %s\n  gtsc-bpf: %s(%s) = %s\n", t, i,
				       x[2], x[3], pids(x[4], ma), y[2], y[3], pids(y[4], mb) > out
			}
		}
		printf "%d %d %d\n", calls, bad, strs
	}' "$TEST_TMP/a" "$TEST_TMP/b" > "$TEST_TMP/res"
read -r calls bad strs < "$TEST_TMP/res"
nthreads_a=$(cut -f1 "$TEST_TMP/a" | sort -u | wc -l)
nthreads_b=$(cut -f1 "$TEST_TMP/b" | sort -u | wc -l)
check strace-oracle/threads "strace shows $nthreads_a threads, gtsc-bpf $nthreads_b" \
	[ "$nthreads_a" = "$nthreads_b" -a "$nthreads_a" -ge 3 ]
check strace-oracle/calls "$bad of $calls calls differ: $(head -c 1500 "$TEST_TMP/cmp" 2> /dev/null | tr '\n' '|')" \
	[ "$bad" = 0 -a "$calls" -ge 100 ]
# Strings need the BPF capture (paths, written and read data): once the trace
# carries payload, they are compared like every other argument.
if grep -q '"/' "$TEST_TMP/gtsc.out"; then
	check strace-oracle/strings "only $strs string arguments matched strace's" [ "$strs" -ge 20 ]
	check strace-oracle/path-strings "openat's path is not a captured string" \
		has_line "$TEST_TMP/gtsc.out" "openat(AT_FDCWD, \"$dir/oracle-file\", O_RDONLY|0x800000) = 3"
else
	check strace-oracle/strings "no captured strings at all" false
fi
# The decoding the issue names, literally.
check strace-oracle/unknown-bits "O_RDONLY|0x800000 not shown" has_line "$TEST_TMP/gtsc.out" 'O_RDONLY|0x800000'
check strace-oracle/errno "no ENOENT with its message" \
	has_line "$TEST_TMP/gtsc.out" '= -1 ENOENT (No such file or directory)'
# The captured structs, literally (strace's text for them was checked above).
check strace-oracle/fstat "fstat's struct stat not decoded" \
	has_line "$TEST_TMP/gtsc.out" 'fstat(3, {st_mode=S_IFREG|0640, st_size=13, ...}) = 0'
check strace-oracle/stat-rdev "stat of /dev/null without st_rdev" \
	has_line "$TEST_TMP/gtsc.out" 'stat("/dev/null", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}) = 0'
check strace-oracle/wait4 "wait4's status not decoded" \
	has_line "$TEST_TMP/gtsc.out" '[{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = '
check strace-oracle/sigaction "rt_sigaction's struct not decoded" \
	has_line "$TEST_TMP/gtsc.out" 'rt_sigaction(SIGUSR1, {sa_handler=0x'
check strace-oracle/pipe "pipe's fds not decoded" has_line "$TEST_TMP/gtsc.out" ' pipe(['
