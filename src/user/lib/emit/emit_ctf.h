/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A CTF 1.8 writer (https://diamon.org/ctf/v1.8.3/) laid out as LTTng's
 * kernel traces are: one stream class, one stream per channel and CPU,
 * each a file of packets, and the TSDL metadata written last, once every
 * event class the records needed is known.
 */
#ifndef __GTSC_EMIT_CTF_H
#define __GTSC_EMIT_CTF_H

#include <stdio.h>
#include <gtsc/gtsc.h>

struct ctf_writer;

/* Streams go into directory DIRFD (the caller's); PACKET_BYTES of events a packet. */
struct ctf_writer *gt_ctf_writer__new(const struct gtsc_reader *r, int dirfd, size_t packet_bytes);
void gt_ctf_writer__free(struct ctf_writer *w);
/* Takes the next record in the reader's order: 0 or -errno. */
int gt_ctf_writer__push(struct ctf_writer *w, const struct gtsc_rec_hdr *rec);
/* Writes the packets still open and the metadata file: 0 or -errno. */
int gt_ctf_writer__finish(struct ctf_writer *w);
/* Events written and drops counted as discarded so far. */
void gt_ctf_writer__counts(const struct ctf_writer *w, __u64 *events, __u64 *discarded);
/* The TSDL metadata for what was pushed so far, into F (finish writes it to the directory). */
int gt_ctf_writer__metadata(const struct ctf_writer *w, FILE *f);

#endif
