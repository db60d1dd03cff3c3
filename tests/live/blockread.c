// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two threads, one call interrupted by the other's: a thread blocks in
 * read() on a pipe while the main thread waits for that, then writes the
 * byte the reader gets.  In strace's -f form the read is "<unfinished ...>" and then
 * "<... read resumed>".  Prints "tid=<reader's tid>".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static int p[2];
static volatile long reader_tid;

static void *reader(void *arg)
{
	char c;

	reader_tid = syscall(SYS_gettid);
	return (void *)syscall(SYS_read, p[0], &c, 1);
}

/*
 * Whether thread TID is inside read(2) (/proc/self/task/TID/syscall starts
 * with its number), so that the write comes after its enter: a fixed sleep
 * was not enough on a loaded machine, and the read then was one line.
 */
static int in_read(long tid)
{
	char path[64], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return atol(buf) == SYS_read && buf[0] >= '0' && buf[0] <= '9';
}

int main(void)
{
	struct timespec ts = { 0, 1000 * 1000 };
	pthread_t t;
	void *ret;
	int i;

	if (pipe(p) || pthread_create(&t, NULL, reader, NULL))
		return 1;
	/* up to 10 s for the reader to block in read */
	for (i = 0; i < 10000 && !(reader_tid && in_read(reader_tid)); i++)
		nanosleep(&ts, NULL);
	syscall(SYS_write, p[1], "x", 1);
	pthread_join(t, &ret);
	printf("tid=%ld\n", reader_tid);
	return (long)ret == 1 ? 0 : 1;
}
