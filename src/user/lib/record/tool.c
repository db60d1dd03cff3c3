// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gtsc_tool: a BPF object of the caller's, linked with channel.bpf.o, whose
 * programs write records through gtsc.bpf.h.  What the session does for
 * gtsc-bpf's own object through its skeleton is done here through BTF: the
 * configuration globals are found by name in .rodata and .bss, so any
 * object that links channel.bpf.o works.  One discard channel carries every
 * record class.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cb_sink.h"
#include "channel.h"
#include "log.h"
#include "opts.h"
#include "printf_fmt.h"
#include "strbuf.h"

#define TOOL_RING_BYTES (1ULL << 20)
#define TOOL_CHANNEL "tool"

struct gtsc_tool {
	struct bpf_object *obj; /* the caller's */
	struct gtsc_channels chans;
	struct gtsc_cb_sink *cs;
	struct strbuf formats; /* PRINTF lines of the object's gtsc_printf formats */
	int *pids;
	size_t nr_pids;
	struct bpf_link **links;
	size_t nr_links;
	volatile __u32 *on; /* gtsc_on in the mmapped .bss */
	void *bss;
	size_t bss_len;
	int nr_cpus;
	gtsc_log_fn log;
	void *log_ctx;
};

#define tlog(t, ...) gt_log((t)->log, (t)->log_ctx, GTSC_LOG_WARN, __VA_ARGS__)

/* Offset of global VAR in data section SEC (".rodata", ".bss"), or -ENOENT. */
static long var_offset(struct bpf_object *obj, const char *sec, const char *var)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	int id;

	id = btf ? btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC) : -ENOENT;
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(t);
	for (int i = 0; i < btf_vlen(t); i++, vs++) {
		const struct btf_type *v = btf__type_by_id(btf, vs->type);

		if (!strcmp(btf__name_by_offset(btf, v->name_off), var))
			return vs->offset;
	}
	return -ENOENT;
}

/* Before load: every class into the one channel, the filters, the map sizes. */
static int configure(struct gtsc_tool *t)
{
	struct bpf_map *ro = bpf_object__find_map_by_name(t->obj, ".rodata");
	long routes = var_offset(t->obj, ".rodata", "gtsc_routes");
	long self = var_offset(t->obj, ".rodata", "gtsc_self_tgid");
	long filter = var_offset(t->obj, ".rodata", "gtsc_filter_pids");
	const struct gtsc_channel *ch = &t->chans.ch[0];
	struct bpf_map *rings = bpf_object__find_map_by_name(t->obj, "gtsc_rings");
	struct bpf_map *scratch = bpf_object__find_map_by_name(t->obj, "gtsc_flight_scratch");
	size_t size = 0;
	char *data = ro ? (char *)bpf_map__initial_value(ro, &size) : NULL;

	if (!data || !rings || routes < 0 || self < 0 || filter < 0 ||
	    (size_t)routes + sizeof(struct gtsc_class_route) * GTSC_CLASS_MAX > size) {
		tlog(t, "the BPF object has no gtsc channel globals: link it with channel.bpf.o");
		return -ENOENT;
	}
	for (int c = 0; c < GTSC_CLASS_MAX; c++)
		gt_channel__route(ch, (struct gtsc_class_route *)(data + routes) + c);
	*(__u32 *)(data + self) = getpid();
	*(__u32 *)(data + filter) = t->nr_pids > 0;
	bpf_map__set_max_entries(rings, t->chans.nr_rings);
	/* scratch only overwrite channels use: one entry is the least a map has */
	if (scratch)
		bpf_map__set_max_entries(scratch, 1);
	return 0;
}

static int tool_opts(struct gtsc_tool *t, const struct gtsc_tool_opts *opts,
		     struct gtsc_channel_spec *sp)
{
	const char *name = OPTS_GET(opts, channel, NULL) ?: TOOL_CHANNEL;
	const int *pids = OPTS_GET(opts, pids, NULL);

