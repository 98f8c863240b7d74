/* A process's memory views in /proc, through a live thread (procdir.h). */
#include "util/procdir.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/child_common.h"

/* Whether thread tid of pid is a zombie or dead (its stat says Z or X);
 * one that cannot be read is not taken for one. */
static bool thread_ended(uint32_t pid, uint32_t tid)
{
	char path[96], buf[512], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	n = child_read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

uint32_t procdir_live_tid(uint32_t pid)
{
	char path[64];
	struct dirent *d;
	uint32_t live = 0;
	DIR *dir;

	if (!thread_ended(pid, pid))
		return pid;
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!live && (d = readdir(dir))) {
		char *end;
		unsigned long t = strtoul(d->d_name, &end, 10);

		if (*end || end == d->d_name || t == 0 || t > UINT32_MAX ||
		    t == pid)
			continue;
		if (!thread_ended(pid, (uint32_t)t))
			live = (uint32_t)t;
	}
	closedir(dir);
	return live;
}

void procdir_path(uint32_t pid, const char *name, char *buf, size_t size)
{
	uint32_t tid = procdir_live_tid(pid);

	if (tid == pid || tid == 0)
		snprintf(buf, size, "/proc/%u/%s", pid, name);
	else
		snprintf(buf, size, "/proc/%u/task/%u/%s", pid, tid, name);
}
