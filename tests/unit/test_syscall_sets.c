// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The record-time syscall filter's parser (names, globs, strace classes)
 * and the capture table syscalls.bpf.c reads: what -e syscalls=LIST and
 * the default capture turn into, without a kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include "harness.h"
#include "strbuf.h"
#include "syscall_capture.h"
#include "syscall_classes.h"

static int has(const struct gtsc_sys_set *s, int nr)
{
	return gtsc_sys_set__has(s, nr);
}

static int count(const struct gtsc_sys_set *s)
{
	int n = 0;

	for (int w = 0; w < GTSC_SYS_WORDS; w++)
		n += __builtin_popcountll(s->bits[w]);
	return n;
}

static void test_names(struct test_ctx *t)
{
	struct gtsc_sys_set s;
	struct strbuf sb = {};
	char why[256];

	CHECK(t, !gt_syscall_set__parse("openat,read,write,connect", &s, why, sizeof(why)),
	      "parse failed: %s", why);
	CHECK(t, count(&s) == 4, "%d syscalls, not 4", count(&s));
	CHECK(t, has(&s, __NR_openat) && has(&s, __NR_read) && has(&s, __NR_write) &&
			 has(&s, __NR_connect),
	      "a named syscall is missing");
	gt_syscall_set__names(&s, &sb);
	CHECK(t, sb.buf && !strcmp(sb.buf, "read,write,connect,openat"), "names: %s", sb.buf);
	gt_strbuf_free(&sb);
}

static void test_glob(struct test_ctx *t)
{
	struct gtsc_sys_set s;
	char why[256];

	CHECK(t, !gt_syscall_set__parse("*stat*", &s, why, sizeof(why)), "parse failed: %s", why);
	CHECK(t, has(&s, __NR_newfstatat) && has(&s, __NR_statx) && has(&s, __NR_fstatfs),
	      "*stat* misses a stat call");
	CHECK(t, !has(&s, __NR_openat) && !has(&s, __NR_read), "*stat* matches openat or read");
}

static void test_classes(struct test_ctx *t)
{
	struct gtsc_sys_set s;
	char why[256];

	CHECK(t, !gt_syscall_set__parse("%net,%file,getppid", &s, why, sizeof(why)),
	      "parse failed: %s", why);
	CHECK(t, has(&s, __NR_connect) && has(&s, __NR_recvfrom), "%%net misses a socket call");
	CHECK(t, has(&s, __NR_openat) && has(&s, __NR_execve) && has(&s, __NR_unlinkat),
	      "%%file misses a path call");
	CHECK(t, has(&s, __NR_getppid) && !has(&s, __NR_read) && !has(&s, __NR_mmap),
	      "the union is wrong");
}

static void test_errors(struct test_ctx *t)
{
	static const struct {
		const char *list, *why;
	} bad[] = {
		{ "openat,bogus", "unknown syscall 'bogus'" },
		{ "zzz*", "'zzz*' matches no syscall" },
		{ "%bogus", "unknown syscall class '%bogus' (known: %file" },
		{ "", "names no syscall" },
		{ "read,,write", "'' is not a syscall name" },
	};
	struct gtsc_sys_set s;
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CHECK(t, gt_syscall_set__parse(bad[i].list, &s, why, sizeof(why)) == -EINVAL,
		      "'%s' was accepted", bad[i].list);
		CHECK(t, strstr(why, bad[i].why), "'%s': said '%s'", bad[i].list, why);
	}
}

