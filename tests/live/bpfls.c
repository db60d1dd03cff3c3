// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the kernel has attached, for test_dispatch.sh (bpftool is not
 * installed everywhere; raw bpf(2), static like the other workloads):
 *
 *   bpfls links PREFIX  the number of BPF links whose program's name starts
 *                       with PREFIX (names are cut at 15 characters)
 *   bpfls slots         the filled slots of the shared syscall dispatch's
 *                       prog arrays (enter, then exit), through a copy of a
 *                       live holder's fds (/run/gtsc/dispatch): "enter 0 1"
 *                       and "exit 0 1"; nothing after the word when empty,
 *                       "none" when no live holder holds them
 *   bpfls mask TGID     the dispatch's mask for TGID: "every W mask M"
 *                       (M "none" when the hash has no entry), the slots as
 *                       bits (W: the word's low half); "none" when no live
 *                       holder holds them
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

/*
 * Copies of the first live holder's fds (its line: pid, start, slot, the
 * links, the prog arrays enter and exit, mask, every, cur): 0, or -1 with
 * "none" printed.
 */
static int holder_fds(int fd[7])
{
	FILE *f = fopen("/run/gtsc/dispatch", "r");
	char line[256];

	if (f)
		flock(fileno(f), LOCK_SH);
	while (f && fgets(line, sizeof(line), f)) {
		int pid, slot, hfd[7], pidfd, i;
		unsigned long long start;

		if (sscanf(line, "%d %llu %d %d %d %d %d %d %d %d", &pid, &start, &slot, &hfd[0],
			   &hfd[1], &hfd[2], &hfd[3], &hfd[4], &hfd[5], &hfd[6]) != 10)
			continue;
		pidfd = syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0)
			continue;
		for (i = 0; i < 7; i++) {
			fd[i] = syscall(SYS_pidfd_getfd, pidfd, hfd[i], 0);
			if (fd[i] < 0)
				break;
		}
		close(pidfd);
		if (i < 7) {
			while (i-- > 0)
				close(fd[i]);
			continue;
		}
		fclose(f);
		return 0;
	}
	if (f)
		fclose(f);
	printf("none\n");
	return -1;
}

static int slots(void)
{
	int fd[7];

	if (holder_fds(fd))
		return 0;
	print_slots("enter", fd[2]);
	print_slots("exit", fd[3]);
	return 0;
}

static int lookup(int fd, const void *key, void *val)
{
	union bpf_attr a = {};

	a.map_fd = fd;
	a.key = (__u64)(unsigned long)key;
	a.value = (__u64)(unsigned long)val;
	return bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

static int mask(const char *arg)
{
	__u32 tgid = strtoul(arg, NULL, 10), zero = 0, m;
	__u64 every = 0; /* the slots in the low half, the hash's generation above */
	int fd[7];

	if (holder_fds(fd))
		return 0;
	if (lookup(fd[5], &zero, &every)) {
		perror("bpfls: the dispatch's word");
		return 1;
	}
	printf("every %u mask ", (__u32)every);
	if (lookup(fd[4], &tgid, &m))
		printf("none\n");
	else
		printf("%u\n", m);
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
	if (argc == 3 && !strcmp(argv[1], "mask"))
		return mask(argv[2]);
	fprintf(stderr,
		"usage: bpfls links PREFIX | bpfls slots | bpfls mask TGID | bpfls table\n");
	return 2;
}
