// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Session control from other processes (gtsc/control.h): the socket, the
 * one-line protocol, epitaphs of ended sessions and stale-entry cleanup.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "dispatch.h"
#include "gtsc/gtsc.h"
#include "opts.h"
#include "strbuf.h"

#define CTL_IO_TIMEOUT_MS 2000
#define CTL_MAX_REQUEST 1024
#define CTL_MAX_ARGS 16
#define CTL_WAIT_STEP_MS 20
#define ENDED_KEEP_S (24 * 3600) /* epitaphs older than a day are pruned when a session starts */

struct gtsc_control_server {
	int fd;
	gtsc_control_fn fn;
	void *ctx;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char ended[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char epitaph[512];
	uid_t owner; /* who may control the session besides root */
};

/* What a handler writes into; a struct of its own so that strbuf stays internal. */
struct gtsc_control_reply {
	struct strbuf sb;
};

/* GTSC_RUN_DIR/<name>.ended: a sentence on how the session ended. */
static void ended_path(const char *name, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s/%s.ended", GTSC_RUN_DIR, name);
}

/* Writes TEXT as NAME's epitaph; /run/gtsc is root's, O_NOFOLLOW all the same. */
static void put_epitaph(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		unlink(path);
	close(fd);
}

/* Epitaphs older than ENDED_KEEP_S: nobody asks a day later, and they would pile up. */
static void prune_epitaphs(void)
{
	time_t old = time(NULL) - ENDED_KEEP_S;
	DIR *d = opendir(GTSC_RUN_DIR);
	struct dirent *de;
	struct stat st;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 6 && !strcmp(de->d_name + len - 6, ".ended") &&
		    !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) && st.st_mtime < old)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
}

int gtsc_control__check_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n >= GTSC_SESSION_NAME_MAX || name[0] == '.')
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return -EINVAL;
	}
	return 0;
}

static int sock_path(const char *name, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (gtsc_control__check_name(name))
		return -EINVAL;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s.sock", GTSC_RUN_DIR, name);
	return 0;
}

/* Root only: the sockets start, stop and kill tracing sessions. */
static int run_dir(void)
{
	struct stat st;

	if (mkdir(GTSC_RUN_DIR, 0700) && errno != EEXIST)
		return -errno;
	if (stat(GTSC_RUN_DIR, &st))
		return -errno;
	if (st.st_uid != 0 || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

static int connect_to(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static struct gtsc_control_server *server_fail(char *err, size_t err_sz, int e, const char *fmt,
					       ...)
{
	va_list ap;

	if (err && err_sz) {
		va_start(ap, fmt);
		vsnprintf(err, err_sz, fmt, ap);
		va_end(ap);
	}
	errno = -e;
	return NULL;
}

struct gtsc_control_server *gtsc_control_server__new(const char *name, gtsc_control_fn fn,
						     void *ctx,
						     const struct gtsc_control_server_opts *opts)
{
	char *err = OPTS_GET(opts, errbuf, NULL);
	size_t err_sz = err ? OPTS_GET(opts, errbuf_sz, 0) : 0;
	struct gtsc_control_server *srv = NULL;
	struct sockaddr_un sa;
	int fd = -1, e;

	if (!OPTS_VALID(opts, gtsc_control_server_opts))
		return server_fail(err, err_sz, -EINVAL, "unknown control server options");
	if (sock_path(name, &sa))
		return server_fail(err, err_sz, -EINVAL,
				   "'%s' is not a session name (letters, digits, '_', '.', '-')",
				   name ? name : "");
	e = run_dir();
	if (e)
		return server_fail(err, err_sz, e, "cannot use %s: %s", GTSC_RUN_DIR, strerror(-e));
	fd = connect_to(&sa);
	if (fd >= 0) {
		close(fd);
		return server_fail(err, err_sz, -EEXIST, "a session named '%s' is already running",
				   name);
	}
	unlink(sa.sun_path); /* a dead session's socket */
	srv = calloc(1, sizeof(*srv));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (!srv || fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8)) {
		e = srv ? -errno : -ENOMEM;
		if (fd >= 0)
			close(fd);
		free(srv);
		return server_fail(err, err_sz, e, "cannot listen on %s: %s", sa.sun_path,
				   strerror(-e));
	}
	srv->fd = fd;
	srv->fn = fn;
	srv->ctx = ctx;
	srv->owner = geteuid();
	prune_epitaphs();
	snprintf(srv->path, sizeof(srv->path), "%s", sa.sun_path);
	ended_path(name, srv->ended, sizeof(srv->ended));
	unlink(srv->ended); /* an earlier session's of this name */
	return srv;
}

int gtsc_control_server__fd(const struct gtsc_control_server *srv)
{
	return srv ? srv->fd : -EINVAL;
}

int gtsc_control_reply__printf(struct gtsc_control_reply *reply, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		reply->sb.oom = true;
		return -ENOMEM;
	}
	gt_strbuf_add(&reply->sb, text, n);
	free(text);
	return strbuf_err(&reply->sb);
}

/* A client that gave up has closed its end: EPIPE, never a SIGPIPE that ends the recorder. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Reads up to a newline or EOF within the timeout. */
static ssize_t read_line(int fd, char *buf, size_t sz)
{
	size_t len = 0;

	while (len + 1 < sz) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, CTL_IO_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = read(fd, buf + len, sz - 1 - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		len += n;
		if (memchr(buf, '\n', len))
			break;
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return len;
}

static int split_args(char *line, char **argv)
{
	int argc = 0;

	for (char *tok = strtok(line, " \t"); tok && argc < CTL_MAX_ARGS - 1;
	     tok = strtok(NULL, " \t"))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return argc;
}

/* "error: SENTENCE\n", or "ok\n" and the reply's lines. */
static void send_reply(int cfd, int err, const struct strbuf *sb)
{
	const char *text = sb->buf ? sb->buf : "failed";
	size_t len = sb->buf ? sb->len : strlen(text);

	if (sb->oom) {
		err = -ENOMEM;
		text = "out of memory for the reply";
		len = strlen(text);
	}
	if (err) {
		write_all(cfd, "error: ", 7);
		write_all(cfd, text, len);
		write_all(cfd, "\n", 1);
	} else {
		write_all(cfd, "ok\n", 3);
		if (sb->buf)
			write_all(cfd, sb->buf, sb->len);
	}
}

/* The socket's directory is root's 0700; a process that reaches it anyway is still asked. */
static bool peer_allowed(int cfd, uid_t owner, struct strbuf *why)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		gt_strbuf_addf(why, "cannot tell who is asking (%s)", strerror(errno));
		return false;
	}
	if (cred.uid == 0 || cred.uid == owner)
		return true;
	gt_strbuf_addf(why, "this session takes commands only from root or its owner (uid %u), "
			 "not from uid %u", (unsigned)owner, (unsigned)cred.uid);
	return false;
}

