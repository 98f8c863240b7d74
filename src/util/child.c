/*
 * The child-process API (child.h): start, hold and release, wait with a
 * timeout or an interrupt, kill the tree, sweep what a child left behind
 * (with child_subreaper: every child of ours that was not started here is
 * a stray, so the pids started here are kept, and children must be
 * started and reaped through here on the main thread), and what a
 * program's exec needs said about it (resolve, privileges, the message
 * of a failed exec).
 *
 * Without hold, a child costs one posix_spawn and one wait4 (plus a pidfd
 * and a poll with a timeout, two sched_setaffinity calls with a pin, one
 * allocation with environment additions): `run` spawns through here when
 * it has no spawner, so nothing else happens per run.
 */
#include "util/child.h"

#include "util/child_common.h"
#include "util/child_left.h"
#include "util/monoclock.h"
#include "util/stop.h"
#include "util/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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

/* ---- the environment ---- */

/* The length of the NAME= part of "NAME=value" (all of it without =). */
static size_t name_len(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq ? (size_t)(eq - s) + 1 : strlen(s);
}

/* environ with c->env_add set: an array of borrowed strings, or environ
 * itself without additions. */
static char **make_env(const struct child *c)
{
	size_t n = 0, nadd = 0, k = 0;
	char **env;

	if (!c->env_add)
		return environ;
	while (environ[n])
		n++;
	while (c->env_add[nadd])
		nadd++;
	env = xcalloc(n + nadd + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		size_t len = name_len(environ[i]);
		bool replaced = false;

		for (size_t a = 0; a < nadd && !replaced; a++)
			replaced = name_len(c->env_add[a]) == len &&
				   !strncmp(c->env_add[a], environ[i], len);
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t a = 0; a < nadd; a++)
		env[k++] = (char *)c->env_add[a];
	return env;
}

static void free_env(char **env)
{
	if (env != environ)
		free(env);
}

/* ---- descriptors ---- */

/* The child's end of pipe i (p[i][0] read end, p[i][1] write end). */
static int child_end(int i, int p[3][2])
{
	return i == 0 ? p[i][0] : p[i][1];
}

static void close_pipes(int p[3][2])
{
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++)
			if (p[i][k] >= 0) {
				close(p[i][k]);
				p[i][k] = -1;
			}
}

/*
 * The pipes of CHILD_IO_PIPE. The child's end is put above every number
 * a map gives (the maps are given first): a map must not overwrite it.
 */
static int make_pipes(const struct child *c, int p[3][2])
{
	int floor = 3;

	for (size_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].to >= floor)
			floor = c->maps[i].to + 1;
	for (int i = 0; i < 3; i++) {
		int *end = i == 0 ? &p[i][0] : &p[i][1], fd;

		if (c->io[i] != CHILD_IO_PIPE)
			continue;
		if (pipe2(p[i], O_CLOEXEC))
			return -1;
		if (*end >= floor)
			continue;
		fd = fcntl(*end, F_DUPFD_CLOEXEC, floor);
		if (fd < 0)
			return -1;
		close(*end);
		*end = fd;
	}
	return 0;
}

/* The file actions for posix_spawn: the maps, then stdio (child.h). */
static int spawn_actions(const struct child *c, int p[3][2],
			 posix_spawn_file_actions_t *fa)
{
	int r = 0;

	if (posix_spawn_file_actions_init(fa))
		return -1;
	/* dup2 leaves the copies open across the exec, the originals not */
	for (size_t i = 0; i < c->nmaps && !r; i++)
		r = posix_spawn_file_actions_adddup2(fa, c->maps[i].from,
						     c->maps[i].to);
	for (int i = 0; i < 3 && !r; i++) {
		if (c->io[i] == CHILD_IO_NULL)
			r = child_action_null(fa, i);
		else if (c->io[i] == CHILD_IO_FD && c->fd[i] != i)
			r = posix_spawn_file_actions_adddup2(fa, c->fd[i], i);
		else if (c->io[i] == CHILD_IO_PIPE)
			r = posix_spawn_file_actions_adddup2(fa,
							child_end(i, p), i);
	}
	if (!r && c->dir)
		r = posix_spawn_file_actions_addchdir_np(fa, c->dir);
	if (r)
		posix_spawn_file_actions_destroy(fa);
	return r ? -1 : 0;
}

/* dup2 from to to, or clear close-on-exec when they are one: in a
 * forked child, async-signal-safe. */
static int give_fd(int from, int to)
{
	if (from == to)
		return fcntl(to, F_SETFD, 0);
	return dup2(from, to) < 0 ? -1 : 0;
}

/* ---- a held child (fork) ---- */

