// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf record: options -> a recording (gtsc/record.h), served on its
 * control socket.  Recording starts after every program is attached and the
 * traced command is released only then; it stops before the final drain,
 * which runs until every record the programs wrote has been consumed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include <gtsc/gtsc.h>
#include "cli.h"
#include "live_view.h"
#include "record_probes.h"

#define POLL_MS 50
#define FLUSH_MS 2000
#define MAX_CHANNEL_ARGS 64

struct record_opts {
	const char *output;
	bool system_wide;
	int pids[64];
	size_t nr_pids;
	double duration_s;
	const char *events; /* -e, the library parses it */
	char events_buf[4096]; /* several -e: one list, as perf takes them */
	__u32 capture_size; /* -s */
	bool no_capture;
	__u64 ring_bytes;
	const char *channels[MAX_CHANNEL_ARGS]; /* --channel, as given */
	size_t nr_channels;
	bool allow_missing;
	enum gtsc_compression compress;
	bool stacks; /* --stacks */
	char **cmd; /* after "--" */
	char name[GTSC_SESSION_NAME_MAX];
	bool daemon;
	const char *snapshot_on; /* --snapshot-on syscall=NAME */
	struct record_probes probes; /* -k, -C, --cgroup */
	struct cli_log log;
	enum { LIVE_OFF, LIVE_TEXT, LIVE_JSON } live; /* --live[=json] */
	enum { SWITCH_OFF, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME } switch_mode;
	__u64 switch_at; /* bytes or ns */
	__u64 max_files; /* 0: keep every file */
};

struct record_run {
	struct record_opts *o;
	struct gtsc_recording *rec;
	struct gtsc_session *s; /* the recording's, once open */
	pid_t child;
	int child_status;
	bool child_ended; /* by itself: its status becomes record's (perf, strace) */
	int go_fd;
	int ready_fd; /* --daemon: tells the waiting parent we are running */
	__u64 t0_ns;
	bool recording;
	bool kill_requested;
	struct gtsc_control_server *ctl;
	int snap_seq;	/* N of the last OUTPUT.N snapshot */
	int snapshots;	/* written so far, by any request */
	__u64 triggers; /* --snapshot-on triggers already answered */
	bool finished;	/* the file got its trailer */
	struct live_view *live;
	/* --switch-output: the files written, oldest first, and when the current began */
	char **files;
	size_t nr_files;
	size_t removed; /* by --max-files */
	__u64 file_t0_ns;
	__u64 file_base; /* bytes of the current file before its records */
	__u64 last_stamp_ms;
	/* -o -, --live: SIGPIPE ignored; the command gets this disposition back */
	struct sigaction old_pipe;
	bool pipe_ignored;
};

/* Set from signal handlers only. */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t snapshot_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* perf --switch-output's signal: snapshot the flight channels to OUTPUT.N. */
static void on_usr2(int sig)
{
	snapshot_signal = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gtsc-bpf record [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"\n"
		"Records kernel events into a trace file.  Say what to trace: a COMMAND (and\n"
		"every process it forks), -p PID, -C COMM, --cgroup PATH, or -a for the whole\n"
		"system.\n"
		"\n"
		"  -o, --output FILE       trace file (default " GTSC_DEFAULT_OUTPUT
		"; an existing one becomes FILE.old);\n"
		"                          '-' writes a stream to the standard output\n"
		"  -a, --all               trace the whole system\n"
		"  -p, --pid PID[,PID]     trace these processes and the children they fork\n"
		"  -d, --duration SECONDS  stop after SECONDS\n"
		"  -e, --events LIST       event sources: syscalls,kmem (default: both);\n"
		"                          syscalls=NAMES records only these syscalls, NAMES\n"
		"                          being names, globs and strace classes (%%file %%net\n"
		"                          %%process %%memory %%signal %%desc ...) up to the end\n"
		"                          of LIST: -e kmem,syscalls='openat,*stat*,%%net';\n"
		"                          any tracepoint as GROUP:NAME, globs too: -e\n"
		"                          'sched:sched_switch,irq:*' (gtsc-bpf list-events);\n"
		"                          repeatable\n"
		"  -s, --string-limit SIZE bytes of data captured per buffer of read, write,\n"
		"                          send, recv and argv strings (default 32, at most 4096)\n"
		"      --no-capture        record raw syscall arguments only, no user memory\n"
		"  -k, --func FUNC[,FUNC]  probe kernel functions (globs: 'vfs_*'); FUNC%%return\n"
		"                          also probes the return and records the latency\n"
		"  -C, --comm COMM[,COMM]  only tasks whose comm is one of these\n"
		"      --cgroup PATH       only tasks in this cgroup v2 directory or below it\n"
		"  -b, --buffer-size SIZE  per-CPU ring size of the syscalls, kmem and funcs channels\n"
		"                          (default 8M-32M by RAM and CPUs; K, M, G suffixes)\n"
		"      --channel NAME:KEY=VALUE[,KEY=VALUE]\n"
		"                          one channel's rings: size=SIZE, scope=percpu|global,\n"
		"                          mode=discard|overwrite, sub_size=BYTES,nr_sub=N\n"
		"                          (size = sub_size x nr_sub; channels: syscalls,\n"
		"                          kmem, task).  overwrite: a flight recorder keeping\n"
		"                          the newest records, written out at the end, on\n"
		"                          'gtsc-bpf snapshot NAME' and on SIGUSR2 (OUTPUT.N).\n"
		"                          ring=array|ringbuf: a discard channel's records go\n"
		"                          through per-CPU array rings, a cheaper reserve (the\n"
		"                          default from Linux 5.12, for rings of 64K or more),\n"
		"                          or the BPF ring buffer\n"
		"      --snapshot-on syscall=NAME\n"
		"                          snapshot the overwrite channels to OUTPUT.N when a\n"
		"                          traced task enters NAME (at most once a second)\n"
		"      --allow-missing     record what this kernel supports, leave out the rest\n"
		"      --name NAME         session name for list/status/stop/start/kill\n"
		"                          (default gtsc-PID)\n"
		"      --daemon            keep recording in the background; end it with\n"
		"                          'gtsc-bpf kill NAME'\n"
		"      --compress=ALG      zstd (default: columns then zstd, ~1 byte per\n"
		"                          event), lz4 or zlib (format 1.1's codecs) or\n"
		"                          none; --no-compress is none\n"
		"      --stacks            a kernel stack for each kmem allocation and -k hit\n"
		"                          (report --kmem --folded)\n"
		"      --live[=json]       print the events as they are recorded: syscalls as\n"
		"                          report --syscalls (strace-style), the rest as report;\n"
		"                          the file is still written (-o /dev/null: not)\n"
		"      --switch-output[=SIZE|TIME|signal]\n"
		"                          rotate: OUTPUT.<YYYYmmddHHMMSSmmm> files (UTC start\n"
		"                          time), each readable alone, a new one every SIZE\n"
		"                          (256M), TIME (30s, 10m) or SIGUSR2 (the default)\n"
		"      --max-files N       with --switch-output: keep the newest N files\n"
		"  -q, --quiet             no summary\n"
		"  -v, --verbose           libbpf and verifier messages\n"
		"\n"
		"examples:\n"
		"  sudo gtsc-bpf record -o t.gtsc -- tar czf /tmp/x.tgz /usr/share/doc\n"
		"  sudo gtsc-bpf record -a -d 5 -e kmem\n"
		"  sudo gtsc-bpf record --live -e syscalls -o /dev/null -- curl -s example.com\n"
		"  sudo gtsc-bpf record -a -o - | ssh box gtsc-bpf report -i -\n"
		"  sudo gtsc-bpf record -a --switch-output=256M --max-files 8\n"
		"  sudo gtsc-bpf record -p 1234 --channel syscalls:size=64M\n"
		"  sudo gtsc-bpf record -a --name fr --daemon \\\n"
		"                       --channel syscalls:mode=overwrite,size=64M\n");
}

