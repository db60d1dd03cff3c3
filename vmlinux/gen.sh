#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Regenerates vmlinux/<arch>/vmlinux.h from a kernel's BTF, then rebuilds to
# check that every program still compiles against it.  CO-RE relocates field
# offsets at load time, so one header serves every kernel with BTF; refresh
# it only to use types or fields newer than the checked-in dump.
#   vmlinux/gen.sh [ARCH] [BTF_FILE]   (default: x86 /sys/kernel/btf/vmlinux)
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-x86}
btf=${2:-/sys/kernel/btf/vmlinux}
mkdir -p "vmlinux/$arch"
bpftool btf dump file "$btf" format c > "vmlinux/$arch/vmlinux.h.new"
mv "vmlinux/$arch/vmlinux.h.new" "vmlinux/$arch/vmlinux.h"
echo "vmlinux/$arch/vmlinux.h from $btf ($(uname -r))"
make -s clean && make -s
