// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bare [-m rec|nil|arr] [-e syscalls|kmem] -o FILE -- CMD [ARGS...]: run
 * CMD and record its syscalls (or kmem events) with bare.bpf.c, the
 * benchmark's floor.  The consumer is as plain as the producer: a timed
 * poll every 10 ms (the programs never wake it), each record fwrite()n to
 * FILE as it comes out of the ring.  -m picks the programs (bare.bpf.c):
 * rec, the BPF ring buffer (default); nil, programs that return at once
 * (nothing is written); arr, the per-CPU array ring prototype.
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtsc/records.h>
#include "bare.skel.h"

#define POLL_NS (10 * 1000 * 1000)
/* The array ring: 64 MiB per CPU, what the ring buffer's one ring holds. */
#define ARR_SLOTS (1u << 20)
#define ARR_SLOT 64
#define ARR_DATA 56
/* Publish the consumed position every this many slots (as gtsc's consumer
 * publishes per 64 KiB), and at the end of each drain. */
#define ARR_PUBLISH 1024

static unsigned long long nrecords;

struct arr_slot {
	unsigned long long seq;
	unsigned char data[ARR_DATA];
};

struct arr_head {
	unsigned long long pos, __pad[7];
	unsigned long long tail, __pad2[7];
};

struct arr_ring {
	struct arr_slot *slots;
	struct arr_head *heads;
	size_t slots_len, heads_len;
	int ncpu;
};

/*
 * Drains one CPU's region: a record is whole once its first slot's seq is
 * its position + 1 (the programs' commit); its size is in its header.
 */
static int arr_drain_cpu(struct arr_ring *a, int cpu, FILE *out)
{
	struct arr_head *h = &a->heads[cpu];
	struct arr_slot *base = a->slots + (size_t)cpu * ARR_SLOTS;
	unsigned long long tail = h->tail, done = 0;
	unsigned char rec[256 * ARR_DATA];

	for (;;) {
		struct arr_slot *sl = &base[tail & (ARR_SLOTS - 1)];
		unsigned int size, k, i;

		if (__atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE) != tail + 1)
			break;
		size = ((struct gtsc_rec_hdr *)sl->data)->size;
		k = (size + ARR_DATA - 1) / ARR_DATA;
		if (!size || k > 256)
			return -EINVAL;
		for (i = 0; i < k; i++)
			memcpy(rec + i * ARR_DATA, base[(tail + i) & (ARR_SLOTS - 1)].data, ARR_DATA);
		nrecords++;
		if (fwrite(rec, size, 1, out) != 1)
			return -EIO;
		tail += k;
		if (++done % ARR_PUBLISH == 0)
			__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
	return 0;
}

static int arr_drain(struct arr_ring *a, FILE *out)
{
	int cpu, err;

	for (cpu = 0; cpu < a->ncpu; cpu++) {
		err = arr_drain_cpu(a, cpu, out);
		if (err)
			return err;
	}
	return 0;
}

static int arr_map(struct arr_ring *a, struct bare_bpf *skel)
{
	a->slots_len = (size_t)a->ncpu * ARR_SLOTS * ARR_SLOT;
	a->heads_len = (size_t)a->ncpu * sizeof(struct arr_head);
	a->heads_len = (a->heads_len + 4095) & ~4095ul;
	a->slots = mmap(NULL, a->slots_len, PROT_READ, MAP_SHARED,
			bpf_map__fd(skel->maps.arr_ring), 0);
	a->heads = mmap(NULL, a->heads_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(skel->maps.arr_heads), 0);
	if (a->slots == MAP_FAILED || a->heads == MAP_FAILED)
		return -errno;
	return 0;
}

/* Loads only the programs of MODE (rec, nil, arr) for SRC (syscalls, kmem). */
static int pick_programs(struct bare_bpf *skel, const char *mode, const char *src)
{
	struct bpf_program *p;
	size_t ml = strlen(mode);
	int n = 0;

	bpf_object__for_each_program(p, skel->obj) {
		const char *name = bpf_program__name(p);
		int sys = strstr(name, "_sys_") != NULL;
		int want = !strncmp(name, mode, ml) && name[ml] == '_' &&
			   sys == !strcmp(src, "syscalls");

		bpf_program__set_autoload(p, want);
		n += want;
	}
	return n;
}

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
	fprintf(stderr, "usage: %s [-m rec|nil|arr] [-e syscalls|kmem] -o FILE -- CMD [ARGS...]\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, POLL_NS };
	struct ring_buffer *rb = NULL;
	struct bare_bpf *skel = NULL;
	const char *path = NULL, *mode = "rec", *src = "syscalls";
	struct arr_ring arr = { .slots = MAP_FAILED, .heads = MAP_FAILED };
	int opt, release_fd, status = 0, err = 1;
	FILE *out;
	pid_t child;

	while ((opt = getopt(argc, argv, "+o:m:e:")) != -1) {
		if (opt == 'o')
			path = optarg;
		else if (opt == 'm')
			mode = optarg;
		else if (opt == 'e')
			src = optarg;
		else
			usage(argv[0]);
	}
	if (!path || optind >= argc)
		usage(argv[0]);
	if ((strcmp(mode, "rec") && strcmp(mode, "nil") && strcmp(mode, "arr")) ||
	    (strcmp(src, "syscalls") && strcmp(src, "kmem"))) {
		fprintf(stderr, "bare: -m is rec, nil or arr; -e is syscalls or kmem\n");
		return 2;
	}
	arr.ncpu = libbpf_num_possible_cpus();
	if (arr.ncpu <= 0) {
		fprintf(stderr, "bare: cannot count CPUs\n");
		return 1;
	}

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
	pick_programs(skel, mode, src);
	/* Only the chosen ring takes memory. */
	if (strcmp(mode, "rec"))
		bpf_map__set_max_entries(skel->maps.rb, 4096);
	if (!strcmp(mode, "arr")) {
		skel->rodata->arr_slots = ARR_SLOTS;
		bpf_map__set_max_entries(skel->maps.arr_ring, ARR_SLOTS * arr.ncpu);
		bpf_map__set_max_entries(skel->maps.arr_heads, arr.ncpu);
	}
	if (bare_bpf__load(skel) || bare_bpf__attach(skel)) {
		fprintf(stderr, "bare: load/attach failed\n");
		goto out_kill;
	}
	if (!strcmp(mode, "arr") && arr_map(&arr, skel)) {
		fprintf(stderr, "bare: mmap of the array ring failed: %s\n", strerror(errno));
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

		if (ring_buffer__consume(rb) < 0 ||
		    (arr.slots != MAP_FAILED && arr_drain(&arr, out)))
			fprintf(stderr, "bare: consume failed\n");
		if (w == child)
			break;
		nanosleep(&tick, NULL);
	}
	/* The exit_group record is in the ring by now; take the rest. */
	ring_buffer__consume(rb);
	if (arr.slots != MAP_FAILED)
		arr_drain(&arr, out);

	fprintf(stderr, "bare: records=%llu dropped=%llu\n", nrecords,
		(unsigned long long)skel->bss->dropped);
	err = fclose(out) ? 1 : 0;
	ring_buffer__free(rb);
	if (arr.slots != MAP_FAILED)
		munmap(arr.slots, arr.slots_len);
	if (arr.heads != MAP_FAILED)
		munmap(arr.heads, arr.heads_len);
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
