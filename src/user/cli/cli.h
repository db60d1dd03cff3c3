/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the command files share: their entry points and the CLI's log sink. */
#ifndef __GTSC_CLI_H
#define __GTSC_CLI_H

#include <stdbool.h>
#include <gtsc/gtsc.h>

#define GTSC_VERSION "0.1.0"
#define GTSC_DEFAULT_OUTPUT "trace.gtsc"

struct cli_log {
	bool verbose;
	bool quiet;
};

/* gtsc_log_fn for sessions: "gtsc-bpf: msg" on stderr, filtered by level. */
void cli_log(void *ctx, enum gtsc_log_level level, const char *msg);
/* libbpf's own messages: only with -v. */
void cli_libbpf_verbose(bool on);

/* An option's size, count or duration (gtsc_parse_*), or one sentence naming OPT. */
enum cli_num { CLI_SIZE, CLI_COUNT, CLI_DURATION };
int cli_number(const char *opt, enum cli_num kind, const char *arg, __u64 min, __u64 max,
	       __u64 *v);

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_features(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_list_events(int argc, char **argv);
int cmd_convert(int argc, char **argv);
/* list, status, stop, start, snapshot, rewind, kill (argv[0] is the command) */
int cmd_control(int argc, char **argv);

/* report modes, each in its own file with its own options (argv as for report) */
int report_syscalls_main(int argc, char **argv); /* --syscalls, --summary */
int report_kmem_main(int argc, char **argv);	 /* --kmem */
int report_functions_main(int argc, char **argv); /* --functions */

#endif
