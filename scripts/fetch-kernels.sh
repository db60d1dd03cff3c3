#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Fetches the Debian kernels the VM lane boots (tests/vm/kernels.txt) into
# .cache/vm/<uname -r>/{vmlinuz,config,package}.  Kernel packages are only
# downloaded and unpacked (apt-get download + dpkg-deb), never installed,
# and only the kernel and its config are kept: the lane boots an initramfs
# with no modules.  Idempotent: when every kernel is cached it writes nothing.
#
# Downloads go through a private apt root in $CACHE/apt (its own sources
# list, package lists and archive cache) that holds the suites kernels.txt
# names: the host's apt sources are never touched, so adding trixie or sid
# here can never upgrade the host.
#   scripts/fetch-kernels.sh           fetch what is missing
#   scripts/fetch-kernels.sh --list    per kernels.txt line, the cached kernel
#                                      directory, or "missing <line> <why>"
# Environment: VM_CACHE (default .cache/vm), DEBIAN_MIRROR (default
# http://deb.debian.org/debian; <suite>-security comes from its
# debian-security sibling).
set -euo pipefail
cd "$(dirname "$0")/.."

LIST=tests/vm/kernels.txt
CACHE=${VM_CACHE:-.cache/vm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# apt wants absolute paths; VM_CACHE may be relative to the tree or not.
APTROOT=$(realpath -m "$CACHE/apt")
# Built-in options the lane relies on; a kernel without them is useless here.
NEED_CONFIG="BPF_SYSCALL DEBUG_INFO_BTF KPROBES KPROBE_EVENTS UPROBE_EVENTS FTRACE
BPF_EVENTS DEVTMPFS BLK_DEV_INITRD RD_GZIP SERIAL_8250 SERIAL_8250_CONSOLE"

say() { echo "fetch-kernels: $*" >&2; }
die() { say "$*"; exit 1; }

# Every line of kernels.txt as "<package-or-regex> <suites-or-empty>".
entries() {
	sed -e 's/#.*//' -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' "$LIST" | grep -v '^$' || true
}

# Where the reason an entry could not be fetched is kept for --list.
why_file() { echo "$CACHE/.why/$(printf '%s' "$1" | cksum | cut -d' ' -f1)"; }

# A cached directory is a kernel release; does its package match the entry?
# Entries starting with ^ are regexes, anything else an exact package name
# (whose '+' and '.' must not be read as regex syntax).  An exact name also
# matches the newest of its series, its fallback (see series()).
matches() {
	local pat=$1 rel=$2
	case $pat in
	^*) printf 'linux-image-%s\n' "$rel" | grep -Eq -- "$pat" ;;
	*) [ "linux-image-$rel" = "$pat" ] || printf 'linux-image-%s\n' "$rel" | grep -Eq -- "$(series "$pat")" ;;
	esac
}

# The series of a pinned package, as a regex: same major.minor and flavour,
# any patch level and ABI.  linux-image-6.19.6+deb13-rt-amd64 ->
# ^linux-image-6\.19(\.[0-9]+)?(-[0-9]+|\+deb[0-9]+(\.[0-9]+)?)?-rt-amd64$
series() {
	local p=${1#linux-image-} mm flavour
	mm=$(echo "$p" | grep -Eo '^[0-9]+\.[0-9]+')
	flavour=$(echo "$p" | grep -Eo -- '(-rt|-cloud)?-[a-z0-9]+$')
	printf '^linux-image-%s(\\.[0-9]+)?(-[0-9]+|\\+deb[0-9]+(\\.[0-9]+)?)?%s$\n' "${mm/./\\.}" "$flavour"
}

# Newest cached release matching an entry (the pinned one first), or nothing.
cached_for() {
	local pat=$1 d
	[ -d "$CACHE" ] || return 0
	case $pat in
	^*) ;;
	*) if [ -s "$CACHE/${pat#linux-image-}/vmlinuz" ]; then echo "${pat#linux-image-}"; return 0; fi ;;
	esac
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
		else
			why=$(cat "$(why_file "$pat")" 2>/dev/null || echo "not fetched: run scripts/fetch-kernels.sh")
			echo "missing $pat $why"
		fi
	done
	exit 0
fi

# --- the private apt root -----------------------------------------------------
APT_OPTS=(-o "Dir::Etc::sourcelist=$APTROOT/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$APTROOT/lists" -o "Dir::Cache=$APTROOT/cache"
	-o Dir::State::status=/dev/null -o "Dir::Etc::preferencesparts=$APTROOT/prefs"
	-o APT::Architecture=amd64 -o Acquire::Languages=none -qq)
