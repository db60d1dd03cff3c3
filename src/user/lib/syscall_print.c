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

void sd_putmem(struct sd_buf *b, const void *s, size_t n)
{
	if (n > b->cap - b->len) {
		b->lost += n - (b->cap - b->len);
		n = b->cap - b->len;
	}
	/* a length query (snprintf-style, no buffer) has b->p NULL */
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

void sd_putc(struct sd_buf *b, char c)
{
	if (b->len < b->cap)
		b->p[b->len++] = c;
	else
		b->lost++;
}

void sd_puts(struct sd_buf *b, const char *s)
{
	sd_putmem(b, s, strlen(s));
}

/*
 * Digits of V in BASE, at least MIN_DIGITS of them.  The base is a constant
 * in each caller once inlined: no division instruction on the hot path.
 */
static inline __attribute__((always_inline)) void sp_digits(struct sd_buf *b, __u64 v,
							     unsigned int base, int min_digits)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[sizeof(tmp) - ++n] = digits[v % base];
		v /= base;
	} while (v || n < min_digits);
	sd_putmem(b, tmp + sizeof(tmp) - n, n);
}

void sd_putu(struct sd_buf *b, __u64 v)
{
	sp_digits(b, v, 10, 1);
}

void sd_puti(struct sd_buf *b, __s64 v)
{
	if (v < 0) {
		sd_putc(b, '-');
		sp_digits(b, -(__u64)v, 10, 1);
		return;
	}
	sp_digits(b, v, 10, 1);
}

void sd_putx(struct sd_buf *b, __u64 v)
{
	if (v)
		sd_puts(b, "0x");
	sp_digits(b, v, 16, 1);
}

/* strace's %#03o: 000, 022, 0644. */
void sp_oct(struct sd_buf *b, __u64 v)
{
	if (!v) {
		sd_puts(b, "000");
		return;
	}
	sd_putc(b, '0');
	sp_digits(b, v, 8, 2);
}

void sd_put_json_str(struct sd_buf *b, const char *s, size_t n)
{
	sd_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			sd_putc(b, '\\');
			sd_putc(b, c);
		} else if (c < 0x20) {
			sd_puts(b, "\\u00");
			sp_digits(b, c, 16, 2);
		} else {
			sd_putc(b, c);
		}
	}
	sd_putc(b, '"');
}

/* strace's string quoting: C escapes, \ooo (short unless a digit follows), or all \xHH. */
void sp_quoted(struct sd_buf *b, const __u8 *s, size_t n, bool more, bool hex)
{
	sd_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		__u8 c = s[i];
		const char *esc = NULL;

		if (hex) {
			sd_puts(b, "\\x");
			sp_digits(b, c, 16, 2);
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
			sd_puts(b, esc);
		} else if (c >= ' ' && c <= 0x7e) {
			sd_putc(b, c);
		} else {
			bool digit_next = i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9';

			sd_putc(b, '\\');
			sp_digits(b, c, 8, digit_next ? 3 : 1);
		}
	}
	sd_putc(b, '"');
	if (more)
		sd_puts(b, "...");
}

const char *xlat_name(const struct xlat *x, __u64 v)
{
	for (unsigned int i = 0; i < x->n; i++)
		if (x->e[i].val == v)
			return x->e[i].name;
	return NULL;
}

void sp_enum(struct sd_buf *b, const struct xlat *x, __u64 v)
{
	const char *name = xlat_name(x, v);

	if (name) {
		sd_puts(b, name);
		return;
	}
	sd_putx(b, v);
	if (x->unknown) {
		sd_puts(b, " /* ");
		sd_puts(b, x->unknown);
		sd_puts(b, " */");
	}
}

/*
 * Known names in table order, then the bits left as hex.  SEP_FIRST: V
 * extends a name already printed.
 */
static void sp_flags_cont(struct sd_buf *b, const struct xlat *x, __u64 v, bool sep_first)
{
	bool sep = sep_first;

	for (unsigned int i = 0; i < x->n && v; i++) {
		__u64 f = x->e[i].val;

		if (!f || (v & f) != f)
			continue;
		if (sep)
			sd_putc(b, '|');
		sd_puts(b, x->e[i].name);
		v &= ~f;
		sep = true;
	}
	if (v) {
		if (sep)
			sd_putc(b, '|');
		sd_putx(b, v);
	}
}

void sp_flags(struct sd_buf *b, const struct xlat *x, __u64 v)
{
	if (!v) {
		sd_puts(b, x->zero ? x->zero : "0");
		return;
	}
	sp_flags_cont(b, x, v, false);
}