static int parse_pids(struct record_opts *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = copy ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long pid = strtol(tok, &end, 10);

		if (*end || pid <= 0 || pid > 0x3fffffff) {
			fprintf(stderr, "gtsc-bpf: '%s' is not a process id\n", tok);
			err = -EINVAL;
		} else if (kill(pid, 0) && errno == ESRCH) {
			fprintf(stderr, "gtsc-bpf: there is no process %ld\n", pid);
			err = -ESRCH;
		} else if (o->nr_pids == sizeof(o->pids) / sizeof(o->pids[0])) {
			fprintf(stderr, "gtsc-bpf: too many -p processes (at most 64)\n");
			err = -E2BIG;
		} else {
			o->pids[o->nr_pids++] = pid;
		}
	}
	free(copy);
	return err;
}

/* PF_KTHREAD in /proc/PID/stat's flags (field 9); NAME gets its comm. */
static bool kernel_thread(int pid, char *name, size_t name_sz)
{
	char path[64], buf[512], *p;
	unsigned long flags = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || !strchr(buf, '('))
		return false;
	snprintf(name, name_sz, "%.*s", (int)(p - strchr(buf, '(') - 1), strchr(buf, '(') + 1);
	return sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 && (flags & 0x00200000);
}

/*
 * Kernel threads make no syscalls, but they allocate and free (kworkers, RCU,
 * kswapd): -p of one records its kmem events, and says so; with syscalls
 * only it would record nothing, so it is refused.
 */
static int check_kernel_threads(const struct record_opts *o)
{
	bool kmem = !o->events || strstr(o->events, "kmem");
	char name[32];

	for (size_t i = 0; i < o->nr_pids; i++) {
		if (!kernel_thread(o->pids[i], name, sizeof(name)))
			continue;
		if (!kmem) {
			fprintf(stderr, "gtsc-bpf: process %d (%s) is a kernel thread, which makes "
					"no syscalls: add -e kmem to record its allocations\n",
				o->pids[i], name);
			return -EINVAL;
		}
		if (!o->log.quiet)
			fprintf(stderr, "gtsc-bpf: process %d (%s) is a kernel thread: it makes no "
					"syscalls, only its kmem events are recorded\n",
				o->pids[i], name);
	}
	return 0;
}

/* --channel NAME:KEY=VALUE[,...]: checked by the library with the other options. */
static int parse_compress(struct record_opts *o, const char *alg)
{
	static const char *const names[] = {
		[GTSC_COMPRESS_LZ4] = "lz4",
		[GTSC_COMPRESS_ZLIB] = "zlib",
		[GTSC_COMPRESS_NONE] = "none",
		[GTSC_COMPRESS_ZSTD] = "zstd",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(alg, names[i])) {
			o->compress = i;
			return 0;
		}
	fprintf(stderr, "gtsc-bpf: --compress takes zstd, lz4, zlib or none, not '%s'\n", alg);
	return -EINVAL;
}

static int add_channel(struct record_opts *o, const char *arg)
{
	if (o->nr_channels == MAX_CHANNEL_ARGS) {
		fprintf(stderr, "gtsc-bpf: --channel wants NAME:KEY=VALUE[,...], not '%s'\n", arg);
		return -EINVAL;
	}
	o->channels[o->nr_channels++] = arg;
	return 0;
}

/* -e A -e B is -e A,B (syscalls= still takes the rest of the list, so name it last). */
static int add_events(struct record_opts *o, const char *arg)
{
	size_t len = strlen(o->events_buf);

	if (len + strlen(arg) + 2 > sizeof(o->events_buf)) {
		fprintf(stderr, "gtsc-bpf: -e lists are %zu bytes at most\n",
			sizeof(o->events_buf) - 2);
		return -E2BIG;
	}
	snprintf(o->events_buf + len, sizeof(o->events_buf) - len, "%s%s", len ? "," : "", arg);
	o->events = o->events_buf;
	return 0;
}

static int parse_capture_size(struct record_opts *o, const char *arg)
{
	__u64 n;
	int err = cli_number("-s", CLI_SIZE, arg, 1, GTSC_CAPTURE_MAX, &n);

	if (!err)
		o->capture_size = n;
	return err;
}

#define MAX_DURATION_NS (366ULL * 86400 * 1000000000ULL) /* a year is a mistake, not a test */

static int parse_duration(struct record_opts *o, const char *arg)
{
	__u64 ns;
	int err = cli_number("-d", CLI_DURATION, arg, 1000000, MAX_DURATION_NS, &ns);

	if (!err)
		o->duration_s = ns / 1e9;
	return err;
}

