// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A process whose name and a path it opens hold terminal escapes and bytes
 * that are not UTF-8: what a traced program can put in a comm or a path.
 * The name is set before a fork: the child's fork record carries it.
 * argv[1]: a directory to create the file in.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* ESC ] 0 ; retitles an xterm, ESC [ 2 J clears it; 0xff and 0x9b are not UTF-8. */
static const char comm[] = "\x1b]0;x\x07\x1b[2J\xff\x9b";
static const char file[] = "esc\x1b[31m\xc3\xa9\xfe\x7f\x01";

int main(int argc, char **argv)
{
	char path[512];
	int fd, status;
	pid_t child;

	if (argc < 2)
		return 2;
	if (prctl(PR_SET_NAME, comm, 0, 0, 0))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child > 0)
		return waitpid(child, &status, 0) == child ? WEXITSTATUS(status) : 1;
	snprintf(path, sizeof(path), "%s/%s", argv[1], file);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	if (write(fd, comm, strlen(comm)) < 0)
		return 1;
	close(fd);
	unlink(path);
	return 0;
}