void sp_signal(struct sd_buf *b, __s64 sig)
{
	const char *name = sig > 0 ? xlat_name(&xlat_signals, sig) : NULL;

	if (name) {
		sd_puts(b, name);
	} else if (sig > 32 && sig <= 64) {
		sd_puts(b, "SIGRT_");
		sd_putu(b, sig - 32);
	} else {
		sd_puti(b, sig);
	}
}

static __u16 sp_get16(const __u8 *p)
{
	return p[0] | p[1] << 8;
}

__u32 sp_get32(const __u8 *p)
{
	return sp_get16(p) | (__u32)sp_get16(p + 2) << 16;
}

__u64 sp_get64(const __u8 *p)
{
	return sp_get32(p) | (__u64)sp_get32(p + 4) << 32;
}

static void sp_inet(struct sd_buf *b, int af, const __u8 *addr)
{
	char s[64];

	if (inet_ntop(af, addr, s, sizeof(s)))
		sd_puts(b, s);
}

void sp_sockaddr(struct sd_buf *b, const __u8 *p, size_t n)
{
	__u16 af;

	if (n < 2) {
		sd_puts(b, "{}");
		return;
	}
	af = sp_get16(p);
	sd_puts(b, "{sa_family=");
	sp_enum(b, &xlat_address_family, af);
	if (af == 1 && n > 2) { /* AF_UNIX; abstract names start with a NUL */
		const __u8 *path = p + 2;
		size_t len = n - 2;

		sd_puts(b, ", sun_path=");
		if (path[0] == 0) {
			sd_putc(b, '@');
			path++, len--;
		} else {
			len = strnlen((const char *)path, len);
		}
		sp_quoted(b, path, len, false, false);
	} else if (af == 2 && n >= 8) { /* AF_INET */
		sd_puts(b, ", sin_port=htons(");
		sd_putu(b, p[2] << 8 | p[3]);
		sd_puts(b, "), sin_addr=inet_addr(\"");
		sp_inet(b, AF_INET, p + 4);
		sd_puts(b, "\")");
	} else if (af == 10 && n >= 28) { /* AF_INET6 */
		sd_puts(b, ", sin6_port=htons(");
		sd_putu(b, p[2] << 8 | p[3]);
		sd_puts(b, "), sin6_flowinfo=htonl(");
		sd_putu(b, (__u32)p[4] << 24 | p[5] << 16 | p[6] << 8 | p[7]);
		sd_puts(b, "), inet_pton(AF_INET6, \"");
		sp_inet(b, AF_INET6, p + 8);
		sd_puts(b, "\", &sin6_addr), sin6_scope_id=");
		sd_putu(b, sp_get32(p + 24));
	} else if (af == 16 && n >= 12) { /* AF_NETLINK */
		sd_puts(b, ", nl_pid=");
		sd_putu(b, sp_get32(p + 4));
		sd_puts(b, ", nl_groups=");
		sp_digits(b, sp_get32(p + 8), 16, 8);
	} else if (n > 2) {
		sd_puts(b, ", sa_data=");
		sp_quoted(b, p + 2, n - 2, false, false);
	}
	sd_putc(b, '}');
}

void sp_mode(struct sd_buf *b, __u64 mode)
{
	const char *type = xlat_name(&xlat_file_type, mode & 0170000);
	bool sep = false;

	if (type) {
		sd_puts(b, type);
		sep = true;
	}
	if (mode & 07000) {
		sp_flags_cont(b, &xlat_mode_bits, mode & 07000, sep);
		sep = true;
	}
	if (sep)
		sd_putc(b, '|');
	sp_oct(b, mode & 0777);
}

/* x86-64 struct stat: the summary strace prints without -v. */
void sp_stat(struct sd_buf *b, const __u8 *p, size_t n)
{
	__u32 mode;
	__u64 rdev;

	if (n < 56) {
		sd_puts(b, "{...}");
		return;
	}
	mode = sp_get32(p + 24);
	rdev = sp_get64(p + 40);
	sd_puts(b, "{st_mode=");
	sp_mode(b, mode);
	if ((mode & 0170000) == 020000 || (mode & 0170000) == 060000) {
		sd_puts(b, ", st_rdev=makedev(");
		sd_putx(b, ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfffULL));
		sd_puts(b, ", ");
		sd_putx(b, (rdev & 0xff) | ((rdev >> 12) & ~0xffULL));
		sd_putc(b, ')');
	} else {
		sd_puts(b, ", st_size=");
		sd_puti(b, (__s64)sp_get64(p + 48));
	}
	sd_puts(b, ", ...}");
}

