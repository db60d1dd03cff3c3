// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * 32-bit (ia32) calls from synthetic records: named from the i386 table,
 * arguments raw, return values and errno as native calls, JSON marked
 * compat, and an execve that switches ABI joined with its exit.
 */
#include <string.h>
#include "harness.h"
#include "gtsc/gtsc.h"
#include "syscall_compat.h"
#include "syscall_decode.h"
#include "syscall_join.h"

static struct gtsc_rec_sys_enter enter_of(int nr, __u16 flags, __u64 a0, __u64 a1, __u64 a2)
{
	struct gtsc_rec_sys_enter e = {
		.hdr = { .type = GTSC_REC_SYS_ENTER, .size = sizeof(e), .flags = flags,
			 .pid = 7, .tid = 7, .ts_ns = 100 },
		.nr = nr,
		.args = { a0, a1, a2, 0x11, 0x22, 0x33 },
	};
	return e;
}

static struct gtsc_rec_sys_exit exit_of(int nr, __u16 flags, __s64 ret)
{
	struct gtsc_rec_sys_exit x = {
		.hdr = { .type = GTSC_REC_SYS_EXIT, .size = sizeof(x), .flags = flags,
			 .pid = 7, .tid = 7, .ts_ns = 200 },
		.nr = nr,
		.ret = ret,
	};
	return x;
}

/* The text of one whole compat call. */
static const char *text(struct syscall_decoder *d, const struct gtsc_rec_sys_enter *e,
			const struct gtsc_rec_sys_exit *x, char *buf, size_t size)
{
	static struct gtsc_syscall_info si;
	bool known = gt_syscall_compat_info(e->nr, &si);
	struct sd_call c = { .nr = e->nr, .si = known ? &si : NULL, .enter = e, .exit = x,
			     .compat = true };
	struct gtsc_buf b = { buf, 0, size - 1 };

	gt_syscall_decoder__text(d, &b, &c, SD_WHOLE);
	buf[b.len] = '\0';
	return buf;
}

#define CHECK_TEXT(t, got, want) CHECK(t, !strcmp(got, want), "got '%.200s', want '%.200s'", got, want)

static void test_i386_names(struct test_ctx *t)
{
	struct sd_opts o = { .style = SD_ARG_NAMES };
	struct syscall_decoder *d = gt_syscall_decoder__new(&o);
	struct gtsc_rec_sys_enter e;
	struct gtsc_rec_sys_exit x;
	char buf[256];

	CHECK(t, d, "decoder");
	if (!d)
		return;
	/* i386 20 is getpid (x86-64's writev) */
	e = enter_of(20, GTSC_SYS_F_COMPAT, 1, 2, 3);
	x = exit_of(20, GTSC_SYS_F_COMPAT, 1234);
	CHECK_TEXT(t, text(d, &e, &x, buf, sizeof(buf)), "getpid() = 1234");
	/* i386 4 is write (x86-64's stat): three arguments, raw */
	e = enter_of(4, GTSC_SYS_F_COMPAT, 4, 0x80ed2e0, 777);
	x = exit_of(4, GTSC_SYS_F_COMPAT, 777);
	CHECK_TEXT(t, text(d, &e, &x, buf, sizeof(buf)), "write(0x4, 0x80ed2e0, 0x309) = 777");
	/* i386 5 is open (x86-64's fstat); errno as native */
	e = enter_of(5, GTSC_SYS_F_COMPAT, 0xffd73a6c, 0, 0);
	x = exit_of(5, GTSC_SYS_F_COMPAT, -2);
	CHECK_TEXT(t, text(d, &e, &x, buf, sizeof(buf)),
		   "open(0xffd73a6c, 0, 0) = -1 ENOENT (No such file or directory)");
	/* i386-only calls: their own argument counts */
	e = enter_of(192, GTSC_SYS_F_COMPAT, 0, 0x1000, 3);
	x = exit_of(192, GTSC_SYS_F_COMPAT, 0xf7f00000);
	CHECK_TEXT(t, text(d, &e, &x, buf, sizeof(buf)),
		   "mmap2(0, 0x1000, 0x3, 0x11, 0x22, 0x33) = 4159700992");
	e = enter_of(252, GTSC_SYS_F_COMPAT, 3, 0, 0);
	CHECK_TEXT(t, text(d, &e, NULL, buf, sizeof(buf)), "exit_group(0x3) = ?");
	/* unknown to the table: never a wrong name */
	e = enter_of(499, GTSC_SYS_F_COMPAT, 1, 2, 3);
	x = exit_of(499, GTSC_SYS_F_COMPAT, -38);
	CHECK_TEXT(t, text(d, &e, &x, buf, sizeof(buf)),
		   "syscall_499(0x1, 0x2, 0x3, 0x11, 0x22, 0x33) = -1 ENOSYS (Function not implemented)");
	gt_syscall_decoder__free(d);
}

