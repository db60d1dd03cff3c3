// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record_probes.h"

int record_probes__add_func(struct record_probes *p, const char *arg)
{
	if (p->nr_func_args == RECORD_MAX_FUNC_ARGS) {
		fprintf(stderr, "gtsc-bpf: too many -k options (at most %d; use lists and globs)\n",
			RECORD_MAX_FUNC_ARGS);
		return -E2BIG;
	}
	p->func_args[p->nr_func_args++] = arg;
	return 0;
}

int record_probes__add_comms(struct record_probes *p, const char *arg)
{
	char *buf, *tok, *save = NULL;

	if (p->nr_comm_bufs == RECORD_MAX_COMMS) {
		fprintf(stderr, "gtsc-bpf: -C takes at most %d names\n", RECORD_MAX_COMMS);
		return -E2BIG;
	}
	buf = strdup(arg);
	if (!buf)
		return -ENOMEM;
	p->comm_bufs[p->nr_comm_bufs++] = buf;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (p->nr_comms == RECORD_MAX_COMMS) {
			fprintf(stderr, "gtsc-bpf: -C takes at most %d names\n", RECORD_MAX_COMMS);
			return -E2BIG;
		}
		if (strlen(tok) >= GTSC_COMM_LEN)
			fprintf(stderr, "gtsc-bpf: warning: -C %s: the kernel keeps only the first "
					"%d characters of a comm\n",
				tok, GTSC_COMM_LEN - 1);
		p->comms[p->nr_comms++] = tok;
	}
	return 0;
}

bool record_probes__targets(const struct record_probes *p)
{
	return p->nr_comms || p->cgroup;
}

void record_probes__session_opts(const struct record_probes *p, struct gtsc_session_opts *so)
{
	so->funcs = p->nr_func_args ? p->func_args : NULL;
	so->nr_funcs = p->nr_func_args;
	so->comms = p->nr_comms ? p->comms : NULL;
	so->nr_comms = p->nr_comms;
	so->cgroup = p->cgroup;
}

void record_probes__filter(const struct record_probes *p, struct gtsc_control_reply *reply)
{
	for (size_t i = 0; i < p->nr_comms; i++)
		gtsc_control_reply__printf(reply, "%s%s", i ? "," : " comm=", p->comms[i]);
	if (p->cgroup)
		gtsc_control_reply__printf(reply, " cgroup=%s", p->cgroup);
}

void record_probes__free(struct record_probes *p)
{
	for (size_t i = 0; i < p->nr_comm_bufs; i++)
		free(p->comm_bufs[i]);
	p->nr_comm_bufs = 0;
}
