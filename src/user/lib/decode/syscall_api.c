// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public syscall decoder (gtsc/syscalls.h): the joiner (syscall_join.c)
 * pairs the records into calls, the decoder (syscall_decode.c) prints them,
 * and the reader's syscall table says what each number is.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "gtsc/gtsc.h"
#include "opts.h"
#include "syscall_compat.h"
#include "syscall_decode.h"
#include "syscall_join.h"
#include "syscall_print.h"
#include "trace_reader.h"

#define NR_CACHE 1024 /* syscall numbers with a cached table lookup */

_Static_assert(GTSC_SYSCALL_WHOLE == (int)SD_WHOLE &&
		       GTSC_SYSCALL_UNFINISHED == (int)SD_ENTER_PART &&
		       GTSC_SYSCALL_RESUMED == (int)SD_EXIT_PART,
	       "public and internal call parts differ");
_Static_assert((int)GTSC_SYSCALL_ARG_NAMES == (int)SD_ARG_NAMES &&
		       (int)GTSC_SYSCALL_ARG_TYPES == (int)SD_ARG_TYPES,
	       "public and internal styles differ");

struct gtsc_syscall_decoder {
	const struct gtsc_reader *r;
	struct syscall_decoder *dec;
	struct syscall_joiner *join;
	gtsc_syscall_fn fn;
	void *ctx;
	/* the table is a bsearch away: every call looks its number up */
	const struct gtsc_syscall_info *si[NR_CACHE];
	bool si_known[NR_CACHE];
	/* the i386 table's entries, made on first use (most traces have none) */
	struct gtsc_syscall_info *compat[NR_CACHE];
};

/* NULL for a number the i386 table does not know (or out of memory). */
static const struct gtsc_syscall_info *compat_of(struct gtsc_syscall_decoder *d, int nr)
{
	struct gtsc_syscall_info si;

	if (nr < 0 || nr >= NR_CACHE || !gt_syscall_compat_info(nr, &si))
		return NULL;
	if (!d->compat[nr]) {
		d->compat[nr] = malloc(sizeof(si));
		if (d->compat[nr])
			*d->compat[nr] = si;
	}
	return d->compat[nr];
}

static bool rec_compat(const struct gtsc_rec_hdr *h)
{
	return h && (h->flags & GTSC_SYS_F_COMPAT);
}

static const struct gtsc_syscall_info *syscall_of(struct gtsc_syscall_decoder *d, int nr)
{
	if (nr < 0 || nr >= NR_CACHE)
		return gtsc_reader__syscall(d->r, nr);
	if (!d->si_known[nr]) {
		d->si[nr] = gtsc_reader__syscall(d->r, nr);
		d->si_known[nr] = true;
	}
	return d->si[nr];
}

/* The joiner's calls, handed on in the public form. */
static int on_call(void *ctx, const struct sj_call *c)
{
	struct gtsc_syscall_decoder *d = ctx;
	struct sd_call sc = { .nr = c->nr, .exit = c->exit };
	bool compat = rec_compat(c->enter ? &c->enter->hdr : c->exit ? &c->exit->hdr : NULL);
	struct gtsc_syscall call = {
		.part = (enum gtsc_syscall_part)c->part,
		.pid = c->pid,
		.tid = c->tid,
		.nr = c->nr,
		.failed = gt_sd_call_failed(&sc),
		.ts = c->ts,
		.enter = c->enter,
		.exit = c->exit,
		.compat = compat,
	};

	return d->fn ? d->fn(d->ctx, &call) : 0;
}

struct gtsc_syscall_decoder *gtsc_syscall_decoder__new(const struct gtsc_reader *r,
						       const struct gtsc_syscall_decoder_opts *opts)
{
	struct sd_opts so = {
		.style = OPTS_GET(opts, style, 0),
		.max_data = OPTS_GET(opts, max_data, 0),
	};
	enum sj_mode mode = OPTS_GET(opts, whole_calls, false) ? SJ_COMPLETE : SJ_STREAM;
	struct gtsc_syscall_decoder *d;

	if (!r || !OPTS_VALID(opts, gtsc_syscall_decoder_opts) ||
	    (so.style & ~(unsigned int)(SD_ARG_NAMES | SD_ARG_TYPES)))
		return errno = EINVAL, NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->r = r;
	d->fn = OPTS_GET(opts, fn, NULL);
	d->ctx = OPTS_GET(opts, ctx, NULL);
	d->dec = gt_syscall_decoder__new(&so);
	d->join = gt_syscall_joiner__new(mode, on_call, d);
	if (!d->dec || !d->join) {
		gtsc_syscall_decoder__free(d);
		return errno = ENOMEM, NULL;
	}
	return d;
}

void gtsc_syscall_decoder__free(struct gtsc_syscall_decoder *d)
{
	if (!d)
		return;
	gt_syscall_joiner__free(d->join);
	gt_syscall_decoder__free(d->dec);
	for (int i = 0; i < NR_CACHE; i++)
		free(d->compat[i]);
	free(d);
}

