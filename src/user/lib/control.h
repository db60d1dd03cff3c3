/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Session control from other processes: each running session listens on
 * GTSC_RUN_DIR/<name>.sock (a root-only directory).  A request is one line,
 * "COMMAND [ARG...]"; the reply is "ok" or "error: <sentence>" on its first
 * line, then key=value lines.  A socket nobody answers is a session that died
 * without cleaning up: clients remove it when they meet it.
 */
#ifndef __GTSC_CONTROL_H
#define __GTSC_CONTROL_H

#include <stddef.h>

struct strbuf;

#define GTSC_RUN_DIR "/run/gtsc"
#define GTSC_SESSION_NAME_MAX 64

struct gtsc_ctl_server;

/*
 * Handles one request: ARGV[0] is the command.  Writes reply lines (after
 * the ok/error line) to REPLY; returns 0 for "ok" or -errno with a sentence
 * in REPLY for "error: ...".
 */
typedef int (*gtsc_ctl_handler)(void *ctx, int argc, char **argv, struct strbuf *reply);

/* Valid names: [A-Za-z0-9_.-], 1..63 chars, not starting with '.'. */
int gtsc_ctl__check_name(const char *name);

/*
 * Claims NAME: -EEXIST if a live session has it (ERR says whose), removes a
 * stale socket of a dead one.  NULL + errno; ERR gets a sentence.
 */
struct gtsc_ctl_server *gtsc_ctl_server__create(const char *name, char *err, size_t err_sz);
/* Pollable fd: readable when a client waits. */
int gtsc_ctl_server__fd(const struct gtsc_ctl_server *srv);
/* Serves every waiting client, without blocking on a slow one for long. */
int gtsc_ctl_server__serve(struct gtsc_ctl_server *srv, gtsc_ctl_handler handler, void *ctx);
/*
 * What requests to NAME answer once the session has ended (the trace it
 * left, when): kept in GTSC_RUN_DIR/<name>.ended by destroy, until a new
 * session takes the name.
 */
__attribute__((format(printf, 2, 3))) void gtsc_ctl_server__epitaph(struct gtsc_ctl_server *srv,
								   const char *fmt, ...);
/* Removes the socket (leaving the epitaph, if any) and frees SRV. */
void gtsc_ctl_server__destroy(struct gtsc_ctl_server *srv);

/*
 * Sends LINE to session NAME and collects the reply lines after "ok" into
 * REPLY.  Returns 0, or -errno with a sentence in REPLY: no such session,
 * a session that ended (-ESRCH: with its epitaph, or its stale entry is
 * removed), not root, or the session's own "error: ..." (-EREMOTEIO).
 */
int gtsc_ctl__request(const char *name, const char *line, struct strbuf *reply);
/* Names of the sessions that have a socket (live or stale), sorted; NULL-terminated, free()d by caller with gtsc_ctl__free_names. */
char **gtsc_ctl__names(int *err);
void gtsc_ctl__free_names(char **names);

#endif
