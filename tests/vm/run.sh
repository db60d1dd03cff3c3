#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The VM lane: boots each kernel of tests/vm/kernels.txt (as cached by
# scripts/fetch-kernels.sh) under qemu TCG with a busybox initramfs holding
# one static gtsc-bpf, tests/live/ and the static workloads, runs
# tests/live/lane.sh inside and reprints its result lines per kernel:
# "PASS live/foo" from 6.1.0-56-amd64 becomes "PASS vm-6.1.0-56/live/foo".
# The same binary on every kernel is the CO-RE proof.  See tests/vm/README.md.
#   tests/vm/run.sh              every kernel
#   tests/vm/run.sh 6.12 ...     only kernels whose release contains 6.12
# Environment:
#   VM_TIMEOUT    seconds per kernel before qemu is killed (1800; the full
#                 lane took 646-1184 s per kernel in a fresh-clone .ci/run
#                 of 2026-11-27, two at a time on 2 cores, the 7.x and -rt
#                 kernels 1.7x slower than 6.1 under TCG; 1200 s was
#                 overrun by 7.3.4-rt once the lane grew.  A guest that
#                 takes more than 3/4 of it gets a "# ... budget" line)
#   VM_START_TIMEOUT  seconds a guest may take to print GTSC-VM-START (240);
#                 a guest that does not is booted once more, said in a
#                 "# vm-...: attempt 1" line; twice is a FAIL
#   VM_JOBS       kernels booted at once (2; each VM has 2 vCPUs)
#   GTSC_STATIC   a prebuilt static gtsc-bpf to use instead of building one
#   VM_LANE       script the guest runs instead of tests/live/lane.sh
#   VM_WORKLOADS  workload directory (default $OUTPUT/tests/live, built here)
#   VM_CACHE      kernel cache (default .cache/vm)
# Serial logs are kept in $OUTPUT/vm/<release>.log.
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT=${OUTPUT:-.output}
CACHE=${VM_CACHE:-.cache/vm}
TIMEOUT=${VM_TIMEOUT:-1800}
JOBS=${VM_JOBS:-2}
LOGDIR=$OUT/vm
SENTINEL=GTSC-VM-DONE
START=GTSC-VM-START
# Seconds a guest may take to reach /init (~15 s alone, ~40 s two at a time
# under CI's load) before it is booted again, once.
START_TIMEOUT=${VM_START_TIMEOUT:-240}

info() { echo "vm: $*" >&2; }

# A dynamic binary in the initramfs would die with "not found": no libc there.
is_static() { ! readelf -lW "$1" 2>/dev/null | grep -q 'Requesting program interpreter'; }

# --- what this machine can run ----------------------------------------------
missing=
for t in qemu-system-x86_64 cpio gzip readelf timeout flock make; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
BUSYBOX=$(command -v busybox) || BUSYBOX=
BASH_STATIC=$(command -v bash-static) || BASH_STATIC=
[ -n "$BUSYBOX" ] && is_static "$BUSYBOX" || missing="$missing busybox-static"
[ -n "$BASH_STATIC" ] || missing="$missing bash-static"
if [ -n "$missing" ]; then
	echo "SKIP vm: missing$missing (run scripts/deps.sh)"
	exit 0
fi

