// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function probes without a kernel: the FUNCS chunk read back (ids, kinds,
 * BTF types, a malformed line skipped), func records printed by their
 * prototype (signed, unsigned, pointer, return), and prototypes taken from
 * this machine's BTF when it has one.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "harness.h"
#include <gtsc/print.h>
#include "funcs.h"
#include "strbuf.h"
#include "trace_reader.h"
#include "trace_writer.h"

static const char funcs_text[] =
	"0\tksys_read\tffffffff81300000\tentry,return\ts8\tssize_t\tu4\tunsigned int\tfd\t"
	"p8\tchar *\tbuf\tu8\tsize_t\tcount\n"
	"1\tmystery\t0\tentry\tx0\t?\n"
	"not a function line\n"
	"2\tneg\tffffffff81400000\tentry\ts4\tint\ts4\tint\tfd\n";

static struct gtsc_rec_func func_rec(__u32 id, __u8 kind, __u64 ts)
{
	struct gtsc_rec_func e = {
		.hdr = { .type = GTSC_REC_FUNC, .size = sizeof(e), .pid = 42, .tid = 42,
			 .ts_ns = ts },
		.func_id = id,
		.kind = kind,
	};

	return e;
}

/* A trace with the FUNCS chunk and one entry and return of ksys_read, one call of neg. */
static int write_trace(const char *path)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo) };
	struct gtsc_writer *w = gt_writer__create(path, &wo);
	struct gtsc_rec_func in = func_rec(0, GTSC_FUNC_ENTRY, 1000);
	struct gtsc_rec_func out = func_rec(0, GTSC_FUNC_RETURN, 1500);
	struct gtsc_rec_func neg = func_rec(2, GTSC_FUNC_ENTRY, 2000);
	const char tr[] = "meta\tend_ns\t3000\n";
	int err;

	if (!w)
		return -errno;
	in.args[0] = 3;
	in.args[1] = 0xffff888012345678ULL;
	in.args[2] = 4096;
	out.ret = (__u64)-11;
	out.latency_ns = 500;
	neg.args[0] = 0xffffffffULL; /* a 32-bit -1 in a 64-bit register */
	err = gt_writer__add_chunk(w, GTSC_CHUNK_META, "start_ns=0\n", 11);
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_FUNCS, funcs_text,
					  sizeof(funcs_text) - 1);
	err = err ?: gt_writer__add_record(w, &in.hdr);
	err = err ?: gt_writer__add_record(w, &out.hdr);
	err = err ?: gt_writer__add_record(w, &neg.hdr);
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_TRAILER, tr, sizeof(tr) - 1);
	return gt_writer__close(w) ?: err;
}

static struct gtsc_reader *open_trace(struct test_ctx *t, char *path)
{
	int fd = mkstemp(path);
	struct gtsc_reader *r;

	CHECK(t, fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return NULL;
	close(fd);
	CHECK(t, !write_trace(path), "writing %s failed", path);
	r = gtsc_reader__open(path, NULL);
	CHECK(t, r, "reading %s back failed: %s", path, strerror(errno));
	return r;
}

static void test_chunk(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-funcs.XXXXXX";
	struct gtsc_reader *r = open_trace(t, path);
	const struct gtsc_func_info *f;
	size_t n = 0;

	if (!r)
		goto out;
	gtsc_reader__funcs(r, &n);
	CHECK(t, n == 3, "%zu functions read, expected 3 (the malformed line skipped)", n);
	f = gtsc_reader__func(r, 0);
	CHECK(t, f && !strcmp(f->name, "ksys_read") && f->has_return, "function 0");
	CHECK(t, f && f->addr == 0xffffffff81300000ULL, "address");
	CHECK(t, f && !strcmp(f->ret_kind, "s8") && !strcmp(f->ret_type, "ssize_t"), "return type");
	CHECK(t, f && f->nr_args == 3, "%d arguments", f ? f->nr_args : -1);
	CHECK(t, f && !strcmp(f->arg_type[1], "char *") && !strcmp(f->arg_name[1], "buf") &&
			 !strcmp(f->arg_kind[1], "p8"),
	      "argument 1");
	f = gtsc_reader__func(r, 1);
	CHECK(t, f && !strcmp(f->ret_type, "?") && !f->nr_args && !f->has_return, "function 1");
	CHECK(t, !gtsc_reader__func(r, 7), "an unknown id has a function");
	gtsc_reader__close(r);
out:
	unlink(path);
}

static void test_print(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-funcs.XXXXXX", *text = NULL;
	struct gtsc_reader *r = open_trace(t, path);
	const struct gtsc_rec_hdr *rec;
	struct gtsc_event_printer *p;
	size_t len = 0;
	FILE *out;

	if (!r)
		goto out;
	out = open_memstream(&text, &len);
	p = gtsc_event_printer__new(r, out, NULL);
	while (p && gtsc_reader__next(r, &rec) > 0)
		gtsc_event_printer__print(p, rec);
	gtsc_event_printer__free(p);
	fclose(out);
	CHECK(t, text && strstr(text, " func_entry: ksys_read(fd=3, buf=0xffff888012345678, "
				      "count=4096)"),
	      "entry: %s", text);
	CHECK(t, text && strstr(text, " func_return: func=ksys_read ret=-11 latency_ns=500"),
	      "return: %s", text);
	CHECK(t, text && strstr(text, " func_entry: neg(fd=-1)"), "32-bit signed: %s", text);
	free(text);
	gtsc_reader__close(r);
out:
	unlink(path);
}

/* This machine's BTF, when it has one: vfs_read's prototype and kinds. */
static void test_btf_proto(struct test_ctx *t)
{
	struct gtsc_func f[] = { { .name = "vfs_read", .ret = true } };
	struct gtsc_func_set set = { .f = f, .n = 1 };
	struct btf *btf = btf__load_vmlinux_btf();
	struct strbuf sb = {};

	if (!btf)
		return; /* no BTF here: the "?" path is test_chunk's function 1 */
	gt_funcs__describe(&set, btf, &sb);
	CHECK(t, sb.buf && !strncmp(sb.buf, "0\tvfs_read\t0\tentry,return\ts8\tssize_t\t", 36),
	      "line: %s", sb.buf);
	CHECK(t, sb.buf && strstr(sb.buf, "\tp8\tstruct file *\tfile\t"), "file arg: %s", sb.buf);
	CHECK(t, sb.buf && strstr(sb.buf, "\tu8\tsize_t\tcount\t"), "count arg: %s", sb.buf);
	gt_strbuf_free(&sb);
	btf__free(btf);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "chunk", test_chunk },
		{ "print", test_print },
		{ "btf_proto", test_btf_proto },
	};

	return RUN_TESTS("funcs", cases);
}
