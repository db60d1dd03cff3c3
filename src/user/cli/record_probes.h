/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record's function probes (-k) and its comm and cgroup filters (-C,
 * --cgroup): their options, resolution before anything is loaded, and how
 * list/status and the trace's metadata describe them.
 */
#ifndef __GTSC_RECORD_PROBES_H
#define __GTSC_RECORD_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include "funcs.h"
#include "gtsc_shared.h"

struct gtsc_session;
struct gtsc_engine_opts;
struct strbuf;

#define RECORD_MAX_FUNC_ARGS 64

struct record_probes {
	const char *func_args[RECORD_MAX_FUNC_ARGS]; /* -k, as given */
	size_t nr_func_args;
	struct gtsc_func_set funcs; /* what they resolved to */
	char *comm_bufs[GTSC_MAX_COMMS]; /* each -C's list, split in place into comms */
	size_t nr_comm_bufs;
	const char *comms[GTSC_MAX_COMMS];
	size_t nr_comms;
	const char *cgroup;
};

/* -k FUNC[,FUNC]: kept for record_probes__resolve. */
int record_probes__add_func(struct record_probes *p, const char *arg);
/* -C COMM[,COMM] */
int record_probes__add_comms(struct record_probes *p, const char *arg);
/* Does it narrow the target by itself (-C, --cgroup), so that no -p/-a/COMMAND is needed? */
bool record_probes__targets(const struct record_probes *p);
/* Resolves -k into functions; says why on failure (an unknown function is a usage error). */
int record_probes__resolve(struct record_probes *p);
/* Into session options. */
void record_probes__session_opts(const struct record_probes *p, struct gtsc_engine_opts *so);
/* " comm=a,b cgroup=PATH", appended to a filter description. */
void record_probes__filter(const struct record_probes *p, struct strbuf *sb);
/* ",funcs(vfs_read,...)" when the session probes functions. */
void record_probes__sources(const struct record_probes *p, struct gtsc_session *s,
			    struct strbuf *sb);
/* The FUNCS chunk text (empty without -k). */
void record_probes__funcs_chunk(const struct record_probes *p, struct gtsc_session *s,
				struct strbuf *sb);
void record_probes__free(struct record_probes *p);

#endif
