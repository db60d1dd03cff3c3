// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bare -o FILE -- CMD [ARGS...]: run CMD and record its syscalls with
 * bare.bpf.c, the benchmark's floor.  The consumer is as plain as the
 * producer: a timed poll every 10 ms (the programs never wake it), each
 * record fwrite()n to FILE as it comes out of the ring.
 *
 * Prints "bare: records=N dropped=N" on stderr at the end; exits with
 * CMD's status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "bare.skel.h"

#define POLL_NS (10 * 1000 * 1000)

static unsigned long long nrecords;

static int on_record(void *ctx, void *data, size_t size)
{
	FILE *out = ctx;

	nrecords++;
	return fwrite(data, size, 1, out) == 1 ? 0 : -EIO;
}

/*
 * The child is forked first and held on a pipe: its pid has to be in the
 * programs' rodata before load, and none of its syscalls may run before the
 * programs are attached.
 */
static pid_t spawn_held(char **argv, int *release_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[1]);
		/* EOF instead of a byte: the parent gave up; do not run untraced. */
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "bare: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*release_fd = p[1];
	return pid;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s -o FILE -- CMD [ARGS...]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, POLL_NS };
	struct ring_buffer *rb = NULL;
	struct bare_bpf *skel = NULL;
	const char *path = NULL;
	int opt, release_fd, status = 0, err = 1;
	FILE *out;
	pid_t child;

	while ((opt = getopt(argc, argv, "+o:")) != -1) {
		if (opt != 'o')
			usage(argv[0]);
		path = optarg;
	}
	if (!path || optind >= argc)
		usage(argv[0]);

	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "bare: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* Large stdio buffer: one write(2) per MiB, not per record. */
	setvbuf(out, NULL, _IOFBF, 1 << 20);

	child = spawn_held(argv + optind, &release_fd);
	if (child < 0) {
		fprintf(stderr, "bare: fork: %s\n", strerror(errno));
		return 1;
	}

	skel = bare_bpf__open();
	if (!skel) {
		fprintf(stderr, "bare: open skeleton failed\n");
		goto out_kill;
	}
	skel->rodata->target_tgid = child;
	if (bare_bpf__load(skel) || bare_bpf__attach(skel)) {
		fprintf(stderr, "bare: load/attach failed\n");
		goto out_kill;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), on_record, out, NULL);
	if (!rb) {
		fprintf(stderr, "bare: ring_buffer__new failed\n");
		goto out_kill;
	}

	if (write(release_fd, "x", 1) != 1)
		goto out_kill;
	close(release_fd);

	for (;;) {
		pid_t w = waitpid(child, &status, WNOHANG);

		if (ring_buffer__consume(rb) < 0)
			fprintf(stderr, "bare: consume failed\n");
		if (w == child)
			break;
		nanosleep(&tick, NULL);
	}
	/* The exit_group record is in the ring by now; take the rest. */
	ring_buffer__consume(rb);

	fprintf(stderr, "bare: records=%llu dropped=%llu\n", nrecords,
		(unsigned long long)skel->bss->dropped);
	err = fclose(out) ? 1 : 0;
	ring_buffer__free(rb);
	bare_bpf__destroy(skel);
	if (err)
		return 1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);

out_kill:
	close(release_fd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ring_buffer__free(rb);
	bare_bpf__destroy(skel);
	return err;
}
