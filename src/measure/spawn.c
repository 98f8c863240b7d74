/*
 * Spawning and measuring one child. This is the hot loop of `run`: keep the
 * number of system calls per run at the floor of posix_spawn + wait4, plus
 * only what an option asks for (a timeout adds a pidfd and a poll, --pin two
 * sched_setaffinity calls). `run` goes through the spawner (spawner.c),
 * which does the same from another process; spawning from here costs one
 * read of /proc/self/status more, for the peak RSS floor.
 */
#include "measure/spawn.h"

#include "measure/spawner.h"
#include "util/strutil.h"
#include "util/monoclock.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double tv_sec(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

/* Our own VmHWM in bytes, from /proc/self/status; 0 if unreadable. */
static double own_peak_rss(void)
{
	char buf[4096], *p;
	ssize_t n = -1;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	return p ? strtod(p + 7, NULL) * 1024 : 0;
}

double spawn_rss_floor(const struct spawn_opts *o)
{
	return o->via ? spawner_rss_floor(o->via) : own_peak_rss();
}

int spawn_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

static int is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

int spawn_resolve_program(const char *argv0, char **resolved,
			  struct error *e)
{
	const char *path = getenv("PATH");
	const char *p;

	if (!argv0 || !*argv0)
		return error_set(e, "empty command");
	if (strchr(argv0, '/')) {
		if (is_executable_file(argv0)) {
			*resolved = xstrdup(argv0);
			return 0;
		}
		if (access(argv0, F_OK))
			return error_set(e, "program '%s' does not exist",
					 argv0);
		return error_set(e, "program '%s' is not an executable file",
				 argv0);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; ) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char buf[4096];

		if (len == 0)
			snprintf(buf, sizeof(buf), "./%s", argv0);
		else
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p,
				 argv0);
		if (is_executable_file(buf)) {
			*resolved = xstrdup(buf);
			return 0;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return error_set(e, "program '%s' not found in PATH", argv0);
}

/*
 * The interpreter named on path's #! line into interp (size bytes), as
 * the kernel reads it: the first word after "#!" on the first line, in
 * the first 256 bytes. Returns 1 if path is such a script, 0 if not.
 */
static int script_interpreter(const char *path, char *interp, size_t size)
{
	char buf[256];
	ssize_t n;
	size_t i = 2, k = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	while (buf[i] && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
	       k + 1 < size)
		interp[k++] = buf[i++];
	interp[k] = '\0';
	return k > 0;
}

/* The capabilities (bits 0..63) the file caps of path would give us
 * beyond what we hold; 0 when it has none. */
