// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracepoints recorded by name: every field type of the tracefs format
 * grammar (integers of each size and sign, a pointer, char[N], a fixed
 * array, __data_loc strings and arrays, __rel_loc, __print_flags and
 * __print_symbolic) goes through the writer and the reader and decodes,
 * text and JSON, from the TRACEPOINTS chunk alone: no tracefs is read.
 * through the report's printer (gtsc/print.h).  A cut record
 * (GTSC_TP_F_TRUNCATED, a __data_loc past data_len) decodes clamped, and
 * an event id with no format prints its id and length.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gtsc/gtsc.h>
#include "harness.h"
#include "trace_writer.h"

#define FORMAT                                                                                     \
	"name: every_type\n"                                                                       \
	"ID: 900\n"                                                                                \
	"format:\n"                                                                                \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                                 \
	"\n"                                                                                       \
	"\tfield:u8 a_u8;\toffset:8;\tsize:1;\tsigned:0;\n"                                        \
	"\tfield:s8 a_s8;\toffset:9;\tsize:1;\tsigned:1;\n"                                        \
	"\tfield:u16 a_u16;\toffset:10;\tsize:2;\tsigned:0;\n"                                     \
	"\tfield:s16 a_s16;\toffset:12;\tsize:2;\tsigned:1;\n"                                     \
	"\tfield:u32 a_u32;\toffset:16;\tsize:4;\tsigned:0;\n"                                     \
	"\tfield:s32 a_s32;\toffset:20;\tsize:4;\tsigned:1;\n"                                     \
	"\tfield:u64 a_u64;\toffset:24;\tsize:8;\tsigned:0;\n"                                     \
	"\tfield:s64 a_s64;\toffset:32;\tsize:8;\tsigned:1;\n"                                     \
	"\tfield:void * a_ptr;\toffset:40;\tsize:8;\tsigned:0;\n"                                  \
	"\tfield:char a_comm[16];\toffset:48;\tsize:16;\tsigned:0;\n"                              \
	"\tfield:int a_arr[3];\toffset:64;\tsize:12;\tsigned:1;\n"                                 \
	"\tfield:__data_loc char[] a_str;\toffset:76;\tsize:4;\tsigned:0;\n"                       \
	"\tfield:__data_loc u8[] a_bytes;\toffset:80;\tsize:4;\tsigned:0;\n"                       \
	"\tfield:__rel_loc char[] a_rel;\toffset:84;\tsize:4;\tsigned:0;\n"                        \
	"\tfield:unsigned long a_flags;\toffset:88;\tsize:8;\tsigned:0;\n"                         \
	"\tfield:int a_sym;\toffset:96;\tsize:4;\tsigned:1;\n"                                     \
	"\n"                                                                                       \
	"print fmt: \"u8=%u s8=%d u16=%u s16=%d u32=%u s32=%d u64=%llu s64=%lld ptr=%p "          \
	"comm=%s str=%s bytes=%s rel=%s flags=%s sym=%s\", REC->a_u8, REC->a_s8, REC->a_u16, "     \
	"REC->a_s16, REC->a_u32, REC->a_s32, REC->a_u64, REC->a_s64, REC->a_ptr, REC->a_comm, "    \
	"__get_str(a_str), __print_hex(__get_dynamic_array(a_bytes), "                             \
	"__get_dynamic_array_len(a_bytes)), __get_rel_str(a_rel), __print_flags(REC->a_flags, "    \
	"\"|\", { 1, \"A\" }, { 2, \"B\" }, { 4, \"C\" }), __print_symbolic(REC->a_sym, "          \
	"{ 0, \"ZERO\" }, { 7, \"SEVEN\" })\n"

#define FIXED 100
#define DATA_LEN (FIXED + 6 + 3 + 4) /* "hello\0", 01 02 03, "rel\0" */

struct tp_rec {
	struct gtsc_rec_tracepoint r;
	__u8 e[120];
};

static void put(__u8 *e, int off, const void *v, size_t n)
{
	memcpy(e + off, v, n);
}

