// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc_recording (gtsc/record.h): a session whose records go to a trace
 * file, with everything besides the records that `gtsc-bpf record` puts
 * around them: metadata chunks (built once: the main file and every
 * snapshot carry the same), the names of tasks alive at the start, the
 * flight channels' retained records, kernel stacks and the trailer.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "feature_probe.h"
#include "ksyms.h"
#include "log.h"
#include "opts.h"
#include "session.h"
#include "session_trace.h"
#include "sink_file.h"
#include "strbuf.h"
#include "syscall_classes.h"
#include "task_names.h"
#include "trace_reader.h"

#define MAX_META_CHUNKS 8

struct meta_chunk {
	enum gtsc_chunk_type type;
	struct strbuf text;
};

struct gtsc_recording {
	char *path;
	struct gtsc_session_parse p; /* p.eo points into p and at the copies below */
	int *pids;
	char **comms;
	char *cgroup;
	char *tool, *cmdline, *command;
	int zlib_level;
	long codec; /* enum gtsc_writer_codec */
	bool keep_old;
	struct gtsc_session *s;
	struct gtsc_file_sink *fs; /* NULL once finished */
	struct meta_chunk meta[MAX_META_CHUNKS];
	int nr_meta;
	struct strbuf extra; /* add_meta's trailer lines */
	/* The session's sink: notes task names on their way to the file. */
	struct gtsc_sink tee;
	struct task_names *names;
	/* What goes to the file and the live view only (names noted apart): */
	struct gtsc_sink fan;
	struct task_names *start_names; /* the names /proc gave at the start */
	bool stream; /* path "-": call sites are named as they come */
	/* The live view: the records, as a stream in memory, fed to a reader. */
	bool want_live;
	struct gtsc_writer *live_w;
	struct strbuf live_bytes;
	struct gtsc_reader *live;
	struct ksym_table *ksyms; /* loaded once when call sites are named as they come */
	/* Rotated (switch): the counts at the last switch, for the next trailer. */
	struct gtsc_session_stat *since;
};

/* Threads whose names a snapshot can give after they ended: ~1.5 MiB at most. */
#define NAMES_MAX 32768

#define rlog(r, ...) gt_log((r)->p.eo.log, (r)->p.eo.log_ctx, GTSC_LOG_WARN, __VA_ARGS__)

static char *dup_or_null(const char *s, int *err)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*err = -ENOMEM;
	return d;
}

/* What open reads after new returned: the caller's arrays and strings need not live on. */
static int copy_targets(struct gtsc_recording *r)
{
	struct gtsc_engine_opts *eo = &r->p.eo;
	int err = 0;

	if (eo->nr_pids) {
		r->pids = calloc(eo->nr_pids, sizeof(*r->pids));
		if (!r->pids)
			return -ENOMEM;
		memcpy(r->pids, eo->pids, eo->nr_pids * sizeof(*r->pids));
	}
	eo->pids = r->pids;
	if (eo->nr_comms) {
		r->comms = calloc(eo->nr_comms, sizeof(*r->comms));
		if (!r->comms)
			return -ENOMEM;
		for (size_t i = 0; i < eo->nr_comms && !err; i++)
			r->comms[i] = dup_or_null(eo->comms[i], &err);
	}
	eo->comms = (const char *const *)r->comms;
	r->cgroup = dup_or_null(eo->cgroup, &err);
	eo->cgroup = r->cgroup;
	return err;
}

