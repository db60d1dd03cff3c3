// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report's and report --syscalls's filters (report_filter.h): a record is
 * kept when it passes every option given; a list option keeps what matches
 * one of its entries.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "report_filter.h"

void report_filter__init(struct report_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->since_ns = f->until_ns = -1;
}

void report_filter__free(struct report_filter *f)
{
	free(f->comm_copy);
	f->comm_copy = NULL;
}

/* Splits a comma list (in place) into OUT; returns the count or -1 when too long. */
static int split_list(char *s, char **out)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (n == REPORT_FILTER_MAX)
			return -1;
		out[n++] = tok;
	}
	return n;
}

int report_filter__names(char **copy, char **dst, int *n, const char *arg, const char *opt)
{
	free(*copy);
	*copy = strdup(arg);
	if (!*copy)
		return -ENOMEM;
	*n = split_list(*copy, dst);
	if (*n > 0)
		return 0;
	fprintf(stderr, "gtsc-bpf: %s wants up to %d names separated by commas\n", opt,
		REPORT_FILTER_MAX);
	return -EINVAL;
}

/* --pid or --tid (WHAT names the ids in the sentence): ids into IDS, *NR of them. */
static int parse_ids(__u32 *ids, int *nr, const char *arg, const char *opt, const char *what)
{
	char *items[REPORT_FILTER_MAX], *end, *copy = strdup(arg);
	int n = copy ? split_list(copy, items) : 0;

	if (!copy)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		unsigned long v = strtoul(items[i], &end, 10);

		if (*end || !*items[i] || !v || v > 0xffffffffUL)
			n = -1;
		else
			ids[i] = v;
	}
	free(copy);
	if (n <= 0) {
		fprintf(stderr, "gtsc-bpf: %s wants %s ids separated by commas\n", opt, what);
		return -EINVAL;
	}
	*nr = n;
	return 0;
}

static int parse_seconds(const char *arg, const char *opt, __s64 *ns)
{
	char what[48];
	__u64 v;
	int err;

	snprintf(what, sizeof(what), "%s (seconds since the start)", opt);
	err = cli_number(what, CLI_DURATION, arg, 0, 36500ULL * 86400 * 1000000000ULL, &v);
	if (!err)
		*ns = v;
	return err;
}

int report_filter__option(struct report_filter *f, int c, const char *arg)
{
	switch (c) {
	case REPORT_FILTER_PID: return parse_ids(f->pids, &f->nr_pids, arg, "--pid", "process");
	case REPORT_FILTER_TID: return parse_ids(f->tids, &f->nr_tids, arg, "--tid", "thread");
	case REPORT_FILTER_COMM:
		return report_filter__names(&f->comm_copy, f->comms, &f->nr_comms, arg, "--comm");
	case REPORT_FILTER_SINCE: return parse_seconds(arg, "--since", &f->since_ns);
	case REPORT_FILTER_UNTIL: return parse_seconds(arg, "--until", &f->until_ns);
	default: return -ENOENT;
	}
}

bool report_filter__time(const struct report_filter *f, __u64 ts_ns, __u64 t0)
{
	__s64 t = (__s64)(ts_ns - t0);

	return !(f->since_ns >= 0 && t < f->since_ns) && !(f->until_ns >= 0 && t >= f->until_ns);
}

static bool id_in(const __u32 *ids, int n, __u32 a, __u32 b)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == a || ids[i] == b)
			return true;
	return false;
}

bool report_filter__wanted(const struct report_filter *f, const struct gtsc_comm_table *comms,
			   const struct gtsc_rec_hdr *h, __u64 t0)
{
	const char *comm;

	if (f->nr_pids && !id_in(f->pids, f->nr_pids, h->pid, h->tid))
		return false;
	if (f->nr_tids && !id_in(f->tids, f->nr_tids, h->tid, h->tid))
		return false;
	if (!report_filter__time(f, h->ts_ns, t0))
		return false;
	if (!f->nr_comms)
		return true;
	comm = gtsc_comm_table__get(comms, h->pid, h->tid);
	for (int i = 0; i < f->nr_comms; i++)
		if (!fnmatch(f->comms[i], comm, 0))
			return true;
	return false;
}