void sp_wstatus(struct sd_buf *b, __u32 s)
{
	sd_puts(b, "[{");
	if ((s & 0x7f) == 0) {
		sd_puts(b, "WIFEXITED(s) && WEXITSTATUS(s) == ");
		sd_putu(b, (s >> 8) & 0xff);
	} else if (s == 0xffff) {
		sd_puts(b, "WIFCONTINUED(s)");
	} else if ((s & 0xff) == 0x7f) {
		sd_puts(b, "WIFSTOPPED(s) && WSTOPSIG(s) == ");
		sp_signal(b, (s >> 8) & 0xff);
	} else {
		sd_puts(b, "WIFSIGNALED(s) && WTERMSIG(s) == ");
		sp_signal(b, s & 0x7f);
		if (s & 0x80)
			sd_puts(b, " && WCOREDUMP(s)");
	}
	sd_puts(b, "}]");
}

void sp_ints(struct sd_buf *b, const __u8 *p, size_t n)
{
	sd_putc(b, '[');
	for (size_t i = 0; i + 4 <= n; i += 4) {
		if (i)
			sd_puts(b, ", ");
		sd_puti(b, (__s32)sp_get32(p + i));
	}
	sd_putc(b, ']');
}

/* [USR1 TERM]; more than half the signals set prints the complement, ~[...]. */
void sp_sigset(struct sd_buf *b, __u64 set)
{
	bool inv = __builtin_popcountll(set) > 32, sep = false;

	if (inv) {
		sd_putc(b, '~');
		set = ~set;
	}
	sd_putc(b, '[');
	for (int sig = 1; sig <= 64; sig++) {
		char name[16];
		struct sd_buf t = { name, 0, sizeof(name) };

		if (!(set >> (sig - 1) & 1))
			continue;
		if (sep)
			sd_putc(b, ' ');
		sp_signal(&t, sig);
		sd_putmem(b, name + 3, t.len - 3); /* without "SIG" */
		sep = true;
	}
	sd_putc(b, ']');
}

void sp_sigaction(struct sd_buf *b, const __u8 *p, size_t n)
{
	__u64 handler, flags;

	if (n < 32) {
		sd_puts(b, "{...}");
		return;
	}
	handler = sp_get64(p);
	flags = sp_get64(p + 8);
	sd_puts(b, "{sa_handler=");
	if (handler <= 1)
		sd_puts(b, handler ? "SIG_IGN" : "SIG_DFL");
	else
		sd_putx(b, handler);
	sd_puts(b, ", sa_mask=");
	sp_sigset(b, sp_get64(p + 24));
	sd_puts(b, ", sa_flags=");
	sp_flags(b, &xlat_sa_flags, flags);
	if (flags & 0x04000000) { /* SA_RESTORER */
		sd_puts(b, ", sa_restorer=");
		sd_putx(b, sp_get64(p + 16));
	}
	sd_putc(b, '}');
}

void sp_rlim(struct sd_buf *b, __u64 v)
{
	if (v == ~0ULL) {
		sd_puts(b, "RLIM64_INFINITY");
	} else if (v && v % 1024 == 0) {
		sd_putu(b, v / 1024);
		sd_puts(b, "*1024");
	} else {
		sd_putu(b, v);
	}
}

/* struct pollfd[]: what was asked for (revents are the return's). */
void sp_pollfds(struct sd_buf *b, const __u8 *p, size_t n)
{
	sd_putc(b, '[');
	for (size_t i = 0; i + 8 <= n; i += 8) {
		if (i)
			sd_puts(b, ", ");
		sd_puts(b, "{fd=");
		sd_puti(b, (__s32)sp_get32(p + i));
		sd_puts(b, ", events=");
		sp_flags(b, &xlat_poll_events, sp_get16(p + i + 4));
		sd_putc(b, '}');
	}
	sd_putc(b, ']');
}

static void sp_field_hex(struct sd_buf *b, const char *name, __u64 v)
{
	sd_puts(b, name);
	sd_putx(b, v);
}

