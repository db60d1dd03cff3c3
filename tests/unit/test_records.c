/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The record ABI (include/gtsc/records.h) pinned field by field: records
 * cross from BPF into files that outlive the binary that wrote them, so a
 * moved or resized field must fail here before it ships.  If one of these
 * fails on purpose, GTSC_REC_ABI_MAJOR must change with it.
 */
#include <stddef.h>

#include "harness.h"
#include "gtsc/records.h"

#define FIELD_SIZE(type, field) sizeof(((type *)0)->field)

/* offset and size of one field */
#define PIN(t, type, field, off, sz)                                                               \
	do {                                                                                       \
		CHECK(t, offsetof(type, field) == (off), #type "." #field " at %zu, pinned at %d",  \
		      offsetof(type, field), (off));                                               \
		CHECK(t, FIELD_SIZE(type, field) == (sz), #type "." #field " is %zu bytes, pinned %d", \
		      FIELD_SIZE(type, field), (sz));                                              \
	} while (0)

#define IS_SIGNED(type, field) ((__typeof__(((type *)0)->field)) - 1 < 0)

static void test_abi_version(struct test_ctx *t)
{
	CHECK(t, GTSC_REC_ABI_MAJOR == 1, "ABI major %d: update the pins with it", GTSC_REC_ABI_MAJOR);
	CHECK(t, GTSC_REC_ABI_MINOR >= 0, "ABI minor %d", GTSC_REC_ABI_MINOR);
}

static void test_type_numbers(struct test_ctx *t)
{
	CHECK(t, GTSC_REC_NONE == 0, "NONE %d", GTSC_REC_NONE);
	CHECK(t, GTSC_REC_SYS_ENTER == 1, "SYS_ENTER %d", GTSC_REC_SYS_ENTER);
	CHECK(t, GTSC_REC_SYS_EXIT == 2, "SYS_EXIT %d", GTSC_REC_SYS_EXIT);
	CHECK(t, GTSC_REC_KMEM_ALLOC == 3, "KMEM_ALLOC %d", GTSC_REC_KMEM_ALLOC);
	CHECK(t, GTSC_REC_KMEM_FREE == 4, "KMEM_FREE %d", GTSC_REC_KMEM_FREE);
	CHECK(t, GTSC_REC_KMEM_CACHE == 5, "KMEM_CACHE %d", GTSC_REC_KMEM_CACHE);
	CHECK(t, GTSC_REC_TASK == 6, "TASK %d", GTSC_REC_TASK);
	CHECK(t, GTSC_REC_DROPS == 7, "DROPS %d", GTSC_REC_DROPS);
	CHECK(t, GTSC_REC_FUNC == 8, "FUNC %d", GTSC_REC_FUNC);
	CHECK(t, GTSC_REC_PRINTF == 9, "PRINTF %d", GTSC_REC_PRINTF);
	CHECK(t, GTSC_REC_TRACEPOINT == 10, "TRACEPOINT %d", GTSC_REC_TRACEPOINT);
	CHECK(t, GTSC_REC_TYPE_MAX == 11, "TYPE_MAX %d: pin the new type here", GTSC_REC_TYPE_MAX);
	CHECK(t, GTSC_KMEM_KMALLOC == 0 && GTSC_KMEM_CACHE == 1 && GTSC_KMEM_PAGE == 2,
	      "kmem kinds renumbered");
	CHECK(t,
	      GTSC_TASK_FORK == 0 && GTSC_TASK_EXEC == 1 && GTSC_TASK_EXIT == 2 &&
		      GTSC_TASK_COMM == 3,
	      "task events renumbered");
	CHECK(t, GTSC_COMM_LEN == 16, "GTSC_COMM_LEN %d", GTSC_COMM_LEN);
	CHECK(t, GTSC_CACHE_NAME_LEN == 32, "GTSC_CACHE_NAME_LEN %d", GTSC_CACHE_NAME_LEN);
}

static void test_hdr_layout(struct test_ctx *t)
{
	typedef struct gtsc_rec_hdr h;

	CHECK(t, sizeof(h) == 24, "hdr is %zu bytes", sizeof(h));
	PIN(t, h, type, 0, 2);
	PIN(t, h, size, 2, 2);
	PIN(t, h, cpu, 4, 2);
	PIN(t, h, flags, 6, 2);
	PIN(t, h, pid, 8, 4);
	PIN(t, h, tid, 12, 4);
	PIN(t, h, ts_ns, 16, 8);
	CHECK(t, !IS_SIGNED(h, size), "hdr.size must be unsigned");
}

