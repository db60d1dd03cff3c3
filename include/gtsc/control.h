/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/**
 * @file control.h
 * @brief libgtsc: runtime control of named sessions, and kernel features.
 *
 * Part of the public API: include <gtsc/gtsc.h>, which includes this file.
 *
 * A named session listens on GTSC_RUN_DIR/NAME.sock (a directory only root
 * may use: the sockets stop, start and kill tracing sessions).  A request
 * is one line of blank-separated words, the command first ("status",
 * "stop", "snapshot --consume /tmp/x.gtsc", ...); the reply is "ok" and
 * the lines the session's handler wrote, or one "error: SENTENCE" line.
 * What the commands are and what their replies hold is up to the server:
 * `gtsc-bpf record --name` serves status, stop, start, snapshot, rewind
 * and kill.  A socket nobody answers is a session that died without
 * cleaning up: a request that meets one removes it.
 */
#ifndef __GTSC_PUBLIC_CONTROL_H
#define __GTSC_PUBLIC_CONTROL_H

#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GTSC_RUN_DIR "/run/gtsc"
/** Bytes a session name takes, its NUL included. */
#define GTSC_SESSION_NAME_MAX 64

/* ---- session names ---- */

/**
 * @brief Is NAME usable as a session name: 1 to 63 of [A-Za-z0-9_.-], not
 * starting with '.'.  (It names a file in GTSC_RUN_DIR.)
 * @return 0, or -EINVAL
 */
GTSC_API int gtsc_control__check_name(const char *name);

/**
 * @brief Names of the sessions that have a socket, live or stale (a request
 * tells them apart), sorted.  No GTSC_RUN_DIR means no sessions.
 * @return a NULL-terminated array to free with gtsc_control__free_names,
 * or NULL and errno (EACCES: not root)
 */
GTSC_API char **gtsc_control__names(void);

/** @brief Frees what gtsc_control__names returned.  NULL is a no-op. */
GTSC_API void gtsc_control__free_names(char **names);

/* ---- the client side ---- */

/**
 * @brief Sends REQUEST (one line, no newline, under 1 KiB) to session NAME
 * and waits up to 10 seconds for its reply.  *REPLY (if REPLY is not
 * NULL) gets a malloc()ed string, NULL only when out of memory, that the
 * caller frees: on success the reply's lines after "ok", on failure one
 * sentence for the user.
 * @return 0, or -EINVAL (not a session name), -E2BIG (request too long),
 * -ENOENT (no such session), -ESRCH (the session has ended: the sentence
 * says how and where its trace is), -ECONNREFUSED (its recorder died: the
 * stale entry is removed), -EACCES or -EPERM (not root), -EREMOTEIO (the
 * session refused the request: the sentence is its reason), -ETIMEDOUT,
 * -EPROTO, or another -errno
 */
GTSC_API int gtsc_control__request(const char *name, const char *request, char **reply);

/**
 * @brief Waits until session NAME has removed its socket, which its server
 * does last, after writing its trace: "kill" then wait_ended returns when
 * the trace is complete.
 * @return 0, -ETIMEDOUT after TIMEOUT_MS, or -EINVAL (not a session name)
 */
GTSC_API int gtsc_control__wait_ended(const char *name, int timeout_ms);

/* ---- the server side: making a session of your own controllable ---- */

struct gtsc_control_server;
/** What a handler writes its reply into. */
struct gtsc_control_reply;

/**
 * @brief Appends printf-style text to the reply.  Lines end with '\n';
 * an error's sentence (see gtsc_control_fn) has none.
 * @return 0, or -ENOMEM (the reply then says so instead of a partial one)
 */
GTSC_API int gtsc_control_reply__printf(struct gtsc_control_reply *reply, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * @brief Handles one request: ARGV[0] is the command, ARGC >= 1, the words
 * valid during the call only.  Returns 0 for "ok" followed by what it
 * wrote into REPLY, or a negative errno with one sentence in REPLY for
 * "error: SENTENCE".
 */
typedef int (*gtsc_control_fn)(void *ctx, int argc, char **argv, struct gtsc_control_reply *reply);

struct gtsc_control_server_opts {
	size_t sz;
	char *errbuf; /**< one sentence on why new failed */
	size_t errbuf_sz;
};
#define gtsc_control_server_opts__last_field errbuf_sz

/**
 * @brief Claims NAME and listens on its socket (creating GTSC_RUN_DIR,
 * mode 0700, if needed).  A stale socket of a dead session is taken over;
 * the epitaph of an earlier session of that name is removed.  Requests are
 * handled by FN, with CTX, only inside gtsc_control_server__serve (a NULL
 * FN refuses them all).
 * @return a server, or NULL and errno: EINVAL (not a session name), EEXIST
 * (a live session has the name), EPERM (GTSC_RUN_DIR is not root's own
 * and private), ...; opts->errbuf gets the sentence
 */
GTSC_API struct gtsc_control_server *gtsc_control_server__new(
	const char *name, gtsc_control_fn fn, void *ctx, const struct gtsc_control_server_opts *opts);

/** @brief A pollable fd, readable when a client waits: poll it in your event loop. */
GTSC_API int gtsc_control_server__fd(const struct gtsc_control_server *srv);

/**
 * @brief Serves every client waiting now, without blocking: call it when
 * the fd is readable, or now and then.  A client that sends nothing is
 * given up on after two seconds.
 * @return the number of requests served, or -errno
 */
GTSC_API int gtsc_control_server__serve(struct gtsc_control_server *srv);

/**
 * @brief Sets what requests to NAME answer once the session is over (how
 * it ended, where its trace is), as -ESRCH with "session 'NAME' has ended:
 * TEXT".  Written by __free, kept until a new session takes the name.
 * The last call wins; text past 511 bytes is cut.
 */
GTSC_API void gtsc_control_server__epitaph(struct gtsc_control_server *srv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * @brief Writes the epitaph (if one was set), then removes the socket, so
 * that a client always finds one of the two; frees SRV.  NULL is a no-op.
 */
GTSC_API void gtsc_control_server__free(struct gtsc_control_server *srv);

/* ---- kernel features ---- */

/** What this kernel can run: the answers a session decides its programs with. */
struct gtsc_features;

/**
 * @brief Probes this kernel: loads and attaches tiny programs, reads kernel
 * BTF, looks for tracefs (and mounts it when it is not mounted and we may).
 * Without root most answers are "no", each with its reason.
 * @return the answers, or NULL and errno (ENOMEM)
 */
GTSC_API struct gtsc_features *gtsc_features__probe(void);

/**
 * @brief The table `gtsc-bpf features` prints and every trace saves, one
 * "name=yes" or "name=no (why)" line per feature, snprintf-style into BUF.
 * @return the length of the whole table (as snprintf), or -EINVAL / -ENOMEM
 */
GTSC_API int gtsc_features__describe(const struct gtsc_features *f, char *buf, size_t size);

/** @brief Frees what gtsc_features__probe returned.  NULL is a no-op. */
GTSC_API void gtsc_features__free(struct gtsc_features *f);

#ifdef __cplusplus
}
#endif

#endif
