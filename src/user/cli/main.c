// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* gtsc-bpf COMMAND [ARGS]: dispatches to one file per command, as perf does. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{ "record", cmd_record, "record kernel events into a trace file" },
	{ "report", cmd_report, "print a trace file: events, channels, drops" },
	{ "list", cmd_control, "list running sessions" },
	{ "status", cmd_control, "a session's state and per-channel, per-CPU counts" },
	{ "stop", cmd_control, "pause a session (programs stay attached)" },
	{ "start", cmd_control, "resume a paused session" },
	{ "snapshot", cmd_control, "write what a session's flight channels hold, keep recording" },
	{ "rewind", cmd_control, "start the next consuming snapshot at the oldest retained record" },
	{ "kill", cmd_control, "end a session: finish its file, detach, remove its state" },
	{ "check", cmd_check, "check a trace file's integrity and kmem consistency" },
	{ "convert", cmd_convert, "write a trace in another tool's format (Perfetto, CTF)" },
	{ "features", cmd_features, "show what this kernel lets gtsc-bpf record" },
	{ "list-events", cmd_list_events, "list this kernel's tracepoints (what -e GROUP:NAME takes)" },
};

void cli_log(void *ctx, enum gtsc_log_level level, const char *msg)
{
	const struct cli_log *l = ctx;

	if (level == GTSC_LOG_DEBUG && !(l && l->verbose))
		return;
	if (level == GTSC_LOG_INFO && l && l->quiet)
		return;
	fprintf(stderr, "gtsc-bpf: %s\n", msg);
}

static int libbpf_print_verbose(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_print_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

void cli_libbpf_verbose(bool on)
{
	/* libbpf's printer is process-wide by its own design; errors reach the
	 * user through our messages, the verifier log only with -v. */
	libbpf_set_print(on ? libbpf_print_verbose : libbpf_print_quiet);
}

int cli_number(const char *opt, enum cli_num kind, const char *arg, __u64 min, __u64 max,
	       __u64 *v)
{
	char why[200];
	int err;

	if (kind == CLI_SIZE)
		err = gtsc_parse_size_range(arg, min, max, v, why, sizeof(why));
	else if (kind == CLI_COUNT)
		err = gtsc_parse_count(arg, min, max, v, why, sizeof(why));
	else
		err = gtsc_parse_duration(arg, min, max, v, why, sizeof(why));
	if (err)
		fprintf(stderr, "gtsc-bpf: %s: %s\n", opt, why);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gtsc-bpf COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-11s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'gtsc-bpf COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	cli_libbpf_verbose(false);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("gtsc-bpf %s (record ABI %d.%d)\n", GTSC_VERSION, GTSC_REC_ABI_MAJOR,
		       GTSC_REC_ABI_MINOR);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "gtsc-bpf: '%s' is not a command; 'gtsc-bpf --help' lists them\n",
		argv[1]);
	return 2;
}