/* perf's --switch-output=signal|SIZE|TIME: a size ends in B, K, M, G or T, a time in s, m, h, d. */
static int parse_switch(struct record_opts *o, const char *arg)
{
	size_t n = arg ? strlen(arg) : 0;
	char last = n ? arg[n - 1] : 0;

	if (!arg || !strcmp(arg, "signal")) {
		o->switch_mode = SWITCH_SIGNAL;
		return 0;
	}
	if (strchr("BKMGT", last) || (n > 2 && !strcmp(arg + n - 2, "iB"))) {
		o->switch_mode = SWITCH_SIZE;
		return cli_number("--switch-output", CLI_SIZE, arg, 4096, GTSC_SIZE_MAX,
				  &o->switch_at);
	}
	if (last && strchr("smhd", last)) {
		o->switch_mode = SWITCH_TIME;
		return cli_number("--switch-output", CLI_DURATION, arg, 100000000ULL,
				  MAX_DURATION_NS, &o->switch_at);
	}
	fprintf(stderr, "gtsc-bpf: --switch-output takes signal, a size (256M) or a time (30s, "
			"10m), not '%s'\n", arg);
	return -EINVAL;
}

static int parse_live(struct record_opts *o, const char *arg)
{
	if (!arg || !strcmp(arg, "text")) {
		o->live = LIVE_TEXT;
		return 0;
	}
	if (!strcmp(arg, "json")) {
		o->live = LIVE_JSON;
		return 0;
	}
	fprintf(stderr, "gtsc-bpf: --live takes json (or nothing), not '%s'\n", arg);
	return -EINVAL;
}

/* The combinations a stream, the live view and rotation cannot make. */
static int check_outputs(const struct record_opts *o)
{
	bool stream = !strcmp(o->output, "-");
	const char *why = NULL;

	if (stream && o->live)
		why = "--live prints on the standard output, where -o - writes the trace: choose one";
	else if (stream && o->switch_mode)
		why = "--switch-output writes files: not with -o -";
	else if (o->daemon && (stream || o->live))
		why = "--daemon has no standard output for -o - or --live";
	else if (o->max_files && !o->switch_mode)
		why = "--max-files keeps the newest files of --switch-output: give it too";
	else if (stream && isatty(STDOUT_FILENO))
		why = "-o - writes a binary stream, and the standard output is a terminal: pipe it "
		      "(| gtsc-bpf report -i -) or redirect it";
	if (why)
		fprintf(stderr, "gtsc-bpf: %s\n", why);
	return why ? -EINVAL : 0;
}

static int parse_args(struct record_opts *o, int argc, char **argv)
{
	enum { OPT_CHANNEL = 256, OPT_ALLOW_MISSING, OPT_NO_COMPRESS, OPT_COMPRESS, OPT_NAME, OPT_DAEMON,
	       OPT_NO_CAPTURE, OPT_CGROUP, OPT_SNAPSHOT_ON, OPT_STACKS, OPT_LIVE, OPT_SWITCH,
	       OPT_MAX_FILES };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "events", required_argument, NULL, 'e' },
		{ "string-limit", required_argument, NULL, 's' },
		{ "no-capture", no_argument, NULL, OPT_NO_CAPTURE },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "func", required_argument, NULL, 'k' },
		{ "comm", required_argument, NULL, 'C' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "channel", required_argument, NULL, OPT_CHANNEL },
		{ "allow-missing", no_argument, NULL, OPT_ALLOW_MISSING },
		{ "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
		{ "compress", required_argument, NULL, OPT_COMPRESS },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "live", optional_argument, NULL, OPT_LIVE },
		{ "switch-output", optional_argument, NULL, OPT_SWITCH },
		{ "max-files", required_argument, NULL, OPT_MAX_FILES },
		{ "switch-max-files", required_argument, NULL, OPT_MAX_FILES }, /* perf's name */
		{ "name", required_argument, NULL, OPT_NAME },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "snapshot-on", required_argument, NULL, OPT_SNAPSHOT_ON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, err = 0;

	o->output = GTSC_DEFAULT_OUTPUT;
	while (!err &&
	       (c = getopt_long(argc, argv, "+o:ap:d:e:s:b:k:C:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'a': o->system_wide = true; break;
		case 'p': err = parse_pids(o, optarg); break;
		case 'd': err = parse_duration(o, optarg); break;
		case 'e': err = add_events(o, optarg); break;
		case 's': err = parse_capture_size(o, optarg); break;
		case OPT_NO_CAPTURE: o->no_capture = true; break;
		case 'b':
			err = cli_number("-b", CLI_SIZE, optarg, 4096, GTSC_RING_MAX, &o->ring_bytes);
			break;
		case 'k': err = record_probes__add_func(&o->probes, optarg); break;
		case 'C': err = record_probes__add_comms(&o->probes, optarg); break;
		case OPT_CGROUP: o->probes.cgroup = optarg; break;
		case OPT_CHANNEL: err = add_channel(o, optarg); break;
		case OPT_ALLOW_MISSING: o->allow_missing = true; break;
		case OPT_NO_COMPRESS: o->compress = GTSC_COMPRESS_NONE; break;
		case OPT_COMPRESS: err = parse_compress(o, optarg); break;
		case OPT_STACKS: o->stacks = true; break;
		case OPT_LIVE: err = parse_live(o, optarg); break;
		case OPT_SWITCH: err = parse_switch(o, optarg); break;
		case OPT_MAX_FILES:
			err = cli_number("--max-files", CLI_COUNT, optarg, 1, 1000000, &o->max_files);
			break;
		case OPT_NAME:
			if (gtsc_control__check_name(optarg)) {
				fprintf(stderr, "gtsc-bpf: '%s' is not a session name (letters, "
						"digits, '_', '.', '-')\n", optarg);
				err = -EINVAL;
			}
			snprintf(o->name, sizeof(o->name), "%s", optarg);
			break;
		case OPT_DAEMON: o->daemon = true; break;
		case OPT_SNAPSHOT_ON: o->snapshot_on = optarg; break;
		case 'q': o->log.quiet = true; break;
		case 'v': o->log.verbose = true; break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf record --help' lists the options\n");
			err = -EINVAL;
		}
	}
	if (err)
		return err;
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->cmd && !o->nr_pids && !o->system_wide && !record_probes__targets(&o->probes)) {
		fprintf(stderr, "gtsc-bpf: say what to trace: -- COMMAND, -p PID, -C COMM, "
				"--cgroup PATH or -a for the whole system\n");
		return -EINVAL;
	}
	if (o->system_wide && o->nr_pids) {
		fprintf(stderr, "gtsc-bpf: -a and -p together: choose one\n");
		return -EINVAL;
	}
	if (check_kernel_threads(o) || check_outputs(o))
		return -EINVAL;
	/* -C or --cgroup alone: every task, narrowed by them in the kernel. */
	if (!o->cmd && !o->nr_pids)
		o->system_wide = true;
	return 0;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The child waits on a pipe, so that it runs only once recording has started. */
