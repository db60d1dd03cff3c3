// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <event-parse.h>
#include "log.h"
#include "strbuf.h"
#include "tracepoints.h"

/* An events/ name list: "group:name" strings, sorted. */
struct tp_names {
	char **v;
	size_t n, cap;
};

static int names_push(void *ctx, const char *group, const char *name)
{
	struct tp_names *ns = ctx;
	char **v;

	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 256;
		v = realloc(ns->v, ns->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ns->v = v;
	}
	if (asprintf(&ns->v[ns->n], "%s:%s", group, name) < 0)
		return -ENOMEM;
	ns->n++;
	return 0;
}

static void names_free(struct tp_names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	*ns = (struct tp_names){};
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Directory entries that are directories, sorted: groups, or a group's events. */
static int subdirs(const char *path, struct tp_names *out)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			err = names_push(out, "", de->d_name);
	closedir(d);
	qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return err;
}

int gt_tp__each(const char *tracefs, int (*fn)(void *ctx, const char *group, const char *name),
		void *ctx)
{
	struct tp_names groups = {};
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/events", tracefs);
	err = subdirs(path, &groups);
	for (size_t g = 0; !err && g < groups.n; g++) {
		struct tp_names evs = {};
		const char *group = groups.v[g] + 1; /* past names_push's ':' */

		/* ftrace's own record types (function, print, ...): nothing attaches there */
		if (!strcmp(group, "ftrace"))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", tracefs, group);
		err = subdirs(path, &evs);
		for (size_t e = 0; !err && e < evs.n; e++)
			err = fn(ctx, group, evs.v[e] + 1);
		names_free(&evs);
	}
	names_free(&groups);
	return err;
}

size_t gt_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = calloc(lb + 1, sizeof(*row));
	size_t d;

	if (!row)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	struct strbuf sb = {};
	char buf[4096];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		gt_strbuf_add(&sb, buf, n);
	fclose(f);
	gt_strbuf_add(&sb, "", 1);
	if (strbuf_err(&sb)) {
		gt_strbuf_free(&sb);
		return NULL;
	}
	*len = sb.len - 1;
	return sb.buf;
}

/* Is field F at OFFSET, SIZE bytes, not dynamic? */
static bool field_at(const struct tep_format_field *f, int offset, int size)
{
	return f->offset == offset && f->size == size && !(f->flags & TEP_FIELD_IS_DYNAMIC);
}

/*
 * Which entry of tracepoint.bpf.c's (GTSC_TP_SYS_*) EV's format is, 0 for
 * none: the 8 bytes of common fields, then syscalls:sys_enter_X's int
 * __syscall_nr and up to six 8-byte arguments from offset 16, sys_exit_X's
 * __syscall_nr and long ret at 16, raw_syscalls's long id and args[6] or
 * ret.  Since 6.19 a syscall event that copies user memory adds
 * __data_loc fields ("__filename_val"): those are not built, nor anything
 * else a kernel may add.
 */
static int sys_kind(const char *group, const char *name, const struct tep_event *ev)
{
	bool sys = !strcmp(group, "syscalls"), raw = !strcmp(group, "raw_syscalls");
	bool enter = sys ? !strncmp(name, "sys_enter_", 10) : !strcmp(name, "sys_enter");
	bool ret = sys ? !strncmp(name, "sys_exit_", 9) : !strcmp(name, "sys_exit");
	int nr_size = sys ? 4 : 8, n = 0;
	const struct tep_format_field *f;

	if ((!sys && !raw) || (!enter && !ret))
		return 0;
	for (f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > 8)
			return 0;
	for (f = ev->format.fields; f; f = f->next, n++) {
		bool ok;

		if (n == 0)
			ok = field_at(f, 8, nr_size);
		else if (ret || raw)
			ok = n == 1 && field_at(f, 16, ret ? 8 : 48);
		else
			ok = n <= 6 && field_at(f, 16 + 8 * (n - 1), 8);
		if (!ok)
			return 0;
	}
	if (n == 0 || ((ret || raw) && n != 2))
		return 0;
	if (sys)
		return enter ? GTSC_TP_SYS_ENTER : GTSC_TP_SYS_EXIT;
	return enter ? GTSC_TP_RAW_ENTER : GTSC_TP_RAW_EXIT;
}

