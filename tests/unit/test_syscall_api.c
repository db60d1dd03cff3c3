// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public syscall decoder (gtsc/syscalls.h) on a small trace file: the
 * strace -f interleaving and whole calls from pushed records, a task exit
 * ending a call, the text, JSON, name and exit-line forms with snprintf's
 * contract, and refused arguments and opts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gtsc/gtsc.h>
#include "harness.h"
#include "trace_writer.h"

#define NR_READ 0
#define NR_WAIT4 61

static const char syscalls_text[] = "0\tread\tunsigned int\tfd\tchar *\tbuf\tsize_t\tcount\n"
				    "61\twait4\tpid_t\tupid\tint *\tstat_addr\tint\toptions\t"
				    "struct rusage *\tru\n";

static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";
}

#define CHECK_STR(t, got, want)                                                                    \
	CHECK(t, !strcmp(str_or_null(got), (want)), "got '%.220s', want '%.220s'",                 \
	      str_or_null(got), (want))

/* ---- the trace ---- */

static int put_enter(struct gtsc_writer *w, __u32 tid, __u64 ts, int nr, __u64 a0, __u64 a1,
		     __u64 a2)
{
	struct gtsc_rec_sys_enter e = {
		.hdr = { .type = GTSC_REC_SYS_ENTER, .size = sizeof(e), .pid = tid, .tid = tid,
			 .ts_ns = ts },
		.nr = nr,
		.args = { a0, a1, a2 },
	};

	return gt_writer__add_record(w, &e.hdr);
}

static int put_exit(struct gtsc_writer *w, __u32 tid, __u64 ts, int nr, __s64 ret)
{
	struct gtsc_rec_sys_exit e = {
		.hdr = { .type = GTSC_REC_SYS_EXIT, .size = sizeof(e), .pid = tid, .tid = tid,
			 .ts_ns = ts },
		.nr = nr,
		.ret = ret,
	};

	return gt_writer__add_record(w, &e.hdr);
}

static int put_task(struct gtsc_writer *w, __u32 tid, __u64 ts, __u32 event, __s32 code)
{
	struct gtsc_rec_task tk = {
		.hdr = { .type = GTSC_REC_TASK, .size = sizeof(tk), .pid = tid, .tid = tid,
			 .ts_ns = ts },
		.event = event,
		.exit_code = code,
	};

	return gt_writer__add_record(w, &tk.hdr);
}

/*
 * 1: wait4 enters; 2: read enters and returns; 1: wait4 returns; 3: a read's
 * exit without its enter; 2: a read fails, another enters and the thread
 * exits in it.
 */
static int write_trace(const char *path)
{
	GTSC_OPTS(gtsc_writer_opts, o);
	struct gtsc_writer *w = gt_writer__create(path, &o);
	int err;

	if (!w)
		return -errno;
	err = gt_writer__add_chunk(w, GTSC_CHUNK_SYSCALLS, syscalls_text, strlen(syscalls_text));
	err = err ?: put_enter(w, 1, 10, NR_WAIT4, 2, 0x1000, 0);
	err = err ?: put_enter(w, 2, 20, NR_READ, 5, 0x2000, 10);
	err = err ?: put_exit(w, 2, 30, NR_READ, 10);
	err = err ?: put_exit(w, 1, 40, NR_WAIT4, 2);
	err = err ?: put_exit(w, 3, 45, NR_READ, 7);
	err = err ?: put_enter(w, 2, 46, NR_READ, 9, 0x3000, 1);
	err = err ?: put_exit(w, 2, 47, NR_READ, -EBADF);
	err = err ?: put_task(w, 2, 48, GTSC_TASK_EXEC, 0); /* not an exit: ignored */
	err = err ?: put_enter(w, 2, 50, NR_READ, 5, 0x2000, 10);
	err = err ?: put_task(w, 2, 60, GTSC_TASK_EXIT, 0);
	return gt_writer__close(w) ?: err;
}

static struct gtsc_reader *open_trace(struct test_ctx *t, char *path, size_t sz)
{
	struct gtsc_reader *r;
	int fd;