struct gtsc_recording *gtsc_recording__new(const char *path, const struct gtsc_session_opts *sopts,
					   const struct gtsc_recording_opts *opts)
{
	struct gtsc_recording *r;
	int err = 0;

	if (!path || !OPTS_VALID(opts, gtsc_recording_opts))
		return errno = EINVAL, NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return errno = ENOMEM, NULL;
	err = gt_session_opts__parse(sopts, &r->p);
	err = err ?: copy_targets(r);
	r->path = dup_or_null(path, &err);
	r->tool = dup_or_null(OPTS_GET(opts, tool, NULL) ?: "libgtsc", &err);
	r->cmdline = dup_or_null(OPTS_GET(opts, cmdline, NULL) ?: program_invocation_name, &err);
	r->command = dup_or_null(OPTS_GET(opts, command, NULL) ?: "", &err);
	r->keep_old = OPTS_GET(opts, keep_old, false);
	r->want_live = OPTS_GET(opts, live, false);
	r->stream = !strcmp(path, "-");
	switch (OPTS_GET(opts, compress, GTSC_COMPRESS_LZ4)) {
	case GTSC_COMPRESS_LZ4: r->zlib_level = 1, r->codec = GTSC_WRITER_LZ4; break;
	case GTSC_COMPRESS_ZLIB: r->zlib_level = 1, r->codec = GTSC_WRITER_ZLIB; break;
	case GTSC_COMPRESS_NONE: r->zlib_level = 0; break;
	case GTSC_COMPRESS_ZSTD: r->zlib_level = 1, r->codec = GTSC_WRITER_ZSTD; break;
	default: err = -EINVAL;
	}
	r->names = gt_task_names__new(NAMES_MAX);
	r->start_names = gt_task_names__new(NAMES_MAX);
	if (!err && (!r->names || !r->start_names))
		err = -ENOMEM;
	if (err) {
		gtsc_recording__free(r);
		return errno = -err, NULL;
	}
	return r;
}

/* The live writer's bytes so far go to the live reader. */
static int live_flush(struct gtsc_recording *r)
{
	int err = gt_reader__feed(r->live, r->live_bytes.buf, r->live_bytes.len);

	r->live_bytes.len = 0;
	return err;
}

static int out_record(struct gtsc_recording *r, const struct gtsc_rec_hdr *rec)
{
	int err = r->live_w ? gt_writer__add_record(r->live_w, rec) : 0;

	return err ?: r->fs ? gt_file_sink__sink(r->fs)->record(gt_file_sink__sink(r->fs), rec)
			    : 0;
}

/*
 * A stream and the live view name the call sites first seen in a round
 * before the round ends: their reader prints kmem events as they come,
 * long before the final KSYMS chunk.
 */
static int name_fresh_sites(struct gtsc_recording *r)
{
	struct strbuf sb = {};
	const __u64 *sites;
	size_t n = gt_file_sink__take_fresh(r->fs, &sites);
	int err;

	if (!n || !r->ksyms)
		return 0;
	err = gt_ksyms__name(r->ksyms, sites, n, &sb);
	if (!err && sb.len && r->stream)
		err = gt_file_sink__add_chunk(r->fs, GTSC_CHUNK_KSYMS, &sb);
	if (!err && sb.len && r->live_w)
		err = gt_writer__add_chunk(r->live_w, GTSC_CHUNK_KSYMS, sb.buf, sb.len);
	gt_strbuf_free(&sb);
	return err;
}

static int out_round_end(struct gtsc_recording *r)
{
	struct gtsc_sink *fs = r->fs ? gt_file_sink__sink(r->fs) : NULL;
	int err = fs ? name_fresh_sites(r) : 0;

	err = err ?: fs ? fs->round_end(fs) : 0;
	if (!err && r->live_w) {
		err = gt_writer__end_round(r->live_w);
		err = err ?: live_flush(r);
	}
	return err;
}

static int tee_record(struct gtsc_sink *sink, const struct gtsc_rec_hdr *rec)
{
	struct gtsc_recording *r = container_of(sink, struct gtsc_recording, tee);

	gt_task_names__note(r->names, rec);
	return out_record(r, rec);
}

static int tee_round_end(struct gtsc_sink *sink)
{
	return out_round_end(container_of(sink, struct gtsc_recording, tee));
}

