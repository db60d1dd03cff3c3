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
#include "metadata.h"
#include "opts.h"
#include "session.h"
#include "session_trace.h"
#include "sink_file.h"
#include "strbuf.h"
#include "syscall_classes.h"

_Static_assert((int)GTSC_SOURCE_SYSCALLS == GTSC_SRC_SYSCALLS &&
		       (int)GTSC_SOURCE_KMEM == GTSC_SRC_KMEM,
	       "public source bits are the engine's");
_Static_assert(GTSC_CAPTURE_MAX == GTSC_CAP_DATA_MAX, "public capture bound is the engine's");
_Static_assert((int)GTSC_CHANNEL_DISCARD == GTSC_MODE_DISCARD &&
		       (int)GTSC_CHANNEL_OVERWRITE == GTSC_MODE_OVERWRITE,
	       "public channel modes are the engine's");

#define opts_log(o, ...)                                                                           \
	gt_log(OPTS_GET(o, log, NULL), OPTS_GET(o, log_ctx, NULL), GTSC_LOG_WARN, __VA_ARGS__)

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
	sp->ring = OPTS_GET(c, ring, GTSC_RING_DEFAULT);
	return gt_channel_spec__check(sp, why, why_sz);
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

int gt_session_opts__engine(const struct gtsc_session_opts *opts, struct gtsc_engine_opts *eo,
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
	if (eo->ring_bytes > GTSC_RING_MAX) {
		opts_log(opts, "a ring is at most 1 GiB, not %llu bytes",
			 (unsigned long long)eo->ring_bytes);
		return -ERANGE;
	}
	eo->allow_missing = OPTS_GET(opts, allow_missing, false);
	eo->log = OPTS_GET(opts, log, NULL);
	eo->log_ctx = OPTS_GET(opts, log_ctx, NULL);
	err = channel_specs(opts, specs, &eo->nr_channels);
	eo->channels = specs;
	return err;
}

/*
 * Takes the GROUP:NAME tokens out of the -e list into P->tracepoints (no
 * source or syscall name has a colon, so they may stand anywhere, even
 * after syscalls=); P->events keeps the rest.
 */
static int split_tracepoints(const char *events, struct gtsc_session_parse *p)
{
	char *copy = strdup(events), *save = NULL, *tok;
	struct strbuf rest = {};
	int err = copy ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		char **v;

		if (!strchr(tok, ':')) {
			gt_strbuf_addf(&rest, "%s%s", rest.len ? "," : "", tok);
			continue;
		}
		v = realloc(p->tracepoints, (p->nr_tracepoints + 1) * sizeof(*v));
		err = v ? 0 : -ENOMEM;
		if (v)
			p->tracepoints = v;
		if (v && !(v[p->nr_tracepoints++] = strdup(tok)))
			err = -ENOMEM;
	}
	free(copy);
	gt_strbuf_add(&rest, "", 1);
	err = err ?: strbuf_err(&rest);
	p->events = rest.buf;
	p->eo.tracepoints = (const char *const *)p->tracepoints;
	p->eo.nr_tracepoints = p->nr_tracepoints;
	return err;
}

/* -e LIST: the sources, and with syscalls=NAMES the in-kernel syscall filter. */
static int parse_events(const struct gtsc_session_opts *opts, struct gtsc_session_parse *p)
{
	const char *events = OPTS_GET(opts, events, NULL), *names;
	unsigned int mask;
	char why[256];
	int err;

	if (!events)
		return 0;
	err = split_tracepoints(events, p);
	if (err)
		return err;
	events = p->events;
	err = gt_sources__parse(events, &mask, &names, why, sizeof(why));
	if (err) {
		opts_log(opts,
			 "-e: unknown event source '%s' (known: syscalls, kmem, GROUP:NAME tracepoints)",
			 why);
		return err;
	}
	p->eo.sources = mask;
	if (!names)
		return 0;
	err = gt_syscall_set__parse(names, &p->syscalls, why, sizeof(why));
	if (err) {
		opts_log(opts, "-e: %s", why);
		return err;
	}
	p->eo.syscall_filter = &p->syscalls;
	return 0;
}

/* The number after KEY= in TOK, or the reason it is refused in WHY. */
static int key_number(const char *tok, __u64 min, __u64 max, __u64 *v, char *why, size_t why_sz)
{
	size_t key = strcspn(tok, "=");
	char reason[128];
	int err;

	if (!strncmp(tok, "nr_sub", key))
		err = gtsc_parse_count(tok + key + 1, min, max, v, reason, sizeof(reason));
	else
		err = gtsc_parse_size_range(tok + key + 1, min, max, v, reason, sizeof(reason));
	if (err)
		snprintf(why, why_sz, "%.*s %s", (int)key, tok, reason);
	return err;
}