	t->log = OPTS_GET(opts, log, NULL);
	t->log_ctx = OPTS_GET(opts, log_ctx, NULL);
	if (!OPTS_VALID(opts, gtsc_tool_opts) || strlen(name) >= sizeof(sp->name)) {
		tlog(t, "the tool options set a field this library does not know, or a long name");
		return -EINVAL;
	}
	snprintf(sp->name, sizeof(sp->name), "%s", name);
	sp->ring_bytes = OPTS_GET(opts, ring_bytes, 0) ?: TOOL_RING_BYTES;
	sp->global = OPTS_GET(opts, global, false);
	t->nr_pids = pids ? OPTS_GET(opts, nr_pids, 0) : 0;
	if (!t->nr_pids)
		return 0;
	t->pids = calloc(t->nr_pids, sizeof(*t->pids));
	if (!t->pids)
		return -ENOMEM;
	memcpy(t->pids, pids, t->nr_pids * sizeof(*t->pids));
	return 0;
}

/* Everything open does to T; -errno. */
static int tool_setup(struct gtsc_tool *t, const struct gtsc_tool_opts *opts)
{
	struct gtsc_channel_spec sp = {};
	int err;

	t->nr_cpus = libbpf_num_possible_cpus();
	if (t->nr_cpus <= 0)
		return t->nr_cpus ?: -EINVAL;
	err = tool_opts(t, opts, &sp);
	if (err)
		return err;
	t->cs = gt_cb_sink__new();
	if (!t->cs)
		return -ENOMEM;
	err = gt_channels__add(&t->chans, &sp);
	err = err < 0 ? err : gt_channels__layout(&t->chans, t->nr_cpus);
	err = err ?: configure(t);
	err = err ?: gt_printf__collect(t->obj, &t->formats);
	return err < 0 ? err : 0;
}

struct gtsc_tool *gtsc_tool__open(struct bpf_object *obj, const struct gtsc_tool_opts *opts)
{
	struct gtsc_tool *t;
	int err;

	if (!obj)
		return errno = EINVAL, NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return errno = ENOMEM, NULL;
	t->obj = obj;
	err = tool_setup(t, opts);
	if (err) {
		gtsc_tool__destroy(t);
		return errno = -err, NULL;
	}
	return t;
}

/* gtsc_on, written through the mapped .bss: the kernel's copy, not libbpf's initial one. */
static int map_bss(struct gtsc_tool *t)
{
	struct bpf_map *bss = bpf_object__find_map_by_name(t->obj, ".bss");
	long on = var_offset(t->obj, ".bss", "gtsc_on");
	long page = sysconf(_SC_PAGESIZE);

	if (!bss || on < 0 || bpf_map__fd(bss) < 0)
		return -ENOENT;
	t->bss_len = (bpf_map__value_size(bss) + page - 1) / page * page;
	t->bss = mmap(NULL, t->bss_len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(bss), 0);
	if (t->bss == MAP_FAILED) {
		t->bss = NULL;
		return -errno;
	}
	t->on = (volatile __u32 *)((char *)t->bss + on);
	return 0;
}

static int track_pids(struct gtsc_tool *t)
{
	struct bpf_map *pids = bpf_object__find_map_by_name(t->obj, "gtsc_pids");
	__u8 one = 1;

	for (size_t i = 0; i < t->nr_pids; i++) {
		__u32 key = t->pids[i];

		if (!pids || bpf_map__update_elem(pids, &key, sizeof(key), &one, sizeof(one), 0))
			return pids ? -errno : -ENOENT;
	}
	return 0;
}

static int attach_programs(struct gtsc_tool *t)
{
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program(p, t->obj)
		n++;
	t->links = calloc(n ?: 1, sizeof(*t->links));
	if (!t->links)
		return -ENOMEM;
	bpf_object__for_each_program(p, t->obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		l = bpf_program__attach(p);
		if (!l) {
			int err = -errno;

			tlog(t, "attaching %s failed: %s", bpf_program__name(p), strerror(-err));
			return err;
		}
		t->links[t->nr_links++] = l;
	}
	return 0;
}