static int fan_record(struct gtsc_sink *sink, const struct gtsc_rec_hdr *rec)
{
	struct gtsc_recording *r = container_of(sink, struct gtsc_recording, fan);

	gt_task_names__note(r->start_names, rec);
	return out_record(r, rec);
}

static int fan_round_end(struct gtsc_sink *sink)
{
	return out_round_end(container_of(sink, struct gtsc_recording, fan));
}

/* The live view: a writer into memory (no compression) and the reader it feeds. */
static int live_open(struct gtsc_recording *r)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .zlib_level = 0, .mem = &r->live_bytes };

	r->live = gt_reader__open_feed(NULL);
	r->live_w = r->live ? gt_writer__create("(live)", &wo) : NULL;
	if (!r->live_w)
		return -errno;
	return live_flush(r); /* the file header */
}

int gtsc_recording__open(struct gtsc_recording *r)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo) };
	char why[512] = "";
	int err;

	if (!r || r->s)
		return -EINVAL;
	wo.zlib_level = r->zlib_level;
	wo.data_codec = r->codec;
	wo.keep_old = r->keep_old;
	wo.errbuf = why;
	wo.errbuf_sz = sizeof(why);
	r->fs = gt_file_sink__create(r->path, &wo);
	if (!r->fs) {
		err = -errno;
		rlog(r, "cannot create %s: %s", r->path, why[0] ? why : strerror(-err));
		return err;
	}
	r->tee = (struct gtsc_sink){ .record = tee_record, .round_end = tee_round_end };
	r->fan = (struct gtsc_sink){ .record = fan_record, .round_end = fan_round_end };
	err = r->want_live ? live_open(r) : 0;
	if (r->stream || r->want_live) {
		gt_file_sink__track_fresh(r->fs);
		r->ksyms = gt_ksyms__load(NULL); /* without it, call sites stay hex until the end */
	}
	r->s = err ? NULL : gt_session__open_sink(&r->p.eo, &r->tee);
	if (!r->s) {
		err = err ?: -errno; /* the session said why */
		if (r->live_w == NULL && r->want_live)
			rlog(r, "cannot set up the live view: %s", strerror(-err));
		gt_file_sink__abort(r->fs);
		r->fs = NULL;
		if (!r->stream)
			unlink(r->path);
		return err;
	}
	gt_session__own_funcs(r->s, &r->p.funcs);
	r->p.eo.funcs = NULL;
	return 0;
}

struct gtsc_session *gtsc_recording__session(const struct gtsc_recording *r)
{
	return r ? r->s : NULL;
}

/* Takes SB's text over (SB is left empty).  Empty chunks are kept as record wrote them. */
static void meta_keep(struct gtsc_recording *r, enum gtsc_chunk_type type, struct strbuf *sb)
{
	if (r->nr_meta == MAX_META_CHUNKS) {
		gt_strbuf_free(sb);
		return;
	}
	r->meta[r->nr_meta].type = type;
	r->meta[r->nr_meta++].text = *sb;
	*sb = (struct strbuf){};
}

static int meta_put(const struct gtsc_recording *r, struct gtsc_file_sink *fs)
{
	int err = 0;

	for (int i = 0; i < r->nr_meta && !err; i++)
		err = strbuf_err(&r->meta[i].text) ?:
			gt_file_sink__add_chunk(fs, r->meta[i].type, &r->meta[i].text);
	return err;
}

static int meta_put_live(struct gtsc_recording *r)
{
	int err = 0;

	for (int i = 0; r->live_w && i < r->nr_meta && !err; i++)
		err = gt_writer__add_chunk(r->live_w, r->meta[i].type,
					   r->meta[i].text.buf ?: "", r->meta[i].text.len);
	return err;
}