# Is a release (or a kernels.txt line, its regex escapes dropped) selected?
selected() {
	local p
	[ $# -gt 1 ] || return 0
	for p in "${@:2}"; do
		case ${1//\\/} in *"$p"*) return 0 ;; esac
	done
	return 1
}

# A kernels.txt line without a cached kernel is a FAIL, never a silent skip.
kernels=()
unfetched=()
while read -r dir why; do
	if [ "$dir" = missing ]; then
		name=${why%% *}
		name=${name#^}
		name=${name%$}
		name=${name//\\/}
		name=${name#linux-image-}
		selected "$name" "$@" && unfetched+=("FAIL vm-${name%-amd64}/fetch: ${why#* }")
		continue
	fi
	rel=${dir##*/}
	selected "$rel" "$@" || continue
	kernels+=("$rel")
done < <(VM_CACHE=$CACHE scripts/fetch-kernels.sh --list)
for line in "${unfetched[@]}"; do echo "$line"; done
if [ ${#kernels[@]} = 0 ] && [ ${#unfetched[@]} -gt 0 ]; then
	exit 1
fi
if [ ${#kernels[@]} = 0 ]; then
	echo "SKIP vm: no kernel in $CACHE${1:+ matching $*} (run scripts/fetch-kernels.sh)"
	exit 0
fi

# One run at a time: runs share .output/static and the logs, and two sets
# of TCG guests on a small machine slow each other into timeouts.
mkdir -p "$LOGDIR"
exec 9>"$LOGDIR/.lock"
if ! flock -n 9; then
	info "another tests/vm/run.sh is running; waiting for it"
	flock 9
fi

WORK=$(mktemp -d)
cleanup() {
	# Only our own children: the timeout wrappers (they pass the signal on
	# to their qemu), then the boot() subshells waiting for them.  Best
	# effort: what is already gone cannot be killed.
	local f p
	set +e
	for f in "$WORK"/*.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for p in $(jobs -pr); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the static binary ------------------------------------------------------
# The Makefile's link rule writes ./gtsc-bpf, which is the host's dynamic
# binary (and other people's working copy).  Rather than swapping files
# there, a second makefile read after the real one (make -f Makefile -f -)
# adds the same link rule for $(OUTPUT)/gtsc-bpf; every variable (LDLIBS,
# LDFLAGS from STATIC=1) and every object rule still comes from the
# Makefile, and OUTPUT=$OUT/static keeps the objects apart.
GTSC_BIN=${GTSC_STATIC:-}
if [ -z "$GTSC_BIN" ]; then
	GTSC_BIN=$OUT/static/gtsc-bpf
	# printf, not a heredoc: recipe lines need their literal tabs.
	# shellcheck disable=SC2016 # make, not bash, expands these
	if ! printf '%s\n' '$(OUTPUT)/gtsc-bpf: $(CLI_OBJS) $(LIBGTSC)' \
		$'\t$(call msg,BINARY,$@)' \
		$'\t$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@' |
		make STATIC=1 OUTPUT="$OUT/static" -f Makefile -f - "$GTSC_BIN" >&2; then
		echo "FAIL vm/build: make STATIC=1 gtsc-bpf failed"
		exit 1
	fi
fi
if [ ! -x "$GTSC_BIN" ] || ! is_static "$GTSC_BIN"; then
	echo "FAIL vm/build: $GTSC_BIN is missing or not static"
	exit 1
fi

WORKLOADS=${VM_WORKLOADS:-}
if [ -z "$WORKLOADS" ]; then
	WORKLOADS=$OUT/tests/live
	if ! make OUTPUT="$OUT" live-bins >&2; then
		echo "FAIL vm/build: make live-bins failed"
		exit 1
	fi
fi

LANE=${VM_LANE:-tests/live/lane.sh}

# --- the initramfs (one for all kernels: it holds no modules) ---------------
build_initramfs() {
	local root=$WORK/root a f
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,etc,gtsc/workloads,gtsc/.output/tests}
	cp "$BUSYBOX" "$root/bin/busybox"
	for a in $("$BUSYBOX" --list-full); do
		[ -e "$root/$a" ] || [ -L "$root/$a" ] || ln -s /bin/busybox "$root/$a"
	done
	rm -f "$root/bin/bash"
	cp "$BASH_STATIC" "$root/bin/bash"
	cp "$GTSC_BIN" "$root/gtsc/gtsc-bpf"
	mkdir -p "$root/gtsc/tests"
	[ -d tests/live ] && cp -r tests/live "$root/gtsc/tests/live"
	mkdir -p "$root/gtsc/tests/live"
	# Beside lane.sh, which it may call (tests/vm/lane_flight.sh).
	if [ -n "${VM_LANE:-}" ]; then
		cp "$VM_LANE" "$root/gtsc/tests/live/vm_lane.sh"
	fi
	if [ -d "$WORKLOADS" ]; then
		for f in "$WORKLOADS"/*; do
			[ -f "$f" ] && [ -x "$f" ] || continue
			is_static "$f" || info "warning: workload $f is dynamic and will not run in the VM"
			cp "$f" "$root/gtsc/workloads/"
		done
	fi
	# Scripts written for the host lane find workloads under the repo's
	# .output/tests/live; /gtsc is laid out like the repo root.
	ln -s ../../workloads "$root/gtsc/.output/tests/live"
	ln -s gtsc/gtsc-bpf "$root/gtsc-bpf"
	echo 'root:x:0:0:root:/root:/bin/bash' >"$root/etc/passwd"
	echo 'root:x:0:' >"$root/etc/group"
	ln -s /proc/mounts "$root/etc/mtab"
	# Without /dev/console in the archive the kernel starts /init with no
	# stdio; /init also reopens it after mounting devtmpfs, for non-root builds.
	if [ "$(id -u)" = 0 ]; then
		mknod -m 600 "$root/dev/console" c 5 1
		mknod -m 666 "$root/dev/null" c 1 3
	fi
	cat >"$root/init" <<-EOF
		#!/bin/sh
		# Generated by tests/vm/run.sh.
		export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb
		mount -t proc proc /proc
		mount -t sysfs sysfs /sys
		mount -t devtmpfs devtmpfs /dev
		exec </dev/console >/dev/console 2>&1
		# udev usually makes these; bash's <(...) needs /dev/fd.
		ln -sf /proc/self/fd /dev/fd
		ln -sf /proc/self/fd/0 /dev/stdin
		ln -sf /proc/self/fd/1 /dev/stdout
		ln -sf /proc/self/fd/2 /dev/stderr
		mkdir -p /dev/pts /dev/shm
		mount -t devpts devpts /dev/pts
		mount -t tmpfs tmpfs /dev/shm
		mount -t tmpfs tmpfs /tmp
		mount -t tracefs tracefs /sys/kernel/tracing
		mount -t debugfs debugfs /sys/kernel/debug
		mount -t bpf bpf /sys/fs/bpf
		mount -t cgroup2 cgroup2 /sys/fs/cgroup
		ulimit -l unlimited
		hostname gtsc-vm
		# No NIC, but tests may use 127.0.0.1, which exists once lo is up.
		ip link set lo up
		export GTSC=/gtsc/gtsc-bpf WORKLOADS=/gtsc/workloads GTSC_VM=\$(uname -r)
		# SeaBIOS leaves the cursor mid-line: start on a fresh one.
		echo
		echo "GTSC-VM-START \$(uname -r)"
		cd /gtsc
		# The README's compatibility table (tests/vm/compat-table.sh).
		echo "GTSC-FEATURES-BEGIN \$(uname -r)"
		/gtsc/gtsc-bpf features
		echo "GTSC-FEATURES-END"
		if [ -f /gtsc/tests/live/vm_lane.sh ]; then
			bash /gtsc/tests/live/vm_lane.sh
			rc=\$?
		elif [ -f /gtsc/tests/live/lane.sh ]; then
			bash /gtsc/tests/live/lane.sh
			rc=\$?
		else
			echo "SKIP live/lane: tests/live/lane.sh is not written yet"
			rc=0
		fi
		echo "$SENTINEL rc=\$rc"
		sync
		poweroff -f
	EOF
	chmod 755 "$root/init"
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$WORK/initramfs.gz"
}
build_initramfs
info "initramfs $(du -k "$WORK/initramfs.gz" | cut -f1) KiB; binary $GTSC_BIN; lane $LANE"

# last_line LOG: the console's last non-blank line, where a hung guest stopped.
last_line() {
	tr -d '\r' <"$1" | sed -E 's/\x1b(\[[0-9;?]*[A-Za-z]|c)//g' |
		grep -v '^[[:space:]]*$' | tail -n1 | cut -c1-160
}

# qemu_run REL LOG: boots REL with its console in LOG; qemu's exit status,
# or 200 when the guest printed no GTSC-VM-START within $START_TIMEOUT s
# (qemu is then stopped).
qemu_run() {
	local rel=$1 log=$2 pid rc=0 waited=0
	# TCG only: /dev/kvm exists on the build machines but hangs.  panic=-1
	# plus -no-reboot turns a panic into a qemu exit instead of a hang.
	# loglevel=5 after quiet: no boot chatter, but KERN_WARNING still
	# reaches the console, so WARN() splats and lockup backtraces are logged
	# even when the guest then hangs.
	# The serial console goes straight to $log, so `tail -f` it to watch.
	# thread=single: multi-threaded TCG mishandles the kernel patching its
	# own code (static keys flipped as sessions attach, kprobes): 3 of 7
	# runs oopsed or soft-locked; single-threaded, 3 of 3 were clean.
	timeout -k 5 "$TIMEOUT" qemu-system-x86_64 \
		-accel tcg,thread=single -cpu max -smp 2 -m 1024 \
		-nographic -no-reboot -nodefaults -no-user-config -serial stdio -net none \
		-kernel "$CACHE/$rel/vmlinuz" -initrd "$WORK/initramfs.gz" \
		-append "console=ttyS0 quiet loglevel=5 panic=-1 rdinit=/init" \
		</dev/null >"$log" 2>"$WORK/$rel.qemu-err" 9>&- &
	pid=$!
	echo "$pid" >"$WORK/$rel.pid"
	# The timeout wrapper passes the TERM on to its qemu.  -s: the log
	# appears only once the background job has opened it.
	while kill -0 "$pid" 2>/dev/null && ! grep -qs "$START" "$log"; do
		if [ "$waited" -ge "$START_TIMEOUT" ]; then
			kill "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			rm -f "$WORK/$rel.pid"
			return 200
		fi
		sleep 2
		waited=$((waited + 2))
	done
	wait "$pid" || rc=$?
	rm -f "$WORK/$rel.pid"
	return "$rc"
}

# --- one kernel ---------------------------------------------------------------
# Boots $1 and writes its result lines to $WORK/$1.out and a table row to
# $WORK/$1.row.  Runs in the background; prints nothing itself.
boot() {
	local rel=$1 name=vm-${1%-amd64} log=$LOGDIR/$1.log t0 rc=0 secs why line nlane
	local res=$WORK/$rel.out attempt
	t0=$(date +%s)
	: >"$res"
	rm -f "$LOGDIR/$rel".attempt*.log
	for attempt in 1 2; do
		rc=0
		qemu_run "$rel" "$log" || rc=$?
		[ "$rc" != 200 ] || [ "$attempt" = 2 ] && break
		# One retry, said aloud: a guest that never reached /init is
		# TCG, firmware or an early-boot hang, before any of our code
		# ran; one that does it twice is a FAIL.  (CI's 7.3.4 guest
		# once printed no line of the lane in 1200 s; its log is lost.)
		echo "# $name: attempt $attempt printed no GTSC-VM-START in $START_TIMEOUT s" \
			"(last console line: $(last_line "$log")); booting again" >>"$res"
		mv -f "$log" "$LOGDIR/$rel.attempt$attempt.log"
	done
	# CRs and SeaBIOS' terminal escapes would break line matching.
	tr -d '\r' <"$log" | sed -E 's/\x1b(\[[0-9;?]*[A-Za-z]|c)//g' >"$WORK/$rel.log"
	cat "$WORK/$rel.log" >"$log"
	secs=$(($(date +%s) - t0))
	# The lane's own lines, renamed per kernel.
	sed -nE "s|^(PASS\|FAIL\|SKIP) |\1 $name/|p" "$log" >"$WORK/$rel.lane"
	nlane=$(wc -l <"$WORK/$rel.lane")
	cat "$WORK/$rel.lane" >>"$res"
	why=
	if [ "$rc" = 200 ]; then
		why="no $START line in $START_TIMEOUT s, twice"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		why="timeout after ${TIMEOUT} s"
	elif line=$(grep -m1 'Kernel panic' "$log"); then
		why="kernel panic: ${line#*] }"
	elif ! grep -q "^$SENTINEL" "$log"; then
		why="no $SENTINEL line (qemu rc=$rc$(head -c 200 "$WORK/$rel.qemu-err" | tr '\n' ' ' | sed 's/^./: &/'))"
	fi
	if [ -n "$why" ]; then
		echo "FAIL $name/boot: $why; last console line: $(last_line "$log") (log $log)" >>"$res"
	else
		echo "PASS $name/boot" >>"$res"
		line=$(sed -n "s/^$SENTINEL rc=//p" "$log" | head -n1)
		if [ "$nlane" = 0 ]; then
			echo "FAIL $name/lane: printed no PASS/FAIL/SKIP line (rc=$line)" >>"$res"
		elif [ "$line" != 0 ] && ! grep -q "^FAIL $name/" "$res"; then
			echo "FAIL $name/lane: exited $line without a FAIL line" >>"$res"
		fi
	fi
	# Said before it becomes a timeout: the lane grows with every test.
	if [ "$secs" -gt $((TIMEOUT * 3 / 4)) ] && [ -z "$why" ]; then
		echo "# $name: the lane took $secs s of its $TIMEOUT s budget (VM_TIMEOUT)" >>"$res"
	fi
	# Kernel trouble the tests themselves may not notice.
	if line=$(grep -m1 -E '(BUG:|Oops:|general protection fault|WARNING: CPU:|Unable to handle)' "$log"); then
		echo "FAIL $name/kernel: ${line#*] } (log $log)" >>"$res"
	fi
	printf '%s %s %s %s %s\n' "$rel" "$(grep -c '^PASS ' "$res")" "$(grep -c '^FAIL ' "$res")" \
		"$(grep -c '^SKIP ' "$res")" "$secs" >"$WORK/$rel.row"
}

pids=()
for rel in "${kernels[@]}"; do
	# A free slot only: each boot's status is read below, by its pid.
	while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do wait -n || :; done
	info "booting $rel"
	boot "$rel" &
	pids+=($!)
done

# Results in kernels.txt order, each as soon as its kernel is done.
for i in "${!kernels[@]}"; do
	rc=0
	wait "${pids[$i]}" || rc=$?
	cat "$WORK/${kernels[$i]}.out" 2>/dev/null ||
		echo "FAIL vm-${kernels[$i]%-amd64}/boot: run.sh error, no results"
	if [ $rc != 0 ]; then
		echo "FAIL vm-${kernels[$i]%-amd64}/run: boot() exited $rc; its results may be partial"
	fi
done

# After a run of every kernel, the README's table must be this run's.
fails=0
if [ $# = 0 ] && [ ${#unfetched[@]} = 0 ]; then
	if why=$(OUTPUT=$OUT VM_CACHE=$CACHE tests/vm/compat-table.sh --check 2>&1); then
		echo "PASS vm/compat-table"
	else
		echo "FAIL vm/compat-table: $(echo "$why" | head -c 400 | tr '\n' ' ')"
		fails=1
	fi
fi
echo
printf '%-28s | %6s | %6s | %7s | %4s\n' kernel passed failed skipped secs
while read -r rel p f s secs; do
	printf '%-28s | %6s | %6s | %7s | %4s\n' "$rel" "$p" "$f" "$s" "$secs"
	fails=$((fails + f))
done < <(for rel in "${kernels[@]}"; do cat "$WORK/$rel.row" 2>/dev/null || echo "$rel ? 1 ? ?"; done)
[ "$fails" = 0 ] && [ ${#unfetched[@]} = 0 ]
