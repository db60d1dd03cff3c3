/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The field layer: every record that crosses from BPF, built-in or a
 * tracepoint's raw entry, is described once as a list of fields, and every
 * output walks that list: the text and JSON emitters today, the CTF
 * metadata, the Perfetto emitter and the compact column codec next.  The
 * model is libtraceevent's (an event is a list of described fields;
 * printing walks them): a tracepoint's class is built at report time from
 * the format saved in the trace (libtraceevent parses it), a built-in
 * record's class is a const table next to its record in the registry.
 *
 * Offsets are from the start of the record (struct gtsc_rec_hdr included),
 * so one walker serves both; a tracepoint's entry offsets are shifted by
 * where the raw entry starts in its record.
 */
#ifndef __GTSC_FIELDS_H
#define __GTSC_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct xlat;

/* How the bytes are laid out. */
enum gtsc_ftype {
	GTSC_FT_UINT,	   /* unsigned integer of size 1, 2, 4 or 8 */
	GTSC_FT_INT,	   /* signed integer of size 1, 2, 4 or 8 */
	GTSC_FT_CHARS,	   /* char[size], NUL-padded (comm, cache names) */
	GTSC_FT_ARRAY,	   /* fixed array: size bytes of elem_size elements */
	GTSC_FT_DYN_STR,   /* __data_loc char[]: u32 (len << 16 | offset from the entry) */
	GTSC_FT_DYN_ARRAY, /* __data_loc of other elements, same encoding */
	/*
	 * sys_enter/sys_exit's captured memory: a list of gtsc_payload_item from
	 * offset to the record's end, its byte count the __u16 at elem_size
	 * (records.h).  JSON only ("data": [...]); text leaves it to --syscalls.
	 */
	GTSC_FT_PAYLOAD,
};

/* How the value is shown; a hint both emitters honour. */
enum gtsc_fprint {
	GTSC_FP_DEFAULT, /* decimal numbers, strings as text */
	GTSC_FP_HEX,	 /* 0x%x; JSON: a string past 2^53 is never lost */
	GTSC_FP_SYM,	 /* kernel address as symbol+0xoff from the trace's symbols */
	GTSC_FP_ERRNO,	 /* negative values as -ENOENT */
	GTSC_FP_XLAT,	 /* enum by xlat table */
	GTSC_FP_FLAGS,	 /* bit flags by xlat table: A|B|0x40 */
	GTSC_FP_TIME,	 /* ns on the trace's clock; text: seconds since its start */
	GTSC_FP_BOOL,
	/* Names from the trace's metadata, by the number the field holds: */
	GTSC_FP_SYSCALL, /* syscall nr (an i386 one in a GTSC_SYS_F_COMPAT record) */
	GTSC_FP_FUNC,	 /* probed function id (FUNCS chunk), else func_ID */
	GTSC_FP_CACHE,	 /* kmem cache id (its GTSC_REC_KMEM_CACHE); omitted when unnamed */
	GTSC_FP_CHANNEL, /* channel id (CHANNELS chunk), else "?" */
	GTSC_FP_PRINTF,	 /* a GTSC_REC_PRINTF's text, formatted from the trace's formats */
};

/* gtsc_field.flags */
#define GTSC_FF_ARG (1 << 0)	/* in GTSC_CLASS_CALL: an argument */
#define GTSC_FF_SIGNED (1 << 1) /* ARRAY / DYN_ARRAY: the elements are signed */
#define GTSC_FF_REL_LOC (1 << 2) /* DYN_*: __rel_loc, the offset counts from the word's end */

struct gtsc_field {
	const char *name;
	__u16 offset;	 /* from the start of the record */
	__u16 size;	 /* bytes; for DYN_* the 4-byte __data_loc word */
	__u8 type;	 /* enum gtsc_ftype */
	__u8 print;	 /* enum gtsc_fprint */
	__u16 elem_size; /* ARRAY / DYN_ARRAY: bytes per element, else 0 */
	const struct xlat *xlat; /* FP_XLAT / FP_FLAGS */
	const char *text_name;	 /* the text's key when it differs ("since" for since_ns) */
	__u8 flags;		 /* GTSC_FF_* */
};

/*
 * How the text line lays the fields out (JSON is always "name": value):
 *  KV:   " a=1 b=2"                          (perf script, trace-cmd)
 *  CALL: " openat(dfd=-100, flags=0x241)"    the first field's value, then
 *        the GTSC_FF_ARG fields in parentheses; JSON nests those under
 *        "args": {...}, after the fields before them.
 *  FMT:  " " and the class's own line, field_text with no field (a
 *        tracepoint's print fmt, as trace-cmd report prints it); JSON adds
 *        "group", and "truncated": true when the record was cut.
 */
enum gtsc_class_style {
	GTSC_CLASS_KV,
	GTSC_CLASS_CALL,
	GTSC_CLASS_FMT,
};

/*
 * One event class: a built-in record type (or one flavour of it: kmalloc and
 * kmem_cache_alloc share GTSC_REC_KMEM_ALLOC) or one tracepoint.
 */
struct gtsc_event_class;
struct gtsc_rec_hdr;

/*
 * A field's text made by the class's own means (a tracepoint's print fmt:
 * __print_flags, __print_symbolic): into BUF (SIZE bytes, NUL included),
 * the length written, or < 0 for none (the number is shown alone).  F NULL:
 * the whole line of a GTSC_CLASS_FMT class.  snprintf-style: the length
 * it needs, BUF cut when SIZE is short.
 */
typedef int (*gtsc_field_text_fn)(const struct gtsc_event_class *c, const struct gtsc_field *f,
				  const struct gtsc_rec_hdr *rec, char *buf, size_t size);

struct gtsc_event_class {
	const char *group;	 /* "syscalls", "kmem", "sched", ... */
	const char *name;	 /* "sys_enter", "kmalloc", "sched_switch" */
	const struct gtsc_field *fields;
	unsigned int nr_fields;
	__u16 data_offset;	 /* tracepoints: where the raw entry starts in the record */
	/*
	 * tracepoints: where the __u16 count of the entry's recorded bytes is
	 * (0: none); a __data_loc past it is left out, or in a record flagged
	 * GTSC_TP_F_TRUNCATED shown as far as it was recorded.
	 */
	__u16 data_len_offset;
	__u8 style;		 /* enum gtsc_class_style */
	/* FP_XLAT / FP_FLAGS fields without a table: their text, else none */
	gtsc_field_text_fn field_text;
	void *priv; /* field_text's (a tracepoint's parsed format) */
};

#endif /* __GTSC_FIELDS_H */