/* Who recorded what: what the options filtered and what the syscall records may carry. */
static void meta_recording(const struct gtsc_recording *r, struct strbuf *m)
{
	const struct gtsc_engine_opts *eo = &r->p.eo;

	gt_strbuf_addf(m, "tool=%s\nrecorder_pid=%d\ncmdline=%s\ncommand=%s\nfilter=%s", r->tool,
		       getpid(), r->cmdline, r->command, eo->system_wide ? "system" : "pids");
	for (size_t i = 0; i < eo->nr_comms; i++)
		gt_strbuf_addf(m, "%s%s", i ? "," : " comm=", eo->comms[i]);
	if (eo->cgroup)
		gt_strbuf_addf(m, " cgroup=%s", eo->cgroup);
	gt_strbuf_addf(m, "\ncapture=%s\ncapture_size=%u\ncapture_path_max=%d\n",
		       eo->no_capture ? "off" : "on",
		       eo->capture_size ? eo->capture_size : GTSC_CAP_DATA_DEFAULT,
		       GTSC_CAP_PATH_MAX - 1);
	if (!eo->syscall_filter)
		return;
	gt_strbuf_addf(m, "syscall_filter=");
	gt_syscall_set__names(eo->syscall_filter, m);
	gt_strbuf_addf(m, "\n");
}

static int write_metadata(struct gtsc_recording *r)
{
	const struct gtsc_func_set *funcs = gt_session__funcs(r->s);
	struct gtsc_trace_meta m;
	struct strbuf fn = {};

	gt_trace_meta__build(&m, r->s); /* host, features, channels, syscalls, formats */
	meta_recording(r, &m.meta);
	meta_keep(r, GTSC_CHUNK_META, &m.meta);
	meta_keep(r, GTSC_CHUNK_FEATURES, &m.feat);
	meta_keep(r, GTSC_CHUNK_CHANNELS, &m.chans);
	meta_keep(r, GTSC_CHUNK_SYSCALLS, &m.sys);
	meta_keep(r, GTSC_CHUNK_EVENT_FORMATS, &m.fmt);
	if (m.printf.len)
		meta_keep(r, GTSC_CHUNK_PRINTF, &m.printf);
	if (m.tps.len)
		meta_keep(r, GTSC_CHUNK_TRACEPOINTS, &m.tps);
	gt_trace_meta__free(&m); /* what meta_keep did not take */
	if (gt_session__plan(r->s)->funcs.prog && funcs)
		gt_funcs__describe(funcs, gt_session__features(r->s)->vmlinux, &fn);
	if (fn.len)
		meta_keep(r, GTSC_CHUNK_FUNCS, &fn);
	gt_strbuf_free(&fn);
	return meta_put(r, r->fs) ?: meta_put_live(r);
}

/* The live reader reads the metadata now: a printer made before the first record needs it. */
static int live_meta(struct gtsc_recording *r)
{
	return r->live ? live_flush(r) ?: gt_reader__feed_meta(r->live) : 0;
}

/*
 * Names the threads of PID as they are now: tasks alive before recording
 * started never produce a fork or exec record.
 */
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

/*
 * Timestamped NOW: the reader names a pid from its records in time order.
 * A command still is the recorder's fork until its exec record: its pid
 * is among the tracked ones.
 */