	snprintf(path, sz, "/tmp/gtsc-test-XXXXXX");
	fd = mkstemp(path);
	CHECK(t, fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return NULL;
	close(fd);
	CHECK(t, !write_trace(path), "writing the trace failed");
	r = gtsc_reader__open(path, NULL);
	CHECK(t, r, "open: %s", strerror(errno));
	return r;
}

/* ---- decoding it ---- */

struct collected {
	struct gtsc_syscall_decoder *d;
	char text[4096];
	int calls, failed;
	int stop_at; /* the callback's non-zero return at this call */
};

static int collect(void *ctx, const struct gtsc_syscall *c)
{
	struct collected *out = ctx;
	size_t len = strlen(out->text);
	int n;

	out->calls++;
	out->failed += c->failed;
	len += snprintf(out->text + len, sizeof(out->text) - len, "%u ", c->tid);
	n = gtsc_syscall_decoder__text(out->d, c, out->text + len, sizeof(out->text) - len);
	if (n > 0 && (size_t)n < sizeof(out->text) - len - 1)
		strcpy(out->text + len + n, "\n");
	return out->calls == out->stop_at ? 42 : 0;
}

static int decode_all(struct gtsc_reader *r, struct collected *out, bool whole_calls)
{
	GTSC_OPTS(gtsc_syscall_decoder_opts, o, .whole_calls = whole_calls, .fn = collect,
		  .ctx = out);
	const struct gtsc_rec_hdr *rec;
	int n, err = 0;

	out->d = gtsc_syscall_decoder__new(r, &o);
	if (!out->d)
		return -errno;
	while (!err && (n = gtsc_reader__next(r, &rec)) > 0)
		err = gtsc_syscall_decoder__push(out->d, rec);
	return err ?: gtsc_syscall_decoder__finish(out->d);
}

static void test_stream(struct test_ctx *t)
{
	char path[64];
	struct gtsc_reader *r = open_trace(t, path, sizeof(path));
	struct collected out = {};

	if (!r)
		return;
	CHECK(t, !decode_all(r, &out, false), "decoding failed");
	CHECK_STR(t, out.text,
		  "1 wait4(2,  <unfinished ...>\n"
		  "2 read(5, 0x2000, 10) = 10\n"
		  "1 <... wait4 resumed>0x1000, 0, NULL) = 2\n"
		  "3 <... read resumed>) = 7\n"
		  "2 read(9, 0x3000, 1) = -1 EBADF (Bad file descriptor)\n"
		  "2 read(5, 0x2000, 10) = ?\n");
	CHECK(t, out.failed == 1, "%d failed calls, want 1", out.failed);
	gtsc_syscall_decoder__free(out.d);
	gtsc_reader__close(r);
	unlink(path);
}

static void test_whole_calls(struct test_ctx *t)
{
	char path[64];
	struct gtsc_reader *r = open_trace(t, path, sizeof(path));
	struct collected out = {};

	if (!r)
		return;
	CHECK(t, !decode_all(r, &out, true), "decoding failed");
	CHECK_STR(t, out.text,
		  "2 read(5, 0x2000, 10) = 10\n"
		  "1 wait4(2, 0x1000, 0, NULL) = 2\n"
		  "3 <... read resumed>) = 7\n"
		  "2 read(9, 0x3000, 1) = -1 EBADF (Bad file descriptor)\n"
		  "2 read(5, 0x2000, 10) = ?\n");
	CHECK(t, out.calls == 5 && out.failed == 1, "%d calls, %d failed", out.calls, out.failed);
	gtsc_syscall_decoder__free(out.d);
	gtsc_reader__close(r);
	unlink(path);
}

/* A filter drops a call by its enter; its exit follows because the thread is not in a call. */
static void test_in_call_and_stop(struct test_ctx *t)
{
	char path[64];
	struct gtsc_reader *r = open_trace(t, path, sizeof(path));
	struct collected out = { .stop_at = 2 };
	int err;

	if (!r)
		return;
	err = decode_all(r, &out, false);
	CHECK(t, err == 42, "the callback's return: got %d", err);
	CHECK(t, out.calls == 2, "%d calls after a stop", out.calls);
	CHECK(t, gtsc_syscall_decoder__in_call(out.d, 1), "in_call: wait4 is open");
	CHECK(t, !gtsc_syscall_decoder__in_call(out.d, 2), "in_call: read is done");
	CHECK(t, !gtsc_syscall_decoder__in_call(NULL, 1), "in_call(NULL)");
	gtsc_syscall_decoder__free(out.d);
	gtsc_reader__close(r);
	unlink(path);
}

/* ---- the forms, one by one ---- */

static void test_forms(struct test_ctx *t)
{
	char path[64], buf[256], small[8];
	struct gtsc_reader *r = open_trace(t, path, sizeof(path));
	GTSC_OPTS(gtsc_syscall_decoder_opts, o, .style = GTSC_SYSCALL_ARG_TYPES);
	struct gtsc_rec_sys_enter en = {
		.hdr = { .type = GTSC_REC_SYS_ENTER, .size = sizeof(en), .pid = 7, .tid = 7 },
		.nr = NR_READ,
		.args = { 3, 0x10, 4 },
	};
	struct gtsc_rec_sys_exit ex = {
		.hdr = { .type = GTSC_REC_SYS_EXIT, .size = sizeof(ex), .pid = 7, .tid = 7 },
		.nr = NR_READ,
		.ret = 4,
	};
	struct gtsc_syscall c = { .part = GTSC_SYSCALL_WHOLE, .pid = 7, .tid = 7, .nr = NR_READ,
				  .enter = &en, .exit = &ex };
	struct gtsc_rec_task tk = { .hdr = { .type = GTSC_REC_TASK, .size = sizeof(tk) },
				    .event = GTSC_TASK_EXIT };
	struct gtsc_syscall_decoder *d;
	static const char want[] =
		"read(unsigned int fd: 3, char * buf: 0x10, size_t count: 4) = 4";
	static const char json_head[] = "\"syscall\":\"read\",\"nr\":0,\"args\":[{\"name\":\"fd\"";
	static const char json_ret[] = ",\"ret\":4,\"ret_text\":\"4\"";
	int n;

	if (!r)
		return;
	d = gtsc_syscall_decoder__new(r, &o);
	CHECK(t, d, "new: %s", strerror(errno));
	if (!d)
		goto out;
	n = gtsc_syscall_decoder__text(d, &c, buf, sizeof(buf));
	CHECK_STR(t, buf, want);
	CHECK(t, n == (int)strlen(want), "text returned %d", n);
	/* snprintf's contract: cut and NUL-terminated, the whole length returned */
	n = gtsc_syscall_decoder__text(d, &c, small, sizeof(small));
	CHECK(t, n == (int)strlen(want) && !strcmp(small, "read(un"), "cut text: %d '%s'", n,
	      small);
	CHECK(t, gtsc_syscall_decoder__text(d, &c, NULL, 0) == (int)strlen(want), "size 0");
	CHECK(t, gtsc_syscall_decoder__text(d, &c, NULL, 5) == -EINVAL, "NULL buffer");

	n = gtsc_syscall_decoder__json(d, &c, buf, sizeof(buf));
	CHECK(t, n > 0 && strstr(buf, json_head) == buf && strstr(buf, json_ret), "json: %s", buf);

	CHECK_STR(t, gtsc_syscall_decoder__name(d, NR_WAIT4, small, sizeof(small)), "wait4");
	CHECK_STR(t, gtsc_syscall_decoder__name(d, 999, buf, sizeof(buf)), "syscall_999");
	errno = 0;
	CHECK(t, !gtsc_syscall_decoder__name(d, 999, small, sizeof(small)) && errno == EINVAL,
	      "name into too small a buffer");

	tk.exit_code = 1 << 8;
	gtsc_syscall_decoder__task_exit(d, &tk, buf, sizeof(buf));
	CHECK_STR(t, buf, "+++ exited with 1 +++");
	tk.exit_code = 9;
	gtsc_syscall_decoder__task_exit(d, &tk, buf, sizeof(buf));
	CHECK_STR(t, buf, "+++ killed by SIGKILL +++");
	tk.exit_code = 0x80 | 11;
	gtsc_syscall_decoder__task_exit(d, &tk, buf, sizeof(buf));
	CHECK_STR(t, buf, "+++ killed by SIGSEGV (core dumped) +++");
	tk.event = GTSC_TASK_FORK;
	CHECK(t, gtsc_syscall_decoder__task_exit(d, &tk, buf, sizeof(buf)) == -EINVAL,
	      "a fork is not an exit");
	CHECK(t, gtsc_decode_tables_version() >= 1, "decode tables version");
	gtsc_syscall_decoder__free(d);
out:
	gtsc_reader__close(r);
	unlink(path);
}

/* ---- refusals ---- */

static void test_refused(struct test_ctx *t)
{
	char path[64];
	struct gtsc_reader *r = open_trace(t, path, sizeof(path));
	struct {
		struct gtsc_syscall_decoder_opts o;
		long future_field;
	} newer = { .o = { .sz = sizeof(newer) }, .future_field = 1 };
	GTSC_OPTS(gtsc_syscall_decoder_opts, bad_style, .style = 1 << 7);
	struct gtsc_rec_sys_enter en = {
		.hdr = { .type = GTSC_REC_SYS_ENTER, .size = 24, .tid = 1 },
	};
	struct gtsc_syscall_decoder *d;

	if (!r)
		return;
	errno = 0;
	CHECK(t, !gtsc_syscall_decoder__new(NULL, NULL) && errno == EINVAL, "no reader");
	errno = 0;
	CHECK(t, !gtsc_syscall_decoder__new(r, &newer.o) && errno == EINVAL,
	      "an unknown option set");
	newer.future_field = 0;
	d = gtsc_syscall_decoder__new(r, &newer.o);
	CHECK(t, d, "a newer caller's zeroed opts refused");
	gtsc_syscall_decoder__free(d);
	errno = 0;
	CHECK(t, !gtsc_syscall_decoder__new(r, &bad_style) && errno == EINVAL, "unknown style bit");
	d = gtsc_syscall_decoder__new(r, NULL);
	CHECK(t, d, "NULL opts refused");
	CHECK(t, gtsc_syscall_decoder__push(d, &en.hdr) == -EINVAL, "a short record taken");
	CHECK(t, gtsc_syscall_decoder__push(NULL, &en.hdr) == -EINVAL, "push(NULL)");
	en.hdr.size = sizeof(en);
	CHECK(t, !gtsc_syscall_decoder__push(d, &en.hdr), "no callback: calls are dropped");
	CHECK(t, !gtsc_syscall_decoder__finish(d), "finish");
	gtsc_syscall_decoder__free(d);
	gtsc_syscall_decoder__free(NULL);
	gtsc_reader__close(r);
	unlink(path);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "stream", test_stream },
		{ "whole_calls", test_whole_calls },
		{ "in_call_and_stop", test_in_call_and_stop },
		{ "forms", test_forms },
		{ "refused", test_refused },
	};

	return RUN_TESTS("syscall_api", cases);
}
