// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A deterministic kmem workload for the perf oracle: prints its pid, waits
 * for a byte on stdin (so that both recorders are running before it starts),
 * then N times: a pipe (alloc_pipe_info's kcalloc, a page for the data),
 * a file written, read back and unlinked (dentry, inode, filp, page cache),
 * and a unix socket pair (sock inodes, skbs) with a message through it.
 * Single-threaded and fork-free, so that one pid covers all of it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

static char buf[1234];

static int pipe_round(void)
{
	int p[2];
	ssize_t n;

	if (pipe2(p, 0))
		return -1;
	n = write(p[1], buf, 100) == 100 && read(p[0], buf, 100) == 100 ? 0 : -1;
	close(p[0]);
	close(p[1]);
	return n;
}

static int file_round(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int ret = -1;

	if (fd < 0)
		return -1;
	if (write(fd, buf, sizeof(buf)) == sizeof(buf) &&
	    pread(fd, buf, sizeof(buf), 0) == sizeof(buf))
		ret = 0;
	close(fd);
	unlink(path);
	return ret;
}

static int socket_round(void)
{
	int s[2], ret = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s))
		return -1;
	if (send(s[0], buf, 200, 0) == 200 && recv(s[1], buf, 200, 0) == 200)
		ret = 0;
	close(s[0]);
	close(s[1]);
	return ret;
}

int main(int argc, char **argv)
{
	char go;
	int n;

	if (argc != 3) {
		fprintf(stderr, "usage: kmem_load PATH ROUNDS\n");
		return 2;
	}
	n = atoi(argv[2]);
	memset(buf, 'k', sizeof(buf));
	printf("pid=%d\n", getpid());
	fflush(stdout);
	if (read(0, &go, 1) != 1)
		return 1;
	for (int i = 0; i < n; i++)
		if (pipe_round() || file_round(argv[1]) || socket_round())
			return 1;
	return 0;
}
