/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/**
 * @file print.h
 * @brief Printing a trace's events as the gtsc-bpf report does: one line of
 * text (perf script style) or one JSON object per record, both made from
 * one description of each record's fields (the library's event classes),
 * with names from the trace's own metadata (syscall table, symbols, cache
 * names, probed functions), never from the machine reading it.
 */
#ifndef __GTSC_PRINT_H
#define __GTSC_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- which command a thread ran, from the task records seen so far ---- */

struct gtsc_comm_table;

GTSC_API struct gtsc_comm_table *gtsc_comm_table__new(void);
GTSC_API void gtsc_comm_table__free(struct gtsc_comm_table *t);
/** @brief Feeds a GTSC_REC_TASK record (other types are ignored). */
GTSC_API void gtsc_comm_table__update(struct gtsc_comm_table *t, const struct gtsc_rec_hdr *rec);
/** @brief Comm of TID, else of its thread group PID, else "?". */
GTSC_API const char *gtsc_comm_table__get(const struct gtsc_comm_table *t, __u32 pid, __u32 tid);

/* ---- events ---- */

struct gtsc_event_printer;

struct gtsc_event_printer_opts {
	size_t sz;
	bool json; /**< one JSON object a line; else text */
	/**
	 * JSON of the fields alone, one object with no head and no newline
	 * (another format's "args", as convert --to perfetto's).
	 */
	bool json_fields;
	size_t : 0;
};
#define gtsc_event_printer_opts__last_field json_fields

/**
 * @brief A printer of R's records onto OUT.  R must outlive it.  NULL and
 * errno on failure.
 */
GTSC_API struct gtsc_event_printer *
gtsc_event_printer__new(const struct gtsc_reader *r, FILE *out,
			const struct gtsc_event_printer_opts *opts);
GTSC_API void gtsc_event_printer__free(struct gtsc_event_printer *p);
/**
 * @brief Prints REC, in the reader's order; records that only name things
 * (task comms, kmem caches) update the printer and print nothing, as do
 * record types it does not know.  0, or -EIO when OUT failed.
 */
GTSC_API int gtsc_event_printer__print(struct gtsc_event_printer *p,
				       const struct gtsc_rec_hdr *rec);

/**
 * @brief Takes what REC names (a task's comm, a kmem cache's name) as
 * print() does, without printing REC: for a caller that leaves events out
 * (report's filters), so that those it prints later show their names.
 * 0, -EINVAL or -ENOMEM.
 */
GTSC_API int gtsc_event_printer__skip(struct gtsc_event_printer *p,
				      const struct gtsc_rec_hdr *rec);

/**
 * @brief REC's event name ("sys_enter", "kmalloc", "sched_switch") and,
 * when GROUP is not NULL, its group ("syscalls", "kmem", "sched"); NULL
 * for records that print nothing.
 */
GTSC_API const char *gtsc_event_printer__name(struct gtsc_event_printer *p,
					      const struct gtsc_rec_hdr *rec, const char **group);

#ifdef __cplusplus
}
#endif

#endif /* __GTSC_PRINT_H */
