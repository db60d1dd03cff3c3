// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The memory layout and protocol are the kernel's (kernel/bpf/ringbuf.c), as libbpf reads them. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/bpf.h>
#include "ringbuf.h"

/* Read position published at least this often: space comes back to the programs in time. */
#define PUBLISH_BYTES (64u << 10)

int gt_ringbuf__open(struct gtsc_ringbuf *rb, int fd, size_t size)
{
	void *p;

	memset(rb, 0, sizeof(*rb));
	rb->page = sysconf(_SC_PAGESIZE);
	rb->size = size;
	p = mmap(NULL, rb->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	rb->consumer_pos = p;
	p = mmap(NULL, rb->page + 2 * size, PROT_READ, MAP_SHARED, fd, rb->page);
	if (p == MAP_FAILED) {
		int err = -errno;

		munmap(rb->consumer_pos, rb->page);
		rb->consumer_pos = NULL;
		return err;
	}
	rb->producer_pos = p;
	rb->data = (char *)p + rb->page;
	return 0;
}

void gt_ringbuf__close(struct gtsc_ringbuf *rb)
{
	if (rb->consumer_pos)
		munmap(rb->consumer_pos, rb->page);
	if (rb->producer_pos)
		munmap(rb->producer_pos, rb->page + 2 * rb->size);
	memset(rb, 0, sizeof(*rb));
}

long gt_ringbuf__consume(struct gtsc_ringbuf *rb, gtsc_ringbuf_fn fn, void *ctx)
{
	unsigned long cons = *rb->consumer_pos, published = cons, prod;
	long n = 0;
	int err = 0;

	/* Records committed while we read are taken too, as libbpf does. */
	while (!err && cons < (prod = __atomic_load_n(rb->producer_pos, __ATOMIC_ACQUIRE))) {
		while (cons < prod) {
			__u32 *hdr = (__u32 *)((char *)rb->data + (cons & (rb->size - 1)));
			__u32 len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

			if (len & BPF_RINGBUF_BUSY_BIT)
				goto out; /* reserved, not yet submitted: later */
			cons += ((len & ~BPF_RINGBUF_DISCARD_BIT) + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				n++;
				err = fn(ctx, (char *)hdr + BPF_RINGBUF_HDR_SZ,
					 len & ~BPF_RINGBUF_DISCARD_BIT);
				if (err)
					break;
			}
			if (cons - published >= PUBLISH_BYTES) {
				__atomic_store_n(rb->consumer_pos, cons, __ATOMIC_RELEASE);
				published = cons;
			}
		}
	}
out:
	if (cons != published)
		__atomic_store_n(rb->consumer_pos, cons, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}
