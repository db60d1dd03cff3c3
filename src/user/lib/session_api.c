// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public session calls that are not the engine's own (gtsc/gtsc.h):
 * open with a callback sink, consume, dropped, rewind, snapshot.  track_pid,
 * attach, start, stop and destroy are session.c's functions themselves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "cb_sink.h"
#include "log.h"
#include "opts.h"
#include "session.h"
#include "session_trace.h"
#include "sink_file.h"

_Static_assert((int)GTSC_SOURCE_SYSCALLS == GTSC_SRC_SYSCALLS &&
		       (int)GTSC_SOURCE_KMEM == GTSC_SRC_KMEM,
	       "public source bits are the engine's");
_Static_assert((int)GTSC_CHANNEL_DISCARD == GTSC_MODE_DISCARD &&
		       (int)GTSC_CHANNEL_OVERWRITE == GTSC_MODE_OVERWRITE,
	       "public channel modes are the engine's");

#define opts_log(o, ...)                                                                           \
	gtsc_log(OPTS_GET(o, log, NULL), OPTS_GET(o, log_ctx, NULL), GTSC_LOG_WARN, __VA_ARGS__)

/* One public channel override into the engine's spec; WHY gets a sentence. */
static int channel_spec(const struct gtsc_channel_opts *c, struct gtsc_channel_spec *sp, char *why,
			size_t why_sz)
{
	const char *name = OPTS_GET(c, name, NULL);
	enum gtsc_channel_scope scope = OPTS_GET(c, scope, GTSC_SCOPE_DEFAULT);

	memset(sp, 0, sizeof(*sp));
	if (!OPTS_VALID(c, gtsc_channel_opts) || !name || !*name ||
	    strlen(name) >= sizeof(sp->name) || scope > GTSC_SCOPE_GLOBAL ||
	    OPTS_GET(c, mode, 0) > GTSC_CHANNEL_OVERWRITE) {
		snprintf(why, why_sz, "a channel needs a name, a known scope and mode, and zeros "
				      "in fields this library does not know");
		return -EINVAL;
	}
	strcpy(sp->name, name);
	sp->ring_bytes = OPTS_GET(c, size, 0);
	sp->scope_set = scope != GTSC_SCOPE_DEFAULT;
	sp->global = scope == GTSC_SCOPE_GLOBAL;
	sp->mode = OPTS_GET(c, mode, GTSC_CHANNEL_DISCARD);
	sp->sub_size = OPTS_GET(c, sub_size, 0);
	sp->nr_sub = OPTS_GET(c, nr_sub, 0);
	return gtsc_channel_spec__check(sp, why, why_sz);
}

/*
 * Channel overrides sit sz bytes apart: the first element's sz is the
 * stride the caller's compiler used.
 */
static int channel_specs(const struct gtsc_session_opts *opts, struct gtsc_channel_spec *specs,
			 size_t *n)
{
	const struct gtsc_channel_opts *first = OPTS_GET(opts, channels, NULL);
	size_t nr = first ? OPTS_GET(opts, nr_channels, 0) : 0;
	char why[160];

	*n = 0;
	if (nr > GTSC_MAX_CHANNELS || (nr && first->sz < sizeof(size_t))) {
		opts_log(opts, "at most %d channels, each with its sz set", GTSC_MAX_CHANNELS);
		return -EINVAL;
	}
	for (size_t i = 0; i < nr; i++) {
		const void *c = (const char *)first + i * first->sz;
		int err = channel_spec(c, &specs[i], why, sizeof(why));

		if (err) {
			opts_log(opts, "channel %zu: %s", i, why);
			return err;
		}
	}
	*n = nr;
	return 0;
}

int gtsc_session_opts__engine(const struct gtsc_session_opts *opts, struct gtsc_engine_opts *eo,
			      struct gtsc_channel_spec *specs)
{
	unsigned int known = GTSC_SOURCE_SYSCALLS | GTSC_SOURCE_KMEM;
	unsigned int sources = OPTS_GET(opts, sources, 0) ?: known;
	int err;

	memset(eo, 0, sizeof(*eo));
	eo->sz = sizeof(*eo);
	if (!OPTS_VALID(opts, gtsc_session_opts) || (sources & ~known)) {
		opts_log(opts, "the session options set a field or source this library does not "
			       "know (it is older than the caller's header)");
		return -EINVAL;
	}
	eo->sources = sources;
	eo->system_wide = OPTS_GET(opts, system_wide, false);
	eo->pids = OPTS_GET(opts, pids, NULL);
	eo->nr_pids = eo->pids ? OPTS_GET(opts, nr_pids, 0) : 0;
	eo->ring_bytes = OPTS_GET(opts, ring_bytes, 0);
	eo->allow_missing = OPTS_GET(opts, allow_missing, false);
	eo->log = OPTS_GET(opts, log, NULL);
	eo->log_ctx = OPTS_GET(opts, log_ctx, NULL);
	err = channel_specs(opts, specs, &eo->nr_channels);
	eo->channels = specs;
	return err;
}