static void fill(struct tp_rec *t)
{
	__u8 *e = t->e, u8 = 200;
	__s8 s8 = -5;
	__u16 u16 = 60000, type = 900;
	__s16 s16 = -300;
	__u32 u32 = 4000000000u, str = (6 << 16) | FIXED, bytes = (3 << 16) | (FIXED + 6);
	__u32 rel = (4 << 16) | (FIXED + 9 - 88); /* from the end of the word at 84 */
	__s32 s32 = -70000, pid = 42, arr[3] = { 1, -2, 3 }, sym = 7;
	__u64 u64 = ~0ULL, ptr = 0xffff8880deadbeefULL, flags = 1 | 4 | 8;
	__s64 s64 = -9000000000LL;

	memset(t, 0, sizeof(*t));
	t->r.hdr = (struct gtsc_rec_hdr){ .type = GTSC_REC_TRACEPOINT,
					  .size = (sizeof(t->r) + DATA_LEN + 7) & ~7u,
					  .cpu = 1, .pid = 42, .tid = 42, .ts_ns = 2000 };
	t->r.event_id = 900;
	t->r.data_len = DATA_LEN;
	put(e, 0, &type, 2);
	put(e, 4, &pid, 4);
	put(e, 8, &u8, 1);
	put(e, 9, &s8, 1);
	put(e, 10, &u16, 2);
	put(e, 12, &s16, 2);
	put(e, 16, &u32, 4);
	put(e, 20, &s32, 4);
	put(e, 24, &u64, 8);
	put(e, 32, &s64, 8);
	put(e, 40, &ptr, 8);
	put(e, 48, "bash", 4);
	put(e, 64, arr, 12);
	put(e, 76, &str, 4);
	put(e, 80, &bytes, 4);
	put(e, 84, &rel, 4);
	put(e, 88, &flags, 8);
	put(e, 96, &sym, 4);
	put(e, FIXED, "hello", 6);
	put(e, FIXED + 6, "\1\2\3", 3);
	put(e, FIXED + 9, "rel", 4);
}

static char *chunk_text(size_t *len)
{
	char *s = NULL;
	int n = asprintf(&s, "header_page 0\n\nevent gtsc_test every_type %zu\n%s\n",
			 strlen(FORMAT), FORMAT);

	*len = n > 0 ? (size_t)n : 0;
	return n > 0 ? s : NULL;
}

static struct gtsc_reader *write_trace(struct test_ctx *t, char *path, const struct tp_rec *recs,
				       int n)
{
	int fd = mkstemp(path), err;
	struct gtsc_writer *w;
	size_t len;
	char *text = chunk_text(&len);

	CHECK(t, fd >= 0 && text, "mkstemp");
	if (fd < 0 || !text)
		return free(text), NULL;
	close(fd);
	w = gt_writer__create(path, NULL);
	err = w ? gt_writer__add_chunk(w, GTSC_CHUNK_META, "start_ns=1000\n", 14) : -errno;
	err = err ?: gt_writer__add_chunk(w, GTSC_CHUNK_TRACEPOINTS, text, len);
	for (int i = 0; i < n && !err; i++)
		err = gt_writer__add_record(w, &recs[i].r.hdr);
	err = err ?: gt_writer__end_round(w);
	if (w)
		err = gt_writer__close(w) ?: err;
	free(text);
	CHECK(t, !err, "write: %d", err);
	return err ? NULL : gtsc_reader__open(path, NULL);
}

/* libtraceevent's own text (trace-cmd's): %d of an s8/s16 field is not sign-extended */
static const char want_text[] =
	"u8=200 s8=251 u16=60000 s16=65236 u32=4000000000 s32=-70000 u64=18446744073709551615 "
	"s64=-9000000000 ptr=0xffff8880deadbeef comm=bash str=hello bytes=01 02 03 rel=rel "
	"flags=A|C|0x8 sym=SEVEN";

static const char want_json[] =
	",\"group\":\"gtsc_test\",\"a_u8\":200,\"a_s8\":-5,\"a_u16\":60000,\"a_s16\":-300,"
	"\"a_u32\":4000000000,\"a_s32\":-70000,\"a_u64\":18446744073709551615,"
	"\"a_s64\":-9000000000,\"a_ptr\":\"0xffff8880deadbeef\",\"a_comm\":\"bash\","
	"\"a_arr\":[1,-2,3],\"a_str\":\"hello\",\"a_bytes\":[1,2,3],\"a_rel\":\"rel\","
	"\"a_flags\":13,\"a_flags_text\":\"A|C|0x8\",\"a_sym\":7,\"a_sym_text\":\"SEVEN\"";

/* REC as the report prints it (gtsc/print.h), text or JSON, into BUF; its length or -1. */
static int print_rec(const struct gtsc_reader *r, const struct gtsc_rec_hdr *rec, bool json,
		     char *buf, size_t size)
{
	GTSC_OPTS(gtsc_event_printer_opts, o, .json = json);
	FILE *f = fmemopen(buf, size, "w");
	struct gtsc_event_printer *p = f ? gtsc_event_printer__new(r, f, &o) : NULL;
	int err = p ? gtsc_event_printer__print(p, rec) : -1;
	long n;

	gtsc_event_printer__free(p);
	n = f ? ftell(f) : -1;
	if (f)
		fclose(f);
	return err ? -1 : (int)n;
}

