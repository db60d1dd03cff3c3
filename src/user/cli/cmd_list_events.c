// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf list-events [PATTERN...]: the tracepoints this kernel offers, as
 * `perf list tracepoint` and `trace-cmd list -e` show them, one GROUP:NAME
 * a line; each is something `record -e` takes.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <gtsc/gtsc.h>
#include "cli.h"

struct list_ctx {
	char *const *pats;
	int n;
	size_t shown;
};

/* GROUP:NAME globs match the whole name; a bare word matches the group or the event. */
static bool wanted(const struct list_ctx *l, const char *group, const char *name)
{
	char gn[512];

	if (!l->n)
		return true;
	snprintf(gn, sizeof(gn), "%s:%s", group, name);
	for (int i = 0; i < l->n; i++) {
		const char *p = l->pats[i];

		if (strchr(p, ':') ? !fnmatch(p, gn, 0)
				   : !fnmatch(p, group, 0) || !fnmatch(p, name, 0))
			return true;
	}
	return false;
}

static int show(void *ctx, const char *group, const char *name)
{
	struct list_ctx *l = ctx;

	if (!wanted(l, group, name))
		return 0;
	l->shown++;
	return printf("%s:%s\n", group, name) < 0 ? -EIO : 0;
}

/* -i TRACE: the tracepoints whose formats a trace saved (what its records can be). */
static int list_trace(struct list_ctx *l, const char *path)
{
	GTSC_OPTS(gtsc_reader_opts, ro);
	struct gtsc_reader *r = gtsc_reader__open(path, &ro);
	struct gtsc_tp_decoder *d = r ? gtsc_tp_decoder__new(r) : NULL;
	const char *name, *group;
	int err = 0;

	if (!d)
		fprintf(stderr, "gtsc-bpf: %s: %s\n", path,
			r && errno == ENOENT ? "the trace recorded no tracepoint by name"
					     : strerror(errno));
	for (size_t i = 0; d && !err && (name = gtsc_tp_decoder__event(d, i, &group)); i++)
		err = show(l, group, name);
	gtsc_tp_decoder__free(d);
	gtsc_reader__close(r);
	return d && !err ? 0 : 1;
}

int cmd_list_events(int argc, char **argv)
{
	struct list_ctx l = { .pats = argv + 1, .n = argc - 1 };
	int err;

	if (argc > 2 && !strcmp(argv[1], "-i")) {
		l.pats += 2;
		l.n -= 2;
		return list_trace(&l, argv[2]);
	}
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: gtsc-bpf list-events [-i TRACE] [PATTERN...]\n\n"
		       "Prints this kernel's tracepoints, GROUP:NAME, each a line: what\n"
		       "'record -e' takes.  PATTERN is GROUP:NAME with globs ('sched:*',\n"
		       "'*:*irq*'), or a word matching the group or the name.  -i TRACE:\n"
		       "the tracepoints whose formats TRACE saved instead.\n\n"
		       "examples:\n"
		       "  gtsc-bpf list-events 'sched:*'\n"
		       "  gtsc-bpf list-events irq\n"
		       "  gtsc-bpf list-events -i t.gtsc\n");
		return 0;
	}
	err = gtsc_tracepoints__list(NULL, show, &l);
	if (err == -EACCES) {
		fprintf(stderr, "gtsc-bpf: listing tracepoints needs root (tracefs is "
				"readable by root only)\n");
		return 1;
	}
	if (err < 0) {
		fprintf(stderr, "gtsc-bpf: list-events: %s\n",
			err == -ENOENT ? "no tracefs (mount -t tracefs nodev /sys/kernel/tracing)"
				       : strerror(-err));
		return 1;
	}
	if (!l.shown && l.n) {
		fprintf(stderr, "gtsc-bpf: no tracepoint of this kernel matches '%s'%s\n",
			l.pats[0], l.n > 1 ? " or the other patterns" : "");
		return 1;
	}
	return 0;
}