static void serve_one(int cfd, const struct gtsc_control_server *srv)
{
	char line[CTL_MAX_REQUEST], *argv[CTL_MAX_ARGS];
	struct gtsc_control_reply reply = {};
	gtsc_control_fn fn = srv->fn;
	int argc, err;

	/* The listening socket is non-blocking; a client's is not. */
	fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) & ~O_NONBLOCK);
	if (!peer_allowed(cfd, srv->owner, &reply.sb)) {
		send_reply(cfd, -EPERM, &reply.sb);
		gt_strbuf_free(&reply.sb);
		return;
	}
	if (read_line(cfd, line, sizeof(line)) <= 0)
		return;
	argc = split_args(line, argv);
	err = argc && fn ? fn(srv->ctx, argc, argv, &reply) : -EINVAL;
	if (!argc)
		gt_strbuf_addf(&reply.sb, "empty request");
	else if (!fn)
		gt_strbuf_addf(&reply.sb, "this session takes no commands");
	send_reply(cfd, err, &reply.sb);
	gt_strbuf_free(&reply.sb);
}

int gtsc_control_server__serve(struct gtsc_control_server *srv)
{
	int served = 0;

	if (!srv)
		return -EINVAL;
	for (;;) {
		int cfd = accept4(srv->fd, NULL, NULL, SOCK_CLOEXEC);

		if (cfd < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? served : -errno;
		serve_one(cfd, srv);
		close(cfd);
		served++;
	}
}

void gtsc_control_server__epitaph(struct gtsc_control_server *srv, const char *fmt, ...)
{
	va_list ap;

	if (!srv)
		return;
	va_start(ap, fmt);
	vsnprintf(srv->epitaph, sizeof(srv->epitaph), fmt, ap);
	va_end(ap);
}

static void write_epitaph(const struct gtsc_control_server *srv)
{
	if (srv->epitaph[0])
		put_epitaph(srv->ended, srv->epitaph);
}

void gtsc_control_server__free(struct gtsc_control_server *srv)
{
	if (!srv)
		return;
	write_epitaph(srv); /* before the socket goes: a client never finds neither */
	unlink(srv->path);
	close(srv->fd);
	free(srv);
}

static int read_reply(int fd, struct strbuf *reply)
{
	char buf[4096], *nl;
	struct strbuf all = {};
	int err = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, CTL_IO_TIMEOUT_MS * 5) <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		gt_strbuf_add(&all, buf, n);
	}
	if (!err && (!all.buf || !(nl = strchr(all.buf, '\n'))))
		err = -EPROTO;
	if (!err && !strncmp(all.buf, "ok\n", 3)) {
		gt_strbuf_add(reply, nl + 1, all.len - (nl + 1 - all.buf));
	} else if (!err) {
		const char *msg = strncmp(all.buf, "error: ", 7) ? all.buf : all.buf + 7;

		gt_strbuf_add(reply, msg, nl - msg);
		err = -EREMOTEIO;
	} else {
		gt_strbuf_addf(reply, "the session did not answer (%s)", strerror(-err));
	}
	gt_strbuf_free(&all);
	return err;
}