int gtsc_syscall_decoder__push(struct gtsc_syscall_decoder *d, const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_rec_task *tk = (const void *)rec;

	if (!d || !rec)
		return -EINVAL;
	switch (rec->type) {
	case GTSC_REC_SYS_ENTER:
		if (rec->size < sizeof(struct gtsc_rec_sys_enter))
			return -EINVAL;
		return gt_syscall_joiner__enter(d->join, (const void *)rec);
	case GTSC_REC_SYS_EXIT:
		if (rec->size < sizeof(struct gtsc_rec_sys_exit))
			return -EINVAL;
		return gt_syscall_joiner__exit(d->join, (const void *)rec);
	case GTSC_REC_TASK:
		if (rec->size < sizeof(*tk))
			return -EINVAL;
		if (tk->event != GTSC_TASK_EXIT)
			return 0;
		return gt_syscall_joiner__thread_exit(d->join, rec->tid, rec->ts_ns);
	default:
		return 0;
	}
}

bool gtsc_syscall_decoder__in_call(const struct gtsc_syscall_decoder *d, __u32 tid)
{
	return d && gt_syscall_joiner__in_call(d->join, tid);
}

int gtsc_syscall_decoder__interrupt(struct gtsc_syscall_decoder *d)
{
	return d ? gt_syscall_joiner__interrupt(d->join) : -EINVAL;
}

int gtsc_syscall_decoder__finish(struct gtsc_syscall_decoder *d)
{
	return d ? gt_syscall_joiner__finish(d->join) : -EINVAL;
}

/* snprintf's contract on a gtsc_buf: at most SIZE - 1 bytes and a NUL. */
static struct gtsc_buf buf_of(char *buf, size_t size)
{
	return (struct gtsc_buf){ .p = buf, .cap = size ? size - 1 : 0 };
}

static int buf_end(struct gtsc_buf *b, size_t size)
{
	if (size)
		b->p[b->len] = '\0';
	return b->len + b->lost > INT_MAX ? INT_MAX : (int)(b->len + b->lost);
}

static bool buf_ok(const char *buf, size_t size)
{
	return buf || !size;
}

/* The public struct's compat field is read only where the caller's struct has it. */
static bool call_compat(const struct gtsc_syscall *c)
{
	return rec_compat(c->enter ? &c->enter->hdr : c->exit ? &c->exit->hdr : NULL);
}

static struct sd_call sd_call_of(struct gtsc_syscall_decoder *d, const struct gtsc_syscall *c)
{
	bool compat = call_compat(c);

	return (struct sd_call){
		.nr = c->nr,
		.si = compat ? compat_of(d, c->nr) : syscall_of(d, c->nr),
		.enter = c->enter,
		.exit = c->exit,
		.compat = compat,
	};
}

int gtsc_syscall_decoder__text(struct gtsc_syscall_decoder *d, const struct gtsc_syscall *call,
			       char *buf, size_t size)
{
	struct gtsc_buf b = buf_of(buf, size);
	struct sd_call sc;

	if (!d || !call || !buf_ok(buf, size) || (unsigned int)call->part > GTSC_SYSCALL_RESUMED)
		return -EINVAL;
	sc = sd_call_of(d, call);
	gt_syscall_decoder__text(d->dec, &b, &sc, (enum sd_part)call->part);
	return buf_end(&b, size);
}

int gtsc_syscall_decoder__json(struct gtsc_syscall_decoder *d, const struct gtsc_syscall *call,
			       char *buf, size_t size)
{
	struct gtsc_buf b = buf_of(buf, size);
	struct sd_call sc;

	if (!d || !call || !buf_ok(buf, size))
		return -EINVAL;
	sc = sd_call_of(d, call);
	gt_syscall_decoder__json(d->dec, &b, &sc);
	return buf_end(&b, size);
}

const char *gtsc_syscall_decoder__name(struct gtsc_syscall_decoder *d, int nr, char *buf,
				       size_t size)
{
	struct sd_call c;
	char tmp[24];
	const char *name;

	if (!d || !buf_ok(buf, size))
		return errno = EINVAL, NULL;
	if (nr >= 0 && (nr & GTSC_SYSCALL_COMPAT))
		c = (struct sd_call){ .nr = nr & ~GTSC_SYSCALL_COMPAT,
				      .si = compat_of(d, nr & ~GTSC_SYSCALL_COMPAT),
				      .compat = true };
	else
		c = (struct sd_call){ .nr = nr, .si = syscall_of(d, nr) };
	name = gt_sd_call_name(&c, tmp);
	if (name != tmp)
		return name;
	if (!size || strlen(tmp) >= size)
		return errno = EINVAL, NULL;
	return strcpy(buf, tmp);
}

int gtsc_syscall_decoder__task_exit(struct gtsc_syscall_decoder *d, const struct gtsc_rec_task *tk,
				    char *buf, size_t size)
{
	struct gtsc_buf b = buf_of(buf, size);
	int sig;

	if (!d || !tk || !buf_ok(buf, size) || tk->hdr.type != GTSC_REC_TASK ||
	    tk->event != GTSC_TASK_EXIT)
		return -EINVAL;
	sig = tk->exit_code & 0x7f;
	if (!sig) {
		gtsc_buf__puts(&b, "+++ exited with ");
		gtsc_buf__putu(&b, (tk->exit_code >> 8) & 0xff);
	} else {
		gtsc_buf__puts(&b, "+++ killed by ");
		gt_sp_signal(&b, sig);
		if (tk->exit_code & 0x80)
			gtsc_buf__puts(&b, " (core dumped)");
	}
	gtsc_buf__puts(&b, " +++");
	return buf_end(&b, size);
}

unsigned int gtsc_decode_tables_version(void)
{
	return gt_decode_tables_version;
}
