// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Value printers of the syscall decoder: pure functions from a number or
 * captured bytes to strace's text, appended to a fixed buffer.  No printf
 * and no allocation: they run for every argument of millions of calls.
 * Captured structs are x86-64 layouts, read byte by byte (little endian).
 */
#include <arpa/inet.h>
#include <string.h>
#include "syscall_print.h"

/* strace's %#03o: 000, 022, 0644. */
void gt_sp_oct(struct gtsc_buf *b, __u64 v)
{
	if (!v) {
		gtsc_buf__puts(b, "000");
		return;
	}
	gtsc_buf__putc(b, '0');
	buf_digits(b, v, 8, 2);
}

/* strace's string quoting: C escapes, \ooo (short unless a digit follows), or all \xHH. */
void gt_sp_quoted(struct gtsc_buf *b, const __u8 *s, size_t n, bool more, bool hex)
{
	gtsc_buf__putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		__u8 c = s[i];
		const char *esc = NULL;

		if (hex) {
			gtsc_buf__puts(b, "\\x");
			buf_digits(b, c, 16, 2);
			continue;
		}
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		}
		if (esc) {
			gtsc_buf__puts(b, esc);
		} else if (c >= ' ' && c <= 0x7e) {
			gtsc_buf__putc(b, c);
		} else {
			bool digit_next = i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9';

			gtsc_buf__putc(b, '\\');
			buf_digits(b, c, 8, digit_next ? 3 : 1);
		}
	}
	gtsc_buf__putc(b, '"');
	if (more)
		gtsc_buf__puts(b, "...");
}

const char *gt_xlat_name(const struct xlat *x, __u64 v)
{
	for (unsigned int i = 0; i < x->n; i++)
		if (x->e[i].val == v)
			return x->e[i].name;
	return NULL;
}

void gt_sp_enum(struct gtsc_buf *b, const struct xlat *x, __u64 v)
{
	const char *name = gt_xlat_name(x, v);

	if (name) {
		gtsc_buf__puts(b, name);
		return;
	}
	gtsc_buf__putx(b, v);
	if (x->unknown) {
		gtsc_buf__puts(b, " /* ");
		gtsc_buf__puts(b, x->unknown);
		gtsc_buf__puts(b, " */");
	}
}

/*
 * Known names in table order, then the bits left as hex.  SEP_FIRST: V
 * extends a name already printed.
 */
static void sp_flags_cont(struct gtsc_buf *b, const struct xlat *x, __u64 v, bool sep_first)
{
	bool sep = sep_first;

	for (unsigned int i = 0; i < x->n && v; i++) {
		__u64 f = x->e[i].val;

		if (!f || (v & f) != f)
			continue;
		if (sep)
			gtsc_buf__putc(b, '|');
		gtsc_buf__puts(b, x->e[i].name);
		v &= ~f;
		sep = true;
	}
	if (v) {
		if (sep)
			gtsc_buf__putc(b, '|');
		gtsc_buf__putx(b, v);
	}
}

void gt_sp_flags(struct gtsc_buf *b, const struct xlat *x, __u64 v)
{
	if (!v) {
		gtsc_buf__puts(b, x->zero ? x->zero : "0");
		return;
	}
	sp_flags_cont(b, x, v, false);
}

void gt_sp_signal(struct gtsc_buf *b, __s64 sig)
{
	const char *name = sig > 0 ? gt_xlat_name(&gt_xlat_signals, sig) : NULL;

	if (name) {
		gtsc_buf__puts(b, name);
	} else if (sig > 32 && sig <= 64) {
		gtsc_buf__puts(b, "SIGRT_");
		gtsc_buf__putu(b, sig - 32);
	} else {
		gtsc_buf__puti(b, sig);
	}
}

static __u16 sp_get16(const __u8 *p)
{
	return p[0] | p[1] << 8;
}

__u32 gt_sp_get32(const __u8 *p)
{
	return sp_get16(p) | (__u32)sp_get16(p + 2) << 16;
}

__u64 gt_sp_get64(const __u8 *p)
{
	return gt_sp_get32(p) | (__u64)gt_sp_get32(p + 4) << 32;
}

static void sp_inet(struct gtsc_buf *b, int af, const __u8 *addr)
{
	char s[64];

	if (inet_ntop(af, addr, s, sizeof(s)))
		gtsc_buf__puts(b, s);
}

