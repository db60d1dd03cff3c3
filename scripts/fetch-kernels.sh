#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Fetches the Debian kernels the VM lane boots (tests/vm/kernels.txt) into
# .cache/vm/<uname -r>/{vmlinuz,config,package}.  The kernel .deb is only
# downloaded and unpacked (apt-get download + dpkg-deb), never installed on
# the host, and only boot/ is kept: the lane boots an initramfs with no
# modules.  Idempotent: when every kernel is cached it writes nothing.
#   scripts/fetch-kernels.sh           fetch what is missing
#   scripts/fetch-kernels.sh --list    print the cached kernel directories
#   scripts/fetch-kernels.sh --missing print the entries with no cached kernel
# Environment: VM_CACHE (default .cache/vm), DEBIAN_MIRROR (default
# http://deb.debian.org/debian, used only for a suite this script adds).
set -euo pipefail
cd "$(dirname "$0")/.."

LIST=tests/vm/kernels.txt
CACHE=${VM_CACHE:-.cache/vm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# Built-in options the lane relies on; a kernel without them is useless here.
NEED_CONFIG="BPF_SYSCALL DEBUG_INFO_BTF KPROBES KPROBE_EVENTS UPROBE_EVENTS FTRACE
BPF_EVENTS DEVTMPFS BLK_DEV_INITRD RD_GZIP SERIAL_8250 SERIAL_8250_CONSOLE"

say() { echo "fetch-kernels: $*" >&2; }
die() { say "$*"; exit 1; }

# Every line of kernels.txt as "<package-or-regex> <suite-or-empty>".
entries() {
	sed -e 's/#.*//' -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' "$LIST" | grep -v '^$' || true
}

# A cached directory is a kernel release; does its package match the entry?
# Entries starting with ^ are regexes, anything else an exact package name
# (whose '+' and '.' must not be read as regex syntax).
matches() {
	local pat=$1 rel=$2
	case $pat in
	^*) printf 'linux-image-%s\n' "$rel" | grep -Eq -- "$pat" ;;
	*) [ "linux-image-$rel" = "$pat" ] ;;
	esac
}

# Newest cached release matching an entry, or nothing.
cached_for() {
	local pat=$1 d
	[ -d "$CACHE" ] || return 0
	for d in "$CACHE"/*/; do
		d=${d%/}
		d=${d##*/}
		if [ -s "$CACHE/$d/vmlinuz" ] && matches "$pat" "$d"; then
			echo "$d"
		fi
	done | sort -V | tail -n1
}

if [ "${1:-}" = --list ]; then
	entries | while read -r pat _; do
		rel=$(cached_for "$pat")
		if [ -n "$rel" ]; then
			echo "$CACHE/$rel"
		fi
	done
	exit 0
fi
if [ "${1:-}" = --missing ]; then
	entries | while read -r pat _; do
		[ -n "$(cached_for "$pat")" ] || echo "$pat"
	done
	exit 0
fi

# Is the suite in apt's sources (one-line .list or deb822 .sources style)?
suite_enabled() {
	# -q: a match wins even when some of these files do not exist.
	grep -Eqhs "^[^#]*[[:space:]]$1([[:space:]]|\$)" /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources
}

updated=0
apt_update() {
	[ "$updated" = 0 ] || return 0
	updated=1
	[ "$(id -u)" = 0 ] || { say "not root: cannot apt-get update"; return 0; }
	say "apt-get update"
	apt-get update -qq >&2 || say "apt-get update failed (offline?)"
}

add_suite() {
	local suite=$1 f=/etc/apt/sources.list.d/$1.sources
	suite_enabled "$suite" && return 0
	if [ "$(id -u)" != 0 ]; then
		say "suite $suite is not in apt's sources and we are not root; not adding it"
		return 0
	fi
	say "adding $f"
	# Backports are NotAutomatic in their Release file, so this entry never
	# upgrades anything on the host; it only makes the packages visible.
	cat >"$f" <<-EOF
		Types: deb
		URIs: $MIRROR
		Suites: $suite
		Components: main
		Signed-By: $KEYRING
	EOF
	updated=0
	apt_update
}

