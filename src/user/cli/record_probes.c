// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record_probes.h"
#include "session.h"
#include "strbuf.h"

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

	if (p->nr_comm_bufs == GTSC_MAX_COMMS) {
		fprintf(stderr, "gtsc-bpf: -C takes at most %d names\n", GTSC_MAX_COMMS);
		return -E2BIG;
	}
	buf = strdup(arg);
	if (!buf)
		return -ENOMEM;
	p->comm_bufs[p->nr_comm_bufs++] = buf;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (p->nr_comms == GTSC_MAX_COMMS) {
			fprintf(stderr, "gtsc-bpf: -C takes at most %d names\n", GTSC_MAX_COMMS);
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

int record_probes__resolve(struct record_probes *p)
{
	char why[256];
	int err = gtsc_funcs__resolve(&p->funcs, p->func_args, p->nr_func_args, why, sizeof(why));

	if (err)
		fprintf(stderr, "gtsc-bpf: %s\n", why);
	return err;
}

void record_probes__session_opts(const struct record_probes *p, struct gtsc_engine_opts *so)
{
	so->funcs = p->funcs.n ? &p->funcs : NULL;
	so->comms = p->comms;
	so->nr_comms = p->nr_comms;
	so->cgroup = p->cgroup;
}

void record_probes__filter(const struct record_probes *p, struct strbuf *sb)
{
	for (size_t i = 0; i < p->nr_comms; i++)
		strbuf_addf(sb, "%s%s", i ? "," : " comm=", p->comms[i]);
	if (p->cgroup)
		strbuf_addf(sb, " cgroup=%s", p->cgroup);
}

void record_probes__sources(const struct record_probes *p, struct gtsc_session *s,
			    struct strbuf *sb)
{
	if (!gtsc_session__plan(s)->funcs.prog)
		return;
	strbuf_addf(sb, ",funcs(");
	gtsc_funcs__summary(&p->funcs, 3, sb);
	strbuf_addf(sb, ")");
}

void record_probes__funcs_chunk(const struct record_probes *p, struct gtsc_session *s,
				struct strbuf *sb)
{
	if (gtsc_session__plan(s)->funcs.prog)
		gtsc_funcs__describe(&p->funcs, gtsc_session__features(s)->vmlinux, sb);
}

void record_probes__free(struct record_probes *p)
{
	gtsc_funcs__free(&p->funcs);
	for (size_t i = 0; i < p->nr_comm_bufs; i++)
		free(p->comm_bufs[i]);
	p->nr_comm_bufs = 0;
}
