# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# bash completion for gtsc-bpf.  Commands and options come from the binary's
# own --help, so they cannot drift from it; session names from /run/gtsc.
_gtsc_bpf()
{
	local cur prev cmd words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=${COMP_WORDS[1]}

	if [ "$COMP_CWORD" -eq 1 ]; then
		words=$(gtsc-bpf --help 2> /dev/null |
			awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	case $prev in
	-i | --input)
		COMPREPLY=($(compgen -f -X '!*.gtsc*' -- "$cur") $(compgen -d -- "$cur"))
		return
		;;
	-o | --output)
		# convert writes JSON or a CTF directory, the others traces
		if [ "$cmd" = convert ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		else
			COMPREPLY=($(compgen -f -X '!*.gtsc*' -- "$cur") $(compgen -d -- "$cur"))
		fi
		return
		;;
	--to)
		COMPREPLY=($(compgen -W "perfetto ctf" -- "$cur"))
		return
		;;
	--cgroup)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	esac
	case $cmd in
	status | stop | start | snapshot | rewind | kill)
		if [ "$COMP_CWORD" -eq 2 ]; then
			words=$(ls /run/gtsc 2> /dev/null | sed -n 's/\.sock$//p')
			COMPREPLY=($(compgen -W "$words" -- "$cur"))
			return
		fi
		;;
	esac
	if [[ $cur == -* ]]; then
		words=$(gtsc-bpf "$cmd" --help 2> /dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _gtsc_bpf gtsc-bpf