apt_get() { apt-get "${APT_OPTS[@]}" "$@"; }
apt_cache() { apt-cache "${APT_OPTS[@]}" "$@"; }

# One sources line per suite named in kernels.txt.
write_sources() {
	local suite uri
	entries | awk '{print $2}' | tr ',' '\n' | grep -v '^$' | sort -u | while read -r suite; do
		uri=$MIRROR
		case $suite in *-security) uri=${MIRROR%/debian}/debian-security ;; esac
		echo "deb [signed-by=$KEYRING] $uri $suite main"
	done
}

updated=0
apt_update() {
	[ "$updated" = 0 ] || return 0
	updated=1
	say "apt-get update (private lists in $APTROOT)"
	apt_get update >&2 || say "apt-get update failed (offline?)"
}

setup_aptroot() {
	local new
	mkdir -p "$APTROOT"/{lists/partial,cache/archives/partial,prefs}
	new=$(write_sources)
	if [ "$new" != "$(cat "$APTROOT/sources.list" 2>/dev/null)" ]; then
		echo "$new" >"$APTROOT/sources.list"
		rm -f "$APTROOT"/lists/*_Packages* "$APTROOT"/lists/*Release*
	fi
	# apt drops privileges to _apt while downloading; let it write here.
	chown -R _apt "$APTROOT/lists/partial" "$APTROOT/cache/archives/partial" 2>/dev/null || true
}

# Newest package name for an entry, from the private lists.
resolve() {
	local pat=$1
	case $pat in
	^*)
		apt_cache search --names-only -- "$pat" 2>/dev/null | awk '{print $1}' |
			grep -E -- "$pat" | sort -V | tail -n1
		;;
	*) apt_cache show --no-all-versions -- "$pat" >/dev/null 2>&1 && echo "$pat" ;;
	esac
}

# apt-get download PKGS into directory $1.
download() {
	local dir=$1
	shift
	chown _apt "$dir" 2>/dev/null || true
	(cd "$dir" && apt-get "${APT_OPTS[@]}" download -- "$@" >&2)
}

# Download + unpack one kernel into $CACHE/<release>, atomically (a
# half-written directory is never taken as cached).  Up to 6.18 the image
# package holds boot/vmlinuz-<rel> and boot/config-<rel>; from 6.19 on it is
# a meta package depending on linux-binary-<rel> (the kernel: boot/vmlinuz-<rel>
# in 6.19.6, usr/lib/modules/<rel>/vmlinuz from 7.x) and linux-base-<rel>
# (its config), which the archive drops before the binary (no linux-base
# for 6.19.x-7.1.x any more): the config is then missing, and only the
# option check is skipped.
fetch() {
	local pkg=$1 rel=${1#linux-image-} tmp deb opt c f kernel='' config=''
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	mkdir -p "$tmp/dl" "$tmp/x" "$tmp/out"
	# Not a pipe into grep -q: with pipefail, apt-cache's SIGPIPE would read as "no".
	c=$(apt_cache show --no-all-versions -- "$pkg" 2>/dev/null || true)
	if grep -q "^Depends:.*linux-binary-$rel" <<<"$c"; then
		download "$tmp/dl" "linux-binary-$rel" || { rm -rf "$tmp"; return 1; }
		download "$tmp/dl" "linux-base-$rel" 2>/dev/null ||
			say "warning: linux-base-$rel is not in the archive: no config for $rel"
		deb=$(echo "$tmp"/dl/linux-binary-*.deb)
	else
		download "$tmp/dl" "$pkg" || { rm -rf "$tmp"; return 1; }
		deb=$(echo "$tmp"/dl/linux-image-*.deb)
	fi
	for c in "$tmp"/dl/*.deb; do
		dpkg-deb --fsys-tarfile "$c" | tar -x -C "$tmp/x" --wildcards --no-wildcards-match-slash \
			"./boot/*-$rel" "./usr/lib/modules/$rel/vmlinuz" "./usr/lib/modules/$rel/config" 2>/dev/null || true
	done
	for f in "boot/vmlinuz-$rel" "usr/lib/modules/$rel/vmlinuz"; do
		[ -s "$tmp/x/$f" ] && kernel=$f
	done
	for f in "boot/config-$rel" "usr/lib/modules/$rel/config"; do
		[ -s "$tmp/x/$f" ] && config=$f
	done
	if [ -z "$kernel" ]; then
		echo "no boot/vmlinuz-$rel or usr/lib/modules/$rel/vmlinuz in $(cd "$tmp/dl" && echo *)" >"$(why_file "$PAT")"
		say "$pkg: $(cat "$(why_file "$PAT")")"
		rm -rf "$tmp"
		return 2
	fi
	mv "$tmp/x/$kernel" "$tmp/out/vmlinuz"
	[ -z "$config" ] || mv "$tmp/x/$config" "$tmp/out/config"
	{
		echo "Package: $pkg"
		echo "Version: $(dpkg-deb -f "$deb" Version)"
	} >"$tmp/out/package"
	for opt in $NEED_CONFIG; do
		[ -n "$config" ] || break
		c=$(grep -E "^(# )?CONFIG_${opt}[= ]" "$tmp/out/config" || true)
		[ "$c" = "CONFIG_$opt=y" ] || say "warning: $pkg: CONFIG_$opt is not built in (${c:-absent})"
	done
	mkdir -p "$CACHE"
	rm -rf "${CACHE:?}/$rel"
	mv "$tmp/out" "$CACHE/$rel"
	rm -rf "$tmp"
	say "cached $pkg ($(sed -n 's/^Version: //p' "$CACHE/$rel/package")) in $CACHE/$rel"
}

# Resolve an entry; a pinned package gone from the archive falls back to
# the newest of its series, and says so.
resolve_entry() {
	local pat=$1 pkg
	pkg=$(resolve "$pat")
	case $pat in ^*) ;; *)
		if [ -z "$pkg" ]; then
			pkg=$(resolve "$(series "$pat")")
			[ -z "$pkg" ] || say "warning: $pat is no longer in the archive; using the newest of its series, $pkg"
		fi
		;;
	esac
	echo "$pkg"
}

[ -f "$LIST" ] || die "$LIST missing"
command -v apt-get >/dev/null || die "needs apt-get (Debian)"
[ -f "$KEYRING" ] || die "needs $KEYRING (debian-archive-keyring)"

rc=0
setup_aptroot
# fd 3: apt-get must not eat the list from stdin.
while read -r PAT _ <&3; do
	rm -f "$(why_file "$PAT")"
	mkdir -p "$CACHE/.why"
	pkg=$(resolve_entry "$PAT")
	if [ -z "$pkg" ]; then
		# No lists yet (fresh machine) or the name left the archive.
		apt_update
		pkg=$(resolve_entry "$PAT")
	fi
	have=$(cached_for "$PAT")
	if [ -z "$pkg" ]; then
		if [ -n "$have" ]; then
			say "warning: no package matches $PAT in the archive's lists; keeping cached $have"
			continue
		fi
		say "no package matches $PAT"
		echo "no package in the suites $(write_sources | awk '{print $(NF-1)}' | tr '\n' ' ' | sed 's/ $//')" >"$(why_file "$PAT")"
		rc=1
		continue
	fi
	rel=${pkg#linux-image-}
	[ -s "$CACHE/$rel/vmlinuz" ] && continue
	frc=0
	fetch "$pkg" || frc=$?
	if [ $frc = 1 ]; then
		# Stale lists point at a superseded .deb the mirror no longer has.
		apt_update
		pkg=$(resolve_entry "$PAT")
		rel=${pkg#linux-image-}
		frc=0
		if [ -z "$pkg" ]; then
			frc=1
		elif [ ! -s "$CACHE/$rel/vmlinuz" ]; then
			fetch "$pkg" || frc=$?
		fi
	fi
	if [ $frc != 0 ]; then
		if [ -n "$have" ]; then
			say "warning: cannot download $pkg; keeping cached $have"
			continue
		fi
		say "cannot download a package for $PAT"
		[ -s "$(why_file "$PAT")" ] || echo "cannot download $pkg" >"$(why_file "$PAT")"
		rc=1
		continue
	fi
	# A newer ABI replaced an older one: drop the older kernels of this
	# entry (a pinned entry keeps only what it resolved to).
	for d in "$CACHE"/*/; do
		d=${d%/}
		d=${d##*/}
		if [ "$d" != "$rel" ] && [ "$d" != apt ] && matches "$PAT" "$d"; then
			say "removing superseded $CACHE/$d"
			rm -rf "${CACHE:?}/$d"
		fi
	done
done 3< <(entries)
exit $rc