/* KEY=VALUE of --channel; WHY gets the end of a sentence when it is refused. */
static int channel_key(struct gtsc_channel_spec *c, const char *tok, char *why, size_t why_sz)
{
	__u64 v;
	int err;

	if (!strncmp(tok, "size=", 5))
		return key_number(tok, 4096, GTSC_RING_MAX, &c->ring_bytes, why, why_sz);
	if (!strncmp(tok, "sub_size=", 9))
		return key_number(tok, 1, GTSC_RING_MAX, &c->sub_size, why, why_sz);
	if (!strncmp(tok, "nr_sub=", 7)) {
		err = key_number(tok, 1, GTSC_RING_MAX, &v, why, why_sz);
		c->nr_sub = v;
		return err;
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
	if (!strcmp(tok, "ring=ringbuf") || !strcmp(tok, "ring=array")) {
		c->ring = !strcmp(tok, "ring=array") ? GTSC_RING_ARRAY : GTSC_RING_RINGBUF;
		return 0;
	}
	snprintf(why, why_sz, "'%s' is not size=SIZE, scope=percpu|global, "
			      "mode=discard|overwrite, ring=ringbuf|array, sub_size=BYTES or nr_sub=N",
		 tok);
	return -EINVAL;
}

/* "kmem:size=16M,scope=global", "syscalls:mode=overwrite,sub_size=64,nr_sub=65536" */
static int channel_string(const struct gtsc_session_opts *opts, const char *arg,
			  struct gtsc_channel_spec *c, bool room)
{
	const char *colon = arg ? strchr(arg, ':') : NULL;
	char *kv, *tok, *save = NULL, why[160];
	int err = 0;

	if (!room || !colon || colon == arg || colon - arg >= GTSC_CHANNEL_NAME_LEN) {
		opts_log(opts, "--channel wants NAME:KEY=VALUE[,...], not '%s'", arg ? arg : "");
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c)); /* size 0: the channel's default, ring_bytes for syscalls and kmem */
	snprintf(c->name, sizeof(c->name), "%.*s", (int)(colon - arg), arg);
	kv = strdup(colon + 1);
	if (!kv)
		return -ENOMEM;
	for (tok = strtok_r(kv, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		err = channel_key(c, tok, why, sizeof(why));
		if (err)
			opts_log(opts, "--channel %s: %s", c->name, why);
	}
	free(kv);
	if (!err && gt_channel_spec__check(c, why, sizeof(why))) {
		opts_log(opts, "--channel %s: %s", c->name, why);
		err = -EINVAL;
	}
	return err;
}

static int parse_channels(const struct gtsc_session_opts *opts, struct gtsc_session_parse *p)
{
	const char *const *specs = OPTS_GET(opts, channel_specs, NULL);
	size_t n = specs ? OPTS_GET(opts, nr_channel_specs, 0) : 0;

	for (size_t i = 0; i < n; i++) {
		size_t at = p->eo.nr_channels;
		int err = channel_string(opts, specs[i], &p->specs[at], at < GTSC_MAX_CHANNELS);

		if (err)
			return err;
		p->eo.nr_channels++;
	}
	return 0;
}

static bool has_flight_channel(const struct gtsc_session_parse *p)
{
	for (size_t i = 0; i < p->eo.nr_channels; i++)
		if (p->specs[i].mode == GTSC_MODE_OVERWRITE)
			return true;
	return false;
}

/* "syscall=exit_group" or "syscall=231": something to snapshot, and syscalls to trigger on. */
static int parse_trigger(const struct gtsc_session_opts *opts, struct gtsc_session_parse *p)
{
	const char *arg = OPTS_GET(opts, snapshot_on, NULL);
	const char *v = arg && !strncmp(arg, "syscall=", 8) ? arg + 8 : NULL;
	char *end;
	long nr;

	if (!arg)
		return 0;
	if (!v || !*v) {
		opts_log(opts, "--snapshot-on wants syscall=NAME, not '%s'", arg);
		return -EINVAL;
	}
	nr = strtol(v, &end, 10);
	if (*end)
		for (nr = gt_syscall_count() - 1; nr >= 0; nr--)
			if (gt_syscall_name(nr) && !strcmp(gt_syscall_name(nr), v))
				break;
	if (nr < 0 || nr >= gt_syscall_count()) {
		opts_log(opts, "--snapshot-on: '%s' is not a syscall", v);
		return -EINVAL;
	}
	if (!has_flight_channel(p)) {
		opts_log(opts, "--snapshot-on needs an overwrite channel "
			       "(--channel NAME:mode=overwrite)");
		return -EINVAL;
	}
	if (!(p->eo.sources & GTSC_SRC_SYSCALLS)) {
		opts_log(opts, "--snapshot-on syscall= needs the syscalls source (-e)");
		return -EINVAL;
	}
	p->eo.trigger_syscall = true;
	p->eo.trigger_nr = nr;
	return 0;
}

static int parse_funcs(const struct gtsc_session_opts *opts, struct gtsc_session_parse *p)
{
	const char *const *funcs = OPTS_GET(opts, funcs, NULL);
	size_t n = funcs ? OPTS_GET(opts, nr_funcs, 0) : 0;
	char why[256];
	int err;

	if (!n)
		return 0;
	err = gt_funcs__resolve(&p->funcs, funcs, n, why, sizeof(why));
	if (err)
		opts_log(opts, "%s", why);
	p->eo.funcs = err || !p->funcs.n ? NULL : &p->funcs;
	return err;
}

int gt_session_opts__parse(const struct gtsc_session_opts *opts, struct gtsc_session_parse *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = gt_session_opts__engine(opts, &p->eo, p->specs);
	err = err ?: parse_events(opts, p);
	err = err ?: parse_channels(opts, p);
	if (err)
		goto fail;
	p->eo.capture_size = OPTS_GET(opts, capture_size, 0);
	p->eo.no_capture = OPTS_GET(opts, no_capture, false);
	p->eo.comms = OPTS_GET(opts, comms, NULL);
	p->eo.nr_comms = p->eo.comms ? OPTS_GET(opts, nr_comms, 0) : 0;
	p->eo.cgroup = OPTS_GET(opts, cgroup, NULL);
	p->eo.stacks = OPTS_GET(opts, stacks, false);
	err = parse_trigger(opts, p);
	if (err)
		goto fail;
	if (p->eo.stacks && !(p->eo.sources & GTSC_SRC_KMEM) && !OPTS_GET(opts, nr_funcs, 0)) {
		opts_log(opts, "--stacks records the stacks of allocations and function hits: "
			       "it needs -e kmem or -k");
		err = -EINVAL;
		goto fail;
	}
	err = parse_funcs(opts, p);
	if (!err)
		return 0;
fail:
	/* a refused option leaves nothing for the caller to free */
	gt_session_parse__free(p);
	return err;
}

void gt_session_parse__free(struct gtsc_session_parse *p)
{
	gt_funcs__free(&p->funcs);
	p->eo.funcs = NULL;
	for (size_t i = 0; i < p->nr_tracepoints; i++)
		free(p->tracepoints[i]);
	free(p->tracepoints);
	free(p->events);
	p->tracepoints = NULL;
	p->events = NULL;
	p->nr_tracepoints = 0;
	p->eo.tracepoints = NULL;
	p->eo.nr_tracepoints = 0;
}

struct gtsc_session *gtsc_session__open(const struct gtsc_session_opts *opts)
{
	struct gtsc_session_parse *p = malloc(sizeof(*p));
	struct gtsc_cb_sink *cs = NULL;
	struct gtsc_session *s = NULL;
	int err = p ? gt_session_opts__parse(opts, p) : -ENOMEM;

	if (!err) {
		cs = gt_cb_sink__new();
		err = cs ? 0 : -ENOMEM;
	}
	if (!err) {
		s = gt_session__open_sink(&p->eo, &cs->sink);
		err = s ? 0 : -errno;
	}
	if (s)
		gt_session__own_funcs(s, &p->funcs);
	else
		free(cs); /* a failed open leaves the sink to its caller */
	if (p)
		gt_session_parse__free(p);
	free(p);
	return s ?: (errno = -err, NULL);
}

/* After stop: every record left in the rings, then the flight channels from their cursors. */
static int consume_stopped(struct gtsc_session *s, struct gtsc_cb_sink *cs, int timeout_ms)
{
	__u32 n = gt_session__channels(s)->nr_flight_regions;
	struct gtsc_session_flight *fl;
	int err = gt_session__flush(s, timeout_ms);

	if (err || !n)
		return err;
	fl = calloc(n, sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	err = gt_session__flight_read(s, GTSC_FLIGHT_CONSUME, &cs->sink, fl, n);
	free(fl);
	return err < 0 ? err : 0;
}

int gtsc_session__consume(struct gtsc_session *s, int timeout_ms, gtsc_record_fn fn, void *ctx)
{
	struct gtsc_cb_sink *cs = s && fn ? gt_cb_sink__of(gt_session__sink(s)) : NULL;
	__u64 before;
	int err;

	if (!cs)
		return -EINVAL; /* no callback, or a session opened for a trace file */
	cs->fn = fn;
	cs->ctx = ctx;
	before = cs->records;
	if (gt_session__recording(s))
		err = gt_session__poll(s, timeout_ms);
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
	ch = gt_session__channels(s);
	if (channel && (id = gt_channels__find(ch, channel)) < 0)
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
	if (!s || !gt_session__channels(s)->nr_flight_regions)
		return -EINVAL;
	gt_session__flight_rewind(s);
	return 0;
}

/* The records of PATH: every flight region's, read without consuming; the trailer after. */
static int snapshot_records(struct gtsc_session *s, struct gtsc_file_sink *fs, struct strbuf *tr)
{
	__u32 n = gt_session__channels(s)->nr_flight_regions;
	struct gtsc_session_flight *fl = calloc(n, sizeof(*fl));
	__u64 written, dropped;
	int nfl, err;

	if (!fl)
		return -ENOMEM;
	nfl = gt_session__flight_read(s, GTSC_FLIGHT_ALL, gt_file_sink__sink(fs), fl, n);
	err = nfl < 0 ? nfl : gt_trace__stats(s, tr, &written, &dropped, NULL);
	if (!err) {
		gt_trace__flight(tr, NULL, fl, nfl);
		gt_strbuf_addf(tr, "meta\tend_ns\t%llu\nmeta\tsnapshot\tall\n",
			       (unsigned long long)gtsc_mono_ns());
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

	if (!s || !path || !gt_session__channels(s)->nr_flight_regions)
		return -EINVAL;
	fs = gt_file_sink__create(path, &wo);
	if (!fs)
		return -errno;
	gt_trace_meta__build(&m, s);
	gt_strbuf_addf(&m.meta, "tool=libgtsc\ncmdline=%s\n", program_invocation_name);
	if (gt_session__start_ns(s)) /* the reader takes a key's last value */
		gt_strbuf_addf(&m.meta, "start_ns=%llu\n",
			       (unsigned long long)gt_session__start_ns(s));
	err = gt_trace_meta__write(&m, fs);
	err = err ?: snapshot_records(s, fs, &tr);
	if (err)
		gt_file_sink__abort(fs);
	else
		err = gt_file_sink__finish(fs, &tr);
	if (err)
		unlink(path);
	gt_trace_meta__free(&m);
	gt_strbuf_free(&tr);
	return err;
}

int gtsc_session__channel(const struct gtsc_session *s, size_t idx, struct gtsc_channel_info *info)
{
	const struct gtsc_channels *chs;
	const struct gtsc_channel *c;
	struct gtsc_channel_info i = {};

	if (!s || !info || !OPTS_VALID(info, gtsc_channel_info))
		return -EINVAL;
	chs = gt_session__channels(s);
	if (idx >= (size_t)chs->n)
		return -ENOENT;
	c = &chs->ch[idx];
	i.id = c->id;
	i.name = c->spec.name;
	i.scope = c->spec.global ? GTSC_SCOPE_GLOBAL : GTSC_SCOPE_PERCPU;
	i.mode = c->spec.mode;
	i.size = c->spec.ring_bytes;
	i.sub_size = c->spec.sub_size;
	i.nr_sub = c->spec.nr_sub;
	i.nr_rings = c->nr_rings ?: c->nr_regions;
	/* only what the caller's struct has room for */
	memcpy((char *)info + sizeof(size_t), (char *)&i + sizeof(size_t),
	       (info->sz < sizeof(i) ? info->sz : sizeof(i)) - sizeof(size_t));
	return 0;
}

int gtsc_session__flight_stats(struct gtsc_session *s, struct gtsc_session_flight *out,
			       size_t max)
{
	if (!s || (!out && max))
		return -EINVAL;
	return gt_session__flight_read(s, GTSC_FLIGHT_COUNT, NULL, out, max);
}

int gtsc_session__sources(const struct gtsc_session *s, char *buf, size_t size)
{
	struct strbuf sb = {};
	int len;

	if (!s || (!buf && size))
		return -EINVAL;
	gt_sources__recorded(gt_session__plan(s), ",", &sb);
	if (gt_session__plan(s)->funcs.prog) {
		gt_strbuf_addf(&sb, ",funcs(");
		gt_funcs__summary(gt_session__funcs(s), 3, &sb);
		gt_strbuf_addf(&sb, ")");
	}
	if (gt_session__plan(s)->events.prog) {
		gt_strbuf_addf(&sb, ",");
		gt_tp__summary(gt_session__tracepoints(s), 3, &sb);
	}
	len = strbuf_err(&sb) ?: (int)sb.len;
	if (len >= 0 && size)
		snprintf(buf, size, "%s", sb.buf ? sb.buf : "");
	gt_strbuf_free(&sb);
	return len;
}

int gtsc_session__missed(struct gtsc_session *s, __u64 *missed)
{
	if (!s || !missed)
		return -EINVAL;
	*missed = gt_session__prog_misses(s, NULL);
	return 0;
}