int gtsc_tool__attach(struct gtsc_tool *t)
{
	struct bpf_map *rings;
	int err;

	if (!t || t->links)
		return -EINVAL;
	rings = bpf_object__find_map_by_name(t->obj, "gtsc_rings");
	if (!rings || bpf_map__fd(rings) < 0) {
		tlog(t, "attach wants the BPF object loaded first");
		return -EINVAL;
	}
	err = gt_channels__create(&t->chans, bpf_map__fd(rings), &t->cs->sink);
	err = err ?: map_bss(t);
	err = err ?: track_pids(t);
	if (err) {
		tlog(t, "creating the channel failed: %s", strerror(-err));
		return err;
	}
	return attach_programs(t);
}

int gtsc_tool__start(struct gtsc_tool *t)
{
	if (!t || !t->on)
		return -EINVAL;
	__atomic_store_n(t->on, 1, __ATOMIC_RELEASE);
	return 0;
}

int gtsc_tool__stop(struct gtsc_tool *t)
{
	if (!t || !t->on)
		return -EINVAL;
	__atomic_store_n(t->on, 0, __ATOMIC_RELEASE);
	/* The flag is no barrier: a program may have read it just before. */
	return gt_channels__sync(&t->chans);
}

/* Per-CPU counters of the tool's channel, summed. */
static int counters(struct gtsc_tool *t, struct gtsc_chan_counters *sum)
{
	struct bpf_map *map = bpf_object__find_map_by_name(t->obj, "gtsc_counters");
	struct gtsc_chan_counters *c = calloc(t->nr_cpus, sizeof(*c));
	__u32 key = t->chans.ch[0].id;
	int err = 0;

	*sum = (struct gtsc_chan_counters){};
	if (!c)
		return -ENOMEM;
	if (!map || bpf_map__lookup_elem(map, &key, sizeof(key), c, sizeof(*c) * t->nr_cpus, 0))
		err = map ? -errno : -ENOENT;
	for (int i = 0; !err && i < t->nr_cpus; i++) {
		sum->written += c[i].written;
		sum->dropped += c[i].dropped;
	}
	free(c);
	return err;
}

/* After stop: until every record the programs counted as written is consumed, or TIMEOUT_MS. */
static int drain_all(struct gtsc_tool *t, int timeout_ms)
{
	__u64 deadline = gtsc_mono_ns() + (timeout_ms > 0 ? timeout_ms : 0) * 1000000ULL;
	struct gtsc_chan_counters sum;
	int err;

	do {
		err = gt_channels__drain(&t->chans, 0);
		err = err < 0 ? err : counters(t, &sum);
		if (err)
			return err;
		if (gt_channels__consumed(&t->chans, t->chans.ch[0].id) >= sum.written)
			return 0;
		usleep(1000);
	} while (gtsc_mono_ns() < deadline);
	return -ETIMEDOUT;
}

int gtsc_tool__consume(struct gtsc_tool *t, int timeout_ms, gtsc_record_fn fn, void *ctx)
{
	__u64 before;
	int err;

	if (!t || !fn || !t->on)
		return -EINVAL;
	t->cs->fn = fn;
	t->cs->ctx = ctx;
	before = t->cs->records;
	if (__atomic_load_n(t->on, __ATOMIC_ACQUIRE))
		err = gt_channels__drain(&t->chans, timeout_ms);
	else
		err = drain_all(t, timeout_ms);
	t->cs->fn = NULL;
	return err < 0 ? err : (int)(t->cs->records - before);
}

int gtsc_tool__dropped(struct gtsc_tool *t, __u64 *dropped)
{
	struct gtsc_chan_counters sum;
	int err;

	if (!t || !dropped || !t->on)
		return -EINVAL;
	err = counters(t, &sum);
	*dropped = sum.dropped;
	return err;
}

int gtsc_tool__format(const struct gtsc_tool *t, const struct gtsc_rec_hdr *rec, char *buf,
		      size_t size)
{
	if (!t)
		return -EINVAL;
	return gt_printf__render(t->formats.buf, t->formats.len, rec, buf, size);
}

void gtsc_tool__destroy(struct gtsc_tool *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_links; i++)
		bpf_link__destroy(t->links[i]);
	free(t->links);
	if (t->bss)
		munmap(t->bss, t->bss_len);
	gt_channels__free(&t->chans);
	if (t->cs)
		t->cs->sink.destroy(&t->cs->sink);
	gt_strbuf_free(&t->formats);
	free(t->pids);
	free(t);
}