/*
 * The entry's extent from its format: the fixed part ends after the last
 * field; __data_loc words (a char[] or array kept after the fixed part) are
 * followed by the program at run time.  Strings printed from a plain pointer
 * need the kernel's printk formats in the trace.
 */
static int tp_parse(struct gtsc_tp *t, struct tep_handle *tep, char *why, size_t why_sz)
{
	struct tep_format_field *f;
	struct tep_event *ev;
	int fixed = 0;

	if (tep_parse_event(tep, t->format, t->format_len, t->group)) {
		snprintf(why, why_sz, "libtraceevent cannot parse the format of %s:%s", t->group,
			 t->name);
		return -EINVAL;
	}
	ev = tep_find_event_by_name(tep, t->group, t->name);
	if (!ev) {
		snprintf(why, why_sz, "%s:%s's format names another event", t->group, t->name);
		return -EINVAL;
	}
	t->id = ev->id;
	t->info.id = ev->id;
	for (int pass = 0; pass < 2; pass++) {
		for (f = pass ? ev->format.fields : ev->format.common_fields; f; f = f->next) {
			if (f->offset + f->size > fixed)
				fixed = f->offset + f->size;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || t->info.nr_dyn == GTSC_TP_MAX_DYN)
				continue;
			t->info.dyn[t->info.nr_dyn++] =
				f->offset | (f->flags & TEP_FIELD_IS_RELATIVE ? GTSC_TP_DYN_REL : 0);
		}
	}
	t->info.fixed = fixed;
	t->sys_kind = sys_kind(t->group, t->name, ev);
	return 0;
}

static bool needs_printk(const struct gtsc_tp *t)
{
	/* "field:const char * name;" (a pointer into the kernel), not __data_loc */
	return strstr(t->format, "char * ") && strstr(t->format, "print fmt:");
}

static int tp_add(struct gtsc_tp_set *set, const char *tracefs, const char *gn,
		  struct tep_handle *tep, char *why, size_t why_sz)
{
	const char *colon = strchr(gn, ':');
	struct gtsc_tp *t;
	char path[512];

	for (size_t i = 0; i < set->n; i++) /* two patterns may name one event */
		if (!strncmp(set->tp[i].group, gn, colon - gn) &&
		    !set->tp[i].group[colon - gn] && !strcmp(set->tp[i].name, colon + 1))
			return 0;
	if (set->n == GTSC_TP_MAX_EVENTS) {
		snprintf(why, why_sz, "-e names more than %d tracepoints: narrow the patterns",
			 GTSC_TP_MAX_EVENTS);
		return -E2BIG;
	}
	t = realloc(set->tp, (set->n + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	set->tp = t;
	t = &set->tp[set->n];
	memset(t, 0, sizeof(*t));
	t->group = strndup(gn, colon - gn);
	t->name = strdup(colon + 1);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, t->group ?: "",
		 t->name ?: "");
	t->format = t->group && t->name ? read_file(path, &t->format_len) : NULL;
	set->n++; /* freed with the set from here on */
	if (!t->format) {
		snprintf(why, why_sz, "cannot read %.400s: %s", path, strerror(errno));
		return -errno ?: -ENOMEM;
	}
	set->printk |= needs_printk(t);
	return tp_parse(t, tep, why, why_sz);
}

/* Up to three tracepoints nearest PAT (same name in another group counts as near). */
static void closest(const struct tp_names *all, const char *pat, char *out, size_t sz)
{
	size_t best[3] = { (size_t)-1, (size_t)-1, (size_t)-1 }, at[3] = {};
	const char *pname = strchr(pat, ':') + 1;
	size_t limit = 1 + strlen(pat) / 8, len = 0;

	for (size_t i = 0; i < all->n; i++) {
		size_t d = gt_edit_distance(pat, all->v[i]);

		if (!strcmp(strchr(all->v[i], ':') + 1, pname))
			d = 0;
		for (int k = 0; k < 3; k++) {
			if (d >= best[k])
				continue;
			memmove(&best[k + 1], &best[k], (2 - k) * sizeof(*best));
			memmove(&at[k + 1], &at[k], (2 - k) * sizeof(*at));
			best[k] = d;
			at[k] = i;
			break;
		}
	}
	out[0] = '\0';
	for (int k = 0; k < 3 && best[k] <= limit; k++)
		len += snprintf(out + len, len < sz ? sz - len : 0, "%s%s", k ? ", " : "",
				all->v[at[k]]);
}

struct resolve_ctx {
	struct gtsc_tp_set *set;
	const char *tracefs;
	struct tep_handle *tep;
	struct tp_names all;
	bool allow_missing;
	gtsc_log_fn log;
	void *log_ctx;
	char why[512];
};

static int resolve_one(struct resolve_ctx *c, const char *pat)
{
	const char *colon = strchr(pat, ':');
	char near[256];
	size_t hits = 0;
	int err = 0;

	if (!colon || colon == pat || !colon[1] || strchr(colon + 1, ':')) {
		snprintf(c->why, sizeof(c->why), "-e: '%s' is not GROUP:NAME", pat);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->all.n && !err; i++) {
		if (fnmatch(pat, c->all.v[i], 0))
			continue;
		hits++;
		err = tp_add(c->set, c->tracefs, c->all.v[i], c->tep, c->why, sizeof(c->why));
	}
	if (err || hits)
		return err;
	closest(&c->all, pat, near, sizeof(near));
	if (near[0]) {
		snprintf(c->why, sizeof(c->why), "-e: unknown tracepoint '%s'; closest: %s", pat,
			 near);
		return -ENOENT;
	}
	if (c->allow_missing) {
		gt_log(c->log, c->log_ctx, GTSC_LOG_WARN,
		       "-e: this kernel has no tracepoint '%s': left out", pat);
		return 0;
	}
	snprintf(c->why, sizeof(c->why),
		 "-e: this kernel has no tracepoint '%s' (none in %s/events); --allow-missing "
		 "records the others",
		 pat, c->tracefs);
	return -ENOENT;
}

/* The patterns of one -e list (comma separated) in order. */
static int resolve_list(struct resolve_ctx *c, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int err = copy ? 0 : -ENOMEM;

	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save))
		err = resolve_one(c, tok);
	free(copy);
	return err;
}

