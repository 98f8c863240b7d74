/* For the unit tests that start processes (test_spawn.c, test_child.c,
 * test_util.c): whether a pid is a live process, waiting for it to be
 * gone, and a function run in a child of its own. */
#ifndef YS_TESTS_PROC_ALIVE_H
#define YS_TESTS_PROC_ALIVE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A zombie waiting for its parent (or init) to reap it is dead. */
static inline int process_alive(pid_t pid)
{
	char path[64], buf[512];
	FILE *fp;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[2] != 'Z' && p[2] != 'X';
}

/* Wait (up to 60 s: a SIGKILL'ed process may take a moment to die on a
 * busy machine) for pid to be gone; whether it is. */
static inline bool process_gone(pid_t pid)
{
	for (int i = 0; i < 6000 && process_alive(pid); i++)
		usleep(10000);
	return !process_alive(pid);
}

/*
 * Run child(arg) in a forked child, which ends with child's return value
 * as its exit status (exit_group itself, not _exit, which a sanitizer's
 * runtime intercepts), or however child ends it first (a signal, a
 * handler's exit). Its wait status, or -1 if it could not be started or
 * waited for.
 */
static inline int forked(int (*child)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		syscall(SYS_exit_group, child(arg));
	return waitpid(pid, &status, 0) == pid ? status : -1;
}

#endif