void gt_sp_sockaddr(struct gtsc_buf *b, const __u8 *p, size_t n)
{
	__u16 af;

	if (n < 2) {
		gtsc_buf__puts(b, "{}");
		return;
	}
	af = sp_get16(p);
	gtsc_buf__puts(b, "{sa_family=");
	gt_sp_enum(b, &gt_xlat_address_family, af);
	if (af == 1 && n > 2) { /* AF_UNIX; abstract names start with a NUL */
		const __u8 *path = p + 2;
		size_t len = n - 2;

		gtsc_buf__puts(b, ", sun_path=");
		if (path[0] == 0) {
			gtsc_buf__putc(b, '@');
			path++, len--;
		} else {
			len = strnlen((const char *)path, len);
		}
		gt_sp_quoted(b, path, len, false, false);
	} else if (af == 2 && n >= 8) { /* AF_INET */
		gtsc_buf__puts(b, ", sin_port=htons(");
		gtsc_buf__putu(b, p[2] << 8 | p[3]);
		gtsc_buf__puts(b, "), sin_addr=inet_addr(\"");
		sp_inet(b, AF_INET, p + 4);
		gtsc_buf__puts(b, "\")");
	} else if (af == 10 && n >= 28) { /* AF_INET6 */
		gtsc_buf__puts(b, ", sin6_port=htons(");
		gtsc_buf__putu(b, p[2] << 8 | p[3]);
		gtsc_buf__puts(b, "), sin6_flowinfo=htonl(");
		gtsc_buf__putu(b, (__u32)p[4] << 24 | p[5] << 16 | p[6] << 8 | p[7]);
		gtsc_buf__puts(b, "), inet_pton(AF_INET6, \"");
		sp_inet(b, AF_INET6, p + 8);
		gtsc_buf__puts(b, "\", &sin6_addr), sin6_scope_id=");
		gtsc_buf__putu(b, gt_sp_get32(p + 24));
	} else if (af == 16 && n >= 12) { /* AF_NETLINK */
		gtsc_buf__puts(b, ", nl_pid=");
		gtsc_buf__putu(b, gt_sp_get32(p + 4));
		gtsc_buf__puts(b, ", nl_groups=");
		buf_digits(b, gt_sp_get32(p + 8), 16, 8);
	} else if (n > 2) {
		gtsc_buf__puts(b, ", sa_data=");
		gt_sp_quoted(b, p + 2, n - 2, false, false);
	}
	gtsc_buf__putc(b, '}');
}

void gt_sp_mode(struct gtsc_buf *b, __u64 mode)
{
	const char *type = gt_xlat_name(&gt_xlat_file_type, mode & 0170000);
	bool sep = false;

	if (type) {
		gtsc_buf__puts(b, type);
		sep = true;
	}
	if (mode & 07000) {
		sp_flags_cont(b, &gt_xlat_mode_bits, mode & 07000, sep);
		sep = true;
	}
	if (sep)
		gtsc_buf__putc(b, '|');
	gt_sp_oct(b, mode & 0777);
}

/* x86-64 struct stat: the summary strace prints without -v. */
void gt_sp_stat(struct gtsc_buf *b, const __u8 *p, size_t n)
{
	__u32 mode;
	__u64 rdev;

	if (n < 56) {
		gtsc_buf__puts(b, "{...}");
		return;
	}
	mode = gt_sp_get32(p + 24);
	rdev = gt_sp_get64(p + 40);
	gtsc_buf__puts(b, "{st_mode=");
	gt_sp_mode(b, mode);
	if ((mode & 0170000) == 020000 || (mode & 0170000) == 060000) {
		gtsc_buf__puts(b, ", st_rdev=makedev(");
		gtsc_buf__putx(b, ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfffULL));
		gtsc_buf__puts(b, ", ");
		gtsc_buf__putx(b, (rdev & 0xff) | ((rdev >> 12) & ~0xffULL));
		gtsc_buf__putc(b, ')');
	} else {
		gtsc_buf__puts(b, ", st_size=");
		gtsc_buf__puti(b, (__s64)gt_sp_get64(p + 48));
	}
	gtsc_buf__puts(b, ", ...}");
}

void gt_sp_wstatus(struct gtsc_buf *b, __u32 s)
{
	gtsc_buf__puts(b, "[{");
	if ((s & 0x7f) == 0) {
		gtsc_buf__puts(b, "WIFEXITED(s) && WEXITSTATUS(s) == ");
		gtsc_buf__putu(b, (s >> 8) & 0xff);
	} else if (s == 0xffff) {
		gtsc_buf__puts(b, "WIFCONTINUED(s)");
	} else if ((s & 0xff) == 0x7f) {
		gtsc_buf__puts(b, "WIFSTOPPED(s) && WSTOPSIG(s) == ");
		gt_sp_signal(b, (s >> 8) & 0xff);
	} else {
		gtsc_buf__puts(b, "WIFSIGNALED(s) && WTERMSIG(s) == ");
		gt_sp_signal(b, s & 0x7f);
		if (s & 0x80)
			gtsc_buf__puts(b, " && WCOREDUMP(s)");
	}
	gtsc_buf__puts(b, "}]");
}

