// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A storm of one non-syscall tracepoint, task:task_rename: after the
 * blocking read(0) returns, exactly N prctl(PR_SET_NAME) calls, each
 * renaming the task to the name it already has (the kernel traces every
 * rename, __set_task_comm, whether or not the name changes), then
 * exit_group().  test_tp_preempt.sh compares its loss with that of a
 * syscall tracepoint (storm.c's sys_enter_getppid) on the same CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	char name[16] = "", c;

	printf("%d\n", getpid());
	fflush(stdout);
	if (prctl(PR_GET_NAME, name) != 0 || read(0, &c, 1) != 1)
		return 1;
	for (long i = 0; i < n; i++)
		prctl(PR_SET_NAME, name);
	syscall(SYS_exit_group, 0);
	return 0;
}
