/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef __GTSC_OUT_FILE_H
#define __GTSC_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Opens PATH for writing a new trace (mode 0600) without following a link
 * planted in a shared directory or writing into a file it replaces;
 * KEEP_OLD first renames a non-empty PATH to PATH.old.  Returns the fd or
 * -errno; WHY (may be NULL) gets the sentence of a refused link.
 */
int gt_out_file__create(const char *path, bool keep_old, char *why, size_t why_sz);

#endif
