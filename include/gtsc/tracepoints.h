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
 * @brief The formats a trace saved for the tracepoints it recorded (its
 * TRACEPOINTS chunk, parsed by libtraceevent), readable on any machine,
 * tracefs mounted or not.  The records themselves print through
 * gtsc_event_printer (gtsc/print.h), in text or JSON.
 */
struct gtsc_tp_decoder;

/**
 * @brief R's saved formats; NULL and errno ENOENT when the trace recorded
 * no tracepoint, EINVAL when its chunk is damaged.  R must outlive it.
 */
GTSC_API struct gtsc_tp_decoder *gtsc_tp_decoder__new(const struct gtsc_reader *r);
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