static int spawn(struct record_run *r)
{
	int p[2], e;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	r->child = fork();
	if (r->child < 0)
		return -errno;
	if (r->child == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up */
		/* -o -: the trace owns stdout; the command's output goes to stderr */
		if (!strcmp(r->o->output, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(126);
		if (r->pipe_ignored)
			sigaction(SIGPIPE, &r->old_pipe, NULL);
		execvp(r->o->cmd[0], r->o->cmd);
		e = errno;
		fprintf(stderr, "gtsc-bpf: cannot run '%s': %s\n", r->o->cmd[0], strerror(e));
		/* the shell's codes: 127 not found, 126 found but not executable */
		_exit(e == ENOENT ? 127 : 126);
	}
	close(p[0]);
	r->go_fd = p[1];
	return 0;
}

/* PREFIX and ARGV joined by blanks, malloc()ed; NULL when out of memory. */
static char *join_args(const char *prefix, char **argv)
{
	size_t len = strlen(prefix) + 1;
	char *s;

	for (int i = 0; argv && argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, prefix);
	for (int i = 0; argv && argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static bool child_done(struct record_run *r)
{
	char status[16];

	if (r->child <= 0)
		return false;
	if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
		r->child = 0;
		r->child_ended = true;
		/* in the trailer of the file and of every snapshot from now on */
		snprintf(status, sizeof(status), "%d", r->child_status);
		gtsc_recording__add_meta(r->rec, "command_status", status);
		return true;
	}
	return false;
}

static const char *mode_name(enum gtsc_channel_mode mode)
{
	return mode == GTSC_CHANNEL_OVERWRITE ? "overwrite" : "discard";
}

/* The session's channels, counters and flight regions, read at one time. */
struct run_counts {
	struct gtsc_channel_info ch[64];
	int nr_ch;
	struct gtsc_session_stat *st;
	int nr_st;
	struct gtsc_session_flight *fl;
	int nr_fl;
};

static void counts_free(struct run_counts *c)
{
	free(c->st);
	free(c->fl);
}

static int counts_read(struct gtsc_session *s, struct run_counts *c)
{
	size_t max;
	int cpus = libbpf_num_possible_cpus();

	memset(c, 0, sizeof(*c));
	while (c->nr_ch < (int)(sizeof(c->ch) / sizeof(c->ch[0]))) {
		c->ch[c->nr_ch].sz = sizeof(c->ch[0]);
		if (gtsc_session__channel(s, c->nr_ch, &c->ch[c->nr_ch]))
			break;
		c->nr_ch++;
	}
	max = (size_t)c->nr_ch * (cpus > 0 ? cpus : 1);
	c->st = calloc(max ?: 1, sizeof(*c->st));
	c->fl = calloc(max ?: 1, sizeof(*c->fl));
	if (!c->st || !c->fl)
		return -ENOMEM;
	c->nr_st = gtsc_session__stats(s, c->st, max);
	c->nr_fl = gtsc_session__flight_stats(s, c->fl, max);
	if (c->nr_st < 0)
		c->nr_st = 0;
	if (c->nr_fl < 0)
		c->nr_fl = 0;
	return 0;
}

static const char *chan_name(const struct run_counts *c, __u32 id)
{
	return id < (__u32)c->nr_ch ? c->ch[id].name : "?";
}

static bool has_flight(struct gtsc_session *s)
{
	GTSC_OPTS(gtsc_channel_info, ch);

	for (size_t i = 0; !gtsc_session__channel(s, i, &ch); i++)
		if (ch.mode == GTSC_CHANNEL_OVERWRITE)
			return true;
	return false;
}

/* channel NAME SCOPE MODE BYTES RINGS|REGIONS SUB_SIZE NR_SUB; per CPU; per flight region */
static void status_channels(struct record_run *r, struct gtsc_control_reply *out)
{
	struct run_counts c;

	if (counts_read(r->s, &c)) {
		counts_free(&c);
		return;
	}
	for (int i = 0; i < c.nr_ch; i++)
		gtsc_control_reply__printf(out, "channel\t%s\t%s\t%s\t%llu\t%u\t%llu\t%u\n",
					   c.ch[i].name,
					   c.ch[i].scope == GTSC_SCOPE_GLOBAL ? "global" : "percpu",
					   mode_name(c.ch[i].mode), (unsigned long long)c.ch[i].size,
					   c.ch[i].nr_rings, (unsigned long long)c.ch[i].sub_size,
					   c.ch[i].nr_sub);
	for (int i = 0; i < c.nr_st; i++)
		gtsc_control_reply__printf(out, "cpu\t%s\t%u\t%llu\t%llu\n",
					   chan_name(&c, c.st[i].channel), c.st[i].cpu,
					   (unsigned long long)c.st[i].written,
					   (unsigned long long)c.st[i].dropped);
	/* live counts: a walk of every region that copies nothing */
	for (int i = 0; i < c.nr_fl; i++) {
		char cpu[16];

		if (c.fl[i].cpu == GTSC_FLIGHT_ALL_CPUS)
			snprintf(cpu, sizeof(cpu), "all");
		else
			snprintf(cpu, sizeof(cpu), "%u", c.fl[i].cpu);
		gtsc_control_reply__printf(out, "flight\t%s\t%s\t%llu\t%llu\t%llu\t%llu\n",
					   chan_name(&c, c.fl[i].channel), cpu,
					   (unsigned long long)c.fl[i].written,
					   (unsigned long long)c.fl[i].retained,
					   (unsigned long long)c.fl[i].overwritten,
					   (unsigned long long)c.fl[i].torn);
	}
	counts_free(&c);
}

static void status_reply(struct record_run *r, struct gtsc_control_reply *out)
{
	char sources[512];
	const char *trigger;
	__u64 triggers;

	gtsc_control_reply__printf(out, "name=%s\npid=%d\nstate=%s\noutput=%s\nfilter=%s",
				   r->o->name, getpid(), r->recording ? "recording" : "stopped",
				   r->o->output,
				   r->o->system_wide ? "system" : r->o->cmd ? "command" : "pids");
	for (size_t i = 0; !r->o->system_wide && !r->o->cmd && i < r->o->nr_pids; i++)
		gtsc_control_reply__printf(out, "%s%d", i ? "," : "=", r->o->pids[i]);
	record_probes__filter(&r->o->probes, out);
	if (gtsc_session__sources(r->s, sources, sizeof(sources)) < 0)
		sources[0] = '\0';
	gtsc_control_reply__printf(out, "\nsources=%s\n", sources);
	gtsc_control_reply__printf(out, "uptime_s=%.3f\n", (mono_ns() - r->t0_ns) / 1e9);
	gtsc_control_reply__printf(out, "snapshots=%d\n", r->snapshots);
	trigger = gtsc_session__trigger(r->s, &triggers);
	if (trigger)
		gtsc_control_reply__printf(out, "snapshot_on=%s\ttriggers=%llu\n", trigger,
					   (unsigned long long)triggers);
	status_channels(r, out);
}

/* OUTPUT.N, the first N free (perf --switch-output numbers its outputs too). */
static void next_snapshot_path(struct record_run *r, char *path, size_t sz)
{
	/* -o -: the stream has no name to number */
	const char *base = strcmp(r->o->output, "-") ? r->o->output : GTSC_DEFAULT_OUTPUT;

	do
		snprintf(path, sz, "%s.%d", base, ++r->snap_seq);
	while (!access(path, F_OK));
}

/*
 * A complete trace at PATH of what the flight channels hold now, with the
 * main file's metadata; recording goes on.  MSG gets file=, records= and
 * torn= lines, or the sentence of an error.
 */
static int snapshot_to(struct record_run *r, const char *path, bool consume, char *msg,
		       size_t msg_sz)
{
	GTSC_OPTS(gtsc_snapshot_opts, so, .consume = consume, .errbuf = msg, .errbuf_sz = msg_sz);
	int err = gtsc_recording__snapshot(r->rec, path, &so);

	if (err)
		return err;
	r->snapshots++;
	snprintf(msg, msg_sz, "file=%s\nrecords=%llu\ntorn=%llu\n", path,
		 (unsigned long long)so.records, (unsigned long long)so.torn);
	return 0;
}

static int need_flight(struct record_run *r, const char *what, char *msg, size_t msg_sz)
{
	if (has_flight(r->s))
		return 0;
	snprintf(msg, msg_sz, "session '%s' has no overwrite channel: nothing to %s", r->o->name,
		 what);
	return -ENOENT;
}

/* "snapshot [--consume] [PATH]": PATH is absolute (the client resolved it); else OUTPUT.N. */
static int ctl_snapshot(struct record_run *r, int argc, char **argv,
			struct gtsc_control_reply *reply)
{
	bool consume = false;
	const char *path = NULL;
	char def[4096], msg[4608] = "";
	int err = need_flight(r, "snapshot", msg, sizeof(msg));

	for (int i = 1; i < argc && !err; i++) {
		if (!strcmp(argv[i], "--consume")) {
			consume = true;
		} else if (argv[i][0] == '/' && !path) {
			path = argv[i];
		} else {
			snprintf(msg, sizeof(msg),
				 "snapshot takes [--consume] [/ABSOLUTE/PATH], not '%s'", argv[i]);
			err = -EINVAL;
		}
	}
	if (!err && !path) {
		next_snapshot_path(r, def, sizeof(def));
		path = def;
	}
	err = err ?: snapshot_to(r, path, consume, msg, sizeof(msg));
	gtsc_control_reply__printf(reply, "%s", msg);
	return err;
}

/* USR2 and --snapshot-on triggers: one snapshot to OUTPUT.N answers all pending. */
static void answer_snapshot_requests(struct record_run *r)
{
	char path[4096], msg[4608];
	bool usr2;
	__u64 t;

	gtsc_session__trigger(r->s, &t);
	/* with --switch-output=signal, SIGUSR2 is switch_output()'s */
	usr2 = snapshot_signal && r->o->switch_mode != SWITCH_SIGNAL;
	if (!usr2 && t == r->triggers)
		return;
	if (usr2)
		snapshot_signal = 0;
	r->triggers = t;
	if (need_flight(r, "snapshot", msg, sizeof(msg))) {
		fprintf(stderr, "gtsc-bpf: SIGUSR2: %s\n", msg);
		return;
	}
	next_snapshot_path(r, path, sizeof(path));
	if (snapshot_to(r, path, false, msg, sizeof(msg)))
		fprintf(stderr, "gtsc-bpf: snapshot: %s\n", msg);
	else if (!r->o->log.quiet)
		fprintf(stderr, "gtsc-bpf: snapshot of the flight channels to %s\n", path);
}

/* Requests from `gtsc-bpf status|stop|start|snapshot|rewind|kill NAME` in other processes. */
static int record_ctl(void *ctx, int argc, char **argv, struct gtsc_control_reply *reply)
{
	struct record_run *r = ctx;
	char msg[256];
	int err = 0;

	if (!strcmp(argv[0], "status")) {
		status_reply(r, reply);
	} else if (!strcmp(argv[0], "snapshot")) {
		return ctl_snapshot(r, argc, argv, reply);
	} else if (!strcmp(argv[0], "rewind")) {
		err = need_flight(r, "rewind", msg, sizeof(msg));
		if (err)
			gtsc_control_reply__printf(reply, "%s", msg);
		else
			gtsc_session__rewind(r->s);
		return err;
	} else if (!strcmp(argv[0], "stop")) {
		gtsc_session__stop(r->s);
		r->recording = false;
	} else if (!strcmp(argv[0], "start")) {
		gtsc_session__start(r->s);
		r->recording = true;
	} else if (!strcmp(argv[0], "kill")) {
		r->kill_requested = true;
	} else {
		gtsc_control_reply__printf(reply, "session '%s' does not know the command '%s'",
					   r->o->name, argv[0]);
		return -EINVAL;
	}
	return 0;
}

/* Events and drops over every channel and CPU so far. */
static void counts_totals(struct record_run *r, __u64 *recorded, __u64 *dropped)
{
	struct run_counts c;

	*recorded = *dropped = 0;
	if (!counts_read(r->s, &c))
		for (int i = 0; i < c.nr_st; i++)
			*recorded += c.st[i].written, *dropped += c.st[i].dropped;
	counts_free(&c);
}

/*
 * On a terminal, one status line refreshed about once a second, as perf
 * record and trace-cmd show how far they got: nothing when stderr is a file
 * or a pipe (scripts, logs) or with -q.
 */
struct progress {
	bool on, shown;
	__u64 next_ns, last_ns, last_events;
};

static void progress_init(struct record_run *r, struct progress *p)
{
	/* --live on the same terminal: its lines, not a status line between them */
	p->on = !r->o->log.quiet && !r->o->daemon && isatty(STDERR_FILENO) &&
		!(r->o->live && isatty(STDOUT_FILENO));
	p->next_ns = r->t0_ns + 1000000000ULL;
	p->last_ns = r->t0_ns;
}

static void progress_show(struct record_run *r, struct progress *p)
{
	__u64 now = mono_ns(), events, dropped;
	struct stat sb = {};

	if (!p->on || now < p->next_ns)
		return;
	counts_totals(r, &events, &dropped);
	stat(gtsc_recording__path(r->rec), &sb);
	fprintf(stderr, "\r\033[Kgtsc-bpf: %.0f s, %llu events (%.0f/s), %llu dropped, %.1f MiB written",
		(now - r->t0_ns) / 1e9, (unsigned long long)events,
		(events - p->last_events) / ((now - p->last_ns) / 1e9), (unsigned long long)dropped,
		sb.st_size / 1048576.0);
	p->shown = true;
	p->last_ns = now;
	p->last_events = events;
	/*
	 * On whole seconds from the start, not a second after this line: late
	 * rounds (a loaded machine) would push each refresh further back, and
	 * a -d 2.5 recording showed one line where two seconds had passed.
	 */
	while (p->next_ns <= now)
		p->next_ns += 1000000000ULL;
}

static void progress_end(const struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr); /* the summary takes its place */
}

/*
 * perf's names for rotated files: OUTPUT.<YYYYmmddHHMMSSmmm>, here the UTC
 * time the file began, one millisecond apart at least, so that the names
 * sort as the files follow each other (report -i OUTPUT.*).
 */
static void rotated_name(struct record_run *r, char *buf, size_t sz)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	__u64 ms;
	time_t t;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (ms <= r->last_stamp_ms)
		ms = r->last_stamp_ms + 1;
	r->last_stamp_ms = ms;
	t = ms / 1000;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(buf, sz, "%s.%s%03u", r->o->output, stamp, (unsigned int)(ms % 1000));
}

/* PATH is the newest file; past --max-files the oldest goes. */
static void files_add(struct record_run *r, const char *path)
{
	char **f = reallocarray(r->files, r->nr_files + 1, sizeof(*f));
	char *copy = strdup(path);

	r->file_t0_ns = mono_ns();
	if (!f || !copy) {
		free(copy);
		r->files = f ?: r->files;
		return; /* not removed later: a file too many, never one too few */
	}
	r->files = f;
	f[r->nr_files++] = copy;
	if (!r->o->max_files || r->nr_files <= r->o->max_files)
		return;
	if (unlink(f[0]) && errno != ENOENT)
		fprintf(stderr, "gtsc-bpf: cannot remove %s (--max-files): %s\n", f[0],
			strerror(errno));
	free(f[0]);
	memmove(f, f + 1, --r->nr_files * sizeof(*f));
	r->removed++;
}

static void file_size(struct record_run *r, __u64 *bytes)
{
	struct stat sb;

	*bytes = stat(gtsc_recording__path(r->rec), &sb) ? 0 : (__u64)sb.st_size;
}

/* --switch-output: whether the current file is due (SIGUSR2, its size, its age). */
static bool switch_due(struct record_run *r)
{
	const struct record_opts *o = r->o;
	__u64 bytes;

	switch (o->switch_mode) {
	case SWITCH_SIGNAL:
		if (!snapshot_signal)
			return false;
		snapshot_signal = 0;
		return true;
	case SWITCH_SIZE:
		/* records only: the metadata every file repeats comes on top */
		file_size(r, &bytes);
		return bytes >= r->file_base + o->switch_at;
	case SWITCH_TIME:
		return mono_ns() - r->file_t0_ns >= o->switch_at;
	default:
		return false;
	}
}

static void switch_output(struct record_run *r)
{
	char path[4096];

	if (!switch_due(r))
		return;
	rotated_name(r, path, sizeof(path));
	/* a failure was logged: recording goes on in the current file */
	if (gtsc_recording__switch(r->rec, path))
		return;
	files_add(r, path);
	file_size(r, &r->file_base);
}

/* --live: what the last round brought.  A closed output ends the recording, as strace's. */
static int live_drain(struct record_run *r)
{
	int err = r->live ? live_view__drain(r->live) : 0;

	if (err < 0) {
		if (err != -EPIPE && err != -EIO)
			fprintf(stderr, "gtsc-bpf: --live: %s\n", strerror(-err));
		live_view__free(r->live);
		r->live = NULL;
		r->kill_requested = true;
	}
	return 0;
}

static int record_loop(struct record_run *r)
{
	__u64 end = r->o->duration_s ? r->t0_ns + (__u64)(r->o->duration_s * 1e9) : 0;
	struct progress prog = {};
	int err = 0;

	progress_init(r, &prog);
	while (!stop_signal && !r->kill_requested) {
		err = gtsc_recording__poll(r->rec, POLL_MS);
		if (err < 0 && err != -EINTR)
			break;
		err = live_drain(r);
		progress_show(r, &prog);
		gtsc_control_server__serve(r->ctl);
		switch_output(r);
		answer_snapshot_requests(r);
		if (r->o->cmd && (r->child == 0 || child_done(r)))
			break;
		if (end && mono_ns() >= end)
			break;
	}
	progress_end(&prog);
	return err;
}

/*
 * A full disk (or quota, or an I/O error) ends the recording where the file
 * stopped: say how far it got, and that the part before is readable.
 */
static void say_failed(const struct record_run *r, int err)
{
	struct stat sb;

	if (err != -ENOSPC && err != -EDQUOT && err != -EFBIG && err != -EIO) {
		fprintf(stderr, "gtsc-bpf: recording failed: %s\n", strerror(-err));
		return;
	}
	if (stat(r->o->output, &sb))
		sb.st_size = 0;
	fprintf(stderr,
		"gtsc-bpf: writing %s failed after %lld bytes: %s; it is readable up to its last whole chunk, without a trailer\n",
		r->o->output, (long long)sb.st_size, strerror(-err));
}

static void print_summary(struct record_run *r)
{
	double secs = (mono_ns() - r->t0_ns) / 1e9;
	__u64 recorded, dropped, misses = 0;
	struct stat sb = {};
	struct run_counts c;

	counts_totals(r, &recorded, &dropped);
	if (counts_read(r->s, &c)) {
		counts_free(&c);
		return;
	}
	gtsc_session__missed(r->s, &misses);
	if (!strcmp(r->o->output, "-"))
		fprintf(stderr, "gtsc-bpf: %llu events in %.2f s to the standard output\n",
			(unsigned long long)recorded, secs);
	else if (!stat(gtsc_recording__path(r->rec), &sb) && r->o->switch_mode)
		fprintf(stderr, "gtsc-bpf: %llu events in %.2f s to %zu files, the last %s (%zu "
				"older removed: --max-files)\n",
			(unsigned long long)recorded, secs, r->nr_files,
			gtsc_recording__path(r->rec), r->removed);
	else
		fprintf(stderr, "gtsc-bpf: %llu events in %.2f s to %s (%.1f KiB)\n",
			(unsigned long long)recorded, secs, r->o->output, sb.st_size / 1024.0);
	fprintf(stderr, "  %-10s %-9s %12s %12s %12s\n", "channel", "mode", "events", "dropped",
		"overwritten");
	for (int ch = 0; ch < c.nr_ch; ch++) {
		__u64 w = 0, d = 0, kept = 0, over = 0;

		for (int i = 0; i < c.nr_st; i++)
			if (c.st[i].channel == (__u32)ch)
				w += c.st[i].written, d += c.st[i].dropped;
		for (int i = 0; i < c.nr_fl; i++)
			if (c.fl[i].channel == (__u32)ch)
				kept += c.fl[i].retained, over += c.fl[i].overwritten;
		fprintf(stderr, "  %-10s %-9s %12llu %12llu", c.ch[ch].name,
			mode_name(c.ch[ch].mode), (unsigned long long)w, (unsigned long long)d);
		if (c.ch[ch].mode == GTSC_CHANNEL_OVERWRITE)
			fprintf(stderr, " %12llu (%llu kept)\n", (unsigned long long)over,
				(unsigned long long)kept);
		else
			fprintf(stderr, " %12s\n", "-");
	}
	counts_free(&c);
	if (dropped)
		fprintf(stderr, "gtsc-bpf: warning: %llu events dropped (rings full): raise "
				"--buffer-size or --channel NAME:size=\n",
			(unsigned long long)dropped);
	if (misses)
		fprintf(stderr, "gtsc-bpf: warning: the kernel skipped %llu events (a program "
				"was already running on that CPU; of any task, inside the "
				"session's filters or not: `report --header` says which hooks)\n",
			(unsigned long long)misses);
}

/*
 * After the stop, the flight channels' retained records join the file (not
 * consumed: a snapshot still finds them), with their counts in the trailer.
 */
static int finish(struct record_run *r)
{
	int err;

	gtsc_recording__stop(r->rec, FLUSH_MS); /* a failure is logged; the file is finished */
	answer_snapshot_requests(r); /* a trigger in the last round (a command's exit_group) */
	err = gtsc_recording__finish(r->rec);
	if (err)
		return err;
	r->finished = true;
	if (r->live && live_view__finish(r->live) == -ENOMEM)
		fprintf(stderr, "gtsc-bpf: --live: out of memory\n");
	if (!r->o->log.quiet)
		print_summary(r);
	return 0;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
}

/*
 * --daemon: the parent waits until the child is recording, so that every
 * error still reaches the terminal, then returns.
 */
static int daemon_begin(struct record_run *r)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(p[0]);
		setsid();
		r->ready_fd = p[1];
		return 0;
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		exit(1); /* the daemon said why on stderr */
	if (!r->o->name[0])
		snprintf(r->o->name, sizeof(r->o->name), "gtsc-%d", pid); /* as the child names itself */
	if (!r->o->log.quiet)
		fprintf(stderr, "gtsc-bpf: session '%s' recording in the background (pid %d)\n",
			r->o->name, pid);
	exit(0);
}