/*
 * In the forked child: set up as posix_spawn would, wait for the go on
 * go_rd, exec. Only async-signal-safe calls (the parent may have
 * threads). An exec failure goes back as errno through err_wr
 * (close-on-exec: its end of file means the exec worked).
 *
 * The program dies with yardstick (PR_SET_PDEATHSIG, kept across the exec
 * and the program's setsid): a yardstick killed with SIGKILL, or by the
 * OOM killer, gets no chance to kill it, and a program that runs forever
 * would be left running. The main thread forks here (child.h), so the
 * signal comes when the process goes. parent is yardstick's pid: one that
 * died before the prctl is seen by getppid.
 */
static void held_child(const struct child *c, int p[3][2], char **env,
		       int go_rd, int go_wr, int err_rd, int err_wr,
		       pid_t parent)
{
	struct sigaction dfl;
	sigset_t set;
	int errnum, sig, ok = 1;
	ssize_t n;
	char b;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	close(go_wr);
	close(err_rd);
	if (c->own_group)
		setpgid(0, 0);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	child_default_signals(&set);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&set, sig) == 1)
			sigaction(sig, &dfl, NULL);
	for (size_t i = 0; i < c->nmaps && ok; i++)
		ok = !give_fd(c->maps[i].from, c->maps[i].to);
	for (int i = 0; i < 3 && ok; i++) {
		if (c->io[i] == CHILD_IO_NULL) {
			int fd = open("/dev/null", i ? O_WRONLY : O_RDONLY);

			ok = fd >= 0 && (fd == i || (dup2(fd, i) == i &&
						     !close(fd)));
		} else if (c->io[i] == CHILD_IO_FD) {
			ok = !give_fd(c->fd[i], i);
		} else if (c->io[i] == CHILD_IO_PIPE) {
			ok = dup2(child_end(i, p), i) == i;
		}
	}
	if (ok && c->pin)
		ok = !sched_setaffinity(0, sizeof(*c->pin), c->pin);
	if (ok && c->dir)
		ok = !chdir(c->dir);
	errnum = ok ? 0 : errno;
	do
		n = read(go_rd, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	if (!errnum) {
		execve(c->path, c->argv, env);
		errnum = errno;
	}
	child_write_full(err_wr, &errnum, sizeof(errnum));
	_exit(127);
}

static int start_held(struct child *c, int p[3][2], char **env,
		      struct error *e)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };
	pid_t pid, parent = getpid();

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		error_errno(e, errno, "cannot create a pipe");
		goto fail;
	}
	c->start_ns = monoclock_ns();
	pid = fork();
	if (pid < 0) {
		error_errno(e, errno, "cannot fork");
		goto fail;
	}
	if (pid == 0)
		held_child(c, p, env, go[0], go[1], err[0], err[1], parent);
	/* both sides set the group: whichever runs first */
	if (c->own_group)
		setpgid(pid, pid);
	close(go[0]);
	close(err[1]);
	c->pid = pid;
	live_add(pid, c->own_group);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return -1;
}

/* ---- the API ---- */

