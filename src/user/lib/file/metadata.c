// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "metadata.h"
#include "strbuf.h"
#include "syscall_builtin.h"

/* Generated at build time from <asm/unistd.h>: the ABI's numbers never change. */
static const char *const syscall_names[] = {
#include "syscall_names.h"
};

#define NR_SYSCALL_NAMES ((int)(sizeof(syscall_names) / sizeof(syscall_names[0])))

const char *gt_syscall_name(int nr)
{
	return nr >= 0 && nr < NR_SYSCALL_NAMES ? syscall_names[nr] : NULL;
}

int gt_syscall_count(void)
{
	return NR_SYSCALL_NAMES;
}

static __int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void gt_meta__host(struct strbuf *sb)
{
	struct utsname u;
	char host[256] = "";
	__int64_t mono, real;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	/* Sandwich the realtime read so the offset's error is half the gap. */
	mono = clock_ns(CLOCK_MONOTONIC);
	real = clock_ns(CLOCK_REALTIME);
	mono = (mono + clock_ns(CLOCK_MONOTONIC)) / 2;
	gt_strbuf_addf(sb, "hostname=%s\nkernel=%s\nkernel_version=%s\narch=%s\n", host, u.release,
		       u.version, u.machine);
	gt_strbuf_addf(sb, "nr_cpus=%ld\nnr_cpus_online=%ld\npage_size=%ld\n",
		       sysconf(_SC_NPROCESSORS_CONF), sysconf(_SC_NPROCESSORS_ONLN),
		       sysconf(_SC_PAGESIZE));
	gt_strbuf_addf(sb, "clock=CLOCK_MONOTONIC\nwall_offset_ns=%lld\nstart_ns=%lld\n",
		       (long long)(real - mono), (long long)mono);
}

/*
 * "\tfield:const char * filename;\toffset:..." -> type "const char *", name
 * "filename".  Two columns of ~350 syscall formats at record time: a
 * libtraceevent parse of each would add its print fmt parsing for nothing.
 */
static bool parse_field(const char *line, char *type, size_t tsz, char *name, size_t nsz)
{
	const char *p = strstr(line, "field:"), *end, *sp;

	if (!p)
		return false;
	p += 6;
	end = strchr(p, ';');
	if (!end)
		return false;
	for (sp = end; sp > p && sp[-1] != ' ' && sp[-1] != '*'; sp--)
		;
	if (sp == p)
		return false;
	snprintf(name, nsz, "%.*s", (int)(end - sp), sp);
	while (sp > p && sp[-1] == ' ')
		sp--;
	snprintf(type, tsz, "%.*s", (int)(sp - p), p);
	return true;
}

/*
 * The kernel names a few events after its internal function, not the
 * <asm/unistd.h> name: without this map they would lose their arguments.
 */
const char *gt_syscall_event_name(const char *name)
{
	static const char *const alias[][2] = {
		{ "stat", "newstat" },	 { "fstat", "newfstat" },	{ "lstat", "newlstat" },
		{ "uname", "newuname" }, { "sendfile", "sendfile64" }, { "umount2", "umount" },
	};

	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(name, alias[i][0]))
			return alias[i][1];
	return name;
}

/*
 * Which fields of a sys_enter_* format are the call's arguments.  Since
 * Linux 6.19 ("tracing: Have syscall trace events read user space string",
 * Steven Rostedt) the kernel copies user memory into syscall events and adds
 * a dynamic field per copied argument after the arguments, e.g. write's
 * "__data_loc char[] __buf_val" and openat's "__filename_val": those are
 * not arguments, and taking one as a fourth argument of write(2) broke its
 * decoding and every check of it on 7.x.  Arguments are never __data_loc
 * or __rel_loc, and the kernel names its own fields "__*".
 */
bool gt_syscall_field_is_arg(const char *type, const char *name)
{
	return strncmp(name, "common_", 7) && strncmp(name, "__", 2) &&
	       strncmp(type, "__data_loc", 10) && strncmp(type, "__rel_loc", 9);
}

static bool syscall_args(const char *tracefs, const char *name, struct strbuf *sb)
{
	char path[512], line[512], type[128], field[64];
	bool any = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format", tracefs, name);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!parse_field(line, type, sizeof(type), field, sizeof(field)))
			continue;
		any = true;
		if (!gt_syscall_field_is_arg(type, field))
			continue;
		gt_strbuf_addf(sb, "\t%s\t%s", type, field);
	}
	fclose(f);
	return any;
}

static void builtin_args(const char *name, struct strbuf *sb)
{
	const struct gtsc_builtin_syscall *b = gt_builtin_syscall(name);

	for (int i = 0; b && i < b->nr_args; i++)
		gt_strbuf_addf(sb, "\t%s\t%s", b->arg[i][0], b->arg[i][1]);
}

int gt_meta__syscalls(const char *tracefs, struct strbuf *sb)
{
	int from_tracefs = 0;

	for (int nr = 0; nr < NR_SYSCALL_NAMES; nr++) {
		const char *ev;

		if (!syscall_names[nr])
			continue;
		ev = gt_syscall_event_name(syscall_names[nr]);
		gt_strbuf_addf(sb, "%d\t%s", nr, syscall_names[nr]);
		if (tracefs && tracefs[0] && syscall_args(tracefs, ev, sb))
			from_tracefs++;
		else
			builtin_args(ev, sb); /* no tracefs, or no event for this one */
		gt_strbuf_addf(sb, "\n");
	}
	return from_tracefs;
}

void gt_meta__event_formats(const char *tracefs, const char *const *events, struct strbuf *sb)
{
	char path[512], buf[4096];

	for (; tracefs && tracefs[0] && *events; events++) {
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "%s/events/%s/format", tracefs, *events);
		f = fopen(path, "re");
		if (!f)
			continue;
		gt_strbuf_addf(sb, "event: %s\n", *events);
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			gt_strbuf_add(sb, buf, n);
		fclose(f);
	}
}