static void daemon_ready(struct record_run *r)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (write(r->ready_fd, "k", 1) != 1)
		return;
	close(r->ready_fd);
	r->ready_fd = -1;
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
}

static int claim_name(struct record_run *r)
{
	char err[256] = "";
	GTSC_OPTS(gtsc_control_server_opts, co, .errbuf = err, .errbuf_sz = sizeof(err));

	if (!r->o->name[0])
		snprintf(r->o->name, sizeof(r->o->name), "gtsc-%d", getpid());
	r->ctl = gtsc_control_server__new(r->o->name, record_ctl, r, &co);
	if (!r->ctl) {
		int e = errno;

		/* Not root: what recording needs matters, not which socket refused us. */
		if ((e == EACCES || e == EPERM) && geteuid())
			fprintf(stderr,
				"gtsc-bpf: recording needs root, or CAP_BPF and CAP_PERFMON\n");
		else
			fprintf(stderr, "gtsc-bpf: %s\n", err);
		return -e;
	}
	return 0;
}

/* Options -> a recording: every option is checked here, before anything is created. */
static struct gtsc_recording *record_new(struct record_run *r, char **argv)
{
	struct record_opts *o = r->o;
	char first[4096];
	GTSC_OPTS(gtsc_session_opts, so, .system_wide = o->system_wide, .pids = o->pids,
		  .nr_pids = o->nr_pids, .ring_bytes = o->ring_bytes,
		  .allow_missing = o->allow_missing, .log = cli_log, .log_ctx = &o->log,
		  .events = o->events, .channel_specs = o->nr_channels ? o->channels : NULL,
		  .nr_channel_specs = o->nr_channels, .capture_size = o->capture_size,
		  .no_capture = o->no_capture, .snapshot_on = o->snapshot_on,
		  .stacks = o->stacks);
	char *cmdline = join_args("gtsc-bpf ", argv), *command = join_args("", o->cmd);
	GTSC_OPTS(gtsc_recording_opts, ro, .compress = o->compress,
		  .tool = "gtsc-bpf " GTSC_VERSION, .cmdline = cmdline, .command = command,
		  .keep_old = true, .live = o->live != LIVE_OFF);
	struct gtsc_recording *rec = NULL;