int gt_tp__resolve(struct gtsc_tp_set *set, const char *tracefs, const char *const *pats,
		   size_t n, bool allow_missing, gtsc_log_fn log, void *log_ctx)
{
	struct resolve_ctx c = { .set = set, .tracefs = tracefs, .allow_missing = allow_missing,
				 .log = log, .log_ctx = log_ctx };
	int err;

	memset(set, 0, sizeof(*set));
	if (!tracefs || !tracefs[0]) {
		gt_log(log, log_ctx, GTSC_LOG_WARN,
		       "-e GROUP:NAME needs tracefs: mount -t tracefs nodev /sys/kernel/tracing");
		return -ENOENT;
	}
	c.tep = tep_alloc();
	if (!c.tep)
		return -ENOMEM;
	err = gt_tp__each(tracefs, names_push, &c.all);
	if (err)
		snprintf(c.why, sizeof(c.why), "cannot list %s/events: %s", tracefs,
			 strerror(-err));
	for (size_t i = 0; i < n && !err; i++)
		err = resolve_list(&c, pats[i]);
	if (!err && !set->n && !allow_missing) {
		snprintf(c.why, sizeof(c.why), "-e: no tracepoint left to record");
		err = -ENOENT;
	}
	if (err) {
		gt_log(log, log_ctx, GTSC_LOG_WARN, "%s", c.why);
		gt_tp__free(set);
	}
	names_free(&c.all);
	tep_free(c.tep);
	return err;
}

void gt_tp__free(struct gtsc_tp_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->tp[i].group);
		free(set->tp[i].name);
		free(set->tp[i].format);
	}
	free(set->tp);
	*set = (struct gtsc_tp_set){};
}

void gt_tp__summary(const struct gtsc_tp_set *set, size_t limit, struct strbuf *sb)
{
	for (size_t i = 0; i < set->n && i < limit; i++)
		gt_strbuf_addf(sb, "%s%s:%s", i ? "," : "", set->tp[i].group, set->tp[i].name);
	if (set->n > limit)
		gt_strbuf_addf(sb, ",+%zu", set->n - limit);
}