static int write_comms(struct gtsc_recording *r, struct gtsc_sink *sink, __u64 now)
{
	size_t n;
	const int *pids = gt_session__tracked(r->s, &n);
	struct dirent *de;
	DIR *d;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = write_comms_of(sink, pids[i], now);
	if (!r->p.eo.system_wide)
		return err ?: sink->round_end(sink);
	d = opendir("/proc");
	while (d && !err && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			err = write_comms_of(sink, atoi(de->d_name), now);
	if (d)
		closedir(d);
	return err ?: sink->round_end(sink);
}

int gtsc_recording__attach(struct gtsc_recording *r)
{
	int err;

	if (!r || !r->s || !r->fs)
		return -EINVAL;
	err = gtsc_session__attach(r->s);
	if (err)
		return err; /* the session said which source */
	err = write_metadata(r);
	err = err ?: live_meta(r);
	err = err ?: write_comms(r, &r->fan, gtsc_mono_ns());
	if (err)
		rlog(r, "writing %s failed: %s", r->path, strerror(-err));
	return err;
}

int gtsc_recording__poll(struct gtsc_recording *r, int timeout_ms)
{
	if (!r || !r->s || !r->fs)
		return -EINVAL;
	return gt_session__poll(r->s, timeout_ms);
}

int gtsc_recording__add_meta(struct gtsc_recording *r, const char *key, const char *value)
{
	if (!r || !key || !value || key[strcspn(key, "\t\n")] || value[strcspn(value, "\t\n")])
		return -EINVAL;
	gt_strbuf_addf(&r->extra, "meta\t%s\t%s\n", key, value);
	return strbuf_err(&r->extra);
}

/* The trailer's counts: per channel per CPU, per program, when it ended, what was consumed. */
static int build_trailer(struct gtsc_recording *r, struct strbuf *tr)
{
	__u64 written, dropped, bad = gt_channels__malformed(gt_session__channels(r->s));
	int err = gt_trace__stats(r->s, tr, &written, &dropped, r->since);

	gt_session__prog_misses(r->s, tr);
	gt_strbuf_addf(tr, "meta\tend_ns\t%llu\n", (unsigned long long)gtsc_mono_ns());
	gt_strbuf_addf(tr, "meta\tconsumed\t%llu\n",
		       (unsigned long long)gt_session__consumed(r->s));
	if (bad)
		gt_strbuf_addf(tr, "meta\tmalformed\t%llu\n", (unsigned long long)bad);
	if (r->extra.len)
		gt_strbuf_addf(tr, "%s", r->extra.buf);
	return err;
}

static struct gtsc_session_flight *flight_array(struct gtsc_session *s, size_t *n)
{
	*n = gt_session__channels(s)->nr_flight_regions;
	return calloc(*n ?: 1, sizeof(struct gtsc_session_flight));
}

static int snapshot_records(struct gtsc_recording *r, struct gtsc_file_sink *fs,
			    enum gtsc_flight_read how, struct gtsc_snapshot_opts *opts)
{
	struct gtsc_sink *sink = gt_file_sink__sink(fs);
	struct gtsc_session_flight *fl;
	struct strbuf tr = {};
	__u64 read = 0, torn = 0;
	size_t max;
	int n, err;

	fl = flight_array(r->s, &max);
	if (!fl)
		return -ENOMEM;
	/*
	 * Names dated at the start, so that they name every pid in the file:
	 * those the task channel gave, then /proc's for the tasks alive now.
	 */
	n = meta_put(r, fs);
	n = n ?: gt_task_names__write(r->names, sink, gt_session__start_ns(r->s));
	n = n ?: write_comms(r, sink, gt_session__start_ns(r->s));
	n = n ?: gt_session__flight_read(r->s, how, sink, fl, max);
	if (n >= 0) {
		build_trailer(r, &tr);
		gt_trace__flight(&tr, NULL, fl, n);
		gt_strbuf_addf(&tr, "meta\tsnapshot\t%s\n",
			       how == GTSC_FLIGHT_CONSUME ? "consume" : "all");
	}
	err = n < 0 ? n : gt_file_sink__finish(fs, &tr);
	if (n < 0)
		gt_file_sink__abort(fs);
	for (int i = 0; i < n; i++)
		read += fl[i].read, torn += fl[i].torn;
	if (!err && OPTS_HAS(opts, torn)) {
		opts->records = read;
		opts->torn = torn;
	}
	gt_strbuf_free(&tr);
	free(fl);
	return err;
}

static void snap_err(struct gtsc_snapshot_opts *opts, const char *fmt, const char *path,
		     const char *why)
{
	char *buf = OPTS_GET(opts, errbuf, NULL);
	size_t sz = OPTS_GET(opts, errbuf_sz, 0);

	if (buf && sz)
		snprintf(buf, sz, fmt, path, why);
}

int gtsc_recording__snapshot(struct gtsc_recording *r, const char *path,
			     struct gtsc_snapshot_opts *opts)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo) };
	char why[512] = "";
	enum gtsc_flight_read how;
	struct gtsc_file_sink *fs;
	int err;

	if (!r || !r->s || !path || !OPTS_VALID(opts, gtsc_snapshot_opts))
		return -EINVAL;
	if (!gt_session__channels(r->s)->nr_flight_regions)
		return -ENOENT;
	how = OPTS_GET(opts, consume, false) ? GTSC_FLIGHT_CONSUME : GTSC_FLIGHT_ALL;
	/* The task records not drained yet: names of tasks that just ended (a trigger's). */
	if (r->fs) {
		err = gt_session__poll(r->s, 0);
		if (err < 0)
			rlog(r, "draining the rings before a snapshot failed: %s", strerror(-err));
	}
	wo.zlib_level = r->zlib_level;
	wo.data_codec = r->codec;
	wo.errbuf = why;
	wo.errbuf_sz = sizeof(why);
	fs = gt_file_sink__create(path, &wo);
	if (!fs) {
		err = -errno;
		snap_err(opts, "cannot create %s: %s", path, why[0] ? why : strerror(-err));
		return err;
	}
	err = snapshot_records(r, fs, how, opts);
	if (err) {
		unlink(path);
		snap_err(opts, "writing %s failed: %s", path, strerror(-err));
	}
	return err;
}