	record_probes__session_opts(&o->probes, &so);
	if (o->switch_mode) {
		rotated_name(r, first, sizeof(first));
		files_add(r, first);
	}
	if (cmdline && command)
		rec = gtsc_recording__new(o->switch_mode ? first : o->output, &so, &ro);
	else
		errno = ENOMEM;
	free(cmdline);
	free(command);
	return rec;
}

/*
 * -o - and --live: a closed reader is an error to handle, not a death, from
 * before the first byte (opening the recording writes its metadata).
 */
static void ignore_sigpipe(struct record_run *r)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	sigemptyset(&sa.sa_mask);
	r->pipe_ignored = !sigaction(SIGPIPE, &sa, &r->old_pipe);
}

static int record_run(struct record_run *r)
{
	struct record_opts *o = r->o;
	int err;

	err = o->daemon ? daemon_begin(r) : 0;
	err = err ?: claim_name(r);
	if (err)
		return err;
	if (o->live || !strcmp(o->output, "-"))
		ignore_sigpipe(r);
	err = gtsc_recording__open(r->rec);
	if (err)
		return err; /* the library said why */
	r->s = gtsc_recording__session(r->rec);
	if (o->cmd) {
		err = spawn(r);
		err = err ?: gtsc_session__track_pid(r->s, r->child);
		if (err) {
			fprintf(stderr, "gtsc-bpf: cannot start '%s': %s\n", o->cmd[0],
				strerror(-err));
			return err;
		}
	}
	err = gtsc_recording__attach(r->rec);
	if (err)
		return err; /* the library said which source, or what failed writing */
	install_signals();
	if (o->live) {
		r->live = live_view__new(gtsc_recording__live(r->rec), o->live == LIVE_JSON);
		if (!r->live) {
			fprintf(stderr, "gtsc-bpf: --live: out of memory\n");
			return -ENOMEM;
		}
	}
	r->t0_ns = r->file_t0_ns = mono_ns();
	file_size(r, &r->file_base);
	gtsc_session__start(r->s);
	r->recording = true;
	if (o->cmd) {
		/* Released only now: its first event happens with recording on. */
		if (write(r->go_fd, "g", 1) != 1) {
			fprintf(stderr, "gtsc-bpf: the command did not start\n");
			return -EPIPE;
		}
		close(r->go_fd);
		r->go_fd = -1;
	}
	if (!o->log.quiet && !o->daemon)
		fprintf(stderr, "gtsc-bpf: recording%s as session '%s'; Ctrl-C to stop\n",
			o->cmd ? " the command" : o->system_wide ? " the whole system" : "",
			o->name);
	if (o->daemon)
		daemon_ready(r);
	err = record_loop(r);
	if (err)
		say_failed(r, err);
	return err ?: finish(r);
}

