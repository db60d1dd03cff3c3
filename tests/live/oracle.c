// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The strace oracle's workload: a fixed sequence of file, memory, signal,
 * socket (loopback) and process calls whose decoded form strace prints.
 * Deterministic by construction: one thread at a time (children are waited
 * for), no time- or address-dependent branches, so two runs make the same
 * calls with the same non-pointer arguments.  Usage: oracle DIR (a scratch
 * directory that exists).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>

static char path[4096], dir[4096];
static char buf[256];
static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

static void files(void)
{
	struct stat st;
	struct termios tio;
	int fd, fd2;

	fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	syscall(SYS_write, fd, "hello oracle\n", 13);
	syscall(SYS_fstat, fd, &st); /* S_IFREG|0640 (the umask is the same in both runs), 13 */
	syscall(SYS_lseek, fd, 0, SEEK_SET);
	syscall(SYS_lseek, fd, (off_t)-3, SEEK_END);
	syscall(SYS_fcntl, fd, F_GETFD);
	syscall(SYS_fcntl, fd, F_SETFD, 0);
	syscall(SYS_fcntl, fd, F_SETFL, O_APPEND | O_NONBLOCK);
	fd2 = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 10);
	syscall(SYS_close, fd2);
	fd2 = syscall(SYS_dup, fd);
	syscall(SYS_dup3, fd2, 20, O_CLOEXEC);
	syscall(SYS_close, 20);
	syscall(SYS_close, fd2);
	syscall(SYS_ioctl, fd, TCGETS, &tio);
	syscall(SYS_close, fd);
	syscall(SYS_close, fd); /* EBADF */

	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | 0x800000); /* an unknown bit */
	syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_pread64, fd, buf, 5, 6);
	syscall(SYS_close, fd);
	syscall(SYS_openat, AT_FDCWD, "/nonexistent/oracle", O_RDONLY);
	syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
	syscall(SYS_stat, path, &st);
	syscall(SYS_lstat, path, &st);
	syscall(SYS_stat, "/dev/null", &st); /* st_rdev=makedev(0x1, 0x3) */
	syscall(SYS_stat, "/nonexistent/oracle", &st); /* ENOENT: the pointer */
	syscall(SYS_access, path, R_OK | W_OK);
	syscall(SYS_faccessat, AT_FDCWD, "/nonexistent/oracle", F_OK);
	syscall(SYS_mkdirat, AT_FDCWD, dir, 0750);
	syscall(SYS_chdir, dir);
	syscall(SYS_chdir, "/");
	syscall(SYS_unlinkat, AT_FDCWD, path, 0);
	syscall(SYS_unlinkat, AT_FDCWD, dir, AT_REMOVEDIR);
	syscall(SYS_umask, 022);
}

static void memory(void)
{
	char *p;

	p = (char *)syscall(SYS_mmap, NULL, 8192, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p[0] = 1;
	syscall(SYS_mprotect, p, 4096, PROT_READ);
	syscall(SYS_madvise, p, 8192, MADV_DONTNEED);
	syscall(SYS_munmap, p, 8192);
	syscall(SYS_mmap, NULL, 4096, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	syscall(SYS_munmap, 0x1000, 4095); /* EINVAL */
}

static void signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct timespec ts = { 0, 1000 };
	struct rlimit rl;
	sigset_t set, oset;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaction(SIGUSR1, &sa, NULL);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, &old); /* both structs */
	sigprocmask(SIG_BLOCK, &set, NULL);
	syscall(SYS_kill, getpid(), SIGUSR1);
	syscall(SYS_rt_sigpending, &oset, 8);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &oset, 8);
	sigprocmask(SIG_UNBLOCK, &set, NULL); /* the handler runs here */
	syscall(SYS_kill, getpid(), 0);
	syscall(SYS_kill, 999999999, SIGTERM); /* ESRCH */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, NULL, NULL, 8);
	syscall(SYS_nanosleep, &ts, NULL);
	/* RLIMIT_STACK: neither strace nor gtsc-bpf changes it for the child */
	syscall(SYS_getrlimit, RLIMIT_STACK, &rl);
	syscall(SYS_setrlimit, RLIMIT_STACK, &rl);
	syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &rl);
}