# Newest package name for an entry, from apt's current lists.
resolve() {
	local pat=$1
	case $pat in
	^*)
		apt-cache search --names-only -- "$pat" 2>/dev/null | awk '{print $1}' |
			grep -E -- "$pat" | sort -V | tail -n1
		;;
	*) apt-cache show --no-all-versions -- "$pat" >/dev/null 2>&1 && echo "$pat" ;;
	esac
}

# Download + unpack boot/ of one package into $CACHE/<release>, atomically
# (a half-written directory is never taken as cached).
fetch() {
	local pkg=$1 rel=${1#linux-image-} tmp deb opt c
	tmp=$(mktemp -d)
	# apt drops privileges to _apt while downloading; let it write here.
	chown _apt "$tmp" 2>/dev/null || true
	if ! (cd "$tmp" && apt-get download -qq -- "$pkg" >&2); then
		rm -rf "$tmp"
		return 1
	fi
	deb=$(echo "$tmp"/*.deb)
	mkdir -p "$tmp/x"
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" ./boot; then
		rm -rf "$tmp"
		return 1
	fi
	[ -s "$tmp/x/boot/vmlinuz-$rel" ] || { rm -rf "$tmp"; die "$pkg: no boot/vmlinuz-$rel in $deb"; }
	mkdir -p "$tmp/out"
	mv "$tmp/x/boot/vmlinuz-$rel" "$tmp/out/vmlinuz"
	mv "$tmp/x/boot/config-$rel" "$tmp/out/config"
	dpkg-deb -f "$deb" Package Version >"$tmp/out/package"
	for opt in $NEED_CONFIG; do
		c=$(grep -E "^(# )?CONFIG_${opt}[= ]" "$tmp/out/config" || true)
		[ "$c" = "CONFIG_$opt=y" ] || say "warning: $pkg: CONFIG_$opt is not built in (${c:-absent})"
	done
	mkdir -p "$CACHE"
	rm -rf "${CACHE:?}/$rel"
	mv "$tmp/out" "$CACHE/$rel"
	rm -rf "$tmp"
	say "cached $pkg ($(sed -n 's/^Version: //p' "$CACHE/$rel/package")) in $CACHE/$rel"
}

[ -f "$LIST" ] || die "$LIST missing"
command -v apt-get >/dev/null || die "needs apt-get (Debian)"

rc=0
# fd 3: apt-get must not eat the list from stdin.
while read -r pat suite <&3; do
	[ -z "$suite" ] || add_suite "$suite"
	pkg=$(resolve "$pat")
	if [ -z "$pkg" ]; then
		# No lists yet (fresh machine) or the name left the archive.
		apt_update
		pkg=$(resolve "$pat")
	fi
	have=$(cached_for "$pat")
	if [ -z "$pkg" ]; then
		if [ -n "$have" ]; then
			say "warning: no package matches $pat in apt's lists; keeping cached $have"
			continue
		fi
		say "no package matches $pat"
		rc=1
		continue
	fi
	rel=${pkg#linux-image-}
	[ -s "$CACHE/$rel/vmlinuz" ] && continue
	if ! fetch "$pkg"; then
		# Stale lists point at a superseded .deb the mirror no longer has.
		apt_update
		pkg=$(resolve "$pat")
		rel=${pkg#linux-image-}
		if [ -n "$pkg" ] && { [ -s "$CACHE/$rel/vmlinuz" ] || fetch "$pkg"; }; then
			:
		elif [ -n "$have" ]; then
			say "warning: cannot download $pkg; keeping cached $have"
			continue
		else
			say "cannot download a package for $pat"
			rc=1
			continue
		fi
	fi
	# A newer ABI replaced an older one: drop the older kernels of this entry.
	for d in "$CACHE"/*/; do
		d=${d%/}
		d=${d##*/}
		if [ "$d" != "$rel" ] && matches "$pat" "$d"; then
			say "removing superseded $CACHE/$d"
			rm -rf "${CACHE:?}/$d"
		fi
	done
done 3< <(entries)
exit $rc