/* What `gtsc-bpf status NAME` says once the session has ended. */
static void set_epitaph(struct record_run *r)
{
	char when[64], *path;
	time_t now = time(NULL);
	struct tm tm;

	if (!r->ctl)
		return;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	path = realpath(gtsc_recording__path(r->rec) ?: r->o->output, NULL);
	if (r->finished)
		gtsc_control_server__epitaph(r->ctl, "ended %s; its trace is %s", when,
					     path ? path : r->o->output);
	else
		gtsc_control_server__epitaph(r->ctl, "failed %s, without a complete trace", when);
	free(path);
}

static void cleanup(struct record_run *r)
{
	if (r->go_fd >= 0)
		close(r->go_fd); /* an unreleased child exits on EOF */
	if (r->child > 0) {
		kill(r->child, SIGTERM);
		waitpid(r->child, &r->child_status, 0);
	}
	set_epitaph(r);
	live_view__free(r->live);
	gtsc_recording__free(r->rec); /* an unfinished file stays, as a killed recorder's */
	for (size_t i = 0; i < r->nr_files; i++)
		free(r->files[i]);
	free(r->files);
	gtsc_control_server__free(r->ctl);
	if (r->ready_fd >= 0)
		close(r->ready_fd);
}

/*
 * `record -- CMD` exits as CMD did, as perf record and strace do: its exit
 * code, or 128 + N when signal N killed it (the shell's convention).  A
 * command that gtsc-bpf itself stopped (-d, a signal to the recorder) does
 * not count: then record's own status stands.
 */
static int command_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .compress = GTSC_COMPRESS_ZSTD };
	struct record_run r = { .o = &o, .go_fd = -1, .ready_fd = -1 };
	int err;

	err = parse_args(&o, argc, argv);
	/* A wrong option or an unknown function is a usage error, found before anything is loaded. */
	if (!err) {
		r.rec = record_new(&r, argv);
		err = r.rec ? 0 : -errno;
	}
	if (err) {
		record_probes__free(&o.probes);
		return 2;
	}
	cli_libbpf_verbose(o.log.verbose);
	/* Every failure path has already said why, in one sentence. */
	err = record_run(&r);
	cleanup(&r);
	record_probes__free(&o.probes);
	if (err)
		return 1;
	return r.child_ended ? command_exit_code(r.child_status) : 0;
}