void gt_sp_ints(struct gtsc_buf *b, const __u8 *p, size_t n)
{
	gtsc_buf__putc(b, '[');
	for (size_t i = 0; i + 4 <= n; i += 4) {
		if (i)
			gtsc_buf__puts(b, ", ");
		gtsc_buf__puti(b, (__s32)gt_sp_get32(p + i));
	}
	gtsc_buf__putc(b, ']');
}

/* [USR1 TERM]; more than half the signals set prints the complement, ~[...]. */
void gt_sp_sigset(struct gtsc_buf *b, __u64 set)
{
	bool inv = __builtin_popcountll(set) > 32, sep = false;

	if (inv) {
		gtsc_buf__putc(b, '~');
		set = ~set;
	}
	gtsc_buf__putc(b, '[');
	for (int sig = 1; sig <= 64; sig++) {
		char name[16];
		struct gtsc_buf t = { name, 0, sizeof(name) };

		if (!(set >> (sig - 1) & 1))
			continue;
		if (sep)
			gtsc_buf__putc(b, ' ');
		gt_sp_signal(&t, sig);
		gtsc_buf__putmem(b, name + 3, t.len - 3); /* without "SIG" */
		sep = true;
	}
	gtsc_buf__putc(b, ']');
}

void gt_sp_sigaction(struct gtsc_buf *b, const __u8 *p, size_t n)
{
	__u64 handler, flags;

	if (n < 32) {
		gtsc_buf__puts(b, "{...}");
		return;
	}
	handler = gt_sp_get64(p);
	flags = gt_sp_get64(p + 8);
	gtsc_buf__puts(b, "{sa_handler=");
	if (handler <= 1)
		gtsc_buf__puts(b, handler ? "SIG_IGN" : "SIG_DFL");
	else
		gtsc_buf__putx(b, handler);
	gtsc_buf__puts(b, ", sa_mask=");
	gt_sp_sigset(b, gt_sp_get64(p + 24));
	gtsc_buf__puts(b, ", sa_flags=");
	gt_sp_flags(b, &gt_xlat_sa_flags, flags);
	if (flags & 0x04000000) { /* SA_RESTORER */
		gtsc_buf__puts(b, ", sa_restorer=");
		gtsc_buf__putx(b, gt_sp_get64(p + 16));
	}
	gtsc_buf__putc(b, '}');
}

void gt_sp_rlim(struct gtsc_buf *b, __u64 v)
{
	if (v == ~0ULL) {
		gtsc_buf__puts(b, "RLIM64_INFINITY");
	} else if (v && v % 1024 == 0) {
		gtsc_buf__putu(b, v / 1024);
		gtsc_buf__puts(b, "*1024");
	} else {
		gtsc_buf__putu(b, v);
	}
}

/* struct pollfd[]: what was asked for (revents are the return's). */
void gt_sp_pollfds(struct gtsc_buf *b, const __u8 *p, size_t n)
{
	gtsc_buf__putc(b, '[');
	for (size_t i = 0; i + 8 <= n; i += 8) {
		if (i)
			gtsc_buf__puts(b, ", ");
		gtsc_buf__puts(b, "{fd=");
		gtsc_buf__puti(b, (__s32)gt_sp_get32(p + i));
		gtsc_buf__puts(b, ", events=");
		gt_sp_flags(b, &gt_xlat_poll_events, sp_get16(p + i + 4));
		gtsc_buf__putc(b, '}');
	}
	gtsc_buf__putc(b, ']');
}

static void sp_field_hex(struct gtsc_buf *b, const char *name, __u64 v)
{
	gtsc_buf__puts(b, name);
	gtsc_buf__putx(b, v);
}

/* struct clone_args, the fields strace shows for the flags given. */
void gt_sp_clone_args(struct gtsc_buf *b, const __u8 *p, size_t n)
{
	__u64 flags;

	if (n < 64) {
		gtsc_buf__puts(b, "{...}");
		return;
	}
	flags = gt_sp_get64(p);
	gtsc_buf__puts(b, "{flags=");
	gt_sp_flags(b, &gt_xlat_clone_flags, flags);
	if (flags & 0x1000) /* CLONE_PIDFD */
		sp_field_hex(b, ", pidfd=", gt_sp_get64(p + 8));
	if (flags & (0x1000000 | 0x200000)) /* CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID */
		sp_field_hex(b, ", child_tid=", gt_sp_get64(p + 16));
	if (flags & 0x100000) /* CLONE_PARENT_SETTID */
		sp_field_hex(b, ", parent_tid=", gt_sp_get64(p + 24));
	gtsc_buf__puts(b, ", exit_signal=");
	gt_sp_signal(b, (__s64)gt_sp_get64(p + 32));
	sp_field_hex(b, ", stack=", gt_sp_get64(p + 40));
	sp_field_hex(b, ", stack_size=", gt_sp_get64(p + 48));
	if (flags & 0x80000) /* CLONE_SETTLS */
		sp_field_hex(b, ", tls=", gt_sp_get64(p + 56));
	gtsc_buf__putc(b, '}');
}