static void test_sys_layout(struct test_ctx *t)
{
	typedef struct gtsc_rec_sys_enter e;
	typedef struct gtsc_rec_sys_exit x;

	CHECK(t, sizeof(e) == 80, "sys_enter is %zu bytes", sizeof(e));
	PIN(t, e, hdr, 0, 24);
	PIN(t, e, nr, 24, 4);
	PIN(t, e, payload_len, 28, 2);
	PIN(t, e, __pad, 30, 2);
	PIN(t, e, args, 32, 48);
	PIN(t, e, args[5], 72, 8);
	CHECK(t, IS_SIGNED(e, nr), "sys_enter.nr must be signed");

	CHECK(t, sizeof(x) == 40, "sys_exit is %zu bytes", sizeof(x));
	PIN(t, x, nr, 24, 4);
	PIN(t, x, payload_len, 28, 2);
	PIN(t, x, __pad, 30, 2);
	PIN(t, x, ret, 32, 8);
	CHECK(t, IS_SIGNED(x, ret), "sys_exit.ret must be signed");
}

static void test_kmem_layout(struct test_ctx *t)
{
	typedef struct gtsc_rec_kmem_alloc a;
	typedef struct gtsc_rec_kmem_free f;
	typedef struct gtsc_rec_kmem_cache c;

	CHECK(t, sizeof(a) == 80, "kmem_alloc is %zu bytes", sizeof(a));
	PIN(t, a, call_site, 24, 8);
	PIN(t, a, ptr, 32, 8);
	PIN(t, a, cache_id, 40, 8);
	PIN(t, a, bytes_req, 48, 4);
	PIN(t, a, bytes_alloc, 52, 4);
	PIN(t, a, gfp_flags, 56, 4);
	PIN(t, a, node, 60, 4);
	PIN(t, a, kind, 64, 1);
	PIN(t, a, order, 65, 1);
	PIN(t, a, migratetype, 66, 1);
	PIN(t, a, __pad, 67, 5);
	PIN(t, a, stack_id, 72, 4);
	PIN(t, a, __pad2, 76, 4);
	CHECK(t, IS_SIGNED(a, migratetype), "kmem_alloc.migratetype must be signed (-1)");
	CHECK(t, IS_SIGNED(a, node), "kmem_alloc.node must be signed (NUMA_NO_NODE)");

	CHECK(t, sizeof(f) == 56, "kmem_free is %zu bytes", sizeof(f));
	PIN(t, f, call_site, 24, 8);
	PIN(t, f, ptr, 32, 8);
	PIN(t, f, cache_id, 40, 8);
	PIN(t, f, kind, 48, 1);
	PIN(t, f, order, 49, 1);
	PIN(t, f, __pad, 50, 6);

	CHECK(t, sizeof(c) == 72, "kmem_cache is %zu bytes", sizeof(c));
	PIN(t, c, cache_id, 24, 8);
	PIN(t, c, object_size, 32, 4);
	PIN(t, c, size, 36, 4);
	PIN(t, c, name, 40, 32);
}

static void test_task_drops_layout(struct test_ctx *t)
{
	typedef struct gtsc_rec_task k;
	typedef struct gtsc_rec_drops d;

	CHECK(t, sizeof(k) == 56, "task is %zu bytes", sizeof(k));
	PIN(t, k, event, 24, 4);
	PIN(t, k, other_pid, 28, 4);
	PIN(t, k, exit_code, 32, 4);
	PIN(t, k, __pad, 36, 4);
	PIN(t, k, comm, 40, 16);
	CHECK(t, IS_SIGNED(k, exit_code), "task.exit_code must be signed");

	CHECK(t, sizeof(d) == 48, "drops is %zu bytes", sizeof(d));
	PIN(t, d, since_ns, 24, 8);
	PIN(t, d, count, 32, 8);
	PIN(t, d, channel, 40, 4);
	PIN(t, d, __pad, 44, 4);
}

static void test_func_layout(struct test_ctx *t)
{
	typedef struct gtsc_rec_func f;

	CHECK(t, sizeof(f) == 112, "func is %zu bytes", sizeof(f));
	PIN(t, f, func_id, 24, 4);
	PIN(t, f, kind, 28, 1);
	PIN(t, f, stack_id, 32, 4);
	PIN(t, f, ip, 40, 8);
	PIN(t, f, ret, 48, 8);
	PIN(t, f, latency_ns, 56, 8);
	PIN(t, f, args, 64, 48);
	CHECK(t, GTSC_FUNC_ENTRY == 0 && GTSC_FUNC_RETURN == 1, "func kinds renumbered");
}