struct gtsc_session *gtsc_session__open(const struct gtsc_session_opts *opts)
{
	struct gtsc_channel_spec specs[GTSC_MAX_CHANNELS];
	struct gtsc_engine_opts eo;
	struct gtsc_cb_sink *cs;
	struct gtsc_session *s;
	int err = gtsc_session_opts__engine(opts, &eo, specs);

	if (err)
		return errno = -err, NULL;
	cs = gtsc_cb_sink__new();
	if (!cs)
		return NULL;
	s = gtsc_session__open_sink(&eo, &cs->sink);
	if (!s) {
		err = errno;
		free(cs); /* a failed open leaves the sink to its caller */
		errno = err;
	}
	return s;
}

/* After stop: every record left in the rings, then the flight channels from their cursors. */
static int consume_stopped(struct gtsc_session *s, struct gtsc_cb_sink *cs, int timeout_ms)
{
	__u32 n = gtsc_session__channels(s)->nr_flight_heads;
	struct gtsc_session_flight *fl;
	int err = gtsc_session__flush(s, timeout_ms);

	if (err || !n)
		return err;
	fl = calloc(n, sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	err = gtsc_session__flight_read(s, GTSC_FLIGHT_CONSUME, &cs->sink, fl, n);
	free(fl);
	return err < 0 ? err : 0;
}

int gtsc_session__consume(struct gtsc_session *s, int timeout_ms, gtsc_record_fn fn, void *ctx)
{
	struct gtsc_cb_sink *cs = s && fn ? gtsc_cb_sink__of(gtsc_session__sink(s)) : NULL;
	__u64 before;
	int err;

	if (!cs)
		return -EINVAL; /* no callback, or a session opened for a trace file */
	cs->fn = fn;
	cs->ctx = ctx;
	before = cs->records;
	if (gtsc_session__recording(s))
		err = gtsc_session__poll(s, timeout_ms);
	else
		err = consume_stopped(s, cs, timeout_ms);
	cs->fn = NULL;
	return err < 0 ? err : (int)(cs->records - before);
}

int gtsc_session__dropped(struct gtsc_session *s, const char *channel, __u64 *dropped)
{
	const struct gtsc_channels *ch;
	struct gtsc_session_stat *st;
	int id = -1, n;
	size_t max;

	if (!s || !dropped)
		return -EINVAL;
	ch = gtsc_session__channels(s);
	if (channel && (id = gtsc_channels__find(ch, channel)) < 0)
		return -ENOENT;
	max = (size_t)ch->n * ch->nr_cpus;
	st = calloc(max ?: 1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	n = gtsc_session__stats(s, st, max);
	*dropped = 0;
	for (int i = 0; i < n; i++)
		if (id < 0 || st[i].channel == (__u32)id)
			*dropped += st[i].dropped;
	free(st);
	return n < 0 ? n : 0;
}

int gtsc_session__rewind(struct gtsc_session *s)
{
	if (!s || !gtsc_session__channels(s)->nr_flight_heads)
		return -EINVAL;
	gtsc_session__flight_rewind(s);
	return 0;
}

/* The records of PATH: every flight region's, read without consuming; the trailer after. */
static int snapshot_records(struct gtsc_session *s, struct gtsc_file_sink *fs, struct strbuf *tr)
{
	__u32 n = gtsc_session__channels(s)->nr_flight_heads;
	struct gtsc_session_flight *fl = calloc(n, sizeof(*fl));
	struct timespec now;
	__u64 written, dropped;
	int nfl, err;

	if (!fl)
		return -ENOMEM;
	nfl = gtsc_session__flight_read(s, GTSC_FLIGHT_ALL, gtsc_file_sink__sink(fs), fl, n);
	err = nfl < 0 ? nfl : gtsc_trace__stats(s, tr, &written, &dropped);
	if (!err) {
		gtsc_trace__flight(tr, NULL, fl, nfl);
		clock_gettime(CLOCK_MONOTONIC, &now);
		strbuf_addf(tr, "meta\tend_ns\t%llu\nmeta\tsnapshot\tall\n",
			    (unsigned long long)now.tv_sec * 1000000000ULL + now.tv_nsec);
	}
	free(fl);
	return err;
}

int gtsc_session__snapshot(struct gtsc_session *s, const char *path)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo) };
	struct gtsc_trace_meta m;
	struct gtsc_file_sink *fs;
	struct strbuf tr = {};
	int err;

	if (!s || !path || !gtsc_session__channels(s)->nr_flight_heads)
		return -EINVAL;
	fs = gtsc_file_sink__create(path, &wo);
	if (!fs)
		return -errno;
	gtsc_trace_meta__build(&m, s);
	strbuf_addf(&m.meta, "tool=libgtsc\ncmdline=%s\n", program_invocation_name);
	if (gtsc_session__start_ns(s)) /* the reader takes a key's last value */
		strbuf_addf(&m.meta, "start_ns=%llu\n",
			    (unsigned long long)gtsc_session__start_ns(s));
	err = gtsc_trace_meta__write(&m, fs);
	err = err ?: snapshot_records(s, fs, &tr);
	if (err)
		gtsc_file_sink__abort(fs);
	else
		err = gtsc_file_sink__finish(fs, &tr);
	if (err)
		unlink(path);
	gtsc_trace_meta__free(&m);
	strbuf_free(&tr);
	return err;
}
