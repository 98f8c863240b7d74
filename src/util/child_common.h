/*
 * What yardstick's child-process layer (child.c) and the spawner
 * (spawner_main.c) both do to start a command: one copy, in a header,
 * because the spawner is a static program built alone from spawner_main.c
 * (meson.build) that links nothing of yardstick's. Only system calls and
 * posix_spawn here: no stdio, no allocation (the spawner's peak RSS is the
 * floor of the commands', spawner_main.c says why).
 */
#ifndef YS_UTIL_CHILD_COMMON_H
#define YS_UTIL_CHILD_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
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

#endif
