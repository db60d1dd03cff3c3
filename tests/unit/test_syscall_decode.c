// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Syscall decoding on synthetic records: strace's text for known calls,
 * unknown flag bits and syscall numbers, captured, faulted and truncated
 * memory, errno returns, the unfinished/resumed joining of threads, and the
 * compiled-in syscall table.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "metadata.h"
#include "strbuf.h"
#include "syscall_decode.h"
#include "syscall_join.h"
#include "trace_reader.h"

/* ---- building records ---- */

struct rec {
	union {
		struct gtsc_rec_sys_enter en;
		struct gtsc_rec_sys_exit ex;
		__u8 bytes[4096];
	};
	size_t fixed, off; /* size of the fixed part, end of the payload */
};

static void rec_enter(struct rec *r, __u32 tid, __u64 ts, int nr, __u64 a0, __u64 a1, __u64 a2,
		      __u64 a3, __u64 a4, __u64 a5)
{
	memset(r, 0, sizeof(*r));
	r->en.hdr = (struct gtsc_rec_hdr){ .type = GTSC_REC_SYS_ENTER, .pid = tid, .tid = tid,
					   .ts_ns = ts };
	r->en.nr = nr;
	r->en.args[0] = a0, r->en.args[1] = a1, r->en.args[2] = a2;
	r->en.args[3] = a3, r->en.args[4] = a4, r->en.args[5] = a5;
	r->fixed = r->off = sizeof(r->en);
	r->en.hdr.size = r->off;
}

static void rec_exit(struct rec *r, __u32 tid, __u64 ts, int nr, __s64 ret)
{
	memset(r, 0, sizeof(*r));
	r->ex.hdr = (struct gtsc_rec_hdr){ .type = GTSC_REC_SYS_EXIT, .pid = tid, .tid = tid,
					   .ts_ns = ts };
	r->ex.nr = nr;
	r->ex.ret = ret;
	r->fixed = r->off = sizeof(r->ex);
	r->ex.hdr.size = r->off;
}

/* Appends a payload item as the BPF side lays it out: header, data, 8-byte alignment. */
static void rec_item(struct rec *r, int arg, int kind, int flags, int index, const void *data,
		     size_t len)
{
	struct gtsc_payload_item it = { .arg = arg, .kind = kind, .flags = flags, .index = index,
					.len = len };

	memcpy(r->bytes + r->off, &it, sizeof(it));
	memcpy(r->bytes + r->off + sizeof(it), data, len);
	r->off = (r->off + sizeof(it) + len + 7) & ~(size_t)7;
	r->en.hdr.size = r->off; /* same place in both record types */
	if (r->fixed == sizeof(r->en))
		r->en.payload_len = r->off - r->fixed;
	else
		r->ex.payload_len = r->off - r->fixed;
}

static void rec_str(struct rec *r, int arg, const char *s, int flags)
{
	rec_item(r, arg, GTSC_PAY_STR, flags, 0, s, strlen(s));
}

/* ---- syscall infos as a trace's SYSCALLS chunk gives them ---- */

static const struct gtsc_syscall_info openat_si = {
	257, "openat", 4,
	{ "int", "const char *", "int", "umode_t" },
	{ "dfd", "filename", "flags", "mode" },
};
static const struct gtsc_syscall_info read_si = {
	0, "read", 3, { "unsigned int", "char *", "size_t" }, { "fd", "buf", "count" },
};
static const struct gtsc_syscall_info wait4_si = {
	61, "wait4", 4,
	{ "pid_t", "int *", "int", "struct rusage *" },
	{ "upid", "stat_addr", "options", "ru" },
};
static const struct gtsc_syscall_info mmap_si = {
	9, "mmap", 6,
	{ "unsigned long", "unsigned long", "unsigned long", "unsigned long", "unsigned long",
	  "unsigned long" },
	{ "addr", "len", "prot", "flags", "fd", "off" },
};
/* As an old trace or a recorder without argument info would give it. */
static const struct gtsc_syscall_info openat_noargs_si = { 257, "openat", 0 };

/* ---- decoding ---- */

struct out {
	char buf[8192];
	struct gtsc_buf b;
};

static const char *decode(struct syscall_decoder *d, struct out *o,
			  const struct gtsc_syscall_info *si, int nr, const struct rec *en,
			  const struct rec *ex, enum sd_part part)
{
	struct sd_call c = { .nr = nr, .si = si, .enter = en ? &en->en : NULL,
			     .exit = ex ? &ex->ex : NULL };

	o->b = (struct gtsc_buf){ o->buf, 0, sizeof(o->buf) - 1 };
	gt_syscall_decoder__text(d, &o->b, &c, part);
	o->buf[o->b.len] = '\0';
	return o->buf;
}

