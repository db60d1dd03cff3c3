#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Installs everything gtsc-bpf needs to build, test and benchmark, from
# Debian 12 packages only.  Idempotent: a second run installs nothing.
#   scripts/deps.sh          build + test + bench dependencies, VM kernels
#   scripts/deps.sh build    only what `make` needs
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_PKGS="clang llvm make gcc libc6-dev libbpf-dev bpftool libelf-dev zlib1g-dev liblz4-dev libzstd-dev libtraceevent-dev pkg-config help2man"
# gcc-multilib: the 32-bit workload (compat32); strace/perf/bpftrace/trace-cmd:
# oracles and benchmark peers; qemu, busybox,
# bash-static, cpio: the VM lane; afl++: make fuzz.
TEST_PKGS="gcc-multilib strace linux-perf bpftrace trace-cmd jq qemu-system-x86 busybox-static bash-static cpio babeltrace2 python3-bt2 afl++"

want=$BUILD_PKGS
[ "${1:-all}" = build ] || want="$want $TEST_PKGS"

missing=
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: missing packages:$missing; run as root (or: sudo apt-get install$missing)" >&2
		exit 1
	fi
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if [ "${1:-all}" != build ] && [ -x scripts/fetch-kernels.sh ]; then
	# A kernel that cannot be fetched is the VM lane's FAIL line, not the end of CI.
	scripts/fetch-kernels.sh || echo "deps: some VM kernels could not be fetched (tests/vm/run.sh says which)" >&2
fi
echo "deps: ok"
