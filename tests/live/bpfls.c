// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the kernel has attached, for test_dispatch.sh (bpftool is not
 * installed everywhere; raw bpf(2), static like the other workloads):
 *
 *   bpfls links PREFIX  the number of BPF links whose program's name starts
 *                       with PREFIX (names are cut at 15 characters)
 *   bpfls slots         the filled slots of the shared syscall dispatcher's
 *                       prog arrays (enter, then exit), through a copy of a
 *                       live holder's fds (/run/gtsc/dispatch): "enter 0 1"
 *                       and "exit 0 1"; nothing after the word when empty,
 *                       "none" when no live holder holds them
 *   bpfls table         /run/gtsc/dispatch, read under its flock (a
 *                       recorder rewrites it in place)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/file.h>
#include <sys/syscall.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static long bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static int info(int fd, void *buf, __u32 len)
{
	union bpf_attr a = {};

	memset(buf, 0, len);
	a.info.bpf_fd = fd;
	a.info.info_len = len;
	a.info.info = (__u64)(unsigned long)buf;
	return bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

static int links(const char *prefix)
{
	union bpf_attr a = {};
	__u32 id = 0;
	int n = 0;

	for (;;) {
		struct bpf_link_info li;
		struct bpf_prog_info pi;
		int fd, pfd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (bpf(BPF_LINK_GET_NEXT_ID, &a))
			break;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.link_id = id;
		fd = bpf(BPF_LINK_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue; /* gone meanwhile */
		if (info(fd, &li, sizeof(li))) {
			close(fd);
			continue;
		}
		close(fd);
		memset(&a, 0, sizeof(a));
		a.prog_id = li.prog_id;
		pfd = bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (pfd < 0)
			continue;
		if (!info(pfd, &pi, sizeof(pi)) && !strncmp(pi.name, prefix, strlen(prefix)))
			n++;
		close(pfd);
	}
	printf("%d\n", n);
	return 0;
}

static void print_slots(const char *what, int fd)
{
	printf("%s", what);
	for (__u32 k = 0; k < 64; k++) {
		union bpf_attr a = {};
		__u32 v;

		a.map_fd = fd;
		a.key = (__u64)(unsigned long)&k;
		a.value = (__u64)(unsigned long)&v;
		if (!bpf(BPF_MAP_LOOKUP_ELEM, &a))
			printf(" %u", k);
		else if (errno == E2BIG || errno == EINVAL)
			break;
	}
	printf("\n");
}

static int slots(void)
{
	FILE *f = fopen("/run/gtsc/dispatch", "r");
	int pid, slot, fd[4];
	unsigned long long start;

	if (f)
		flock(fileno(f), LOCK_SH);

	while (f && fscanf(f, "%d %llu %d %d %d %d %d", &pid, &start, &slot, &fd[0], &fd[1],
			   &fd[2], &fd[3]) == 7) {
		int pidfd = syscall(SYS_pidfd_open, pid, 0), ce, cx;

		if (pidfd < 0)
			continue;
		ce = syscall(SYS_pidfd_getfd, pidfd, fd[2], 0);
		cx = syscall(SYS_pidfd_getfd, pidfd, fd[3], 0);
		close(pidfd);
		if (ce < 0 || cx < 0)
			continue;
		print_slots("enter", ce);
		print_slots("exit", cx);
		fclose(f);
		return 0;
	}
	if (f)
		fclose(f);
	printf("none\n");
	return 0;
}

static int table(void)
{
	FILE *f = fopen("/run/gtsc/dispatch", "r");
	char line[256];

	if (!f)
		return 0;
	flock(fileno(f), LOCK_SH);
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "table"))
		return table();
	if (argc == 3 && !strcmp(argv[1], "links"))
		return links(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "slots"))
		return slots();
	fprintf(stderr, "usage: bpfls links PREFIX | bpfls slots | bpfls table\n");
	return 2;
}
