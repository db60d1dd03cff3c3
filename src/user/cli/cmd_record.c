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
#include "sink_file.h"
#include "strbuf.h"

#define POLL_MS 50
#define FLUSH_MS 2000

struct record_opts {
	const char *output;
	bool system_wide;
	int pids[64];
	size_t nr_pids;
	double duration_s;
	unsigned int sources;
	__u64 ring_bytes;
	struct gtsc_channel_spec channels[GTSC_MAX_CHANNELS];
	size_t nr_channels;
	bool allow_missing;
	bool no_compress;
	char **cmd; /* after "--" */
	char name[GTSC_SESSION_NAME_MAX];
	bool daemon;
	struct cli_log log;
};

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
};

/* Set from signal handlers only. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gtsc-bpf record [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"\n"
		"Records kernel events into a trace file.  Say what to trace: a COMMAND (and\n"
		"every process it forks), -p PID, or -a for the whole system.\n"
		"\n"
		"  -o, --output FILE       trace file (default " GTSC_DEFAULT_OUTPUT
		"; an existing one becomes FILE.old)\n"
		"  -a, --all               trace the whole system\n"
		"  -p, --pid PID[,PID]     trace these processes and the children they fork\n"
		"  -d, --duration SECONDS  stop after SECONDS\n"
		"  -e, --events LIST       event sources: syscalls,kmem (default: both)\n"
		"  -b, --buffer-size SIZE  per-CPU ring size of the syscalls and kmem channels\n"
		"                          (default 8M; K, M, G suffixes)\n"
		"      --channel NAME:KEY=VALUE[,KEY=VALUE]\n"
		"                          one channel's rings: size=SIZE, scope=percpu|global\n"
		"                          (channels: syscalls, kmem, task)\n"
		"      --allow-missing     record what this kernel supports, leave out the rest\n"
		"      --name NAME         session name for list/status/stop/start/kill\n"
		"                          (default gtsc-PID)\n"
		"      --daemon            keep recording in the background; end it with\n"
		"                          'gtsc-bpf kill NAME'\n"
		"      --no-compress       store chunks uncompressed\n"
		"  -q, --quiet             no summary\n"
		"  -v, --verbose           libbpf and verifier messages\n"
		"\n"
		"examples:\n"
		"  sudo gtsc-bpf record -o t.gtsc -- tar czf /tmp/x.tgz /usr/share/doc\n"
		"  sudo gtsc-bpf record -a -d 5 -e kmem\n"
		"  sudo gtsc-bpf record -p 1234 --channel syscalls:size=64M\n");
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

/* "kmem:size=16M,scope=global" */
static int parse_channel(struct record_opts *o, const char *arg)
{
	struct gtsc_channel_spec *c = &o->channels[o->nr_channels];
	const char *colon = strchr(arg, ':');
	char *kv, *tok, *save = NULL;
	int err = 0;

	if (o->nr_channels == GTSC_MAX_CHANNELS || !colon || colon == arg ||
	    colon - arg >= GTSC_CHANNEL_NAME_LEN) {
		fprintf(stderr, "gtsc-bpf: --channel wants NAME:KEY=VALUE[,...], not '%s'\n", arg);
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%.*s", (int)(colon - arg), arg);
	c->ring_bytes = o->ring_bytes;
	kv = strdup(colon + 1);
	for (tok = kv ? strtok_r(kv, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "size=", 5))
			err = gtsc_parse_size(tok + 5, &c->ring_bytes);
		else if (!strcmp(tok, "scope=global"))
			c->global = true;
		else if (!strcmp(tok, "scope=percpu"))
			c->global = false;
		else
			err = -EINVAL;
		if (err)
			fprintf(stderr, "gtsc-bpf: --channel %s: '%s' is not size=SIZE or "
					"scope=percpu|global\n",
				c->name, tok);
	}
	free(kv);
	if (!err)
		o->nr_channels++;
	return err;
}