/* A few rows that the live tests and the other engineers' decoders rely on. */
static void test_capture_table(struct test_ctx *t)
{
	struct gtsc_cap_set *cap = calloc(GTSC_NR_SYSCALLS, sizeof(*cap));
	__u8 f[GTSC_NR_SYSCALLS] = {};

	if (!cap)
		return;
	gt_capture__fill(cap, f);
	CHECK(t, cap[__NR_openat].spec[0].how == GTSC_CAP_PATH && cap[__NR_openat].spec[0].arg == 1,
	      "openat's path is not argument 1");
	CHECK(t, f[__NR_openat] == (GTSC_SYS_CAP_ENTER | GTSC_SYS_ENTER_ONE), "openat's flags are %#x", f[__NR_openat]);
	CHECK(t, cap[__NR_read].spec[0].how == GTSC_CAP_OUT_BUF && f[__NR_read] == (GTSC_SYS_CAP_EXIT | GTSC_SYS_EXIT_ONE),
	      "read's buffer is not captured at exit only");
	CHECK(t, f[__NR_readlink] == (GTSC_SYS_CAP_ENTER | GTSC_SYS_CAP_EXIT | GTSC_SYS_ENTER_ONE |
				      GTSC_SYS_EXIT_ONE | 1 << GTSC_SYS_EXIT_SHIFT),
	      "readlink's path and buffer are not both captured");
	CHECK(t, (cap[__NR_execve].flags & GTSC_CAP_F_NEWMM) &&
			 cap[__NR_execve].spec[1].how == GTSC_CAP_STRV,
	      "execve's argv or NEWMM flag is missing");
	CHECK(t, cap[__NR_sendto].spec[1].how == GTSC_CAP_IN_SOCKADDR &&
			 cap[__NR_sendto].spec[1].len_arg == 5,
	      "sendto's destination is not argument 4 with its length in 5");
	CHECK(t, cap[__NR_fstat].spec[0].how == GTSC_CAP_OUT_FIXED &&
			 cap[__NR_fstat].spec[0].size == 144 && f[__NR_fstat] == (GTSC_SYS_CAP_EXIT | GTSC_SYS_EXIT_ONE),
	      "fstat's struct stat is not read at exit");
	CHECK(t, cap[__NR_rt_sigaction].spec[0].how == GTSC_CAP_IN_FIXED &&
			 cap[__NR_rt_sigaction].spec[1].how == GTSC_CAP_OUT_FIXED &&
			 f[__NR_rt_sigaction] == (GTSC_SYS_CAP_ENTER | GTSC_SYS_CAP_EXIT | GTSC_SYS_ENTER_ONE |
						  GTSC_SYS_EXIT_ONE | 1 << GTSC_SYS_EXIT_SHIFT),
	      "rt_sigaction's act and oldact are not both captured");
	/* The stack shapes: one string read at enter, or one buffer of all. */
	CHECK(t, f[__NR_rename] == GTSC_SYS_CAP_ENTER, "rename's two paths are a stack shape");
	CHECK(t, f[__NR_execve] == GTSC_SYS_CAP_ENTER, "execve's path and argv are a stack shape");
	CHECK(t, f[__NR_write] == (GTSC_SYS_CAP_ENTER | GTSC_SYS_ENTER_ONE), "write's flags are %#x",
	      f[__NR_write]);
	CHECK(t, f[__NR_sendto] == GTSC_SYS_CAP_ENTER, "sendto's data and address are a stack shape");
	CHECK(t, f[__NR_newfstatat] == (GTSC_SYS_CAP_ENTER | GTSC_SYS_CAP_EXIT | GTSC_SYS_ENTER_ONE |
					GTSC_SYS_EXIT_ONE | 1 << GTSC_SYS_EXIT_SHIFT),
	      "newfstatat's flags are %#x", f[__NR_newfstatat]);
	CHECK(t, GTSC_SYS_EXIT_SPEC(f[__NR_newfstatat]) == 1, "newfstatat's exit spec is not 1");
	CHECK(t, f[__NR_accept] == (GTSC_SYS_CAP_ENTER | GTSC_SYS_CAP_EXIT),
	      "accept's flags are %#x", f[__NR_accept]);
	CHECK(t, f[__NR_getrandom] == (GTSC_SYS_CAP_EXIT | GTSC_SYS_EXIT_ONE),
	      "getrandom's flags are %#x", f[__NR_getrandom]);
	for (int nr = 0; nr < GTSC_NR_SYSCALLS; nr++)
		for (int i = 0; i < GTSC_CAP_SPECS; i++)
			CHECK(t, cap[nr].spec[i].size <= GTSC_CAP_FIXED_MAX,
			      "syscall %d: a struct larger than the BPF side reads", nr);
	for (int nr = 0; nr < GTSC_NR_SYSCALLS; nr++)
		CHECK(t, !f[nr] == (cap[nr].spec[0].how == GTSC_CAP_NONE),
		      "syscall %d: the flags and the table disagree", nr);
	CHECK(t, !f[__NR_getppid] && !f[__NR_close], "getppid or close captures");
	free(cap);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "names", test_names },     { "glob", test_glob },
		{ "classes", test_classes }, { "errors", test_errors },
		{ "capture-table", test_capture_table },
	};

	return RUN_TESTS("syscall_sets", cases);
}
