/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A consumer of one BPF ring buffer that publishes its read position once
 * per batch.  libbpf's ring_buffer__consume() stores consumer_pos after
 * every record; the programs read it on every reserve, so while the
 * consumer drains, a reserve on the traced CPU finds that cache line
 * changed.  Batched stores took ~15 ns off a traced getppid here.
 */
#ifndef __GTSC_RINGBUF_H
#define __GTSC_RINGBUF_H

#include <stddef.h>
#include <linux/types.h>

struct gtsc_ringbuf {
	unsigned long *consumer_pos; /* the writable first page */
	unsigned long *producer_pos; /* then the data, mapped twice: records never wrap */
	void *data;
	size_t size; /* data bytes, a power of two */
	size_t page;
};

/* A negative return stops the drain; the record it was returned for counts as read. */
typedef int (*gtsc_ringbuf_fn)(void *ctx, void *data, size_t size);

/* Maps ring FD of SIZE data bytes.  0 or -errno. */
int gt_ringbuf__open(struct gtsc_ringbuf *rb, int fd, size_t size);
void gt_ringbuf__close(struct gtsc_ringbuf *rb);
/* Every committed record to FN, in order: the count, or FN's negative return. */
long gt_ringbuf__consume(struct gtsc_ringbuf *rb, gtsc_ringbuf_fn fn, void *ctx);

/* Bytes written and not yet read. */
static inline size_t gtsc_ringbuf__pending(const struct gtsc_ringbuf *rb)
{
	return __atomic_load_n(rb->producer_pos, __ATOMIC_ACQUIRE) - *rb->consumer_pos;
}

#endif
