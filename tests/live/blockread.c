// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two threads, one call interrupted by the other's: a thread blocks in
 * read() on a pipe while the main thread sleeps, then writes the byte the
 * reader gets.  In strace's -f form the read is "<unfinished ...>" and then
 * "<... read resumed>".  Prints "tid=<reader's tid>".
 */
#include <pthread.h>
#include <stdio.h>
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

int main(void)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	pthread_t t;
	void *ret;

	if (pipe(p) || pthread_create(&t, NULL, reader, NULL))
		return 1;
	nanosleep(&ts, NULL); /* the reader is blocked in read by now */
	syscall(SYS_write, p[1], "x", 1);
	pthread_join(t, &ret);
	printf("tid=%ld\n", reader_tid);
	return (long)ret == 1 ? 0 : 1;
}
