// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Syscalls whose captured user memory the live tests know exactly.
 *
 *   capload files PATH   openat(PATH) for writing; write 100 bytes (cut at
 *                        -s 32) and "hello"; openat(PATH) for reading; read
 *                        4096 (returns 105, cut at 32); pread64 5 at 100
 *                        ("hello"); openat of PATH-alias through a page this
 *                        process never touched (memfd mapped twice, written
 *                        through the other mapping), so the read at enter
 *                        faults; openat of the unmapped address 8 (faults at
 *                        exit too); a UDP pair on 127.0.0.1: bind, sendto of
 *                        "udp-payload", recvfrom, getsockname.
 *   capload wstorm N     after read(0) returns: N write(/dev/null, 64 bytes)
 *                        and exit_group: 2N + 2 events from the recorder's
 *                        view when it starts while read(0) blocks.
 *   capload calls N      N getppid(), N getpid(), N/2 getuid(), then prints
 *                        its pid from one more getpid().
 *
 * Prints what the tests need (pid, pointers).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define PAGE 4096

/* 100 bytes: the first 32 are what -s 32 keeps. */
static const char data100[] = "capture-data-0123456789abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ-9876543210-end-of-data.!";

_Static_assert(sizeof(data100) == 101, "data100 is 100 bytes and a NUL");

/* PATH-alias in a page of a second mapping that nothing ever touched. */
static char *untouched_copy(const char *s)
{
	int fd = syscall(SYS_memfd_create, "capload", 0);
	char *w, *r;

	if (fd < 0 || ftruncate(fd, 2 * PAGE))
		return NULL;
	w = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	r = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED || r == MAP_FAILED)
		return NULL;
	snprintf(w + PAGE + 64, PAGE - 64, "%s-alias", s);
	return r + PAGE + 64;
}

static int udp_pair(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in from;
	socklen_t len = sizeof(a), flen = sizeof(from);
	int s = socket(AF_INET, SOCK_DGRAM, 0), c = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[64];

	if (s < 0 || c < 0 || syscall(SYS_bind, s, &a, sizeof(a)) ||
	    syscall(SYS_getsockname, s, &a, &len))
		return -1;
	if (syscall(SYS_sendto, c, "udp-payload", 11, 0, &a, sizeof(a)) != 11)
		return -1;
	if (syscall(SYS_recvfrom, s, buf, sizeof(buf), 0, &from, &flen) != 11)
		return -1;
	printf("port=%u ", ntohs(a.sin_port));
	return 0;
}

static int files(const char *path)
{
	char buf[PAGE], *alias = untouched_copy(path);
	int fd;

	if (!alias)
		return 1;
	fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || syscall(SYS_write, fd, data100, 100) != 100 ||
	    syscall(SYS_write, fd, "hello", 5) != 5)
		return 1;
	close(fd);
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	if (fd < 0 || syscall(SYS_read, fd, buf, sizeof(buf)) != 105 ||
	    syscall(SYS_pread64, fd, buf, 5, 100) != 5)
		return 1;
	close(fd);
	/* Both fail (ENOENT, EFAULT): only what was captured matters. */
	syscall(SYS_openat, AT_FDCWD, alias, O_RDONLY);
	syscall(SYS_openat, AT_FDCWD, (char *)8, O_RDONLY);
	unlink(path);
	if (udp_pair())
		return 1;
	printf("pid=%d alias=%p\n", getpid(), (void *)alias);
	return 0;
}

static int wstorm(long n)
{
	int fd = open("/dev/null", O_WRONLY);
	char c;

	printf("%d\n", getpid());
	fflush(stdout);
	if (fd < 0 || read(0, &c, 1) != 1)
		return 1;
	for (long i = 0; i < n; i++)
		syscall(SYS_write, fd, data100, 64);
	syscall(SYS_exit_group, 0);
	return 0;
}

static int calls(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	for (long i = 0; i < n / 2; i++)
		syscall(SYS_getuid);
	printf("pid=%d\n", getpid());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "files"))
		return files(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "wstorm"))
		return wstorm(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "calls"))
		return calls(atol(argv[2]));
	fprintf(stderr, "usage: capload files PATH | wstorm N | calls N\n");
	return 2;
}
