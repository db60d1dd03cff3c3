// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf convert: a trace in a format other tools read, as perf data
 * convert does.  One file per format (convert_*.c); this one parses the
 * options, opens the input and the output, and says what it wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "convert.h"
#include "report_header.h"

struct convert_opts {
	struct report_inputs in;
	const char *input;
	const char *output;
	const char *to;
};

static const struct {
	const char *name;
	const char *default_output;
	int (*fn)(struct gtsc_reader *r, FILE *out, __u64 *events);
	int (*to_dir)(struct gtsc_reader *r, const char *dir, __u64 *events); /* a directory */
} formats[] = {
	{ "perfetto", "trace.json", convert_perfetto },
	{ "ctf", "trace.ctf", NULL, convert_ctf },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gtsc-bpf convert [-i FILE] --to FORMAT [-o OUTPUT]\n"
		   "\n"
		   "Writes a trace in a format other tools read.  FORMAT:\n"
		   "  perfetto   the Trace Event Format (JSON) of ui.perfetto.dev, chrome://tracing\n"
		   "             and speedscope: a track per thread named by its comm, syscalls as\n"
		   "             slices with their decoded call, kmem events as instants with a\n"
		   "             'slab bytes' counter per process, drops on a track per CPU\n"
		   "  ctf        CTF 1.8, as LTTng writes it, for babeltrace2 and Trace Compass: a\n"
		   "             directory of the TSDL metadata and a stream per channel and CPU;\n"
		   "             LTTng's event and field names, drops as discarded events\n"
		   "\n"
		   "  -i, --input FILE     trace file (default " GTSC_DEFAULT_OUTPUT "), '-' a stream\n"
		   "                       on stdin; several: the files of one recording, in order\n"
		   "  -o, --output OUTPUT  where to write (default trace.json, trace.ctf; - for\n"
		   "                       stdout but for ctf); never through a symbolic link\n"
		   "      --to FORMAT      the output format\n"
		   "\n"
		   "examples:\n"
		   "  gtsc-bpf convert -i t.gtsc --to perfetto -o t.json   # open in ui.perfetto.dev\n"
		   "  gtsc-bpf convert -i t.gtsc --to ctf -o t.ctf && babeltrace2 t.ctf | head\n"
		   "\n"
		   "Exit status: 0 converted, 3 the trace is damaged or truncated (converted as far\n"
		   "as it goes), 1 unreadable input or unwritable output, 2 a usage error.\n");
}

static int parse_args(struct convert_opts *o, int argc, char **argv)
{
	enum { OPT_TO = 256 };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, OPT_TO },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (report_inputs__add(&o->in, optarg))
				return -EINVAL;
			break;
		case 'o': o->output = optarg; break;
		case OPT_TO: o->to = optarg; break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf convert --help' lists the options\n");
			return -EINVAL;
		}
	}
	if (report_inputs__rest(&o->in, argc, argv, "convert"))
		return -EINVAL;
	o->input = report_inputs__name(&o->in);
	if (!o->to) {
		fprintf(stderr, "gtsc-bpf: convert needs --to FORMAT (perfetto, ctf)\n");
		return -EINVAL;
	}
	return 0;
}

/* A planted link must not redirect the output: O_NOFOLLOW on the last component. */
static FILE *open_output(const char *path)
{
	int fd;
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "gtsc-bpf: cannot write %s: %s\n", path,
			errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/* A format that writes a directory (CTF): no stdout, and the library opens the files. */
static int convert_to_dir(const struct convert_opts *o, struct gtsc_reader *r,
			  int (*fn)(struct gtsc_reader *r, const char *dir, __u64 *events))
{
	__u64 events = 0;
	int err;

	if (!strcmp(o->output, "-")) {
		fprintf(stderr, "gtsc-bpf: --to %s writes a directory: -o DIR, not -\n", o->to);
		gtsc_reader__close(r);
		return 2;
	}
	err = fn(r, o->output, &events);
	if (err == -EEXIST)
		fprintf(stderr, "gtsc-bpf: %s exists and is not a %s trace of gtsc-bpf: "
				"not writing into it\n", o->output, o->to);
	else if (err)
		fprintf(stderr, "gtsc-bpf: converting %s into %s failed: %s\n", o->input, o->output,
			strerror(-err));
	else if (gtsc_reader__truncated(r))
		fprintf(stderr, "gtsc-bpf: warning: %s: %s; converted as far as it goes\n", o->input,
			gtsc_reader__damage(r));
	else
		fprintf(stderr, "gtsc-bpf: %llu events from %s to %s\n", (unsigned long long)events,
			o->input, o->output);
	err = err ? 1 : gtsc_reader__truncated(r) ? 3 : 0;
	gtsc_reader__close(r);
	return err;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o = {};
	struct gtsc_reader *r;
	__u64 events = 0;
	size_t i, n = sizeof(formats) / sizeof(formats[0]);
	FILE *out;
	int err;

	if (parse_args(&o, argc, argv))
		return 2;
	for (i = 0; i < n && strcmp(formats[i].name, o.to); i++)
		;
	if (i == n) {
		fprintf(stderr, "gtsc-bpf: --to takes perfetto or ctf, not '%s'\n", o.to);
		return 2;
	}
	r = report_open(&o.in);
	if (!r)
		return 1;
	if (!o.output)
		o.output = formats[i].default_output;
	if (formats[i].to_dir)
		return convert_to_dir(&o, r, formats[i].to_dir);
	out = open_output(o.output);
	if (!out) {
		gtsc_reader__close(r);
		return 1;
	}
	err = formats[i].fn(r, out, &events);
	/* a full disk shows at the last flush: the output is not whole */
	if ((out == stdout ? fflush(out) : fclose(out)) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "gtsc-bpf: converting %s failed: %s\n", o.input, strerror(-err));
	else if (gtsc_reader__truncated(r))
		fprintf(stderr, "gtsc-bpf: warning: %s: %s; converted as far as it goes\n", o.input,
			gtsc_reader__damage(r));
	else if (strcmp(o.output, "-"))
		fprintf(stderr, "gtsc-bpf: %llu events from %s to %s\n", (unsigned long long)events,
			o.input, o.output);
	err = err ? 1 : gtsc_reader__truncated(r) ? 3 : 0;
	gtsc_reader__close(r);
	return err;
}
