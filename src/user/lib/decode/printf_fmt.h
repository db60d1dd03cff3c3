/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * gtsc_printf at report time: the loader collects a BPF object's format
 * strings as PRINTF chunk lines (file.h), the same text a trace saves, and
 * a GTSC_REC_PRINTF record is formatted from those lines.
 */
#ifndef __GTSC_PRINTF_FMT_H
#define __GTSC_PRINTF_FMT_H

#include <stddef.h>
#include <linux/types.h>
#include "gtsc/records.h"

struct bpf_object;
struct strbuf;

/* GTSC_PRINTF_ID at run time. */
__u32 gtsc_printf_hash(const char *fmt);
/*
 * Appends a PRINTF line to SB for every format in OBJ's GTSC_PRINTF_SEC
 * (OBJ opened, not yet loaded).  Returns how many, or -errno.
 */
int gt_printf__collect(struct bpf_object *obj, struct strbuf *sb);
/*
 * Formats REC with the PRINTF lines in CHUNK (LEN bytes), snprintf-style.
 * Returns the text's length, -EINVAL for a record that is not a whole
 * GTSC_REC_PRINTF, -ENOENT for a format the lines do not have.
 */
int gt_printf__render(const char *chunk, size_t len, const struct gtsc_rec_hdr *rec, char *buf,
		      size_t size);

#endif