int gtsc_recording__stop(struct gtsc_recording *r, int timeout_ms)
{
	__u64 bad;
	int err;

	if (!r || !r->s)
		return -EINVAL;
	err = gtsc_session__stop(r->s);
	err = err ?: gt_session__flush(r->s, timeout_ms);
	if (err && err != -ETIMEDOUT) /* a timeout the session told already */
		rlog(r, "draining the rings failed: %s", strerror(-err));
	bad = gt_channels__malformed(gt_session__channels(r->s));
	if (bad)
		rlog(r, "%llu records from the BPF programs were malformed (a header that disagrees "
			"with its size or type) and left out: a gtsc-bpf bug, please report it",
		     (unsigned long long)bad);
	return err;
}

static int add_stack(void *ctx, const char *source, __u32 id, const __u64 *ips, size_t n)
{
	return gt_file_sink__add_stack(ctx, source, id, ips, n);
}

/* The live view's end: the trailer, then no more bytes. */
static int live_end(struct gtsc_recording *r, const struct strbuf *tr)
{
	int err;

	if (!r->live_w)
		return 0;
	err = gt_writer__end_round(r->live_w);
	err = err ?: gt_writer__add_chunk(r->live_w, GTSC_CHUNK_TRAILER, tr->buf ?: "", tr->len);
	err = err ?: live_flush(r);
	gt_writer__close(r->live_w);
	r->live_w = NULL;
	return err ?: gt_reader__feed(r->live, NULL, 0);
}

/* Ends the file: its kernel stacks, symbols and trailer (with FL's flight lines). */
static int close_file(struct gtsc_recording *r, const struct gtsc_session_flight *fl, int nfl,
		      bool last)
{
	struct strbuf tr = {};
	int err;

	if (r->p.eo.stacks) {
		err = gt_session__stacks(r->s, add_stack, r->fs);
		if (err)
			rlog(r, "saving the kernel stacks failed: %s", strerror(-err));
	}
	build_trailer(r, &tr);
	gt_trace__flight(&tr, NULL, fl, nfl);
	err = gt_file_sink__finish(r->fs, &tr);
	r->fs = NULL;
	if (err)
		rlog(r, "writing %s failed: %s", r->path, strerror(-err));
	if (last && live_end(r, &tr) && !err)
		rlog(r, "the live view failed: out of memory");
	gt_strbuf_free(&tr);
	return err;
}