int child_start(struct child *c, struct error *e)
{
	int p[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	cpu_set_t saved;
	char **env;
	int r;

	c->pid = c->reaped = 0;
	c->go_fd = c->err_fd = -1;
	c->status = 0;
	c->timed_out = c->interrupted = c->exec_failed = false;
	c->strays = 0;
	c->stray_names[0] = '\0';
	c->stray_cpu_ns = 0;
	memset(&c->ru, 0, sizeof(c->ru));
	if (make_pipes(c, p)) {
		r = error_errno(e, errno, "cannot create a pipe");
		close_pipes(p);
		return r;
	}
	env = make_env(c);
	if (c->hold || c->die_with_us) {
		r = start_held(c, p, env, e);
		if (!r && !c->hold)
			r = child_release(c, e);
		goto out;
	}
	if (spawn_actions(c, p, &fa)) {
		r = error_set(e, "cannot set up the spawn of '%s'", c->argv[0]);
		goto out;
	}
	if (child_spawnattr(&attr, c->own_group)) {
		posix_spawn_file_actions_destroy(&fa);
		r = error_set(e, "cannot set up the spawn of '%s'", c->argv[0]);
		goto out;
	}
	r = 0;
	if (c->pin) {
		sched_getaffinity(0, sizeof(saved), &saved);
		if (sched_setaffinity(0, sizeof(*c->pin), c->pin))
			r = error_errno(e, errno, "cannot pin to the given "
					"CPUs");
	}
	if (!r) {
		c->start_ns = monoclock_ns();
		r = posix_spawn(&c->pid, c->path, &fa, &attr, c->argv, env);
		if (c->pin)
			sched_setaffinity(0, sizeof(saved), &saved);
		if (r) {
			c->pid = 0;
			c->exec_failed = true;
			r = spawn_exec_error(c->path, r, e);
		} else {
			live_add(c->pid, c->own_group);
		}
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
out:
	free_env(env);
	/* the child's ends are the child's; ours stay for the caller */
	for (int i = 0; i < 3; i++) {
		if (c->io[i] != CHILD_IO_PIPE)
			continue;
		close(child_end(i, p));
		c->fd[i] = i == 0 ? p[i][1] : p[i][0];
		if (r) {
			close(c->fd[i]);
			c->fd[i] = -1;
		}
	}
	return r;
}

/* Kill c's tree: its group if it has its own, else c alone. */
static void kill_tree(const struct child *c)
{
	if (c->own_group)
		child_kill_group(c->pid);
	else
		kill(c->pid, SIGKILL);
}

static void close_held(struct child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
}

void child_kill(struct child *c)
{
	int st;

	close_held(c);
	if (c->pid <= 0)
		return;
	kill_tree(c);
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	live_remove(c->pid);
	c->reaped = c->pid;
	c->pid = 0;
	c->strays = child_sweep_with(c->stray_names, sizeof(c->stray_names), false,
			  NULL, &c->stray_cpu_ns);
}

/*
 * A child in our group got the stop only if it reached the group
 * (stop_reached_group): one sent to the keeper or to yardstick alone is
 * passed to it and to what is below it, and its grace starts then.
 */
static void settle_in_group(struct child *c, int64_t now)
{
	long long recheck;
	int r;

	if (c->own_group || c->stop_settled)
		return;
	r = stop_reached_group(&recheck);
	if (r < 0) {
		c->stop_recheck_ns = now + recheck;
		return;
	}
	c->stop_settled = true;
	c->stop_recheck_ns = 0;
	if (r == 0) {
		child_pass_stop_below(c->pid);
		c->stop_deadline_ns = now + CHILD_STOP_GRACE_NS;
	}
}

void child_interrupt(struct child *c)
{
	int64_t now;

	if (c->pid <= 0 || c->stop_killed)
		return;
	now = monoclock_ns();
	if (!c->interrupted) {
		c->interrupted = true;
		c->stop_deadline_ns = now + CHILD_STOP_GRACE_NS;
		child_pass_stop(c->pid, c->own_group);
		settle_in_group(c, now);
		return;
	}
	settle_in_group(c, now);
	if (now >= c->stop_deadline_ns) {
		/* the program alone: what it started gets the sweep's
		 * grace (its resource tracker cleans up once it is gone) */
		c->stop_killed = true;
		kill(c->pid, SIGKILL);
	}
}

/* Stopped: wait for c to end by itself until the stop's grace ends, then
 * kill its tree (child_interrupt). Without a pidfd, at once. */
static void stop_wait(struct child *c)
{
	int pfd = (int)syscall(SYS_pidfd_open, c->pid, 0);

	while (pfd >= 0 && !c->stop_killed) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		int64_t until = c->stop_deadline_ns, left;

		if (c->stop_recheck_ns && c->stop_recheck_ns < until)
			until = c->stop_recheck_ns;
		left = until - monoclock_ns();
		if (left > 0 && poll(&p, 1, (int)(left / 1000000) + 1) > 0)
			break;	/* it ended */
		child_interrupt(c);
	}
	if (pfd >= 0) {
		close(pfd);
		return;
	}
	c->stop_deadline_ns = 0;
	child_interrupt(c);
}

int child_release(struct child *c, struct error *e)
{
	int errnum = 0, r;

	if (c->go_fd < 0)
		return 0;
	c->start_ns = monoclock_ns();
	child_write_full(c->go_fd, "g", 1);
	close(c->go_fd);
	c->go_fd = -1;
	r = child_read_full(c->err_fd, &errnum, sizeof(errnum));
	close(c->err_fd);
	c->err_fd = -1;
	if (r != 1)
		return 0;	/* end of file: it exec'd */
	child_kill(c);
	c->exec_failed = true;
	return spawn_exec_error(c->path, errnum, e);
}

/*
 * Watch c through a pidfd until it exits, the deadline passes or an
 * interrupt is asked for. Returns 0 once it has exited (not yet reaped),
 * 1 for the deadline or an interrupt, -1 when the pidfd cannot be had.
 */
static int watch(const struct child *c, int64_t deadline_ns)
{
	int pfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	int ret = -1;

	if (pfd < 0)
		return -1;
	for (;;) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		int64_t left = deadline_ns - monoclock_ns();
		int r;

		if ((c->interrupt && *c->interrupt) || left <= 0) {
			ret = 1;
			break;
		}
		r = poll(&p, 1, (int)(left / 1000000) + 1);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0) {
			ret = 0;
			break;
		}
	}
	close(pfd);
	return ret;
}