static void sockets(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sockaddr_storage peer;
	socklen_t len = sizeof(a), plen = sizeof(peer);
	int one = 1, s, c, d, sv[2];

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	syscall(SYS_setsockopt, s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	syscall(SYS_bind, s, &a, sizeof(a));
	syscall(SYS_listen, s, 4);
	syscall(SYS_getsockname, s, &a, &len);
	c = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	syscall(SYS_connect, c, &a, sizeof(a));
	d = syscall(SYS_accept4, s, &peer, &plen, SOCK_CLOEXEC | SOCK_NONBLOCK); /* [128 => 16] */
	syscall(SYS_getpeername, d, &peer, &plen); /* [16] */
	syscall(SYS_sendto, c, "ping", 4, MSG_NOSIGNAL, NULL, 0);
	syscall(SYS_recvfrom, d, buf, 16, 0, NULL, NULL);
	syscall(SYS_shutdown, c, SHUT_WR);
	syscall(SYS_close, d);
	syscall(SYS_close, c);
	syscall(SYS_close, s);
	syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, sv);
	syscall(SYS_close, sv[0]);
	syscall(SYS_close, sv[1]);
	s = syscall(SYS_socket, AF_INET6, SOCK_DGRAM, IPPROTO_UDP);
	syscall(SYS_close, s);
	syscall(SYS_socket, AF_INET, SOCK_RAW, 9999); /* EPROTONOSUPPORT or EPERM */
}

static void pipes(void)
{
	int p[2], n;

	syscall(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK);
	syscall(SYS_write, p[1], "x", 1);
	syscall(SYS_ioctl, p[0], FIONREAD, &n);
	syscall(SYS_read, p[0], buf, 8);
	syscall(SYS_read, p[0], buf, 8); /* EAGAIN */
	syscall(SYS_close, p[0]);
	syscall(SYS_close, p[1]);
	syscall(SYS_pipe, p);
	syscall(SYS_close, p[0]);
	syscall(SYS_close, p[1]);
}

static int child_fn(void *arg)
{
	syscall(SYS_getppid);
	return 0;
}

static void processes(void)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	int status, p[2];
	pid_t pid;

	syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
	syscall(SYS_prctl, PR_SET_NAME, "oracle-main", 0, 0, 0);
	syscall(SYS_getpid);
	syscall(SYS_gettid);
	syscall(SYS_getuid);
	pid = fork();
	if (pid == 0) {
		syscall(SYS_getpid);
		syscall(SYS_exit_group, 3);
	}
	syscall(SYS_wait4, pid, &status, 0, NULL);
	syscall(SYS_wait4, -1, &status, WNOHANG, NULL); /* ECHILD */
	/* A child that waits for the pipe to close: WNOHANG finds it running. */
	syscall(SYS_pipe2, p, O_CLOEXEC);
	pid = fork();
	if (pid == 0) {
		syscall(SYS_close, p[1]);
		syscall(SYS_read, p[0], buf, 1);
		syscall(SYS_exit_group, 0);
	}
	syscall(SYS_close, p[0]);
	syscall(SYS_wait4, pid, &status, WNOHANG, NULL); /* 0: the pointer */
	syscall(SYS_close, p[1]);
	syscall(SYS_wait4, pid, &status, 0, NULL);
	pid = clone(child_fn, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	syscall(SYS_wait4, pid, &status, __WALL, NULL);
	syscall(SYS_setpgid, 0, 0);
	syscall(SYS_getpgid, 0);
	syscall(SYS_sched_yield);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: oracle DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/oracle-file", argv[1]);
	snprintf(dir, sizeof(dir), "%s/oracle-dir", argv[1]);
	files();
	memory();
	signals();
	sockets();
	pipes();
	processes();
	return got == SIGUSR1 ? 0 : 1;
}