static unsigned long long file_caps_gained(const char *path)
{
	struct __user_cap_header_struct hdr = {
		_LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cur[2];
	uint32_t raw[6] = { 0 };
	unsigned long long fp, fi, have, inh;
	ssize_t n = getxattr(path, "security.capability", raw, sizeof(raw));

	if (n < 12)
		return 0;
	if (syscall(SYS_capget, &hdr, cur))
		return 0;
	/* vfs_cap_data: magic_etc, then permitted and inheritable, low
	 * 32 bits and (v2, v3) high 32 bits */
	fp = raw[1] | (n >= 20 ? (unsigned long long)raw[3] << 32 : 0);
	fi = raw[2] | (n >= 20 ? (unsigned long long)raw[4] << 32 : 0);
	have = cur[0].permitted | (unsigned long long)cur[1].permitted << 32;
	inh = cur[0].inheritable |
	      (unsigned long long)cur[1].inheritable << 32;
	return ((fp | (fi & inh)) & ~have);
}

/*
 * Why the exec of the program file itself (no script) changes credentials
 * or dumpability, into e; 0 if it does not. As the kernel decides it
 * (fs/exec.c, begin_new_exec): the new effective ids differ from the real
 * ones, the permitted capabilities grow, or the file is not readable.
 */
static int program_privileged(const char *path, const char *via,
			      struct error *e)
{
	struct stat st;
	struct statvfs vfs;
	bool honoured;
	uid_t euid;
	gid_t egid;
	unsigned long long caps;

	if (stat(path, &st))
		return 0;
	/* nosuid mounts and no_new_privs make the kernel ignore both the
	 * set-ID bits and file capabilities */
	honoured = !(statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) &&
		   prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1;
	euid = honoured && (st.st_mode & S_ISUID) ? st.st_uid : geteuid();
	egid = honoured && (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP)
	       ? st.st_gid : getegid();
	if (euid != getuid())
		return error_set(e, "'%s'%s is set-user-ID (owner uid %ld)",
				 path, via, (long)st.st_uid), 1;
	if (egid != getgid())
		return error_set(e, "'%s'%s is set-group-ID (group gid %ld)",
				 path, via, (long)st.st_gid), 1;
	caps = honoured ? file_caps_gained(path) : 0;
	if (caps)
		return error_set(e, "'%s'%s has file capabilities (0x%llx) "
				 "that we do not hold", path, via, caps), 1;
	if (faccessat(AT_FDCWD, path, R_OK, AT_EACCESS))
		return error_set(e, "'%s'%s may be executed but not read by "
				 "us", path, via), 1;
	return 0;
}

int spawn_exec_privileged(const char *path, struct error *e)
{
	char cur[4096], next[4096], via[4200] = "";

	snprintf(cur, sizeof(cur), "%s", path);
	/* the kernel follows at most 4 #! levels (BINPRM_MAX_RECURSION) */
	for (int depth = 0; depth < 5; depth++) {
		if (!script_interpreter(cur, next, sizeof(next)))
			return program_privileged(cur, via, e) ? 1 : 0;
		/* a script's own set-ID bits are ignored; its interpreter's
		 * count. It must be readable for the interpreter anyway. */
		snprintf(via, sizeof(via), " (the #! interpreter of '%s')",
			 path);
		snprintf(cur, sizeof(cur), "%s", next);
	}
	return 0;
}

int spawn_exec_error(const char *path, int errnum, struct error *e)
{
	if (errnum == ENOENT && access(path, F_OK) == 0)
		return error_set(e, "cannot execute '%s': the interpreter on "
				 "its #! line does not exist", path);
	if (errnum == ENOEXEC)
		return error_set(e, "cannot execute '%s': not a format this "
				 "system runs (a script needs a #! line)",
				 path);
	return error_errno(e, errnum, "cannot execute '%s'", path);
}

static int setup_actions(posix_spawn_file_actions_t *fa,
			 const struct spawn_opts *o)
{
	int fds[3] = { o->stdin_fd, o->stdout_fd, o->stderr_fd };

	if (posix_spawn_file_actions_init(fa))
		return -1;
	for (int i = 0; i < 3; i++) {
		int r;

		if (fds[i] < 0)
			r = posix_spawn_file_actions_addopen(fa, i, "/dev/null",
				i ? O_WRONLY : O_RDONLY, 0);
		else if (fds[i] != i)
			r = posix_spawn_file_actions_adddup2(fa, fds[i], i);
		else
			continue;
		if (r)
			return -1;
	}
	return 0;
}

static int setup_attr(posix_spawnattr_t *attr)
{
	sigset_t none, def;

	if (posix_spawnattr_init(attr))
		return -1;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGCHLD);
	/* Own process group (pgid = pid): a timeout or Ctrl-C kills all of
	 * it. Signals yardstick handles or ignores start at their defaults. */
	if (posix_spawnattr_setpgroup(attr, 0) ||
	    posix_spawnattr_setsigmask(attr, &none) ||
	    posix_spawnattr_setsigdefault(attr, &def) ||
	    posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP |
				     POSIX_SPAWN_SETSIGMASK |
				     POSIX_SPAWN_SETSIGDEF))
		return -1;
	return 0;
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