static bool read_epitaph(const char *name, struct strbuf *reply)
{
	char path[256], text[512];
	ssize_t n;
	int fd;

	ended_path(name, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = '\0';
	gt_strbuf_addf(reply, "session '%s' has ended: %s", name, text);
	return true;
}

/* Why connecting to NAME failed with FD, in REPLY; a stale socket is removed. */
static int connect_failed(const char *name, const struct sockaddr_un *sa, int fd,
			  struct strbuf *reply)
{
	char path[256];

	if (fd == -ENOENT && read_epitaph(name, reply))
		return -ESRCH;
	if (fd == -ECONNREFUSED) {
		/* its recorder died without removing it: the next question gets the same answer */
		ended_path(name, path, sizeof(path));
		put_epitaph(path, "its recorder died (killed or crashed) without finishing "
				  "the trace");
		unlink(sa->sun_path);
	}
	if (fd == -ENOENT)
		gt_strbuf_addf(reply, "there is no session named '%s' ('gtsc-bpf list' shows them)",
			       name);
	else if (fd == -ECONNREFUSED)
		gt_strbuf_addf(reply, "session '%s' has ended (its recorder died; entry removed)",
			       name);
	else if (fd == -EACCES || fd == -EPERM)
		gt_strbuf_addf(reply, "controlling sessions needs root");
	else
		gt_strbuf_addf(reply, "cannot reach session '%s': %s", name, strerror(-fd));
	return fd;
}

static int request(const char *name, const char *line, struct strbuf *reply)
{
	struct sockaddr_un sa;
	int fd, err;

	if (sock_path(name, &sa)) {
		gt_strbuf_addf(reply, "'%s' is not a session name", name ? name : "");
		return -EINVAL;
	}
	if (!line || strlen(line) >= CTL_MAX_REQUEST || strchr(line, '\n')) {
		gt_strbuf_addf(reply, "a request is one line under %d bytes", CTL_MAX_REQUEST);
		return line && !strchr(line, '\n') ? -E2BIG : -EINVAL;
	}
	fd = connect_to(&sa);
	if (fd < 0)
		return connect_failed(name, &sa, fd, reply);
	err = write_all(fd, line, strlen(line));
	err = err ?: write_all(fd, "\n", 1);
	if (!err)
		shutdown(fd, SHUT_WR);
	err = err ?: read_reply(fd, reply);
	close(fd);
	return err;
}

int gtsc_control__request(const char *name, const char *line, char **reply)
{
	struct strbuf sb = {};
	int err = request(name, line, &sb);

	if (reply) {
		*reply = NULL;
		if (!strbuf_err(&sb))
			*reply = sb.buf ? sb.buf : strdup(""); /* an empty "ok" */
		if (*reply == sb.buf)
			sb.buf = NULL;
	}
	gt_strbuf_free(&sb);
	return err;
}

int gtsc_control__wait_ended(const char *name, int timeout_ms)
{
	struct sockaddr_un sa;

	if (sock_path(name, &sa))
		return -EINVAL;
	for (int ms = 0;; ms += CTL_WAIT_STEP_MS) {
		if (access(sa.sun_path, F_OK))
			return 0;
		if (ms >= timeout_ms)
			return -ETIMEDOUT;
		usleep(CTL_WAIT_STEP_MS * 1000);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends NAME (of LEN bytes) to the NULL-terminated *NAMES holding N. */
static int add_name(char ***names, size_t n, const char *name, size_t len)
{
	char **more = realloc(*names, (n + 2) * sizeof(**names));

	if (!more)
		return -ENOMEM;
	*names = more;
	more[n] = strndup(name, len);
	more[n + 1] = NULL;
	return more[n] ? 0 : -ENOMEM;
}

char **gtsc_control__names(void)
{
	char **names;
	struct dirent *de;
	size_t n = 0;
	int err = 0;
	DIR *d;

	gt_dispatch__reap_all(); /* a SIGKILLed recorder's dispatch slot, as its socket */
	names = calloc(1, sizeof(*names));

	if (!names)
		return errno = ENOMEM, NULL;
	d = opendir(GTSC_RUN_DIR);
	if (!d && errno == ENOENT)
		return names;
	if (!d) {
		err = -errno;
		free(names);
		return errno = -err, NULL;
	}
	while (!err && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len <= 5 || strcmp(de->d_name + len - 5, ".sock"))
			continue;
		err = add_name(&names, n, de->d_name, len - 5);
		n += !err;
	}
	closedir(d);
	if (err) {
		gtsc_control__free_names(names);
		return errno = -err, NULL;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	return names;
}

void gtsc_control__free_names(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}