/* struct clone_args, the fields strace shows for the flags given. */
void sp_clone_args(struct sd_buf *b, const __u8 *p, size_t n)
{
	__u64 flags;

	if (n < 64) {
		sd_puts(b, "{...}");
		return;
	}
	flags = sp_get64(p);
	sd_puts(b, "{flags=");
	sp_flags(b, &xlat_clone_flags, flags);
	if (flags & 0x1000) /* CLONE_PIDFD */
		sp_field_hex(b, ", pidfd=", sp_get64(p + 8));
	if (flags & (0x1000000 | 0x200000)) /* CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID */
		sp_field_hex(b, ", child_tid=", sp_get64(p + 16));
	if (flags & 0x100000) /* CLONE_PARENT_SETTID */
		sp_field_hex(b, ", parent_tid=", sp_get64(p + 24));
	sd_puts(b, ", exit_signal=");
	sp_signal(b, (__s64)sp_get64(p + 32));
	sp_field_hex(b, ", stack=", sp_get64(p + 40));
	sp_field_hex(b, ", stack_size=", sp_get64(p + 48));
	if (flags & 0x80000) /* CLONE_SETTLS */
		sp_field_hex(b, ", tls=", sp_get64(p + 56));
	sd_putc(b, '}');
}

void sp_open_flags(struct sd_buf *b, __u64 v)
{
	sp_enum(b, &xlat_open_access, v & 3);
	sp_flags_cont(b, &xlat_open_flags, v & ~3ULL, true);
}

void sp_mmap_flags(struct sd_buf *b, __u64 v)
{
	__u64 huge = v >> 26 & 0x3f;

	sp_enum(b, &xlat_mmap_type, v & 0xf);
	v &= ~0xfULL;
	if ((v & 0x40000) && huge) { /* MAP_HUGETLB with a size: MAP_HUGE_2MB */
		static const char *const unit[] = { "KB", "MB", "GB", "TB" };

		v &= ~(0x3fULL << 26);
		sp_flags_cont(b, &xlat_mmap_flags, v, true);
		sd_puts(b, "|MAP_HUGE_");
		sd_putu(b, 1ULL << (huge % 10));
		sd_puts(b, huge / 10 < 4 ? unit[huge / 10] : "?");
		return;
	}
	sp_flags_cont(b, &xlat_mmap_flags, v, true);
}

void sp_clone_flags(struct sd_buf *b, __u64 v)
{
	__u64 flags = v & ~0xffULL;

	if (flags)
		sp_flags_cont(b, &xlat_clone_flags, flags, false);
	if (v & 0xff) {
		if (flags)
			sd_putc(b, '|');
		sp_signal(b, v & 0xff);
	} else if (!flags) {
		sd_putc(b, '0');
	}
}

void sp_sock_type(struct sd_buf *b, __u64 v)
{
	sp_enum(b, &xlat_socket_type, v & 0xf);
	sp_flags_cont(b, &xlat_socket_flags, v & ~0xfULL, true);
}

void sp_futex_op(struct sd_buf *b, __u32 v)
{
	const char *name = xlat_name(&xlat_futex_cmd, v & XLAT_FUTEX_CMD_MASK);
	__u32 rest = v & ~(XLAT_FUTEX_CMD_MASK | XLAT_FUTEX_PRIVATE | XLAT_FUTEX_CLOCK_REALTIME);

	if (!name) {
		sd_putx(b, v);
		return;
	}
	sd_puts(b, name);
	if (v & XLAT_FUTEX_PRIVATE)
		sd_puts(b, "_PRIVATE");
	if (v & XLAT_FUTEX_CLOCK_REALTIME)
		sd_puts(b, "|FUTEX_CLOCK_REALTIME");
	if (rest) {
		sd_putc(b, '|');
		sd_putx(b, rest);
	}
}

/* FUTEX_WAKE_OP's val3: FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1. */
void sp_futex_wake_op(struct sd_buf *b, __u32 v)
{
	if (v >> 28 & 8)
		sd_puts(b, "FUTEX_OP_OPARG_SHIFT<<28|");
	sp_enum(b, &xlat_futex_wake_ops, v >> 28 & 7);
	sd_puts(b, "<<28|");
	sd_putx(b, v >> 12 & 0xfff);
	sd_puts(b, "<<12|");
	sp_enum(b, &xlat_futex_wake_cmps, v >> 24 & 0xf);
	sd_puts(b, "<<24|");
	sd_putx(b, v & 0xfff);
}

/* Named requests, else the _IOC encoding: _IOC(_IOC_READ, 0x54, 0x13, 0x8). */
void sp_ioctl_cmd(struct sd_buf *b, __u32 v)
{
	const char *name = xlat_name(&xlat_ioctl_cmds, v);

	if (name) {
		sd_puts(b, name);
		return;
	}
	sd_puts(b, "_IOC(");
	sp_flags(b, &xlat_ioctl_dir, v >> 30);
	sd_puts(b, ", ");
	sd_putx(b, v >> 8 & 0xff);
	sd_puts(b, ", ");
	sd_putx(b, v & 0xff);
	sd_puts(b, ", ");
	sd_putx(b, v >> 16 & 0x3fff);
	sd_putc(b, ')');
}