void gt_sp_open_flags(struct gtsc_buf *b, __u64 v)
{
	gt_sp_enum(b, &gt_xlat_open_access, v & 3);
	sp_flags_cont(b, &gt_xlat_open_flags, v & ~3ULL, true);
}

void gt_sp_mmap_flags(struct gtsc_buf *b, __u64 v)
{
	__u64 huge = v >> 26 & 0x3f;

	gt_sp_enum(b, &gt_xlat_mmap_type, v & 0xf);
	v &= ~0xfULL;
	if ((v & 0x40000) && huge) { /* MAP_HUGETLB with a size: MAP_HUGE_2MB */
		static const char *const unit[] = { "KB", "MB", "GB", "TB" };

		v &= ~(0x3fULL << 26);
		sp_flags_cont(b, &gt_xlat_mmap_flags, v, true);
		gtsc_buf__puts(b, "|MAP_HUGE_");
		gtsc_buf__putu(b, 1ULL << (huge % 10));
		gtsc_buf__puts(b, huge / 10 < 4 ? unit[huge / 10] : "?");
		return;
	}
	sp_flags_cont(b, &gt_xlat_mmap_flags, v, true);
}

void gt_sp_clone_flags(struct gtsc_buf *b, __u64 v)
{
	__u64 flags = v & ~0xffULL;

	if (flags)
		sp_flags_cont(b, &gt_xlat_clone_flags, flags, false);
	if (v & 0xff) {
		if (flags)
			gtsc_buf__putc(b, '|');
		gt_sp_signal(b, v & 0xff);
	} else if (!flags) {
		gtsc_buf__putc(b, '0');
	}
}

void gt_sp_sock_type(struct gtsc_buf *b, __u64 v)
{
	gt_sp_enum(b, &gt_xlat_socket_type, v & 0xf);
	sp_flags_cont(b, &gt_xlat_socket_flags, v & ~0xfULL, true);
}

void gt_sp_futex_op(struct gtsc_buf *b, __u32 v)
{
	const char *name = gt_xlat_name(&gt_xlat_futex_cmd, v & XLAT_FUTEX_CMD_MASK);
	__u32 rest = v & ~(XLAT_FUTEX_CMD_MASK | XLAT_FUTEX_PRIVATE | XLAT_FUTEX_CLOCK_REALTIME);

	if (!name) {
		gtsc_buf__putx(b, v);
		return;
	}
	gtsc_buf__puts(b, name);
	if (v & XLAT_FUTEX_PRIVATE)
		gtsc_buf__puts(b, "_PRIVATE");
	if (v & XLAT_FUTEX_CLOCK_REALTIME)
		gtsc_buf__puts(b, "|FUTEX_CLOCK_REALTIME");
	if (rest) {
		gtsc_buf__putc(b, '|');
		gtsc_buf__putx(b, rest);
	}
}

/* FUTEX_WAKE_OP's val3: FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1. */
void gt_sp_futex_wake_op(struct gtsc_buf *b, __u32 v)
{
	if (v >> 28 & 8)
		gtsc_buf__puts(b, "FUTEX_OP_OPARG_SHIFT<<28|");
	gt_sp_enum(b, &gt_xlat_futex_wake_ops, v >> 28 & 7);
	gtsc_buf__puts(b, "<<28|");
	gtsc_buf__putx(b, v >> 12 & 0xfff);
	gtsc_buf__puts(b, "<<12|");
	gt_sp_enum(b, &gt_xlat_futex_wake_cmps, v >> 24 & 0xf);
	gtsc_buf__puts(b, "<<24|");
	gtsc_buf__putx(b, v & 0xfff);
}

/* Named requests, else the _IOC encoding: _IOC(_IOC_READ, 0x54, 0x13, 0x8). */
void gt_sp_ioctl_cmd(struct gtsc_buf *b, __u32 v)
{
	const char *name = gt_xlat_name(&gt_xlat_ioctl_cmds, v);

	if (name) {
		gtsc_buf__puts(b, name);
		return;
	}
	gtsc_buf__puts(b, "_IOC(");
	gt_sp_flags(b, &gt_xlat_ioctl_dir, v >> 30);
	gtsc_buf__puts(b, ", ");
	gtsc_buf__putx(b, v >> 8 & 0xff);
	gtsc_buf__puts(b, ", ");
	gtsc_buf__putx(b, v & 0xff);
	gtsc_buf__puts(b, ", ");
	gtsc_buf__putx(b, v >> 16 & 0x3fff);
	gtsc_buf__putc(b, ')');
}
