#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The library's stages include one way (src/user/lib/README.md): a stage
# may include its own headers and those of the stages before it in the
# pipeline util < record < file < decode < analyze < emit, never a later
# one's.  One FAIL line per back-edge, else one PASS per stage.
#   tests/unit/lib_stages.sh [LIBDIR]   (default src/user/lib)
set -u
LIB=${1:-$(dirname "$0")/../../src/user/lib}
STAGES="util record file decode analyze emit"

# The recorder writes the trace as it goes: these record -> file/decode
# edges are the sink's and loader's, known and not yet moved (do not add).
ALLOWED="
record/record_api.c file/ksyms.h
record/record_api.c file/trace_reader.h
record/session.c file/metadata.h
record/session_api.c file/metadata.h
record/session_trace.c file/metadata.h
record/session_trace.c decode/printf_fmt.h
record/session_trace.c decode/syscall_decode.h
record/sink_file.c file/ksyms.h
record/sink_file.c decode/tp_class.h
record/sink_file.h file/trace_writer.h
record/syscall_classes.c file/metadata.h
record/tool.c decode/printf_fmt.h
"

rank() { # rank STAGE: its place in the pipeline, or nothing
	local i=0 s
	for s in $STAGES; do
		[ "$s" = "$1" ] && echo $i && return
		i=$((i + 1))
	done
}

[ -d "$LIB" ] || { echo "FAIL lib_stages: no library sources in $LIB"; exit 1; }
cd "$LIB" || exit 1
fails=0
for stage in $STAGES; do
	n=0
	while read -r src hdr; do
		# a header of the library (not a public or generated one) and its stage
		found=$(find . -name "$hdr" -path './*/*' | head -1)
		[ -n "$found" ] || continue
		to=${found#./}
		to=${to%%/*}
		if [ "$(rank "$to")" -gt "$(rank "$stage")" ]; then
			edge="$src $to/$hdr"
			if grep -qxF "$edge" <<< "$ALLOWED"; then
				continue
			fi
			echo "FAIL lib_stages/$stage: $src includes $to/$hdr ($stage comes before $to)"
			n=$((n + 1))
		fi
	done < <(grep -rHo '^#include "[^"]*"' "$stage" --include='*.c' --include='*.h' |
		sed -E 's/:#include "(.*)"$/ \1/')
	[ $n -eq 0 ] && echo "PASS lib_stages/$stage"
	fails=$((fails + n))
done
[ $fails -eq 0 ]
