/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* gtsc-bpf convert: one file per output format, each a reader of the whole trace. */
#ifndef __GTSC_CLI_CONVERT_H
#define __GTSC_CLI_CONVERT_H

#include <stdio.h>
#include <gtsc/gtsc.h>

/* The Trace Event Format (JSON) of ui.perfetto.dev and chrome://tracing. */
int convert_perfetto(struct gtsc_reader *r, FILE *out, __u64 *events);

/* CTF 1.8 as LTTng writes it (babeltrace2, Trace Compass): directory DIR. */
int convert_ctf(struct gtsc_reader *r, const char *dir, __u64 *events);

#endif
