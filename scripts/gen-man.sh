#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The man pages, one per command, made by help2man from each command's own
# --help (the one source of the text, so a page cannot drift from the
# binary), plus doc/gtsc-bpf.h2m's sections (exit status, files, see also).
#   scripts/gen-man.sh BINARY OUTDIR
set -euo pipefail
bin=$1
out=$2
command -v help2man > /dev/null || {
	echo "gen-man: help2man is missing (scripts/deps.sh build installs it)" >&2
	exit 1
}
mkdir -p "$out"
cd "$(dirname "$0")/.."
# The command table of `gtsc-bpf --help`: "  NAME   what it does".
cmds=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || { echo "gen-man: '$bin --help' lists no command" >&2; exit 1; }
see=$(for c in $cmds; do printf '.BR gtsc-bpf-%s (1),\n' "$c"; done)

# help2man fills an "examples:" block into one paragraph, and takes a lone
# example followed by a comment for an option and its description: one
# command a line, as --help prints them.
examples_nofill() {
	awk 'function flush() { if (cmd != "") print cmd; cmd = ""; tp = 0 }
		/^\.SS "examples?:"$/ { print; print ".IP"; print ".nf"; ex = 1; next }
		ex && /^\.(IP|TP)$/ { flush(); tp = $0 == ".TP"; next }
		ex && /^\./ { flush(); print ".fi"; ex = 0 }
		ex && tp == 1 { cmd = $0; tp = 2; next }
		ex && tp == 2 { print cmd "   " $0; cmd = ""; tp = 0; next }
		{ print }
		END { if (ex) { flush(); print ".fi" } }'
}

# A section of report's page: each mode's own --help, as it prints it.
report_modes() {
	local mode
	echo "[MODES]"
	for mode in --syscalls --kmem --functions; do
		printf '.SS "report %s"\n.nf\n' "$mode"
		"$bin" report $mode --help | sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\&&/"
		echo ".fi"
	done
}

page() { # NAME HELP-OPTION DESCRIPTION [INCLUDE]
	local name=$1 opt=$2 desc=$3 upper
	upper=$(echo "$name" | tr a-z A-Z)
	help2man -N --help-option="$opt" --version-option=--version -n "$desc" \
		--include=doc/gtsc-bpf.h2m ${4:+--include="$4"} "$bin" |
		examples_nofill |
		sed -e "s/^\.TH GTSC-BPF /.TH $upper /" \
			-e "0,/^gtsc-bpf \\\\- /s//$name \\\\- /" \
			-e "s/^@SEE_ALSO@\$/${see//$'\n'/\\n}/" > "$out/$name.1"
}

page gtsc-bpf --help "a Linux kernel tracer on BPF: record, report, check, control sessions"
modes=$(mktemp)
trap 'rm -f "$modes"' EXIT
report_modes > "$modes"
for c in $cmds; do
	desc=$("$bin" --help | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print }')
	page "gtsc-bpf-$c" "$c --help" "$desc" "$([ "$c" = report ] && echo "$modes")"
done