void tail_reset(struct tail *t)
{
	t->len = 0;
	t->total = 0;
}

void tail_append(struct tail *t, const char *data, size_t n)
{
	t->total += n;
	if (n >= sizeof(t->buf)) {
		memcpy(t->buf, data + n - sizeof(t->buf), sizeof(t->buf));
		t->len = sizeof(t->buf);
		return;
	}
	if (t->len + n > sizeof(t->buf)) {
		size_t drop = t->len + n - sizeof(t->buf);

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
	}
	memcpy(t->buf + t->len, data, n);
	t->len += n;
}

struct drainer {
	pthread_t th;
	pthread_mutex_t mu;
	int fd;
	int stop[2];
	struct tail tail;
};

/* Read what the pipe holds now; with d->mu held. Returns 1 at EOF. */
static int drain_locked(struct drainer *d)
{
	char buf[4096];
	ssize_t got;

	while ((got = read(d->fd, buf, sizeof(buf))) > 0)
		tail_append(&d->tail, buf, (size_t)got);
	return got == 0;
}

static void *drainer_main(void *arg)
{
	struct drainer *d = arg;
	sigset_t all;

	/* Signals are for the measuring thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct pollfd p[2] = { { .fd = d->fd, .events = POLLIN },
				       { .fd = d->stop[0], .events = POLLIN } };
		int eof;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		pthread_mutex_lock(&d->mu);
		eof = drain_locked(d);
		pthread_mutex_unlock(&d->mu);
		if (eof)
			break;
	}
	return NULL;
}

struct drainer *drainer_start(int read_fd)
{
	struct drainer *d = xcalloc(1, sizeof(*d));

	d->fd = read_fd;
	if (fcntl(read_fd, F_SETFL, O_NONBLOCK) ||
	    pipe2(d->stop, O_CLOEXEC)) {
		free(d);
		return NULL;
	}
	pthread_mutex_init(&d->mu, NULL);
	if (pthread_create(&d->th, NULL, drainer_main, d)) {
		close(d->stop[0]);
		close(d->stop[1]);
		pthread_mutex_destroy(&d->mu);
		free(d);
		return NULL;
	}
	return d;
}

void drainer_reset(struct drainer *d)
{
	pthread_mutex_lock(&d->mu);
	/* What the last command left in the pipe is not the next one's. */
	drain_locked(d);
	tail_reset(&d->tail);
	pthread_mutex_unlock(&d->mu);
}

char *drainer_take(struct drainer *d)
{
	char *s = NULL;

	pthread_mutex_lock(&d->mu);
	drain_locked(d);
	if (d->tail.len)
		s = xstrndup(d->tail.buf, d->tail.len);
	pthread_mutex_unlock(&d->mu);
	return s;
}

void drainer_stop(struct drainer *d)
{
	if (!d)
		return;
	if (write(d->stop[1], "x", 1) == 1)
		pthread_join(d->th, NULL);
	close(d->stop[0]);
	close(d->stop[1]);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

/* Read what the pipe holds now into the tail. */
static void drain(const struct spawn_opts *o)
{
	char buf[4096];
	ssize_t got;

	while ((got = read(o->tail_fd, buf, sizeof(buf))) > 0)
		tail_append(o->tail, buf, (size_t)got);
}

/*
 * Watch pid through a pidfd until it exits, the deadline (0: none) passes
 * or an interrupt is asked for, meanwhile keeping the tail of its stderr
 * pipe (o->tail_fd, non-blocking) if there is one. Returns 0 once it has
 * exited (not yet reaped), 1 for the deadline or an interrupt, -1 when
 * the pidfd cannot be had.
 */
static int watch(pid_t pid, const struct spawn_opts *o, double deadline)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int ret = -1;

	if (pfd < 0)
		return -1;
	for (;;) {
		struct pollfd p[2] = { { .fd = pfd, .events = POLLIN },
				       { .fd = o->tail_fd, .events = POLLIN } };
		double left = deadline > 0 ? deadline - monoclock_s() : -1;
		int ms = deadline > 0 ? (int)(left * 1000) + 1 : -1;
		int r;

		if ((o->interrupt && *o->interrupt) ||
		    (deadline > 0 && left <= 0)) {
			ret = 1;
			break;
		}
		r = poll(p, o->tail ? 2 : 1, ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && o->tail && (p[1].revents & POLLIN))
			drain(o);
		if (r > 0 && p[0].revents) {
			if (o->tail)
				drain(o);
			ret = 0;
			break;
		}
	}
	close(pfd);
	return ret;
}

