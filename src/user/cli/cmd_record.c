// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc-bpf record: options -> session -> file sink.  Recording starts after
 * every program is attached and the traced command is released only then;
 * it stops before the final drain, which runs until every record the
 * programs wrote has been consumed.
 */
#include <dirent.h>
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
#include "cli.h"
#include "control.h"
#include "metadata.h"
#include "record_probes.h"
#include "session_trace.h"
#include "sink_file.h"
#include "strbuf.h"
#include "syscall_classes.h"
#include "syscall_decode.h"

#define POLL_MS 50
#define FLUSH_MS 2000

struct record_opts {
	const char *output;
	bool system_wide;
	int pids[64];
	size_t nr_pids;
	double duration_s;
	unsigned int sources;
	bool filter_syscalls; /* -e syscalls=LIST */
	struct gtsc_sys_set syscalls;
	__u32 capture_size; /* -s */
	bool no_capture;
	__u64 ring_bytes;
	struct gtsc_channel_spec channels[GTSC_MAX_CHANNELS];
	size_t nr_channels;
	bool allow_missing;
	bool no_compress;
	bool stacks; /* --stacks */
	char **cmd; /* after "--" */
	char name[GTSC_SESSION_NAME_MAX];
	bool daemon;
	bool snapshot_on; /* --snapshot-on syscall=NAME */
	int snapshot_on_nr;
	struct record_probes probes; /* -k, -C, --cgroup */
	struct cli_log log;
};

/* The metadata chunks, built once: the main file and every snapshot carry the same. */
#define MAX_META_CHUNKS 8

struct meta_chunks {
	enum gtsc_chunk_type type[MAX_META_CHUNKS];
	struct strbuf text[MAX_META_CHUNKS];
	int n;
};

/* One entry per flight region: a CPU of each per-CPU flight channel, or a global one. */
#define MAX_FLIGHT_REGIONS (GTSC_MAX_CHANNELS * 64)

