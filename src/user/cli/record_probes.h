/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record's function probes (-k) and its comm and cgroup filters (-C,
 * --cgroup): their options, into the session options, and how status
 * describes them.  The library resolves and checks them.
 */
#ifndef __GTSC_RECORD_PROBES_H
#define __GTSC_RECORD_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <gtsc/gtsc.h>

#define RECORD_MAX_FUNC_ARGS 64
#define RECORD_MAX_COMMS 8 /* what the kernel-side filter holds */

struct record_probes {
	const char *func_args[RECORD_MAX_FUNC_ARGS]; /* -k, as given */
	size_t nr_func_args;
	char *comm_bufs[RECORD_MAX_COMMS]; /* each -C's list, split in place into comms */
	size_t nr_comm_bufs;
	const char *comms[RECORD_MAX_COMMS];
	size_t nr_comms;
	const char *cgroup;
};

/* -k FUNC[,FUNC]: the session resolves them. */
int record_probes__add_func(struct record_probes *p, const char *arg);
/* -C COMM[,COMM] */
int record_probes__add_comms(struct record_probes *p, const char *arg);
/* Does it narrow the target by itself (-C, --cgroup), so that no -p/-a/COMMAND is needed? */
bool record_probes__targets(const struct record_probes *p);
/* Into session options. */
void record_probes__session_opts(const struct record_probes *p, struct gtsc_session_opts *so);
/* " comm=a,b cgroup=PATH", appended to status's filter line. */
void record_probes__filter(const struct record_probes *p, struct gtsc_control_reply *reply);
void record_probes__free(struct record_probes *p);

#endif