/* The line after "NAME: " (text) or after "\"event\":\"NAME\"" (JSON), newline cut. */
static const char *after(char *line, const char *mark)
{
	char *p = strstr(line, mark);

	line[strcspn(line, "\n")] = '\0';
	return p ? p + strlen(mark) : "";
}

static void test_every_type(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-tp.XXXXXX", buf[2048], want[1024];
	struct gtsc_tp_decoder *d = NULL;
	const struct gtsc_rec_hdr *h;
	const char *group = NULL, *name;
	struct gtsc_reader *r;
	struct tp_rec rec[2];

	fill(&rec[0]);
	fill(&rec[1]);
	rec[1].r.event_id = 901; /* no format for it */
	r = write_trace(t, path, rec, 2);
	CHECK(t, r, "open: %d", errno);
	if (!r)
		goto out;
	d = gtsc_tp_decoder__new(r);
	CHECK(t, d, "decoder: %d", errno);
	CHECK(t, gtsc_reader__next(r, &h) == 1, "first record");
	CHECK(t, print_rec(r, h, false, buf, sizeof(buf)) > 0 &&
			 !strcmp(after(buf, " every_type: "), want_text),
	      "text:\n%s\n%s", buf, want_text);
	snprintf(want, sizeof(want), "%s}", want_json);
	CHECK(t, print_rec(r, h, true, buf, sizeof(buf)) > 0 &&
			 !strcmp(after(buf, "\"event\":\"every_type\""), want),
	      "json:\n%s\n%s", buf, want);
	name = gtsc_tp_decoder__event(d, 0, &group);
	CHECK(t, name && !strcmp(name, "every_type") && !strcmp(group, "gtsc_test") &&
			 !gtsc_tp_decoder__event(d, 1, NULL),
	      "event list");
	CHECK(t, gtsc_reader__next(r, &h) == 1, "second record");
	CHECK(t, print_rec(r, h, false, buf, sizeof(buf)) > 0 &&
			 !strcmp(after(buf, " tracepoint_901: "), "event_id=901 data_len=113"),
	      "an id without a format prints its id: %s", buf);
out:
	gtsc_tp_decoder__free(d);
	gtsc_reader__close(r);
	unlink(path);
}

/*
 * A record cut in the kernel: a __data_loc reaching past data_len is cut
 * there, one starting past it is left out; nothing is read past data_len.
 */
static void test_cut(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-tp.XXXXXX", buf[2048];
	__u32 str = (40 << 16) | FIXED; /* claims 40 bytes, 3 recorded */
	const struct gtsc_rec_hdr *h;
	struct gtsc_reader *r;
	struct tp_rec rec;

	fill(&rec);
	memcpy(rec.e + 76, &str, 4);
	memset(rec.e + FIXED, 'x', 20);
	rec.r.data_len = FIXED + 3;
	rec.r.hdr.size = (sizeof(rec.r) + FIXED + 3 + 7) & ~7u;
	rec.r.hdr.flags = GTSC_TP_F_TRUNCATED;
	r = write_trace(t, path, &rec, 1);
	CHECK(t, r && gtsc_reader__next(r, &h) == 1, "open and read");
	if (!r)
		goto out;
	CHECK(t, print_rec(r, h, false, buf, sizeof(buf)) > 0 && strstr(buf, " str=xxx ") &&
			 strstr(buf, " [cut]\n"),
	      "text: %s", buf);
	CHECK(t, print_rec(r, h, true, buf, sizeof(buf)) > 0 &&
			 strstr(buf, "\"a_str\":\"xxx\"") && !strstr(buf, "\"a_bytes\"") &&
			 strstr(buf, "\"truncated\":true}"),
	      "json: %s", buf);
out:
	gtsc_reader__close(r);
	unlink(path);
}

/* A trace that recorded no tracepoint by name has no decoder. */
static void test_none(struct test_ctx *t)
{
	char path[] = "/tmp/gtsc-tp.XXXXXX";
	int fd = mkstemp(path);
	struct gtsc_writer *w;
	struct gtsc_reader *r = NULL;

	if (fd >= 0)
		close(fd);
	w = gt_writer__create(path, NULL);
	if (w && !gt_writer__add_chunk(w, GTSC_CHUNK_META, "start_ns=1\n", 11) &&
	    !gt_writer__close(w))
		r = gtsc_reader__open(path, NULL);
	CHECK(t, r, "open");
	errno = 0;
	CHECK(t, r && !gtsc_tp_decoder__new(r) && errno == ENOENT, "no chunk: ENOENT (%d)", errno);
	gtsc_reader__close(r);
	unlink(path);
}

static const struct test_case cases[] = {
	{ "every_type", test_every_type },
	{ "cut", test_cut },
	{ "none", test_none },
};

int main(void)
{
	return RUN_TESTS("tracepoints", cases);
}