int spawn_measure(const struct spawn_opts *o, struct run_sample *out,
		  struct error *e)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	cpu_set_t saved;
	struct rusage ru;
	long long t0, t1;
	pid_t pid;
	int status = 0, r, ret = -1;

	if (o->via)
		return spawner_measure(o->via, o, out, e);
	memset(out, 0, sizeof(*out));
	if (setup_actions(&fa, o) || setup_attr(&attr))
		return error_set(e, "cannot set up the spawn of '%s'",
				 o->argv[0]);
	if (o->pin) {
		sched_getaffinity(0, sizeof(saved), &saved);
		if (sched_setaffinity(0, sizeof(*o->pin), o->pin)) {
			error_errno(e, errno, "cannot pin to the given CPUs");
			goto out_destroy;
		}
	}

	t0 = monoclock_ns();
	r = posix_spawn(&pid, o->path, &fa, &attr, o->argv, environ);
	if (o->pin)
		sched_setaffinity(0, sizeof(saved), &saved);
	if (r) {
		spawn_exec_error(o->path, r, e);
		out->spawn_failed = true;
		goto out_destroy;
	}

	if (o->tail)
		tail_reset(o->tail);
	if (o->timeout > 0 || o->tail) {
		int w = watch(pid, o, o->timeout > 0
			      ? t0 * 1e-9 + o->timeout : 0);

		if (w < 0) {
			kill_group(pid);
			waitpid(pid, &status, 0);
			error_errno(e, errno, "cannot watch '%s' (pidfd_open)",
				    o->argv[0]);
			goto out_destroy;
		}
		if (w == 1 && o->interrupt && *o->interrupt)
			out->interrupted = true;
		else if (w == 1)
			out->timed_out = true;
		if (w == 1)
			kill_group(pid);
	}
	for (;;) {
		r = wait4(pid, &status, 0, &ru);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			error_errno(e, errno, "cannot wait for '%s'",
				    o->argv[0]);
			goto out_destroy;
		}
		if (o->interrupt && *o->interrupt && !out->interrupted) {
			out->interrupted = true;
			kill_group(pid);
		}
	}
	t1 = monoclock_ns();

	/* Integer nanoseconds: the difference of two large doubles would
	 * carry rounding noise into the last digits. */
	out->wall = (double)(t1 - t0) / 1e9;
	out->user = tv_sec(ru.ru_utime);
	out->sys = tv_sec(ru.ru_stime);
	/* Read after the reap, the peak is at least what it was at the
	 * child's exec: a value at or below it may be ours. */
	out->rss_floor = own_peak_rss();
	out->peak_rss = (double)ru.ru_maxrss * 1024;
	if (out->peak_rss <= out->rss_floor)
		out->peak_rss = NAN;
	out->minor_faults = (double)ru.ru_minflt;
	out->major_faults = (double)ru.ru_majflt;
	out->voluntary_switches = (double)ru.ru_nvcsw;
	out->involuntary_switches = (double)ru.ru_nivcsw;
	out->status = status;
	/* A timed-out or interrupted run's stragglers die with their group. */
	if (out->timed_out || out->interrupted)
		kill(-pid, SIGKILL);
	ret = 0;

out_destroy:
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return ret;
}
