// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The protocol is the programs' (gtsc_arr_reserve and gtsc_arr_commit in gtsc.bpf.h). */
#include <string.h>
#include "arraybuf.h"
#include "gtsc/records.h"

/* As ringbuf.c: space comes back to the programs in time, the tail's line is not bounced. */
#define PUBLISH_BYTES (64u << 10)

void gt_arrbuf__init(struct gtsc_arrbuf *ab, struct gtsc_arr_head *head, void *data, size_t size,
		     size_t elem)
{
	memset(ab, 0, sizeof(*ab));
	ab->head = head;
	ab->data = data;
	ab->size = size;
	ab->elem = elem;
	ab->cons = __atomic_load_n(&head->tail, __ATOMIC_ACQUIRE);
}

/*
 * Zeroes [FROM, TO) of the region, then publishes TO: a writer that claims
 * that space again must find 0 where it will commit, and may only claim it
 * once the zeroes are in (the release store; the programs' compare-and-swap
 * orders their reads of the tail before their writes).
 */
static void publish(struct gtsc_arrbuf *ab, __u64 from, __u64 to)
{
	while (from < to) {
		size_t at = from & (ab->size - 1), n = ab->size - at;

		if (n > to - from)
			n = to - from;
		memset(ab->data + at, 0, n);
		from += n;
	}
	__atomic_store_n(&ab->head->tail, to, __ATOMIC_RELEASE);
}

long gt_arrbuf__consume(struct gtsc_arrbuf *ab, gtsc_ringbuf_fn fn, void *ctx)
{
	__u64 cons = ab->cons, published = cons;
	long n = 0;
	int err = 0;

	while (!err) {
		char *p = ab->data + (cons & (ab->size - 1));
		__u32 word = __atomic_load_n((__u32 *)p, __ATOMIC_ACQUIRE);
		size_t room = ab->elem - (cons & (ab->elem - 1));
		size_t size = ((const struct gtsc_rec_hdr *)p)->size, len = (size + 7) & ~7UL;

		if (!word)
			break; /* claimed and not committed yet, or nothing more: later */
		if (word == GTSC_ARR_PAD || size < sizeof(struct gtsc_rec_hdr) || len > room) {
			/* A pad: the rest of the element is empty; anything else is damage. */
			ab->damaged += word != GTSC_ARR_PAD;
			cons += room;
		} else {
			cons += len;
			n++;
			err = fn(ctx, p, size);
		}
		if (cons - published >= PUBLISH_BYTES) {
			publish(ab, published, cons);
			published = cons;
		}
	}
	if (cons != published)
		publish(ab, published, cons);
	ab->cons = cons;
	return err < 0 ? err : n;
}
