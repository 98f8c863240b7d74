/* A process's memory views in /proc, and its memory, through a live
 * thread (procdir.h). */
#include "util/procdir.h"

#include <dirent.h>
#include <errno.h>
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

/* A thread of process pid whose memory views can be read: pid itself
 * while its main thread runs (or when nothing else can be told), else
 * the first thread listed in /proc/PID/task that is not a zombie (0 when
 * none is: the process has ended). */
static uint32_t live_tid(uint32_t pid)
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
	uint32_t tid = live_tid(pid);

	if (tid == pid || tid == 0)
		snprintf(buf, size, "/proc/%u/%s", pid, name);
	else
		snprintf(buf, size, "/proc/%u/task/%u/%s", pid, tid, name);
}

void procdir_mem_init(struct procdir_mem *m, uint32_t pid)
{
	m->pid = pid;
	m->tid = live_tid(pid);
	m->repicks = 0;
}

int procdir_mem_readv(struct procdir_mem *m, const struct iovec *local,
		      const struct iovec *remote, unsigned long n)
{
	size_t want = 0;

	for (unsigned long i = 0; i < n; i++)
		want += local[i].iov_len;
	for (int tries = 0; tries < 2; tries++) {
		uint32_t tid = m->tid ? m->tid : m->pid, live;
		ssize_t got = process_vm_readv((pid_t)tid, local, n, remote,
					       n, 0);

		if (got == (ssize_t)want)
			return 0;
		if (got >= 0 || errno != ESRCH)
			return -1;
		/* the thread read through has ended: another one */
		live = live_tid(m->pid);
		if (!live || live == tid)
			return -1;
		m->tid = live;
		m->repicks++;
	}
	return -1;
}
