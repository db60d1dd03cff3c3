// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Signal names (x86-64 numbers), sigprocmask's how, sigaction's flags. */
#include "xlat.h"

static const struct xlat_entry signals[] = {
	{ 1, "SIGHUP" },
	{ 2, "SIGINT" },
	{ 3, "SIGQUIT" },
	{ 4, "SIGILL" },
	{ 5, "SIGTRAP" },
	{ 6, "SIGABRT" },
	{ 7, "SIGBUS" },
	{ 8, "SIGFPE" },
	{ 9, "SIGKILL" },
	{ 10, "SIGUSR1" },
	{ 11, "SIGSEGV" },
	{ 12, "SIGUSR2" },
	{ 13, "SIGPIPE" },
	{ 14, "SIGALRM" },
	{ 15, "SIGTERM" },
	{ 16, "SIGSTKFLT" },
	{ 17, "SIGCHLD" },
	{ 18, "SIGCONT" },
	{ 19, "SIGSTOP" },
	{ 20, "SIGTSTP" },
	{ 21, "SIGTTIN" },
	{ 22, "SIGTTOU" },
	{ 23, "SIGURG" },
	{ 24, "SIGXCPU" },
	{ 25, "SIGXFSZ" },
	{ 26, "SIGVTALRM" },
	{ 27, "SIGPROF" },
	{ 28, "SIGWINCH" },
	{ 29, "SIGIO" },
	{ 30, "SIGPWR" },
	{ 31, "SIGSYS" },
	{ 32, "SIGRTMIN" },
};
const struct xlat gt_xlat_signals = XLAT_TABLE(signals, NULL, NULL);

static const struct xlat_entry sigprocmask_how[] = {
	{ 0, "SIG_BLOCK" },
	{ 1, "SIG_UNBLOCK" },
	{ 2, "SIG_SETMASK" },
};
const struct xlat gt_xlat_sigprocmask_how = XLAT_TABLE(sigprocmask_how, NULL, "SIG_???");

static const struct xlat_entry sa_flags[] = {
	{ 0x00000001, "SA_NOCLDSTOP" },
	{ 0x00000002, "SA_NOCLDWAIT" },
	{ 0x00000004, "SA_SIGINFO" },
	{ 0x00000400, "SA_UNSUPPORTED" },
	{ 0x00000800, "SA_EXPOSE_TAGBITS" },
	{ 0x04000000, "SA_RESTORER" },
	{ 0x08000000, "SA_ONSTACK" },
	{ 0x10000000, "SA_RESTART" },
	{ 0x40000000, "SA_NODEFER" },
	{ 0x80000000, "SA_RESETHAND" },
};
const struct xlat gt_xlat_sa_flags = XLAT_TABLE(sa_flags, NULL, NULL);