struct record_run {
	struct record_opts *o;
	struct gtsc_session *s;
	struct gtsc_file_sink *fs;
	pid_t child;
	int child_status;
	int go_fd;
	int ready_fd; /* --daemon: tells the waiting parent we are running */
	__u64 t0_ns;
	bool recording;
	bool kill_requested;
	struct gtsc_ctl_server *ctl;
	char **argv;
	struct meta_chunks meta;
	int snap_seq;	/* N of the last OUTPUT.N snapshot */
	int snapshots;	/* written so far, by any request */
	__u64 triggers; /* --snapshot-on triggers already answered */
	bool finished;	/* the file got its trailer */
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
		"; an existing one becomes FILE.old)\n"
		"  -a, --all               trace the whole system\n"
		"  -p, --pid PID[,PID]     trace these processes and the children they fork\n"
		"  -d, --duration SECONDS  stop after SECONDS\n"
		"  -e, --events LIST       event sources: syscalls,kmem (default: both);\n"
		"                          syscalls=NAMES records only these syscalls, NAMES\n"
		"                          being names, globs and strace classes (%%file %%net\n"
		"                          %%process %%memory %%signal %%desc ...) up to the end\n"
		"                          of LIST: -e kmem,syscalls='openat,*stat*,%%net'\n"
		"  -s, --string-limit SIZE bytes of data captured per buffer of read, write,\n"
		"                          send, recv and argv strings (default 32, at most 4096)\n"
		"      --no-capture        record raw syscall arguments only, no user memory\n"
		"  -k, --func FUNC[,FUNC]  probe kernel functions (globs: 'vfs_*'); FUNC%%return\n"
		"                          also probes the return and records the latency\n"
		"  -C, --comm COMM[,COMM]  only tasks whose comm is one of these\n"
		"      --cgroup PATH       only tasks in this cgroup v2 directory or below it\n"
		"  -b, --buffer-size SIZE  per-CPU ring size of the syscalls, kmem and funcs channels\n"
		"                          (default 8M; K, M, G suffixes)\n"
		"      --channel NAME:KEY=VALUE[,KEY=VALUE]\n"
		"                          one channel's rings: size=SIZE, scope=percpu|global,\n"
		"                          mode=discard|overwrite, sub_size=BYTES,nr_sub=N\n"
		"                          (size = sub_size x nr_sub; channels: syscalls,\n"
		"                          kmem, task).  overwrite: a flight recorder keeping\n"
		"                          the newest records, written out at the end, on\n"
		"                          'gtsc-bpf snapshot NAME' and on SIGUSR2 (OUTPUT.N)\n"
		"      --snapshot-on syscall=NAME\n"
		"                          snapshot the overwrite channels to OUTPUT.N when a\n"
		"                          traced task enters NAME (at most once a second)\n"
		"      --allow-missing     record what this kernel supports, leave out the rest\n"
		"      --name NAME         session name for list/status/stop/start/kill\n"
		"                          (default gtsc-PID)\n"
		"      --daemon            keep recording in the background; end it with\n"
		"                          'gtsc-bpf kill NAME'\n"
		"      --no-compress       store chunks uncompressed\n"
		"      --stacks            a kernel stack for each kmem allocation\n"
		"                          (report --kmem --folded)\n"
		"  -q, --quiet             no summary\n"
		"  -v, --verbose           libbpf and verifier messages\n"
		"\n"
		"examples:\n"
		"  sudo gtsc-bpf record -o t.gtsc -- tar czf /tmp/x.tgz /usr/share/doc\n"
		"  sudo gtsc-bpf record -a -d 5 -e kmem\n"
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

static int parse_channel_key(struct gtsc_channel_spec *c, const char *tok)
{
	__u64 v;
	int err;

	if (!strncmp(tok, "size=", 5))
		return gtsc_parse_size(tok + 5, &c->ring_bytes);
	if (!strncmp(tok, "sub_size=", 9))
		return gtsc_parse_size(tok + 9, &c->sub_size);
	if (!strncmp(tok, "nr_sub=", 7)) {
		err = gtsc_parse_size(tok + 7, &v);
		c->nr_sub = v;
		return err ?: v > 0xffffffffULL ? -ERANGE : 0;
	}
	if (!strcmp(tok, "scope=global") || !strcmp(tok, "scope=percpu")) {
		c->global = !strcmp(tok, "scope=global");
		c->scope_set = true;
		return 0;
	}
	if (!strcmp(tok, "mode=overwrite") || !strcmp(tok, "mode=discard")) {
		c->mode = !strcmp(tok, "mode=overwrite") ? GTSC_MODE_OVERWRITE : GTSC_MODE_DISCARD;
		return 0;
	}
	return -EINVAL;
}

/* "kmem:size=16M,scope=global", "syscalls:mode=overwrite,sub_size=64,nr_sub=65536" */
static int parse_channel(struct record_opts *o, const char *arg)
{
	struct gtsc_channel_spec *c = &o->channels[o->nr_channels];
	const char *colon = strchr(arg, ':');
	char *kv, *tok, *save = NULL, why[160];
	int err = 0;

	if (o->nr_channels == GTSC_MAX_CHANNELS || !colon || colon == arg ||
	    colon - arg >= GTSC_CHANNEL_NAME_LEN) {
		fprintf(stderr, "gtsc-bpf: --channel wants NAME:KEY=VALUE[,...], not '%s'\n", arg);
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c)); /* size 0: the channel's default, -b for syscalls and kmem */
	snprintf(c->name, sizeof(c->name), "%.*s", (int)(colon - arg), arg);
	kv = strdup(colon + 1);
	for (tok = kv ? strtok_r(kv, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		err = parse_channel_key(c, tok);
		if (err)
			fprintf(stderr, "gtsc-bpf: --channel %s: '%s' is not size=SIZE, "
					"scope=percpu|global, mode=discard|overwrite, "
					"sub_size=BYTES or nr_sub=N\n",
				c->name, tok);
	}
	free(kv);
	if (!err && gtsc_channel_spec__check(c, why, sizeof(why))) {
		fprintf(stderr, "gtsc-bpf: --channel %s: %s\n", c->name, why);
		err = -EINVAL;
	}
	if (!err)
		o->nr_channels++;
	return err;
}

static bool has_flight_channel(const struct record_opts *o)
{
	for (size_t i = 0; i < o->nr_channels; i++)
		if (o->channels[i].mode == GTSC_MODE_OVERWRITE)
			return true;
	return false;
}

/* "syscall=exit_group" or "syscall=231" */
static int parse_snapshot_on(struct record_opts *o, const char *arg)
{
	const char *v = !strncmp(arg, "syscall=", 8) ? arg + 8 : NULL;
	char *end;
	long nr;

	if (!v || !*v) {
		fprintf(stderr, "gtsc-bpf: --snapshot-on wants syscall=NAME, not '%s'\n", arg);
		return -EINVAL;
	}
	nr = strtol(v, &end, 10);
	if (*end)
		for (nr = gtsc_syscall_count() - 1; nr >= 0; nr--)
			if (gtsc_syscall_name(nr) && !strcmp(gtsc_syscall_name(nr), v))
				break;
	if (nr < 0 || nr >= gtsc_syscall_count()) {
		fprintf(stderr, "gtsc-bpf: --snapshot-on: '%s' is not a syscall\n", v);
		return -EINVAL;
	}
	o->snapshot_on = true;
	o->snapshot_on_nr = nr;
	return 0;
}

/* What --snapshot-on needs: something to snapshot, and syscall events to trigger on. */
static int check_snapshot_on(const struct record_opts *o)
{
	if (!o->snapshot_on)
		return 0;
	if (!has_flight_channel(o)) {
		fprintf(stderr, "gtsc-bpf: --snapshot-on needs an overwrite channel "
				"(--channel NAME:mode=overwrite)\n");
		return -EINVAL;
	}
	if (!(o->sources & GTSC_SRC_SYSCALLS)) {
		fprintf(stderr, "gtsc-bpf: --snapshot-on syscall= needs the syscalls "
				"source (-e)\n");
		return -EINVAL;
	}
	return 0;
}

/* -e LIST: the sources, and with syscalls=NAMES the in-kernel syscall filter. */
static int parse_events(struct record_opts *o, const char *arg)
{
	const char *names;
	char why[256];
	int err;

	err = gtsc_sources__parse(arg, &o->sources, &names, why, sizeof(why));
	if (err) {
		fprintf(stderr, "gtsc-bpf: -e: unknown event source '%s' (known: syscalls, kmem)\n",
			why);
		return err;
	}
	o->filter_syscalls = names != NULL;
	if (!names)
		return 0;
	err = gtsc_syscall_set__parse(names, &o->syscalls, why, sizeof(why));
	if (err)
		fprintf(stderr, "gtsc-bpf: -e: %s\n", why);
	return err;
}

static int parse_capture_size(struct record_opts *o, const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (*end || !*arg || n < 1 || n > GTSC_CAP_DATA_MAX) {
		fprintf(stderr, "gtsc-bpf: -s wants a number of bytes from 1 to %d, not '%s'\n",
			GTSC_CAP_DATA_MAX, arg);
		return -EINVAL;
	}
	o->capture_size = n;
	return 0;
}

static int parse_args(struct record_opts *o, int argc, char **argv)
{
	enum { OPT_CHANNEL = 256, OPT_ALLOW_MISSING, OPT_NO_COMPRESS, OPT_NAME, OPT_DAEMON,
	       OPT_NO_CAPTURE, OPT_CGROUP, OPT_SNAPSHOT_ON, OPT_STACKS };
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
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "snapshot-on", required_argument, NULL, OPT_SNAPSHOT_ON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char *end;
	int c, err = 0;

	o->output = GTSC_DEFAULT_OUTPUT;
	o->sources = GTSC_SRC_ALL;
	while (!err &&
	       (c = getopt_long(argc, argv, "+o:ap:d:e:s:b:k:C:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'a': o->system_wide = true; break;
		case 'p': err = parse_pids(o, optarg); break;
		case 'd':
			o->duration_s = strtod(optarg, &end);
			if (*end || o->duration_s <= 0) {
				fprintf(stderr, "gtsc-bpf: -d wants a positive number of seconds, "
						"not '%s'\n", optarg);
				err = -EINVAL;
			}
			break;
		case 'e': err = parse_events(o, optarg); break;
		case 's': err = parse_capture_size(o, optarg); break;
		case OPT_NO_CAPTURE: o->no_capture = true; break;
		case 'b':
			err = gtsc_parse_size(optarg, &o->ring_bytes);
			if (err)
				fprintf(stderr, "gtsc-bpf: -b wants a size such as 8M, not '%s'\n",
					optarg);
			break;
		case 'k': err = record_probes__add_func(&o->probes, optarg); break;
		case 'C': err = record_probes__add_comms(&o->probes, optarg); break;
		case OPT_CGROUP: o->probes.cgroup = optarg; break;
		case OPT_CHANNEL: err = parse_channel(o, optarg); break;
		case OPT_ALLOW_MISSING: o->allow_missing = true; break;
		case OPT_NO_COMPRESS: o->no_compress = true; break;
		case OPT_STACKS: o->stacks = true; break;
		case OPT_NAME:
			if (gtsc_ctl__check_name(optarg)) {
				fprintf(stderr, "gtsc-bpf: '%s' is not a session name (letters, "
						"digits, '_', '.', '-')\n", optarg);
				err = -EINVAL;
			}
			snprintf(o->name, sizeof(o->name), "%s", optarg);
			break;
		case OPT_DAEMON: o->daemon = true; break;
		case OPT_SNAPSHOT_ON: err = parse_snapshot_on(o, optarg); break;
		case 'q': o->log.quiet = true; break;
		case 'v': o->log.verbose = true; break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "gtsc-bpf: 'gtsc-bpf record --help' lists the options\n");
			err = -EINVAL;
		}
	}
	err = err ?: check_snapshot_on(o);
	if (!err && o->stacks && !(o->sources & GTSC_SRC_KMEM)) {
		fprintf(stderr, "gtsc-bpf: --stacks records allocation stacks: it needs -e kmem\n");
		err = -EINVAL;
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
	int p[2];
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
		execvp(r->o->cmd[0], r->o->cmd);
		fprintf(stderr, "gtsc-bpf: cannot run '%s': %s\n", r->o->cmd[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	r->go_fd = p[1];
	return 0;
}

static void join_args(struct strbuf *sb, char **argv)
{
	for (int i = 0; argv && argv[i]; i++)
		strbuf_addf(sb, "%s%s", i ? " " : "", argv[i]);
}

/* What the syscall records may carry, and which syscalls they were limited to. */
static void meta_capture(const struct record_opts *o, struct strbuf *meta)
{
	strbuf_addf(meta, "capture=%s\ncapture_size=%u\ncapture_path_max=%d\n",
		    o->no_capture ? "off" : "on",
		    o->capture_size ? o->capture_size : GTSC_CAP_DATA_DEFAULT,
		    GTSC_CAP_PATH_MAX - 1);
	if (!o->filter_syscalls)
		return;
	strbuf_addf(meta, "syscall_filter=");
	gtsc_syscall_set__names(&o->syscalls, meta);
	strbuf_addf(meta, "\n");
}

/* Takes SB's text over (SB is left empty). */
static void meta_keep(struct meta_chunks *m, enum gtsc_chunk_type type, struct strbuf *sb)
{
	if (m->n == MAX_META_CHUNKS) {
		strbuf_free(sb);
		return;
	}
	m->type[m->n] = type;
	m->text[m->n++] = *sb;
	*sb = (struct strbuf){};
}

static int meta_put(const struct meta_chunks *m, struct gtsc_file_sink *fs)
{
	int err = 0;

	for (int i = 0; i < m->n && !err; i++)
		err = gtsc_file_sink__add_chunk(fs, m->type[i], &m->text[i]);
	return err;
}

static void meta_free(struct meta_chunks *m)
{
	for (int i = 0; i < m->n; i++)
		strbuf_free(&m->text[i]);
	m->n = 0;
}

static int write_metadata(struct record_run *r, char **argv)
{
	struct gtsc_trace_meta m;
	struct strbuf funcs = {};

	gtsc_trace_meta__build(&m, r->s); /* host, features, channels, syscalls, formats */
	strbuf_addf(&m.meta, "tool=gtsc-bpf %s\nrecorder_pid=%d\ncmdline=gtsc-bpf ", GTSC_VERSION,
		    getpid());
	join_args(&m.meta, argv);
	strbuf_addf(&m.meta, "\ncommand=");
	join_args(&m.meta, r->o->cmd);
	strbuf_addf(&m.meta, "\nfilter=%s", r->o->system_wide ? "system" : "pids");
	record_probes__filter(&r->o->probes, &m.meta);
	strbuf_addf(&m.meta, "\n");
	meta_capture(r->o, &m.meta);
	meta_keep(&r->meta, GTSC_CHUNK_META, &m.meta);
	meta_keep(&r->meta, GTSC_CHUNK_FEATURES, &m.feat);
	meta_keep(&r->meta, GTSC_CHUNK_CHANNELS, &m.chans);
	meta_keep(&r->meta, GTSC_CHUNK_SYSCALLS, &m.sys);
	meta_keep(&r->meta, GTSC_CHUNK_EVENT_FORMATS, &m.fmt);
	if (m.printf.len)
		meta_keep(&r->meta, GTSC_CHUNK_PRINTF, &m.printf);
	gtsc_trace_meta__free(&m); /* what meta_keep did not take */
	record_probes__funcs_chunk(&r->o->probes, r->s, &funcs);
	if (funcs.len)
		meta_keep(&r->meta, GTSC_CHUNK_FUNCS, &funcs);
	strbuf_free(&funcs);
	return meta_put(&r->meta, r->fs);
}

/* Names the threads of PID as they are now: tasks alive before recording
 * started never produce a fork or exec record. */
static int write_comms_of(struct gtsc_sink *sink, int pid, __u64 now)
{
	char path[300], comm[GTSC_COMM_LEN];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0; /* gone already */
	while (!err && (de = readdir(d))) {
		struct gtsc_rec_task t = {
			.hdr = { .type = GTSC_REC_TASK, .size = sizeof(t), .pid = pid,
				 .ts_ns = now },
			.event = GTSC_TASK_COMM,
		};
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		t.hdr.tid = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, de->d_name);
		f = fopen(path, "re");
		if (!f || !fgets(comm, sizeof(comm), f)) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		memcpy(t.comm, comm, sizeof(t.comm));
		err = sink->record(sink, &t.hdr);
	}
	closedir(d);
	return err;
}

/* Timestamped NOW: the reader names a pid from its records in time order. */
static int write_comms(struct record_run *r, struct gtsc_sink *sink, __u64 now)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	for (size_t i = 0; i < r->o->nr_pids && !err; i++)
		err = write_comms_of(sink, r->o->pids[i], now);
	/* The command is still our fork ("gtsc-bpf") until its exec record. */
	if (!err && r->child > 0)
		err = write_comms_of(sink, r->child, now);
	if (!r->o->system_wide)
		return err ?: sink->round_end(sink);
	d = opendir("/proc");
	while (d && !err && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			err = write_comms_of(sink, atoi(de->d_name), now);
	if (d)
		closedir(d);
	return err ?: sink->round_end(sink);
}

static bool child_done(struct record_run *r)
{
	if (r->child <= 0)
		return false;
	if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
		r->child = 0;
		return true;
	}
	return false;
}

static const char *chan_name(const struct gtsc_channels *ch, __u32 id)
{
	return id < (__u32)ch->n ? ch->ch[id].spec.name : "?";
}

/* Live counts: a walk of every region that copies nothing. */
static void status_flight(struct record_run *r, struct strbuf *out)
{
	struct gtsc_session_flight fl[MAX_FLIGHT_REGIONS];
	int n = gtsc_session__flight_read(r->s, GTSC_FLIGHT_COUNT, NULL, fl, MAX_FLIGHT_REGIONS);

	gtsc_trace__flight(out, gtsc_session__channels(r->s), fl, n > 0 ? n : 0);
}

static void status_reply(struct record_run *r, struct strbuf *out)
{
	const struct gtsc_channels *ch = gtsc_session__channels(r->s);
	struct gtsc_session_stat st[GTSC_MAX_CHANNELS * 64];
	int n = gtsc_session__stats(r->s, st, sizeof(st) / sizeof(st[0]));

	strbuf_addf(out, "name=%s\npid=%d\nstate=%s\noutput=%s\nfilter=%s", r->o->name,
		    getpid(), r->recording ? "recording" : "stopped", r->o->output,
		    r->o->system_wide ? "system" : r->o->cmd ? "command" : "pids");
	for (size_t i = 0; !r->o->system_wide && !r->o->cmd && i < r->o->nr_pids; i++)
		strbuf_addf(out, "%s%d", i ? "," : "=", r->o->pids[i]);
	record_probes__filter(&r->o->probes, out);
	strbuf_addf(out, "\nsources=");
	gtsc_sources__recorded(gtsc_session__plan(r->s), ",", out);
	record_probes__sources(&r->o->probes, r->s, out);
	strbuf_addf(out, "\n");
	strbuf_addf(out, "uptime_s=%.3f\n", (mono_ns() - r->t0_ns) / 1e9);
	strbuf_addf(out, "snapshots=%d\n", r->snapshots);
	if (r->o->snapshot_on)
		strbuf_addf(out, "snapshot_on=syscall=%s\ttriggers=%llu\n",
			    gtsc_syscall_name(r->o->snapshot_on_nr),
			    (unsigned long long)gtsc_session__triggers(r->s));
	/* channel NAME SCOPE MODE BYTES RINGS|REGIONS SUB_SIZE NR_SUB */
	for (int c = 0; c < ch->n; c++)
		strbuf_addf(out, "channel\t%s\t%s\t%s\t%llu\t%u\t%llu\t%u\n", ch->ch[c].spec.name,
			    ch->ch[c].spec.global ? "global" : "percpu",
			    gtsc_channel__mode_name(&ch->ch[c]),
			    (unsigned long long)ch->ch[c].spec.ring_bytes,
			    ch->ch[c].nr_rings ?: ch->ch[c].nr_regions,
			    (unsigned long long)ch->ch[c].spec.sub_size, ch->ch[c].spec.nr_sub);
	for (int i = 0; i < n; i++)
		strbuf_addf(out, "cpu\t%s\t%u\t%llu\t%llu\n", chan_name(ch, st[i].channel),
			    st[i].cpu, (unsigned long long)st[i].written,
			    (unsigned long long)st[i].dropped);
	status_flight(r, out);
}

static void build_trailer(struct record_run *r, struct strbuf *tr, __u64 *recorded,
			  __u64 *dropped, __u64 *misses);

/* OUTPUT.N, the first N free (perf --switch-output numbers its outputs too). */
static void next_snapshot_path(struct record_run *r, char *path, size_t sz)
{
	do
		snprintf(path, sz, "%s.%d", r->o->output, ++r->snap_seq);
	while (!access(path, F_OK));
}

/*
 * A complete trace at PATH of what the flight channels hold now, with the
 * main file's metadata; recording goes on.  REPLY gets file=, records= and
 * torn=, or the sentence of an error.
 */
static int snapshot_to(struct record_run *r, const char *path, enum gtsc_flight_read how,
		       struct strbuf *reply)
{
	struct gtsc_session_flight fl[MAX_FLIGHT_REGIONS];
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .zlib_level = r->o->no_compress ? 0 : 1 };
	struct gtsc_file_sink *fs = gtsc_file_sink__create(path, &wo);
	struct strbuf tr = {};
	__u64 sum[3], read = 0, torn = 0;
	int n, err;

	if (!fs) {
		strbuf_addf(reply, "cannot create %s: %s", path, strerror(errno));
		return -errno;
	}
	/* Comms as of now, dated at the start: they name every pid in the file. */
	n = meta_put(&r->meta, fs);
	n = n ?: write_comms(r, gtsc_file_sink__sink(fs), r->t0_ns);
	n = n ?: gtsc_session__flight_read(r->s, how, gtsc_file_sink__sink(fs), fl,
					   MAX_FLIGHT_REGIONS);
	if (n >= 0) {
		build_trailer(r, &tr, &sum[0], &sum[1], &sum[2]);
		gtsc_trace__flight(&tr, NULL, fl, n);
		strbuf_addf(&tr, "meta\tsnapshot\t%s\n",
			    how == GTSC_FLIGHT_CONSUME ? "consume" : "all");
	}
	err = n < 0 ? n : gtsc_file_sink__finish(fs, &tr);
	if (n < 0)
		gtsc_file_sink__abort(fs);
	strbuf_free(&tr);
	if (err) {
		unlink(path);
		strbuf_addf(reply, "writing %s failed: %s", path, strerror(-err));
		return err;
	}
	for (int i = 0; i < n; i++)
		read += fl[i].read, torn += fl[i].torn;
	r->snapshots++;
	strbuf_addf(reply, "file=%s\nrecords=%llu\ntorn=%llu\n", path, (unsigned long long)read,
		    (unsigned long long)torn);
	return 0;
}

static int need_flight(struct record_run *r, const char *what, struct strbuf *reply)
{
	if (gtsc_session__channels(r->s)->nr_flight_heads)
		return 0;
	strbuf_addf(reply, "session '%s' has no overwrite channel: nothing to %s", r->o->name,
		    what);
	return -ENOENT;
}

/* "snapshot [--consume] [PATH]": PATH is absolute (the client resolved it); else OUTPUT.N. */
static int ctl_snapshot(struct record_run *r, int argc, char **argv, struct strbuf *reply)
{
	enum gtsc_flight_read how = GTSC_FLIGHT_ALL;
	const char *path = NULL;
	char def[4096];
	int err = need_flight(r, "snapshot", reply);

	for (int i = 1; i < argc && !err; i++) {
		if (!strcmp(argv[i], "--consume")) {
			how = GTSC_FLIGHT_CONSUME;
		} else if (argv[i][0] == '/' && !path) {
			path = argv[i];
		} else {
			strbuf_addf(reply, "snapshot takes [--consume] [/ABSOLUTE/PATH], not '%s'",
				    argv[i]);
			err = -EINVAL;
		}
	}
	if (err)
		return err;
	if (!path) {
		next_snapshot_path(r, def, sizeof(def));
		path = def;
	}
	return snapshot_to(r, path, how, reply);
}

/* USR2 and --snapshot-on triggers: one snapshot to OUTPUT.N answers all pending. */
static void answer_snapshot_requests(struct record_run *r)
{
	__u64 t = gtsc_session__triggers(r->s);
	struct strbuf reply = {};
	char path[4096];

	if (!snapshot_signal && t == r->triggers)
		return;
	snapshot_signal = 0;
	r->triggers = t;
	if (need_flight(r, "snapshot", &reply)) {
		fprintf(stderr, "gtsc-bpf: SIGUSR2: %s\n", reply.buf);
	} else {
		next_snapshot_path(r, path, sizeof(path));
		if (snapshot_to(r, path, GTSC_FLIGHT_ALL, &reply))
			fprintf(stderr, "gtsc-bpf: snapshot: %s\n", reply.buf);
		else if (!r->o->log.quiet)
			fprintf(stderr, "gtsc-bpf: snapshot of the flight channels to %s\n", path);
	}
	strbuf_free(&reply);
}

/* Requests from `gtsc-bpf status|stop|start|snapshot|rewind|kill NAME` in other processes. */
static int record_ctl(void *ctx, int argc, char **argv, struct strbuf *reply)
{
	struct record_run *r = ctx;
	int err = 0;

	if (!strcmp(argv[0], "status")) {
		status_reply(r, reply);
	} else if (!strcmp(argv[0], "snapshot")) {
		return ctl_snapshot(r, argc, argv, reply);
	} else if (!strcmp(argv[0], "rewind")) {
		err = need_flight(r, "rewind", reply);
		if (!err)
			gtsc_session__flight_rewind(r->s);
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
		strbuf_addf(reply, "session '%s' does not know the command '%s'", r->o->name,
			    argv[0]);
		return -EINVAL;
	}
	return 0;
}

static int record_loop(struct record_run *r)
{
	__u64 end = r->o->duration_s ? r->t0_ns + (__u64)(r->o->duration_s * 1e9) : 0;
	int err;

	while (!stop_signal && !r->kill_requested) {
		err = gtsc_session__poll(r->s, POLL_MS);
		if (err < 0 && err != -EINTR)
			return err;
		gtsc_ctl_server__serve(r->ctl, record_ctl, r);
		answer_snapshot_requests(r);
		if (r->o->cmd && (r->child == 0 || child_done(r)))
			break;
		if (end && mono_ns() >= end)
			break;
	}
	return 0;
}

static void build_trailer(struct record_run *r, struct strbuf *tr, __u64 *recorded,
			  __u64 *dropped, __u64 *misses)
{
	gtsc_trace__stats(r->s, tr, recorded, dropped);
	*misses = gtsc_session__prog_misses(r->s, tr);
	strbuf_addf(tr, "meta\tend_ns\t%llu\n", (unsigned long long)mono_ns());
	strbuf_addf(tr, "meta\tconsumed\t%llu\n",
		    (unsigned long long)gtsc_session__consumed(r->s));
	if (r->o->cmd && r->child == 0)
		strbuf_addf(tr, "meta\tcommand_status\t%d\n", r->child_status);
}

static void flight_totals(const struct gtsc_session_flight *fl, int nfl, __u32 chan,
			  __u64 *retained, __u64 *overwritten)
{
	*retained = *overwritten = 0;
	for (int i = 0; i < nfl; i++)
		if (fl[i].channel == chan)
			*retained += fl[i].retained, *overwritten += fl[i].overwritten;
}

static void print_summary(struct record_run *r, __u64 recorded, __u64 dropped, __u64 misses,
			  const struct gtsc_session_flight *fl, int nfl)
{
	const struct gtsc_channels *ch = gtsc_session__channels(r->s);
	struct gtsc_session_stat st[GTSC_MAX_CHANNELS * 64];
	int n = gtsc_session__stats(r->s, st, sizeof(st) / sizeof(st[0]));
	double secs = (mono_ns() - r->t0_ns) / 1e9;
	struct stat sb = {};

	stat(r->o->output, &sb);
	fprintf(stderr, "gtsc-bpf: %llu events in %.2f s to %s (%.1f KiB)\n",
		(unsigned long long)recorded, secs, r->o->output, sb.st_size / 1024.0);
	fprintf(stderr, "  %-10s %-9s %12s %12s %12s\n", "channel", "mode", "events", "dropped",
		"overwritten");
	for (int c = 0; c < ch->n; c++) {
		__u64 w = 0, d = 0, kept, over;

		for (int i = 0; i < n; i++)
			if (st[i].channel == (__u32)c)
				w += st[i].written, d += st[i].dropped;
		fprintf(stderr, "  %-10s %-9s %12llu %12llu", chan_name(ch, c),
			gtsc_channel__mode_name(&ch->ch[c]), (unsigned long long)w,
			(unsigned long long)d);
		flight_totals(fl, nfl, c, &kept, &over);
		if (gtsc_channel__flight(&ch->ch[c]))
			fprintf(stderr, " %12llu (%llu kept)\n", (unsigned long long)over,
				(unsigned long long)kept);
		else
			fprintf(stderr, " %12s\n", "-");
	}
	if (dropped)
		fprintf(stderr, "gtsc-bpf: warning: %llu events dropped (rings full): raise "
				"--buffer-size or --channel NAME:size=\n",
			(unsigned long long)dropped);
	if (misses)
		fprintf(stderr, "gtsc-bpf: warning: the kernel skipped %llu events (a program "
				"was already running on that CPU)\n",
			(unsigned long long)misses);
}

static int add_stack(void *ctx, const char *source, __u32 id, const __u64 *ips, size_t n)
{
	return gtsc_file_sink__add_stack(ctx, source, id, ips, n);
}

/* --stacks: the allocation stacks the records name, before the trailer. */
static void save_stacks(struct record_run *r)
{
	int err;

	if (!r->o->stacks)
		return;
	err = gtsc_session__stacks(r->s, add_stack, r->fs);
	if (err)
		fprintf(stderr, "gtsc-bpf: saving the allocation stacks failed: %s\n",
			strerror(-err));
}

/*
 * After the stop, the flight channels' retained records join the file (not
 * consumed: a snapshot still finds them), with their counts in the trailer.
 */
static int finish(struct record_run *r)
{
	struct gtsc_session_flight fl[MAX_FLIGHT_REGIONS];
	struct strbuf tr = {};
	__u64 recorded, dropped, misses;
	int err, nfl;

	gtsc_session__stop(r->s);
	err = gtsc_session__flush(r->s, FLUSH_MS);
	if (err && err != -ETIMEDOUT)
		fprintf(stderr, "gtsc-bpf: draining the rings failed: %s\n", strerror(-err));
	answer_snapshot_requests(r); /* a trigger in the last round (a command's exit_group) */
	nfl = gtsc_session__flight_read(r->s, GTSC_FLIGHT_ALL, gtsc_file_sink__sink(r->fs), fl,
					MAX_FLIGHT_REGIONS);
	if (nfl < 0) {
		fprintf(stderr, "gtsc-bpf: reading the flight channels failed: %s\n",
			strerror(-nfl));
		nfl = 0;
	}
	save_stacks(r);
	build_trailer(r, &tr, &recorded, &dropped, &misses);
	gtsc_trace__flight(&tr, NULL, fl, nfl);
	err = gtsc_file_sink__finish(r->fs, &tr);
	r->fs = NULL;
	strbuf_free(&tr);
	if (err) {
		fprintf(stderr, "gtsc-bpf: writing %s failed: %s\n", r->o->output, strerror(-err));
		return err;
	}
	r->finished = true;
	if (!r->o->log.quiet)
		print_summary(r, recorded, dropped, misses, fl, nfl);
	return 0;
}

/* perf's habit: never overwrite the previous trace silently. */
static void keep_old_output(const char *path)
{
	char old[4096];

	if (access(path, F_OK))
		return;
	snprintf(old, sizeof(old), "%s.old", path);
	rename(path, old);
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
	char err[256];

	if (!r->o->name[0])
		snprintf(r->o->name, sizeof(r->o->name), "gtsc-%d", getpid());
	r->ctl = gtsc_ctl_server__create(r->o->name, err, sizeof(err));
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

static int record_run(struct record_run *r, char **argv)
{
	struct record_opts *o = r->o;
	struct gtsc_engine_opts so = {
		.sz = sizeof(so),
		.sources = o->sources,
		.system_wide = o->system_wide,
		.pids = o->pids,
		.nr_pids = o->nr_pids,
		.channels = o->channels,
		.nr_channels = o->nr_channels,
		.ring_bytes = o->ring_bytes,
		.allow_missing = o->allow_missing,
		.log = cli_log,
		.log_ctx = &o->log,
		.capture_size = o->capture_size,
		.no_capture = o->no_capture,
		.syscall_filter = o->filter_syscalls ? &o->syscalls : NULL,
	};
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .zlib_level = o->no_compress ? 0 : 1 };
	int err;

	record_probes__session_opts(&o->probes, &so);
	so.trigger_syscall = o->snapshot_on;
	so.trigger_nr = o->snapshot_on_nr;
	so.kmem_stacks = o->stacks;
	r->argv = argv;
	err = o->daemon ? daemon_begin(r) : 0;
	err = err ?: claim_name(r);
	if (err)
		return err;
	keep_old_output(o->output);
	r->fs = gtsc_file_sink__create(o->output, &wo);
	if (!r->fs) {
		fprintf(stderr, "gtsc-bpf: cannot create %s: %s\n", o->output, strerror(errno));
		return -errno;
	}
	r->s = gtsc_session__open_sink(&so, gtsc_file_sink__sink(r->fs));
	if (!r->s) {
		err = -errno;
		unlink(o->output);
		return err;
	}
	if (o->cmd) {
		err = spawn(r);
		err = err ?: gtsc_session__track_pid(r->s, r->child);
		if (err) {
			fprintf(stderr, "gtsc-bpf: cannot start '%s': %s\n", o->cmd[0],
				strerror(-err));
			return err;
		}
	}
	err = gtsc_session__attach(r->s);
	if (err)
		return err; /* the session said which source */
	err = write_metadata(r, argv);
	err = err ?: write_comms(r, gtsc_file_sink__sink(r->fs), mono_ns());
	if (err) {
		fprintf(stderr, "gtsc-bpf: writing %s failed: %s\n", o->output, strerror(-err));
		return err;
	}
	install_signals();
	r->t0_ns = mono_ns();
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
		fprintf(stderr, "gtsc-bpf: recording failed: %s\n", strerror(-err));
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
	path = realpath(r->o->output, NULL);
	if (r->finished)
		gtsc_ctl_server__epitaph(r->ctl, "ended %s; its trace is %s", when,
					 path ? path : r->o->output);
	else
		gtsc_ctl_server__epitaph(r->ctl, "failed %s, without a complete trace", when);
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
	gtsc_file_sink__abort(r->fs);
	gtsc_session__destroy(r->s);
	set_epitaph(r);
	gtsc_ctl_server__destroy(r->ctl);
	meta_free(&r->meta);
	if (r->ready_fd >= 0)
		close(r->ready_fd);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {};
	struct record_run r = { .o = &o, .go_fd = -1, .ready_fd = -1 };
	int err;

	err = parse_args(&o, argc, argv);
	/* An unknown function is a usage error, found before anything is loaded. */
	err = err ?: record_probes__resolve(&o.probes);
	if (err) {
		record_probes__free(&o.probes);
		return 2;
	}
	cli_libbpf_verbose(o.log.verbose);
	/* Every failure path has already said why, in one sentence. */
	err = record_run(&r, argv);
	cleanup(&r);
	record_probes__free(&o.probes);
	return err ? 1 : 0;
}