int gtsc_recording__finish(struct gtsc_recording *r)
{
	struct gtsc_session_flight *fl;
	size_t max;
	int err, nfl;

	if (!r || !r->s || !r->fs)
		return -EINVAL;
	fl = flight_array(r->s, &max);
	if (!fl)
		return -ENOMEM;
	nfl = gt_session__flight_read(r->s, GTSC_FLIGHT_ALL, gt_file_sink__sink(r->fs), fl,
				      max);
	if (nfl < 0) {
		rlog(r, "reading the flight channels failed: %s", strerror(-nfl));
		nfl = 0;
	}
	err = close_file(r, fl, nfl, true);
	free(fl);
	return err;
}

/*
 * The next file: its own metadata and the names of the tasks known so far,
 * dated at the start as a snapshot's, so that they name every pid of the
 * file (a report prints no line for them).
 */
static int open_next(struct gtsc_recording *r, struct gtsc_file_sink *fs)
{
	struct gtsc_sink *sink = gt_file_sink__sink(fs);
	__u64 ts = gt_session__start_ns(r->s);
	int err;

	/* the tasks alive at the start that ended since are named too */
	err = meta_put(r, fs);
	err = err ?: gt_task_names__write(r->start_names, sink, ts);
	err = err ?: gt_task_names__write(r->names, sink, ts);
	return err ?: write_comms(r, sink, ts);
}

int gtsc_recording__switch(struct gtsc_recording *r, const char *path)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo) };
	char why[512] = "", *copy;
	struct gtsc_file_sink *fs;
	int err;

	if (!r || !r->s || !r->fs || !path || r->stream || !strcmp(path, "-"))
		return -EINVAL;
	if (!r->since && !(r->since = calloc(gt_trace__nr_stats(r->s) ?: 1, sizeof(*r->since))))
		return -ENOMEM;
	copy = strdup(path);
	wo.zlib_level = r->zlib_level;
	wo.data_codec = r->codec;
	wo.errbuf = why;
	wo.errbuf_sz = sizeof(why);
	/* the next file first: if it cannot be made, recording goes on in this one */
	fs = copy ? gt_file_sink__create(path, &wo) : NULL;
	if (!fs) {
		err = copy ? -errno : -ENOMEM;
		rlog(r, "cannot create %s: %s", path, why[0] ? why : strerror(-err));
		free(copy);
		return err;
	}
	err = close_file(r, NULL, 0, false);
	r->fs = fs;
	free(r->path);
	r->path = copy;
	if (r->live_w)
		gt_file_sink__track_fresh(fs);
	err = open_next(r, fs) ?: err;
	if (err)
		rlog(r, "writing %s failed: %s", r->path, strerror(-err));
	return err;
}

const char *gtsc_recording__path(const struct gtsc_recording *r)
{
	return r ? r->path : NULL;
}

struct gtsc_reader *gtsc_recording__live(const struct gtsc_recording *r)
{
	return r ? r->live : NULL;
}

void gtsc_recording__free(struct gtsc_recording *r)
{
	if (!r)
		return;
	gt_file_sink__abort(r->fs);
	r->fs = NULL; /* the tee drops what the session might still hand it */
	gt_writer__close(r->live_w);
	r->live_w = NULL;
	gtsc_reader__close(r->live);
	gt_strbuf_free(&r->live_bytes);
	gt_ksyms__free(r->ksyms);
	free(r->since);
	gtsc_session__destroy(r->s);
	gt_session_parse__free(&r->p);
	for (int i = 0; i < r->nr_meta; i++)
		gt_strbuf_free(&r->meta[i].text);
	gt_strbuf_free(&r->extra);
	for (size_t i = 0; r->comms && i < r->p.eo.nr_comms; i++)
		free(r->comms[i]);
	free(r->comms);
	free(r->pids);
	free(r->cgroup);
	free(r->path);
	free(r->tool);
	free(r->cmdline);
	free(r->command);
	gt_task_names__free(r->names);
	gt_task_names__free(r->start_names);
	free(r);
}