/* After the reap: the time, the stragglers of a killed group, the
 * strays (child_sweep). */
static void reaped(struct child *c)
{
	c->end_ns = monoclock_ns();
	/* A timed-out run's stragglers die with its group. */
	if (c->own_group && c->timed_out)
		kill(-c->pid, SIGKILL);
	live_remove(c->pid);
	c->reaped = c->pid;
	c->pid = 0;
	/* and whatever else it left, in its group or not */
	/* a stop's leftovers get the grace, the program ended by itself or
	 * killed (a second stop kills them: stop.c) */
	c->strays = child_sweep_with(c->stray_names, sizeof(c->stray_names),
			  !c->timed_out, NULL, &c->stray_cpu_ns);
}

int child_wait(struct child *c, struct error *e)
{
	int r;

	close_held(c);
	if (c->pid <= 0)
		return c->reaped > 0 ? 0 : error_set(e, "no child to wait for");
	if (c->timeout > 0) {
		int w = watch(c, c->start_ns + (int64_t)(c->timeout * 1e9));

		if (w < 0) {
			r = errno;
			child_kill(c);
			return error_errno(e, r, "cannot watch '%s' "
					   "(pidfd_open)", c->argv[0]);
		}
		if (w == 1 && !(c->interrupt && *c->interrupt)) {
			c->timed_out = true;
			kill_tree(c);
		}
	}
	for (;;) {
		if (c->interrupt && *c->interrupt && !c->interrupted &&
		    !c->timed_out) {
			child_interrupt(c);
			stop_wait(c);
		}
		r = wait4(c->pid, &c->status, 0, &c->ru);
		if (r == c->pid)
			break;
		if (r < 0 && errno != EINTR)
			return error_errno(e, errno, "cannot wait for '%s'",
					   c->argv[0]);
	}
	reaped(c);
	return 0;
}

int child_try_wait(struct child *c, struct error *e)
{
	pid_t r;

	if (c->pid <= 0)
		return c->reaped > 0 ? 1 : error_set(e, "no child to wait "
						     "for");
	r = wait4(c->pid, &c->status, WNOHANG, &c->ru);

	if (r == c->pid) {
		reaped(c);
		return 1;
	}
	if (r < 0 && errno != EINTR)
		return error_errno(e, errno, "cannot wait for '%s'",
				   c->argv[0]);
	return 0;
}

/* How long child_read_pipe sleeps at most before it looks whether c has
 * ended: only a pipe held open by a process c started waits this long. */
#define READ_PIPE_TICK_MS 100

/* Stop c for child_read_pipe: its tree killed, c reaped. */
static int read_pipe_stop(struct child *c, struct error *e)
{
	if (c->pid <= 0)
		return 0;
	kill_tree(c);
	return child_wait(c, e);
}

int child_read_pipe(struct child *c, int fd, size_t max, char **data,
		    size_t *len, bool *overflow, struct error *e)
{
	int64_t deadline = c->timeout > 0
		? c->start_ns + (int64_t)(c->timeout * 1e9) : INT64_MAX;
	size_t cap = 0, n = 0;
	char *buf = NULL;
	bool ended = false;
	int err = 0;

	*overflow = false;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - monoclock_ns();
		int tick = READ_PIPE_TICK_MS, r;
		ssize_t k;

		if (c->interrupt && *c->interrupt && c->pid > 0) {
			c->interrupted = true;
			break;
		}
		if (left <= 0 && c->pid > 0) {
			c->timed_out = true;
			break;
		}
		if (left / 1000000 < tick)
			tick = (int)(left / 1000000) + 1;
		r = poll(&p, 1, ended ? 0 : tick);
		if (r < 0 && errno != EINTR) {
			err = errno;
			break;
		}
		if (r == 0 && ended)
			break;		/* c is gone and the pipe drained */
		if (r == 0) {
			if (child_try_wait(c, e) < 0) {
				err = -1;
				break;
			}
			ended = c->pid <= 0;
			continue;
		}
		if (r < 0)
			continue;
		buf = xgrow(buf, &cap, n + 65536 + 1, 1);
		k = read(fd, buf + n, 65536);
		if (k == 0)
			break;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			err = errno;
			break;
		}
		n += (size_t)k;
		if (n > max) {
			*overflow = true;
			break;
		}
	}
	if (buf)
		buf[n] = '\0';
	*data = buf;
	*len = n;
	if (err) {
		child_kill(c);
		if (err > 0)
			error_errno(e, err, "cannot read the output of '%s'",
				    c->argv[0]);
		return -1;
	}
	if (c->timed_out || c->interrupted || *overflow)
		return read_pipe_stop(c, e);
	return 0;
}