static void section(struct strbuf *sb, const char *head, const char *text, size_t len)
{
	gt_strbuf_addf(sb, "%s %zu\n", head, len);
	gt_strbuf_add(sb, text, len);
	gt_strbuf_addf(sb, "\n");
}

void gt_tp__describe(const struct gtsc_tp_set *set, const char *tracefs, struct strbuf *sb)
{
	char path[512], head[256];
	size_t len;
	char *text;

	if (!set || !set->n)
		return;
	snprintf(path, sizeof(path), "%s/events/header_page", tracefs);
	text = read_file(path, &len);
	if (text)
		section(sb, "header_page", text, len);
	free(text);
	for (size_t i = 0; i < set->n; i++) {
		snprintf(head, sizeof(head), "event %s %s", set->tp[i].group, set->tp[i].name);
		section(sb, head, set->tp[i].format, set->tp[i].format_len);
	}
	snprintf(path, sizeof(path), "%s/printk_formats", tracefs);
	text = set->printk ? read_file(path, &len) : NULL;
	if (text)
		section(sb, "printk_formats", text, len);
	free(text);
}

size_t gt_tp__syscalls(struct gtsc_tp_set *set, const char *(*event_name)(int nr),
		       __u16 ev[2][GTSC_NR_SYSCALLS], __u16 raw[2], struct strbuf *left)
{
	size_t marked = 0;

	for (size_t i = 0; i < set->n; i++) {
		struct gtsc_tp *t = &set->tp[i];
		int k = t->sys_kind, ex = k == GTSC_TP_SYS_EXIT || k == GTSC_TP_RAW_EXIT;
		const char *sc = t->name + (k == GTSC_TP_SYS_ENTER ? 10 : 9);
		bool any = false;

		if (!k) {
			if (!strcmp(t->group, "syscalls") || !strcmp(t->group, "raw_syscalls"))
				gt_strbuf_addf(left, "%s%s:%s", left->len ? ", " : "", t->group,
					       t->name);
			continue;
		}
		if (k == GTSC_TP_RAW_ENTER || k == GTSC_TP_RAW_EXIT) {
			raw[ex] = i + 1;
			any = true;
		}
		/* every number the kernel names the event after (stat's is newstat) */
		for (int nr = 0; k <= GTSC_TP_SYS_EXIT && nr < GTSC_NR_SYSCALLS; nr++) {
			const char *name = event_name(nr);

			if (name && !strcmp(name, sc)) {
				ev[ex][nr] = i + 1;
				any = true;
			}
		}
		if (!any) {
			gt_strbuf_addf(left, "%s%s:%s", left->len ? ", " : "", t->group, t->name);
			continue;
		}
		t->synth = true;
		marked++;
	}
	return marked;
}

int gt_tp__fill(const struct gtsc_tp_set *set, int map_fd)
{
	for (__u32 i = 0; i < set->n; i++)
		if (bpf_map_update_elem(map_fd, &i, &set->tp[i].info, BPF_ANY))
			return -errno;
	return 0;
}

/* A perf event fd and a link fd per tracepoint: `-e '*:*'` passes the default 1024. */
static void raise_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need + 256)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need + 256 ? need + 256
									     : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int gt_tp__attach(const struct gtsc_tp_set *set, struct bpf_program *prog,
		  struct gtsc_tp_links *l, char *err, size_t err_sz)
{
	l->l = calloc(set->n ?: 1, sizeof(*l->l));
	if (!l->l)
		return -ENOMEM;
	raise_nofile(2 * set->n);
	for (size_t i = 0; i < set->n; i++) {
		const struct gtsc_tp *t = &set->tp[i];
		int e;

		LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = i);

		if (t->synth)
			continue;
		/* the cookie names the event: the entry's common_type is not readable */
		l->l[l->n] = bpf_program__attach_tracepoint_opts(prog, t->group, t->name, &o);
		if (l->l[l->n]) {
			l->n++;
			continue;
		}
		e = -errno;
		snprintf(err, err_sz, "attaching tracepoint %s:%s failed: %s", t->group, t->name,
			 strerror(-e));
		return e;
	}
	return 0;
}

void gt_tp__detach(struct gtsc_tp_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		bpf_link__destroy(l->l[i]);
	free(l->l);
	*l = (struct gtsc_tp_links){};
}
