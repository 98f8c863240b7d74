/*
 * What yardstick's child-process layer (child.c) and the spawner
 * (spawner_main.c) both do to start a command, and to find the children
 * a command left them (child_each_child: both are subreapers): one copy,
 * in a header,
 * because the spawner is a static program built alone from spawner_main.c
 * (meson.build) that links nothing of yardstick's. Only system calls and
 * posix_spawn here: no stdio, no allocation (the spawner's peak RSS is the
 * floor of the commands', spawner_main.c says why).
 */
#ifndef YS_UTIL_CHILD_COMMON_H
#define YS_UTIL_CHILD_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The signals a command starts with at their defaults, whatever its
 * starter does with them: yardstick handles or ignores these (SIGINT and
 * SIGQUIT are ignored by `mem` while the program runs, SIGPIPE while a
 * spawner's request is written), the spawner uses SIGUSR1 and SIGALRM.
 */
static inline void child_default_signals(sigset_t *set)
{
	static const int dfl[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE,
				   SIGCHLD, SIGUSR1, SIGALRM };

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
		sigaddset(set, dfl[i]);
}

/*
 * The spawn attributes of a command: no signal blocked, those of
 * child_default_signals at their defaults, and with own_group its own
 * process group (pgid = pid), so that a timeout or Ctrl-C kills all of it
 * and a terminal's Ctrl-C reaches its starter alone.
 */
static inline int child_spawnattr(posix_spawnattr_t *attr, bool own_group)
{
	sigset_t none, def;
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;

	sigemptyset(&none);
	child_default_signals(&def);
	if (own_group)
		flags |= POSIX_SPAWN_SETPGROUP;
	if (posix_spawnattr_init(attr))
		return -1;
	if ((own_group && posix_spawnattr_setpgroup(attr, 0)) ||
	    posix_spawnattr_setsigmask(attr, &none) ||
	    posix_spawnattr_setsigdefault(attr, &def) ||
	    posix_spawnattr_setflags(attr, flags)) {
		posix_spawnattr_destroy(attr);
		return -1;
	}
	return 0;
}

/* Descriptor i (0, 1, 2) of the child: /dev/null. */
static inline int child_action_null(posix_spawn_file_actions_t *fa, int i)
{
	return posix_spawn_file_actions_addopen(fa, i, "/dev/null",
						i ? O_WRONLY : O_RDONLY, 0);
}

/* Kill pid's process group and pid itself (which may have left it). */
static inline void child_kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* wait4 for pid, again after an EINTR. */
static inline pid_t child_wait4(pid_t pid, int *status, struct rusage *ru)
{
	pid_t r;

	while ((r = wait4(pid, status, 0, ru)) < 0 && errno == EINTR)
		;
	return r;
}

/* Read exactly n bytes. Returns 1, 0 at end of file before any byte, or
 * -1 (an error, or end of file within the n bytes). */
static inline int child_read_full(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got == 0 && r == 0 ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

/* Write all n bytes. Returns 0 or -1 (errno set; EIO for a 0 write). */
static inline int child_write_full(int fd, const void *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = write(fd, (const char *)p + done, n - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

/* ---- the children of ours: the spawner's and yardstick's sweep ---- */

/* The decimal number at *p (advanced past it, after blanks); -1 if none. */
static inline long child_parse_pid(const char **p)
{
	long v = -1;

	while (**p == ' ' || **p == '\n')
		(*p)++;
	while (**p >= '0' && **p <= '9') {
		v = (v < 0 ? 0 : v * 10) + (**p - '0');
		(*p)++;
	}
	return v;
}

/* Append s, or the decimal v, to buf at *at (no stdio: the spawner's
 * design note). */
static inline void child_put_str(char *buf, size_t *at, const char *s)
{
	for (; *s; s++)
		buf[(*at)++] = *s;
}

static inline void child_put_num(char *buf, size_t *at, long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		buf[(*at)++] = tmp[--n];
}

/* buf = a NUM1 b [NUM2 c], NUL-terminated; buf holds 64 bytes at least. */
static inline void child_proc_path(char *buf, const char *a, long n1,
				   const char *b, long n2, const char *c)
{
	size_t at = 0;

	child_put_str(buf, &at, a);
	child_put_num(buf, &at, n1);
	child_put_str(buf, &at, b);
	if (c) {
		child_put_num(buf, &at, n2);
		child_put_str(buf, &at, c);
	}
	buf[at] = '\0';
}

/*
 * Read the whole of a small /proc file into buf (size bytes, at least 2),
 * NUL-terminated. Returns its length, or -1.
 */
static inline ssize_t child_read_small(const char *path, char *buf,
				       size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, size - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* The pids listed in buf, a /proc/.../children file's text; a full buffer
 * may end in half a pid, which is left for the next look. */
static inline long child_visit_list(char *buf, ssize_t got, size_t size,
				    int (*fn)(pid_t pid, void *arg), void *arg)
{
	const char *p = buf;
	long pid, n = 0;

	if (got == (ssize_t)size - 1) {
		char *sp = strrchr(buf, ' ');

		if (sp)
			*sp = '\0';
	}
	while ((pid = child_parse_pid(&p)) > 0)
		n += fn((pid_t)pid, arg) == 0;
	return n;
}

/* Where the kernel lacks the children files: every process of /proc whose
 * parent (the 4th field of its stat) is self. */
static inline long child_scan_proc(pid_t self, int (*fn)(pid_t, void *),
				   void *arg)
{
	char path[64], buf[4096], stat[512];
	long n = 0;
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof(buf));

		if (got <= 0)
			break;
		for (long at = 0; at < got; ) {
			struct dirent64 *d = (struct dirent64 *)(buf + at);
			const char *name = d->d_name;
			long pid = child_parse_pid(&name), ppid;

			at += d->d_reclen;
			if (pid <= 0 || *name)
				continue;
			child_proc_path(path, "/proc/", pid, "/stat", 0, NULL);
			if (child_read_small(path, stat, sizeof(stat)) < 0)
				continue;
			/* "pid (comm) S ppid ...": comm may hold anything */
			name = strrchr(stat, ')');
			if (!name || strlen(name) < 4)
				continue;
			name += 4;
			ppid = child_parse_pid(&name);
			if (ppid == self && fn((pid_t)pid, arg) == 0)
				n++;
		}
	}
	close(fd);
	return n;
}

/*
 * Call fn(pid, arg) for every child process of parent (0: ours), from the children
 * files of all its threads (/proc/PARENT/task/TID/children: a
 * subreaper's adopted orphans go to any of its threads); where the
 * kernel lacks those files, from the parent pid of every process in
 * /proc. fn returns 0 to be counted. Returns how many were counted. Only
 * system calls and the stack: safe in a signal handler, and no
 * allocation (the spawner's rss_floor).
 */
static inline long child_each_child_of(pid_t parent,
				       int (*fn)(pid_t pid, void *arg),
				       void *arg)
{
	char path[64], buf[4096], dents[2048];
	long n = 0;
	bool any = false;
	int dfd;

	/* ours through /proc/self: right even where /proc is another pid
	 * namespace's */
	if (parent)
		child_proc_path(path, "/proc/", parent, "/task", 0, NULL);
	dfd = open(parent ? path : "/proc/self/task",
		   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return child_scan_proc(parent ? parent : getpid(), fn, arg);
	for (;;) {
		long got = syscall(SYS_getdents64, dfd, dents, sizeof(dents));

		if (got <= 0)
			break;
		for (long at = 0; at < got; ) {
			struct dirent64 *d = (struct dirent64 *)(dents + at);
			const char *name = d->d_name;
			long tid = child_parse_pid(&name);
			ssize_t len;

			at += d->d_reclen;
			if (tid <= 0 || *name)
				continue;
			if (parent)
				child_proc_path(path, "/proc/", parent,
						"/task/", tid, "/children");
			else
				child_proc_path(path, "/proc/self/task/", tid,
						"/children", 0, NULL);
			len = child_read_small(path, buf, sizeof(buf));
			if (len < 0)
				continue;
			any = true;
			n += child_visit_list(buf, len, sizeof(buf), fn, arg);
		}
	}
	close(dfd);
	return any ? n : child_scan_proc(parent ? parent : getpid(), fn,
					 arg);
}

static inline long child_each_child(int (*fn)(pid_t pid, void *arg),
				    void *arg)
{
	return child_each_child_of(0, fn, arg);
}

#endif