#define CHECK_STR(t, got, want)                                                                    \
	CHECK(t, !strcmp((got), (want)), "got '%.220s', want '%.220s'", (got), (want))

static struct syscall_decoder *bare(void)
{
	struct sd_opts o = { .style = 0 };

	return gt_syscall_decoder__new(&o);
}

static void test_openat_forms(struct test_ctx *t)
{
	struct sd_opts names = { .style = SD_ARG_NAMES }, types = { .style = SD_ARG_TYPES };
	struct syscall_decoder *d = bare(), *dn = gt_syscall_decoder__new(&names),
			       *dt = gt_syscall_decoder__new(&types);
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 257, (__u32)-100, 0x7ffc1000, 02000000, 0, 0, 0);
	rec_str(&en, 1, "/etc/hostname", 0);
	rec_exit(&ex, 10, 200, 257, 3);
	CHECK_STR(t, decode(d, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY|O_CLOEXEC) = 3");
	CHECK_STR(t, decode(dn, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(dfd: AT_FDCWD, filename: \"/etc/hostname\", "
		  "flags: O_RDONLY|O_CLOEXEC) = 3");
	CHECK_STR(t, decode(dt, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(int dfd: AT_FDCWD, const char * filename: \"/etc/hostname\", "
		  "int flags: O_RDONLY|O_CLOEXEC) = 3");
	/* The mode shows only with O_CREAT, as octal. */
	en.en.args[2] = 01 | 0100 | 01000;
	en.en.args[3] = 0640;
	CHECK_STR(t, decode(d, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(AT_FDCWD, \"/etc/hostname\", O_WRONLY|O_CREAT|O_TRUNC, 0640) = 3");
	gt_syscall_decoder__free(d);
	gt_syscall_decoder__free(dn);
	gt_syscall_decoder__free(dt);
}

static void test_unknown_bits(struct test_ctx *t)
{
	struct syscall_decoder *d = bare();
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 257, 3, 0, 0x800000, 0, 0, 0);
	rec_exit(&ex, 10, 200, 257, 4);
	CHECK_STR(t, decode(d, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(3, NULL, O_RDONLY|0x800000) = 4");
	rec_enter(&en, 10, 100, 9, 0, 4096, 0x3 | 0x40000000, 0x22 | 0x80000000, -1, 0x26000);
	rec_exit(&ex, 10, 200, 9, 0x7f0000001000);
	CHECK_STR(t, decode(d, &o, &mmap_si, 9, &en, &ex, SD_WHOLE),
		  "mmap(NULL, 4096, PROT_READ|PROT_WRITE|0x40000000, "
		  "MAP_PRIVATE|MAP_ANONYMOUS|0x80000000, -1, 0x26000) = 0x7f0000001000");
	gt_syscall_decoder__free(d);
}

static void test_unknown_syscall(struct test_ctx *t)
{
	struct syscall_decoder *d = bare();
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 999, 1, 0x20, 0, 0xffffffffffffffffULL, 5, 6);
	rec_exit(&ex, 10, 200, 999, -38);
	CHECK_STR(t, decode(d, &o, NULL, 999, &en, &ex, SD_WHOLE),
		  "syscall_999(0x1, 0x20, 0, 0xffffffffffffffff, 0x5, 0x6) = "
		  "-1 ENOSYS (Function not implemented)");
	gt_syscall_decoder__free(d);
}

static void test_errno_returns(struct test_ctx *t)
{
	struct syscall_decoder *d = bare();
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 257, (__u32)-100, 0x1000, 0, 0, 0, 0);
	rec_str(&en, 1, "/nonexistent", 0);
	rec_exit(&ex, 10, 200, 257, -2);
	CHECK_STR(t, decode(d, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(AT_FDCWD, \"/nonexistent\", O_RDONLY) = "
		  "-1 ENOENT (No such file or directory)");
	rec_enter(&en, 10, 100, 0, 3, 0x1000, 10, 0, 0, 0);
	rec_exit(&ex, 10, 200, 0, -512);
	CHECK_STR(t, decode(d, &o, &read_si, 0, &en, &ex, SD_WHOLE),
		  "read(3, 0x1000, 10) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
	rec_exit(&ex, 10, 200, 0, -4000);
	CHECK_STR(t, decode(d, &o, &read_si, 0, &en, &ex, SD_WHOLE),
		  "read(3, 0x1000, 10) = -1 (errno 4000)");
	gt_syscall_decoder__free(d);
}

static void test_fault_and_retry(struct test_ctx *t)
{
	struct syscall_decoder *d = bare();
	struct rec en, ex;
	struct out o;

	/* Faulted at enter, nothing at exit: the pointer, never garbage. */
	rec_enter(&en, 10, 100, 257, (__u32)-100, 0x7ffc1000, 0, 0, 0, 0);
	rec_item(&en, 1, GTSC_PAY_STR, GTSC_PAY_FAULT, 0, "", 0);
	rec_exit(&ex, 10, 200, 257, 3);
	CHECK_STR(t, decode(d, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(AT_FDCWD, 0x7ffc1000, O_RDONLY) = 3");
	/* Retried at exit: the string. */
	rec_str(&ex, 1, "/retried", 0);
	CHECK_STR(t, decode(d, &o, &openat_si, 257, &en, &ex, SD_WHOLE),
		  "openat(AT_FDCWD, \"/retried\", O_RDONLY) = 3");
	gt_syscall_decoder__free(d);
}

static void test_truncated_and_quoting(struct test_ctx *t)
{
	struct sd_opts s4 = { .max_data = 4 };
	struct syscall_decoder *d = bare(), *d4 = gt_syscall_decoder__new(&s4);
	static const __u8 elf[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 3, 0, 0, '1', '"', '\\', '\n' };
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 0, 3, 0x1000, 832, 0, 0, 0);
	rec_exit(&ex, 10, 200, 0, 832);
	rec_item(&ex, 1, GTSC_PAY_BUF, GTSC_PAY_TRUNCATED, 0, elf, sizeof(elf));
	CHECK_STR(t, decode(d, &o, &read_si, 0, &en, &ex, SD_WHOLE),
		  "read(3, \"\\177ELF\\2\\1\\1\\3\\0\\0001\\\"\\\\\\n\"..., 832) = 832");
	/* report -s 4 cuts further */
	CHECK_STR(t, decode(d4, &o, &read_si, 0, &en, &ex, SD_WHOLE),
		  "read(3, \"\\177ELF\"..., 832) = 832");
	/* A failed read shows its buffer as the pointer, like strace. */
	rec_exit(&ex, 10, 200, 0, -11);
	CHECK_STR(t, decode(d, &o, &read_si, 0, &en, &ex, SD_WHOLE),
		  "read(3, 0x1000, 832) = -1 EAGAIN (Resource temporarily unavailable)");
	gt_syscall_decoder__free(d);
	gt_syscall_decoder__free(d4);
}

static void test_parts(struct test_ctx *t)
{
	struct syscall_decoder *d = bare();
	__u32 status = 3 << 8;
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 61, 1234, 0x7ffc2000, 0, 0, 0, 0);
	rec_exit(&ex, 10, 900, 61, 1234);
	rec_item(&ex, 1, GTSC_PAY_BUF, 0, 0, &status, 4);
	CHECK_STR(t, decode(d, &o, &wait4_si, 61, &en, NULL, SD_ENTER_PART),
		  "wait4(1234,  <unfinished ...>");
	CHECK_STR(t, decode(d, &o, &wait4_si, 61, &en, &ex, SD_EXIT_PART),
		  "<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 1234");
	CHECK_STR(t, decode(d, &o, &wait4_si, 61, NULL, &ex, SD_EXIT_PART),
		  "<... wait4 resumed>) = 1234");
	CHECK_STR(t, decode(d, &o, &wait4_si, 61, &en, NULL, SD_WHOLE),
		  "wait4(1234, 0x7ffc2000, 0, NULL) = ?");
	gt_syscall_decoder__free(d);
}

/* A trace without argument info for a syscall: the compiled-in table fills in. */
static void test_builtin_args(struct test_ctx *t)
{
	struct sd_opts names = { .style = SD_ARG_NAMES };
	struct syscall_decoder *d = gt_syscall_decoder__new(&names);
	struct strbuf sb = {};
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 257, (__u32)-100, 0, 0, 0, 0, 0);
	rec_exit(&ex, 10, 200, 257, 3);
	CHECK_STR(t, decode(d, &o, &openat_noargs_si, 257, &en, &ex, SD_WHOLE),
		  "openat(dfd: AT_FDCWD, filename: NULL, flags: O_RDONLY) = 3");
	/* No tracefs at record time: the SYSCALLS chunk comes from the same table. */
	gt_meta__syscalls(NULL, &sb);
	CHECK(t, sb.buf && strstr(sb.buf, "\n257\topenat\tint\tdfd\tconst char *\tfilename"
					   "\tint\tflags\tumode_t\tmode\n"),
	      "no builtin openat line");
	CHECK(t, sb.buf && strstr(sb.buf, "\n4\tstat\tconst char *\tfilename"
					   "\tstruct stat *\tstatbuf\n"),
	      "stat lost its arguments (tracefs calls it newstat)");
	CHECK(t, sb.buf && strstr(sb.buf, "\n39\tgetpid\n"), "no getpid line");
	gt_strbuf_free(&sb);
	gt_syscall_decoder__free(d);
}

/* Writes DIR/events/syscalls/sys_enter_NAME/format holding FIELDS. */
static int fake_format(const char *dir, const char *name, const char *fields)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/events/syscalls/sys_enter_%s", dir, name);
	if (system(path))
		return -1;
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "name: sys_enter_%s\nID: 1\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		   "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n%s\n"
		   "print fmt: \"\"\n", name, fields);
	return fclose(f);
}

/* 6.19+ formats (as Debian's 7.3.4 has them) add the user memory they copy as fields. */
static void test_tracefs_user_fields(struct test_ctx *t)
{
	char dir[] = "/tmp/gtsc-unit-tracefs-XXXXXX", cmd[64];
	struct strbuf sb = {};

	if (!mkdtemp(dir) ||
	    fake_format(dir, "write",
			"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
			"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
			"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"
			"\tfield:__data_loc char[] __buf_val;\toffset:40;\tsize:4;\tsigned:0;\n") ||
	    fake_format(dir, "openat",
			"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
			"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
			"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
			"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
			"\tfield:__data_loc char[] __filename_val;\toffset:48;\tsize:4;\tsigned:0;\n")) {
		CHECK(t, 0, "cannot write a fake tracefs in /tmp");
		return;
	}
	CHECK(t, gt_meta__syscalls(dir, &sb) == 2, "not 2 syscalls from the fake tracefs");
	CHECK(t, sb.buf && strstr(sb.buf, "\n1\twrite\tunsigned int\tfd\tconst char *\tbuf"
					   "\tsize_t\tcount\n"),
	      "write's __buf_val taken for an argument");
	CHECK(t, sb.buf && strstr(sb.buf, "\n257\topenat\tint\tdfd\tconst char *\tfilename"
					   "\tint\tflags\tumode_t\tmode\n"),
	      "openat's __filename_val taken for an argument");
	gt_strbuf_free(&sb);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(t, system(cmd) == 0, "rm %s", dir);
}

static void test_structs(struct test_ctx *t)
{
	static const struct gtsc_syscall_info connect_si = {
		42, "connect", 3,
		{ "int", "struct sockaddr *", "int" },
		{ "fd", "uservaddr", "addrlen" },
	};
	static const struct gtsc_syscall_info fstat_si = {
		5, "fstat", 2, { "unsigned int", "struct stat *" }, { "fd", "statbuf" },
	};
	static const __u8 sin[16] = { 2, 0, 0x1f, 0x90, 127, 0, 0, 1 };
	static const __u8 sun[] = { 1, 0, '/', 't', 'm', 'p', '/', 's', 0 };
	static const struct gtsc_syscall_info poll_si = {
		7, "poll", 3,
		{ "struct pollfd *", "unsigned int", "int" },
		{ "ufds", "nfds", "timeout_msecs" },
	};
	static const __u8 pfd[16] = { 3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 4, 0x80, 0, 0 };
	__u8 st[144] = {};
	struct syscall_decoder *d = bare();
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 42, 4, 0x1000, 16, 0, 0, 0);
	rec_item(&en, 1, GTSC_PAY_SOCKADDR, 0, 0, sin, sizeof(sin));
	rec_exit(&ex, 10, 200, 42, 0);
	CHECK_STR(t, decode(d, &o, &connect_si, 42, &en, &ex, SD_WHOLE),
		  "connect(4, {sa_family=AF_INET, sin_port=htons(8080), "
		  "sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0");
	rec_enter(&en, 10, 100, 42, 4, 0x1000, sizeof(sun), 0, 0, 0);
	rec_item(&en, 1, GTSC_PAY_SOCKADDR, 0, 0, sun, sizeof(sun));
	CHECK_STR(t, decode(d, &o, &connect_si, 42, &en, &ex, SD_WHOLE),
		  "connect(4, {sa_family=AF_UNIX, sun_path=\"/tmp/s\"}, 9) = 0");
	*(__u32 *)(st + 24) = 0100644;
	*(__u64 *)(st + 48) = 53415;
	rec_enter(&en, 10, 100, 5, 3, 0x2000, 0, 0, 0, 0);
	rec_exit(&ex, 10, 200, 5, 0);
	rec_item(&ex, 1, GTSC_PAY_BUF, 0, 0, st, sizeof(st));
	CHECK_STR(t, decode(d, &o, &fstat_si, 5, &en, &ex, SD_WHOLE),
		  "fstat(3, {st_mode=S_IFREG|0644, st_size=53415, ...}) = 0");
	rec_enter(&en, 10, 100, 7, 0x3000, 2, 0, 0, 0, 0);
	rec_item(&en, 0, GTSC_PAY_BUF, 0, 0, pfd, sizeof(pfd));
	rec_exit(&ex, 10, 200, 7, 1);
	CHECK_STR(t, decode(d, &o, &poll_si, 7, &en, &ex, SD_WHOLE),
		  "poll([{fd=3, events=POLLIN}, {fd=4, events=POLLOUT|0x8000}], 2, 0) = 1");
	gt_syscall_decoder__free(d);
}

/* What the fixed-size captures (GTSC_CAP_IN_FIXED/OUT_FIXED) carry, in strace's words. */
static void test_captured_structs(struct test_ctx *t)
{
	static const struct gtsc_syscall_info stat_si = {
		4, "stat", 2, { "const char *", "struct stat *" }, { "filename", "statbuf" },
	};
	static const struct gtsc_syscall_info pipe2_si = {
		293, "pipe2", 2, { "int *", "int" }, { "fildes", "flags" },
	};
	static const struct gtsc_syscall_info sigaction_si = {
		13, "rt_sigaction", 4,
		{ "int", "const struct sigaction *", "struct sigaction *", "size_t" },
		{ "sig", "act", "oact", "sigsetsize" },
	};
	static const struct gtsc_syscall_info getsockname_si = {
		51, "getsockname", 3,
		{ "int", "struct sockaddr *", "int *" },
		{ "fd", "usockaddr", "usockaddr_len" },
	};
	static const struct gtsc_syscall_info setsockopt_si = {
		54, "setsockopt", 5,
		{ "int", "int", "int", "char *", "int" },
		{ "fd", "level", "optname", "optval", "optlen" },
	};
	static const __u8 sin[16] = { 2, 0, 0x1f, 0x90, 127, 0, 0, 1 };
	__u8 st[144] = {}, act[32] = {}, old[32] = {};
	__s32 fds[2] = { 3, 4 }, one = 1, wide[2] = { 1, 0 };
	__u32 status = 0, len_in = 128, len_out = 16;
	struct syscall_decoder *d = bare();
	struct rec en, ex;
	struct out o;

	/* stat: a char device shows st_rdev instead of st_size; a failed call, its pointer */
	*(__u32 *)(st + 24) = 020666;
	*(__u64 *)(st + 40) = 0x103;
	rec_enter(&en, 10, 100, 4, 0x1000, 0x2000, 0, 0, 0, 0);
	rec_str(&en, 0, "/dev/null", 0);
	rec_exit(&ex, 10, 200, 4, 0);
	rec_item(&ex, 1, GTSC_PAY_BUF, 0, 0, st, sizeof(st));
	CHECK_STR(t, decode(d, &o, &stat_si, 4, &en, &ex, SD_WHOLE),
		  "stat(\"/dev/null\", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}) = 0");
	rec_exit(&ex, 10, 200, 4, -2);
	CHECK_STR(t, decode(d, &o, &stat_si, 4, &en, &ex, SD_WHOLE),
		  "stat(\"/dev/null\", 0x2000) = -1 ENOENT (No such file or directory)");
	/* a faulted read: the pointer, never the bytes */
	rec_exit(&ex, 10, 200, 4, 0);
	rec_item(&ex, 1, GTSC_PAY_BUF, GTSC_PAY_FAULT, 0, "", 0);
	CHECK_STR(t, decode(d, &o, &stat_si, 4, &en, &ex, SD_WHOLE),
		  "stat(\"/dev/null\", 0x2000) = 0");

	rec_enter(&en, 10, 100, 293, 0x3000, 02000000, 0, 0, 0, 0);
	rec_exit(&ex, 10, 200, 293, 0);
	rec_item(&ex, 0, GTSC_PAY_BUF, 0, 0, fds, sizeof(fds));
	CHECK_STR(t, decode(d, &o, &pipe2_si, 293, &en, &ex, SD_WHOLE),
		  "pipe2([3, 4], O_CLOEXEC) = 0");

	/* wait4: WNOHANG with no child ready wrote nothing */
	rec_enter(&en, 10, 100, 61, -1, 0x7ffc2000, 1, 0, 0, 0);
	rec_exit(&ex, 10, 200, 61, 0);
	rec_item(&ex, 1, GTSC_PAY_BUF, 0, 0, &status, 4);
	CHECK_STR(t, decode(d, &o, &wait4_si, 61, &en, &ex, SD_WHOLE),
		  "wait4(-1, 0x7ffc2000, WNOHANG, NULL) = 0");
	status = 9; /* killed by SIGKILL */
	rec_exit(&ex, 10, 200, 61, 77);
	rec_item(&ex, 1, GTSC_PAY_BUF, 0, 0, &status, 4);
	CHECK_STR(t, decode(d, &o, &wait4_si, 61, &en, &ex, SD_WHOLE),
		  "wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}], WNOHANG, NULL) = 77");

	/* rt_sigaction: act at enter, oldact at exit */
	*(__u64 *)act = 0x401000;
	*(__u64 *)(act + 8) = 0x14000000; /* SA_RESTORER|SA_RESTART */
	*(__u64 *)(act + 16) = 0x7f0000001000;
	*(__u64 *)(act + 24) = 1ULL << 11; /* SIGUSR2 */
	rec_enter(&en, 10, 100, 13, 10, 0x5000, 0x6000, 8, 0, 0);
	rec_item(&en, 1, GTSC_PAY_BUF, 0, 0, act, sizeof(act));
	rec_exit(&ex, 10, 200, 13, 0);
	rec_item(&ex, 2, GTSC_PAY_BUF, 0, 0, old, sizeof(old));
	CHECK_STR(t, decode(d, &o, &sigaction_si, 13, &en, &ex, SD_WHOLE),
		  "rt_sigaction(SIGUSR1, {sa_handler=0x401000, sa_mask=[USR2], "
		  "sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x7f0000001000}, "
		  "{sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0");

	/* a value-result socklen: [in], [in => out]; a failed call shows what went in */
	rec_enter(&en, 10, 100, 51, 3, 0x7000, 0x8000, 0, 0, 0);
	rec_item(&en, 2, GTSC_PAY_BUF, 0, 0, &len_in, 4);
	rec_exit(&ex, 10, 200, 51, 0);
	rec_item(&ex, 1, GTSC_PAY_SOCKADDR, 0, 0, sin, sizeof(sin));
	rec_item(&ex, 2, GTSC_PAY_BUF, 0, 0, &len_out, 4);
	CHECK_STR(t, decode(d, &o, &getsockname_si, 51, &en, &ex, SD_WHOLE),
		  "getsockname(3, {sa_family=AF_INET, sin_port=htons(8080), "
		  "sin_addr=inet_addr(\"127.0.0.1\")}, [128 => 16]) = 0");
	rec_exit(&ex, 10, 200, 51, -9);
	CHECK_STR(t, decode(d, &o, &getsockname_si, 51, &en, &ex, SD_WHOLE),
		  "getsockname(3, 0x7000, [128]) = -1 EBADF (Bad file descriptor)");

	/* setsockopt: an int option, else the pointer */
	rec_enter(&en, 10, 100, 54, 3, 1, 2, 0x9000, 4, 0);
	rec_item(&en, 3, GTSC_PAY_BUF, 0, 0, &one, 4);
	rec_exit(&ex, 10, 200, 54, 0);
	CHECK_STR(t, decode(d, &o, &setsockopt_si, 54, &en, &ex, SD_WHOLE),
		  "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0");
	rec_enter(&en, 10, 100, 54, 3, 1, 13, 0x9000, 8, 0);
	rec_item(&en, 3, GTSC_PAY_BUF, 0, 0, wide, sizeof(wide));
	CHECK_STR(t, decode(d, &o, &setsockopt_si, 54, &en, &ex, SD_WHOLE),
		  "setsockopt(3, SOL_SOCKET, SO_LINGER, 0x9000, 8) = 0");
	gt_syscall_decoder__free(d);
}

static void test_special_args(struct test_ctx *t)
{
	static const struct gtsc_syscall_info clone_si = {
		56, "clone", 5,
		{ "unsigned long", "unsigned long", "int *", "int *", "unsigned long" },
		{ "clone_flags", "newsp", "parent_tidptr", "child_tidptr", "tls" },
	};
	static const struct gtsc_syscall_info futex_si = {
		202, "futex", 6,
		{ "u32 *", "int", "u32", "const struct __kernel_timespec *", "u32 *", "u32" },
		{ "uaddr", "op", "val", "utime", "uaddr2", "val3" },
	};
	static const struct gtsc_syscall_info ioctl_si = {
		16, "ioctl", 3, { "unsigned int", "unsigned int", "unsigned long" },
		{ "fd", "cmd", "arg" },
	};
	static const struct gtsc_syscall_info fcntl_si = {
		72, "fcntl", 3, { "unsigned int", "unsigned int", "unsigned long" },
		{ "fd", "cmd", "arg" },
	};
	struct syscall_decoder *d = bare();
	struct rec en, ex;
	struct out o;

	rec_enter(&en, 10, 100, 56, 0x01200011, 0, 0, 0x7f00, 0, 0);
	rec_exit(&ex, 10, 200, 56, 4242);
	CHECK_STR(t, decode(d, &o, &clone_si, 56, &en, &ex, SD_WHOLE),
		  "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
		  "child_tidptr=0x7f00) = 4242");
	rec_enter(&en, 10, 100, 202, 0x1000, 9 | 128 | 256, 0, 0, 0, 0xffffffff);
	rec_exit(&ex, 10, 200, 202, -110);
	CHECK_STR(t, decode(d, &o, &futex_si, 202, &en, &ex, SD_WHOLE),
		  "futex(0x1000, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, NULL, "
		  "FUTEX_BITSET_MATCH_ANY) = -1 ETIMEDOUT (Connection timed out)");
	rec_enter(&en, 10, 100, 202, 0x1000, 1 | 128, 1, 0, 0, 0);
	rec_exit(&ex, 10, 200, 202, 0);
	CHECK_STR(t, decode(d, &o, &futex_si, 202, &en, &ex, SD_WHOLE),
		  "futex(0x1000, FUTEX_WAKE_PRIVATE, 1) = 0");
	rec_enter(&en, 10, 100, 16, 1, 0x5401, 0x2000, 0, 0, 0);
	rec_exit(&ex, 10, 200, 16, -25);
	CHECK_STR(t, decode(d, &o, &ioctl_si, 16, &en, &ex, SD_WHOLE),
		  "ioctl(1, TCGETS, 0x2000) = -1 ENOTTY (Inappropriate ioctl for device)");
	rec_enter(&en, 10, 100, 16, 1, 0x80081299, 0x2000, 0, 0, 0);
	rec_exit(&ex, 10, 200, 16, 0);
	CHECK_STR(t, decode(d, &o, &ioctl_si, 16, &en, &ex, SD_WHOLE),
		  "ioctl(1, _IOC(_IOC_READ, 0x12, 0x99, 0x8), 0x2000) = 0");
	rec_enter(&en, 10, 100, 72, 3, 3, 0, 0, 0, 0);
	rec_exit(&ex, 10, 200, 72, 0x8002);
	CHECK_STR(t, decode(d, &o, &fcntl_si, 72, &en, &ex, SD_WHOLE),
		  "fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)");
	gt_syscall_decoder__free(d);
}

static void test_json(struct test_ctx *t)
{
	struct sd_opts names = { .style = SD_ARG_NAMES };
	struct syscall_decoder *d = gt_syscall_decoder__new(&names);
	struct rec en, ex;
	struct sd_call c = { .nr = 257, .si = &openat_si, .enter = &en.en, .exit = &ex.ex };
	struct out o = { .b = { o.buf, 0, sizeof(o.buf) - 1 } };

	rec_enter(&en, 10, 100, 257, (__u32)-100, 0x1000, 0, 0, 0, 0);
	rec_str(&en, 1, "/x\"y", 0);
	rec_exit(&ex, 10, 200, 257, -2);
	gt_syscall_decoder__json(d, &o.b, &c);
	o.buf[o.b.len] = '\0';
	CHECK(t, strstr(o.buf, "\"syscall\":\"openat\",\"nr\":257,\"args\":[{\"name\":\"dfd\","
			       "\"type\":\"int\",\"raw\":\"0xffffff9c\",\"value\":\"AT_FDCWD\"}"),
	      "dfd: %.400s", o.buf);
	CHECK(t, strstr(o.buf, "\"value\":\"\\\"/x\\\\\\\"y\\\"\""), "filename: %.400s", o.buf);
	CHECK(t, strstr(o.buf, "\"ret\":-2,\"ret_text\":\"-1 ENOENT (No such file or directory)\","
			       "\"errno\":\"ENOENT\""),
	      "ret: %.400s", o.buf);
	gt_syscall_decoder__free(d);
}

/* ---- joining ---- */

struct joined {
	char text[4096];
	struct syscall_decoder *d;
};

static int collect(void *ctx, const struct sj_call *c)
{
	struct joined *j = ctx;
	const struct gtsc_syscall_info *si = c->nr == 61 ? &wait4_si : &read_si;
	struct sd_call sc = { .nr = c->nr, .si = si, .enter = c->enter, .exit = c->exit };
	size_t len = strlen(j->text);
	struct gtsc_buf b = { j->text + len, 0, sizeof(j->text) - len - 2 };

	gtsc_buf__putu(&b, c->tid);
	gtsc_buf__putc(&b, ' ');
	gt_syscall_decoder__text(j->d, &b, &sc, c->part);
	gtsc_buf__putc(&b, '\n');
	b.p[b.len] = '\0';
	return 0;
}

static void test_join_stream(struct test_ctx *t)
{
	struct joined out = { .d = bare() };
	struct syscall_joiner *j = gt_syscall_joiner__new(SJ_STREAM, collect, &out);
	struct rec a, b;

	/*
	 * 1: wait4 enters; 2: read enters and returns; 1: wait4 returns; 3: a
	 * read's exit without its enter; 2: read enters, the thread exits.
	 */
	rec_enter(&a, 1, 10, 61, 2, 0x1000, 0, 0, 0, 0);
	gt_syscall_joiner__enter(j, &a.en);
	rec_enter(&b, 2, 20, 0, 5, 0x2000, 10, 0, 0, 0);
	gt_syscall_joiner__enter(j, &b.en);
	rec_exit(&b, 2, 30, 0, 10);
	gt_syscall_joiner__exit(j, &b.ex);
	rec_exit(&a, 1, 40, 61, 2);
	gt_syscall_joiner__exit(j, &a.ex);
	rec_exit(&b, 3, 45, 0, 7); /* entered before the trace */
	gt_syscall_joiner__exit(j, &b.ex);
	rec_enter(&b, 2, 50, 0, 5, 0x2000, 10, 0, 0, 0);
	gt_syscall_joiner__enter(j, &b.en);
	gt_syscall_joiner__thread_exit(j, 2, 60);
	gt_syscall_joiner__finish(j);
	CHECK_STR(t, out.text,
		  "1 wait4(2,  <unfinished ...>\n"
		  "2 read(5, 0x2000, 10) = 10\n"
		  "1 <... wait4 resumed>0x1000, 0, NULL) = 2\n"
		  "3 <... read resumed>) = 7\n"
		  "2 read(5, 0x2000, 10) = ?\n");
	gt_syscall_joiner__free(j);
	gt_syscall_decoder__free(out.d);
}

static void test_join_complete(struct test_ctx *t)
{
	struct joined out = { .d = bare() };
	struct syscall_joiner *j = gt_syscall_joiner__new(SJ_COMPLETE, collect, &out);
	struct rec a, b;

	rec_enter(&a, 1, 10, 61, 2, 0x1000, 0, 0, 0, 0);
	gt_syscall_joiner__enter(j, &a.en);
	rec_enter(&b, 2, 20, 0, 5, 0x2000, 10, 0, 0, 0);
	gt_syscall_joiner__enter(j, &b.en);
	rec_exit(&a, 1, 40, 61, -10);
	gt_syscall_joiner__exit(j, &a.ex);
	/* 2 enters again: its first read's exit was lost */
	rec_enter(&b, 2, 50, 0, 6, 0x3000, 1, 0, 0, 0);
	gt_syscall_joiner__enter(j, &b.en);
	gt_syscall_joiner__finish(j);
	CHECK_STR(t, out.text,
		  "1 wait4(2, 0x1000, 0, NULL) = -1 ECHILD (No child processes)\n"
		  "2 read(5, 0x2000, 10) = ?\n"
		  "2 read(6, 0x3000, 1) = ?\n");
	gt_syscall_joiner__free(j);
	gt_syscall_decoder__free(out.d);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "openat_forms", test_openat_forms },
		{ "unknown_flag_bits", test_unknown_bits },
		{ "unknown_syscall", test_unknown_syscall },
		{ "errno_returns", test_errno_returns },
		{ "fault_and_retry", test_fault_and_retry },
		{ "truncated_and_quoting", test_truncated_and_quoting },
		{ "unfinished_resumed_parts", test_parts },
		{ "builtin_table", test_builtin_args },
		{ "tracefs_user_fields", test_tracefs_user_fields },
		{ "structs", test_structs },
		{ "captured_structs", test_captured_structs },
		{ "dependent_args", test_special_args },
		{ "json", test_json },
		{ "join_stream", test_join_stream },
		{ "join_complete", test_join_complete },
	};

	return RUN_TESTS("syscall_decode", cases);
}