static void test_printf_layout(struct test_ctx *t)
{
	typedef struct gtsc_rec_printf p;

	CHECK(t, sizeof(p) == 32, "printf is %zu bytes", sizeof(p));
	PIN(t, p, fmt_id, 24, 4);
	PIN(t, p, nr_args, 28, 2);
	CHECK(t, offsetof(p, args) == 32, "printf args at %zu", offsetof(p, args));
	/* the id is part of the file format: the same string hashes the same forever */
	CHECK(t, GTSC_PRINTF_ID("fork pid=%d flags=%llx\n") == 0xc091bea2u, "format id changed: %x",
	      GTSC_PRINTF_ID("fork pid=%d flags=%llx\n"));
}

static void test_tracepoint_layout(struct test_ctx *t)
{
	typedef struct gtsc_rec_tracepoint p;

	CHECK(t, sizeof(p) == 32, "tracepoint is %zu bytes", sizeof(p));
	PIN(t, p, event_id, 24, 2);
	PIN(t, p, data_len, 26, 2);
	CHECK(t, offsetof(p, data) == 32, "tracepoint data at %zu", offsetof(p, data));
	CHECK(t, GTSC_TP_F_TRUNCATED == 1, "truncated flag renumbered");
}

/* Every known type has a minimum, equal to its struct: hdr.size below it is damage. */
static void test_min_sizes(struct test_ctx *t)
{
	static const unsigned int min[] = GTSC_REC_MIN_SIZES;
	static const unsigned int want[] = {
		[GTSC_REC_NONE] = 0,	    [GTSC_REC_SYS_ENTER] = 80, [GTSC_REC_SYS_EXIT] = 40,
		[GTSC_REC_KMEM_ALLOC] = 72, [GTSC_REC_KMEM_FREE] = 56, [GTSC_REC_KMEM_CACHE] = 72,
		[GTSC_REC_TASK] = 56,	    [GTSC_REC_DROPS] = 48,     [GTSC_REC_FUNC] = 112,
		[GTSC_REC_PRINTF] = 32,	    [GTSC_REC_TRACEPOINT] = 32,
	};
	size_t n = sizeof(min) / sizeof(min[0]);

	CHECK(t, n == GTSC_REC_TYPE_MAX, "GTSC_REC_MIN_SIZES has %zu entries, types: %d", n,
	      GTSC_REC_TYPE_MAX);
	CHECK(t, sizeof(want) == sizeof(min), "pin table out of date");
	for (size_t i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK(t, min[i] == want[i], "min size of type %zu is %u, pinned %u", i, min[i],
		      want[i]);
		if (i)
			CHECK(t, min[i] >= sizeof(struct gtsc_rec_hdr), "type %zu below header size",
			      i);
	}
}

/* A record's fields are naturally aligned, so no type may need packing. */
static void test_alignment(struct test_ctx *t)
{
	CHECK(t, _Alignof(struct gtsc_rec_hdr) == 8, "hdr align %zu", _Alignof(struct gtsc_rec_hdr));
	CHECK(t, sizeof(struct gtsc_rec_sys_enter) % 8 == 0, "sys_enter not 8-byte sized");
	CHECK(t, sizeof(struct gtsc_rec_sys_exit) % 8 == 0, "sys_exit not 8-byte sized");
	CHECK(t, sizeof(struct gtsc_rec_kmem_alloc) % 8 == 0, "kmem_alloc not 8-byte sized");
	CHECK(t, sizeof(struct gtsc_rec_kmem_free) % 8 == 0, "kmem_free not 8-byte sized");
	CHECK(t, sizeof(struct gtsc_rec_kmem_cache) % 8 == 0, "kmem_cache not 8-byte sized");
	CHECK(t, sizeof(struct gtsc_rec_task) % 8 == 0, "task not 8-byte sized");
	CHECK(t, sizeof(struct gtsc_rec_drops) % 8 == 0, "drops not 8-byte sized");
	CHECK(t, sizeof(struct gtsc_rec_func) % 8 == 0, "func not 8-byte sized");
}

static const struct test_case cases[] = {
	{ "abi_version", test_abi_version },
	{ "type_numbers", test_type_numbers },
	{ "hdr_layout", test_hdr_layout },
	{ "sys_layout", test_sys_layout },
	{ "kmem_layout", test_kmem_layout },
	{ "task_drops_layout", test_task_drops_layout },
	{ "func_layout", test_func_layout },
	{ "printf_layout", test_printf_layout },
	{ "tracepoint_layout", test_tracepoint_layout },
	{ "min_sizes", test_min_sizes },
	{ "alignment", test_alignment },
};

int main(void)
{
	return RUN_TESTS("records", cases);
}
