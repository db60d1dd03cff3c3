// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Forks N children that each call getppid() M times, then reaps them. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, m = argc > 2 ? atoi(argv[2]) : 5;

	for (int i = 0; i < n; i++) {
		pid_t c = fork();

		if (c == 0) {
			for (int j = 0; j < m; j++)
				syscall(SYS_getppid);
			_exit(0);
		}
		printf("child=%d\n", c);
		fflush(stdout);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
