/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libgtsc: part of the public API.  Include <gtsc/gtsc.h>, which includes
 * this file; it is a separate file only to keep gtsc.h readable.
 */
#ifndef __GTSC_PUBLIC_TRACEPOINTS_H
#define __GTSC_PUBLIC_TRACEPOINTS_H

#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- tracepoints recorded by name (record -e GROUP:NAME) ---- */

/**
 * @brief Decodes a trace's GTSC_REC_TRACEPOINT records with the formats the
 * trace saved (its TRACEPOINTS chunk, parsed by libtraceevent), so a trace
 * decodes on any machine, tracefs mounted or not.
 */
struct gtsc_tp_decoder;

/**
 * @brief A decoder for R's tracepoint records; NULL and errno ENOENT when the
 * trace recorded none, EINVAL when its chunk is damaged.  R must outlive it.
 */
GTSC_API struct gtsc_tp_decoder *gtsc_tp_decoder__new(const struct gtsc_reader *r);
/** @brief The event's name ("sched_switch") and, when GROUP is not NULL, its group; NULL if unknown. */
GTSC_API const char *gtsc_tp_decoder__name(struct gtsc_tp_decoder *d,
					   const struct gtsc_rec_hdr *rec, const char **group);
/**
 * @brief The event's fields as `trace-cmd report` prints them (libtraceevent's
 * print fmt: "prev_comm=bash prev_pid=12 ... next_pid=0"), snprintf-style:
 * the length it needs, or -errno.
 */
GTSC_API int gtsc_tp_decoder__text(struct gtsc_tp_decoder *d, const struct gtsc_rec_hdr *rec,
				   char *buf, size_t size);
/**
 * @brief The event's fields as JSON members, each after a comma
 * (`,"prev_pid":12,"prev_comm":"bash"`): numbers as numbers, strings as
 * strings, arrays as arrays, and a field the print fmt decodes with
 * __print_flags/__print_symbolic also as "<name>_text".  snprintf-style.
 */
GTSC_API int gtsc_tp_decoder__json(struct gtsc_tp_decoder *d, const struct gtsc_rec_hdr *rec,
				   char *buf, size_t size);
/** @brief The IDX-th event the trace has a format for (sorted by group, then name); NULL past the last. */
GTSC_API const char *gtsc_tp_decoder__event(const struct gtsc_tp_decoder *d, size_t idx,
					    const char **group);
GTSC_API void gtsc_tp_decoder__free(struct gtsc_tp_decoder *d);

/**
 * @brief FN(CTX, group, name) for each tracepoint of this kernel matching
 * PATTERN (GROUP:NAME, fnmatch globs; NULL: all), sorted.  The number
 * matched, or -errno: -ENOENT without tracefs, -EACCES when tracefs is
 * not readable (root only), FN's non-zero return.
 */
GTSC_API int gtsc_tracepoints__list(const char *pattern,
				    int (*fn)(void *ctx, const char *group, const char *name),
				    void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* __GTSC_PUBLIC_TRACEPOINTS_H */