static int parse_args(struct record_opts *o, int argc, char **argv)
{
	enum { OPT_CHANNEL = 256, OPT_ALLOW_MISSING, OPT_NO_COMPRESS, OPT_NAME, OPT_DAEMON };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "events", required_argument, NULL, 'e' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "channel", required_argument, NULL, OPT_CHANNEL },
		{ "allow-missing", no_argument, NULL, OPT_ALLOW_MISSING },
		{ "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char bad[64], *end;
	int c, err = 0;

	o->output = GTSC_DEFAULT_OUTPUT;
	o->sources = GTSC_SRC_ALL;
	while (!err && (c = getopt_long(argc, argv, "+o:ap:d:e:b:qvh", longopts, NULL)) != -1) {
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
		case 'e':
			err = gtsc_sources__parse(optarg, &o->sources, bad, sizeof(bad));
			if (err)
				fprintf(stderr, "gtsc-bpf: -e: unknown event source '%s' (known: "
						"syscalls, kmem)\n", bad);
			break;
		case 'b':
			err = gtsc_parse_size(optarg, &o->ring_bytes);
			if (err)
				fprintf(stderr, "gtsc-bpf: -b wants a size such as 8M, not '%s'\n",
					optarg);
			break;
		case OPT_CHANNEL: err = parse_channel(o, optarg); break;
		case OPT_ALLOW_MISSING: o->allow_missing = true; break;
		case OPT_NO_COMPRESS: o->no_compress = true; break;
		case OPT_NAME:
			if (gtsc_ctl__check_name(optarg)) {
				fprintf(stderr, "gtsc-bpf: '%s' is not a session name (letters, "
						"digits, '_', '.', '-')\n", optarg);
				err = -EINVAL;
			}
			snprintf(o->name, sizeof(o->name), "%s", optarg);
			break;
		case OPT_DAEMON: o->daemon = true; break;
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
	if (!o->cmd && !o->nr_pids && !o->system_wide) {
		fprintf(stderr, "gtsc-bpf: say what to trace: -- COMMAND, -p PID or -a for the "
				"whole system\n");
		return -EINVAL;
	}
	if (o->system_wide && o->nr_pids) {
		fprintf(stderr, "gtsc-bpf: -a and -p together: choose one\n");
		return -EINVAL;
	}
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

static int write_metadata(struct record_run *r, char **argv)
{
	const struct gtsc_features *f = gtsc_session__features(r->s);
	const struct gtsc_channels *ch = gtsc_session__channels(r->s);
	static const char *const formats[] = {
		"raw_syscalls/sys_enter", "raw_syscalls/sys_exit", "kmem/kmalloc",
		"kmem/kfree", "kmem/kmem_cache_alloc", "kmem/kmem_cache_free",
		"kmem/mm_page_alloc", "kmem/mm_page_free", NULL,
	};
	struct strbuf meta = {}, feat = {}, chans = {}, sys = {}, fmt = {};
	int n_tracefs, err;

	gtsc_meta__host(&meta);
	strbuf_addf(&meta, "tool=gtsc-bpf %s\nrecorder_pid=%d\ncmdline=gtsc-bpf ", GTSC_VERSION,
		    getpid());
	join_args(&meta, argv);
	strbuf_addf(&meta, "\ncommand=");
	join_args(&meta, r->o->cmd);
	strbuf_addf(&meta, "\nfilter=%s\n", r->o->system_wide ? "system" : "pids");
	n_tracefs = gtsc_meta__syscalls(f->tracefs, &sys);
	strbuf_addf(&meta, "syscall_table=%s\n", n_tracefs ? "tracefs" : "builtin");
	gtsc_features__describe(f, &feat);
	gtsc_sources__describe(gtsc_session__plan(r->s), &feat);
	for (int i = 0; i < ch->n; i++)
		strbuf_addf(&chans, "%u\t%s\t%s\t%u\t%llu\tdiscard\n", ch->ch[i].id,
			    ch->ch[i].spec.name, ch->ch[i].spec.global ? "global" : "percpu",
			    ch->ch[i].nr_rings, (unsigned long long)ch->ch[i].spec.ring_bytes);
	gtsc_meta__event_formats(f->tracefs, formats, &fmt);
	err = gtsc_file_sink__add_chunk(r->fs, GTSC_CHUNK_META, &meta);
	err = err ?: gtsc_file_sink__add_chunk(r->fs, GTSC_CHUNK_FEATURES, &feat);
	err = err ?: gtsc_file_sink__add_chunk(r->fs, GTSC_CHUNK_CHANNELS, &chans);
	err = err ?: gtsc_file_sink__add_chunk(r->fs, GTSC_CHUNK_SYSCALLS, &sys);
	err = err ?: gtsc_file_sink__add_chunk(r->fs, GTSC_CHUNK_EVENT_FORMATS, &fmt);
	strbuf_free(&meta);
	strbuf_free(&feat);
	strbuf_free(&chans);
	strbuf_free(&sys);
	strbuf_free(&fmt);
	return err;
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

static int write_comms(struct record_run *r)
{
	struct gtsc_sink *sink = gtsc_file_sink__sink(r->fs);
	__u64 now = mono_ns();
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

static void status_reply(struct record_run *r, struct strbuf *out)
{
	const struct gtsc_channels *ch = gtsc_session__channels(r->s);
	struct gtsc_session_stat st[GTSC_MAX_CHANNELS * 64];
	int n = gtsc_session__stats(r->s, st, sizeof(st) / sizeof(st[0]));

	strbuf_addf(out, "name=%s\npid=%d\nstate=%s\noutput=%s\nfilter=%s\n", r->o->name,
		    getpid(), r->recording ? "recording" : "stopped", r->o->output,
		    r->o->system_wide ? "system" : r->o->cmd ? "command" : "pids");
	strbuf_addf(out, "uptime_s=%.3f\n", (mono_ns() - r->t0_ns) / 1e9);
	for (int c = 0; c < ch->n; c++)
		strbuf_addf(out, "channel\t%s\t%s\tdiscard\t%llu\t%u\n", ch->ch[c].spec.name,
			    ch->ch[c].spec.global ? "global" : "percpu",
			    (unsigned long long)ch->ch[c].spec.ring_bytes, ch->ch[c].nr_rings);
	for (int i = 0; i < n; i++)
		strbuf_addf(out, "cpu\t%s\t%u\t%llu\t%llu\n", chan_name(ch, st[i].channel),
			    st[i].cpu, (unsigned long long)st[i].written,
			    (unsigned long long)st[i].dropped);
}

/* Requests from `gtsc-bpf status|stop|start|kill NAME` in other processes. */
static int record_ctl(void *ctx, int argc, char **argv, struct strbuf *reply)
{
	struct record_run *r = ctx;

	if (!strcmp(argv[0], "status")) {
		status_reply(r, reply);
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
	struct gtsc_session_stat st[GTSC_MAX_CHANNELS * 64];
	int n = gtsc_session__stats(r->s, st, sizeof(st) / sizeof(st[0]));

	*recorded = *dropped = 0;
	for (int i = 0; i < n; i++) {
		strbuf_addf(tr, "stat\t%u\t%u\t%llu\t%llu\n", st[i].channel, st[i].cpu,
			    (unsigned long long)st[i].written, (unsigned long long)st[i].dropped);
		*recorded += st[i].written;
		*dropped += st[i].dropped;
	}
	*misses = gtsc_session__prog_misses(r->s, tr);
	strbuf_addf(tr, "meta\tend_ns\t%llu\n", (unsigned long long)mono_ns());
	strbuf_addf(tr, "meta\tconsumed\t%llu\n",
		    (unsigned long long)gtsc_session__consumed(r->s));
	if (r->o->cmd && r->child == 0)
		strbuf_addf(tr, "meta\tcommand_status\t%d\n", r->child_status);
}

static void print_summary(struct record_run *r, __u64 recorded, __u64 dropped, __u64 misses)
{
	const struct gtsc_channels *ch = gtsc_session__channels(r->s);
	struct gtsc_session_stat st[GTSC_MAX_CHANNELS * 64];
	int n = gtsc_session__stats(r->s, st, sizeof(st) / sizeof(st[0]));
	double secs = (mono_ns() - r->t0_ns) / 1e9;
	struct stat sb = {};

	stat(r->o->output, &sb);
	fprintf(stderr, "gtsc-bpf: %llu events in %.2f s to %s (%.1f KiB)\n",
		(unsigned long long)recorded, secs, r->o->output, sb.st_size / 1024.0);
	fprintf(stderr, "  %-10s %12s %12s\n", "channel", "events", "dropped");
	for (int c = 0; c < ch->n; c++) {
		__u64 w = 0, d = 0;

		for (int i = 0; i < n; i++)
			if (st[i].channel == (__u32)c)
				w += st[i].written, d += st[i].dropped;
		fprintf(stderr, "  %-10s %12llu %12llu\n", chan_name(ch, c),
			(unsigned long long)w, (unsigned long long)d);
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

static int finish(struct record_run *r)
{
	struct strbuf tr = {};
	__u64 recorded, dropped, misses;
	int err;

	gtsc_session__stop(r->s);
	err = gtsc_session__flush(r->s, FLUSH_MS);
	if (err && err != -ETIMEDOUT)
		fprintf(stderr, "gtsc-bpf: draining the rings failed: %s\n", strerror(-err));
	build_trailer(r, &tr, &recorded, &dropped, &misses);
	err = gtsc_file_sink__finish(r->fs, &tr);
	r->fs = NULL;
	strbuf_free(&tr);
	if (err) {
		fprintf(stderr, "gtsc-bpf: writing %s failed: %s\n", r->o->output, strerror(-err));
		return err;
	}
	if (!r->o->log.quiet)
		print_summary(r, recorded, dropped, misses);
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
		fprintf(stderr, "gtsc-bpf: %s\n", err);
		return -errno;
	}
	return 0;
}

static int record_run(struct record_run *r, char **argv)
{
	struct record_opts *o = r->o;
	struct gtsc_session_opts so = {
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
	};
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .zlib_level = o->no_compress ? 0 : 1 };
	int err;

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
	r->s = gtsc_session__open(&so, gtsc_file_sink__sink(r->fs));
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
	err = err ?: write_comms(r);
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
	gtsc_ctl_server__destroy(r->ctl);
	if (r->ready_fd >= 0)
		close(r->ready_fd);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {};
	struct record_run r = { .o = &o, .go_fd = -1, .ready_fd = -1 };
	int err;

	err = parse_args(&o, argc, argv);
	if (err)
		return 2;
	cli_libbpf_verbose(o.log.verbose);
	/* Every failure path has already said why, in one sentence. */
	err = record_run(&r, argv);
	cleanup(&r);
	return err ? 1 : 0;
}