static void test_table(struct test_ctx *t)
{
	struct gtsc_syscall_info si;

	CHECK(t, !strcmp(gt_syscall_compat_name(11), "execve"), "i386 11");
	CHECK(t, !strcmp(gt_syscall_compat_name(140), "_llseek"), "i386 140");
	CHECK(t, gt_syscall_compat_info(140, &si) && si.nr_args == 5, "_llseek's 5 arguments");
	CHECK(t, gt_syscall_compat_info(22, &si) && si.nr_args == 1, "oldumount's 1 argument");
	CHECK(t, gt_syscall_compat_info(403, &si) && si.nr_args == 2, "clock_gettime64's 2");
	CHECK(t, !gt_syscall_compat_name(-1) && !gt_syscall_compat_name(100000), "out of range");
}

static void test_json(struct test_ctx *t)
{
	struct sd_opts o = { 0 };
	struct syscall_decoder *d = gt_syscall_decoder__new(&o);
	struct gtsc_rec_sys_enter e = enter_of(5, GTSC_SYS_F_COMPAT, 0x1000, 0, 0);
	struct gtsc_rec_sys_exit x = exit_of(5, GTSC_SYS_F_COMPAT, -2);
	struct gtsc_syscall_info si;
	struct sd_call c = { .nr = 5, .si = &si, .enter = &e, .exit = &x, .compat = true };
	char buf[512];
	struct gtsc_buf b = { buf, 0, sizeof(buf) - 1 };

	CHECK(t, d && gt_syscall_compat_info(5, &si), "setup");
	if (!d)
		return;
	gt_syscall_decoder__json(d, &b, &c);
	buf[b.len] = '\0';
	CHECK_TEXT(t, buf,
		   "\"syscall\":\"open\",\"nr\":5,\"compat\":true,\"abi\":\"i386\",\"args\":["
		   "{\"raw\":\"0x1000\"},{\"raw\":\"0\"},{\"raw\":\"0\"}],\"ret\":-2,"
		   "\"ret_text\":\"-1 ENOENT (No such file or directory)\",\"errno\":\"ENOENT\"");
	gt_syscall_decoder__free(d);
}

struct joined {
	int n;
	struct sj_call c[4];
};

static int on_call(void *ctx, const struct sj_call *c)
{
	struct joined *j = ctx;

	if (j->n < 4)
		j->c[j->n++] = *c;
	return 0;
}

/* A 64-bit execve of a 32-bit program returns as i386's execve (11). */
static void test_exec_switch(struct test_ctx *t)
{
	struct joined out = { 0 };
	struct syscall_joiner *j = gt_syscall_joiner__new(SJ_COMPLETE, on_call, &out);
	struct gtsc_rec_sys_enter e = enter_of(59, 0, 0x1000, 0x2000, 0x3000);
	struct gtsc_rec_sys_exit x = exit_of(11, GTSC_SYS_F_COMPAT, 0);

	CHECK(t, j, "joiner");
	if (!j)
		return;
	gt_syscall_joiner__enter(j, &e);
	gt_syscall_joiner__exit(j, &x);
	gt_syscall_joiner__finish(j);
	CHECK(t, out.n == 1, "%d calls, want 1", out.n);
	CHECK(t, out.c[0].enter && out.c[0].exit && out.c[0].exit->ret == 0 && out.c[0].nr == 59,
	      "execve not joined with its exit");
	gt_syscall_joiner__free(j);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "i386_names", test_i386_names },
		{ "table", test_table },
		{ "json", test_json },
		{ "exec_switch", test_exec_switch },
	};

	return RUN_TESTS("syscall_compat", cases);
}
