/*
 * Unit tests of the child-process API (src/util/child.h): exit status
 * and death by signal, environment additions, descriptors (a pipe, a
 * file, /dev/null, a map), hold before exec, the process group killed at
 * a timeout and at an interrupt, rusage, the signals a child starts with,
 * and the messages of an exec that fails. Every wait is for a state, with
 * a bound far beyond what a loaded machine needs: no timing assertion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"
#include "util/child_left.h"
#include "util/monoclock.h"
#include "proc_alive.h"

#define YSFIX FIXTURES_DIR "/ysfix"

/* All that fd gives until its end, into buf (NUL-terminated). */
static void read_all(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got + 1 < size && (n = read(fd, buf + got,
					   size - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		assert_true(n > 0);
		got += (size_t)n;
	}
	buf[got] = '\0';
}

/* Start and wait for argv with stdout into a pipe; its output in out. */
static struct child run_out(char **argv, const char *const *env_add,
			    bool hold, char *out, size_t size)
{
	struct child c = { .path = argv[0], .argv = argv, .env_add = env_add,
			   .hold = hold, .io = { CHILD_IO_NULL, CHILD_IO_PIPE,
						 CHILD_IO_INHERIT } };
	struct error e;

	assert_int_equal(child_start(&c, &e), 0);
	assert_int_equal(child_release(&c, &e), 0);
	read_all(c.fd[1], out, size);
	close(c.fd[1]);
	assert_int_equal(child_wait(&c, &e), 0);
	assert_int_equal(c.pid, 0);
	return c;
}

/* The pid a `ysfix hang PIDFILE` wrote (its grandchild), once written. */
static pid_t read_pidfile(const char *path)
{
	for (int i = 0; i < 6000; i++) {
		FILE *fp = fopen(path, "r");
		int pid = 0;

		if (fp) {
			int got = fscanf(fp, "%d", &pid);

			fclose(fp);
			if (got == 1 && pid > 0)
				return pid;
		}
		usleep(10000);
	}
	fail_msg("no pid in '%s'", path);
	return -1;
}

static void test_exit_status_and_signal(void **state)
{
	char *ex[] = { YSFIX, "exit", "7", NULL };
	char *sig[] = { YSFIX, "signal", "15", NULL };
	char out[64];

	(void)state;
	for (int hold = 0; hold < 2; hold++) {
		struct child c = run_out(ex, NULL, hold, out, sizeof(out));

		assert_true(WIFEXITED(c.status));
		assert_int_equal(WEXITSTATUS(c.status), 7);
		assert_int_equal(spawn_exit_code(c.status), 7);
		assert_false(c.timed_out || c.interrupted || c.exec_failed);
		assert_true(c.end_ns >= c.start_ns);
		c = run_out(sig, NULL, hold, out, sizeof(out));
		assert_true(WIFSIGNALED(c.status));
		assert_int_equal(WTERMSIG(c.status), SIGTERM);
		assert_int_equal(spawn_exit_code(c.status), 128 + SIGTERM);
	}
}

/* An addition is seen by the child, replaces a variable of ours of the
 * same name (once), and leaves the others alone. */
static void test_env_addition(void **state)
{
	char *argv[] = { "/bin/sh", "-c",
			 "env | grep '^YS_CHILD_' | LC_ALL=C sort", NULL };
	const char *const add[] = { "YS_CHILD_NEW=1 2", "YS_CHILD_OLD=new",
				    NULL };
	char out[256];

	(void)state;
	setenv("YS_CHILD_OLD", "old", 1);
	setenv("YS_CHILD_KEPT", "kept", 1);
	setenv("YS_CHILD_OLDER", "not the same name", 1);
	for (int hold = 0; hold < 2; hold++) {
		run_out(argv, add, hold, out, sizeof(out));
		assert_string_equal(out, "YS_CHILD_KEPT=kept\n"
				    "YS_CHILD_NEW=1 2\n"
				    "YS_CHILD_OLD=new\n"
				    "YS_CHILD_OLDER=not the same name\n");
	}
	/* ours is unchanged */
	assert_string_equal(getenv("YS_CHILD_OLD"), "old");
	assert_null(getenv("YS_CHILD_NEW"));
	run_out(argv, NULL, false, out, sizeof(out));
	assert_string_equal(out, "YS_CHILD_KEPT=kept\nYS_CHILD_OLD=old\n"
			    "YS_CHILD_OLDER=not the same name\n");
	unsetenv("YS_CHILD_OLD");
	unsetenv("YS_CHILD_KEPT");
	unsetenv("YS_CHILD_OLDER");
}

/* dir: the child starts there, spawned or held; we stay where we are;
 * a directory that does not exist is an exec failure. */
static void test_dir(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "pwd -P", NULL };
	char here[4096], out[4096];
	struct error e;

	(void)state;
	assert_non_null(getcwd(here, sizeof(here)));
	for (int hold = 0; hold < 2; hold++) {
		struct child c = { .path = argv[0], .argv = argv,
				   .dir = "/proc/self/..", .hold = hold,
				   .io = { CHILD_IO_NULL, CHILD_IO_PIPE,
					   CHILD_IO_INHERIT } };

		assert_int_equal(child_start(&c, &e), 0);
		assert_int_equal(child_release(&c, &e), 0);
		read_all(c.fd[1], out, sizeof(out));
		close(c.fd[1]);
		assert_int_equal(child_wait(&c, &e), 0);
		assert_int_equal(spawn_exit_code(c.status), 0);
		assert_string_equal(out, "/proc\n");
	}
	assert_non_null(getcwd(out, sizeof(out)));
	assert_string_equal(out, here);
	for (int hold = 0; hold < 2; hold++) {
		struct child c = { .path = argv[0], .argv = argv,
				   .dir = "/nonexistent/dir", .hold = hold };
		int r = child_start(&c, &e);

		if (r == 0)
			r = child_release(&c, &e);
		assert_int_equal(r, -1);
		assert_true(c.exec_failed);
	}
}

/* stdin from a pipe we write, stdout into a pipe we read, stderr into a
 * file, /dev/null, and a map: a descriptor of ours at number 9. */
static void test_descriptors(void **state)
{
	char *cat[] = { "/bin/sh", "-c", "cat; echo err >&2; echo map >&9",
			NULL };
	char *empty[] = { YSFIX, "cat", NULL };
	char path[] = "/tmp/ys-child-XXXXXX", out[128], err[64] = { 0 };
	int fd = mkstemp(path), p[2];
	struct error e;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	for (int hold = 0; hold < 2; hold++) {
		struct child_fd_map map = { p[1], 9 };
		struct child c = { .path = cat[0], .argv = cat, .hold = hold,
				   .maps = &map, .nmaps = 1,
				   .io = { CHILD_IO_PIPE, CHILD_IO_PIPE,
					   CHILD_IO_FD },
				   .fd = { -1, -1, fd } };

		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		assert_int_equal(child_start(&c, &e), 0);
		assert_int_equal(child_release(&c, &e), 0);
		assert_int_equal(write(c.fd[0], "in\n", 3), 3);
		close(c.fd[0]);
		read_all(c.fd[1], out, sizeof(out));
		close(c.fd[1]);
		assert_int_equal(child_wait(&c, &e), 0);
		assert_int_equal(spawn_exit_code(c.status), 0);
		assert_string_equal(out, "in\n");
		assert_int_equal(pread(fd, err, sizeof(err) - 1, 0), 4);
		assert_string_equal(err, "err\n");
		assert_int_equal(read(p[0], out, sizeof(out)), 4);
		assert_memory_equal(out, "map\n", 4);
	}
	close(p[0]);
	close(p[1]);
	close(fd);
	/* /dev/null as stdin: cat reads nothing and says so (exit 1) */
	{
		struct child c = { .path = empty[0], .argv = empty,
				   .io = { CHILD_IO_NULL, CHILD_IO_NULL,
					   CHILD_IO_NULL } };

		assert_int_equal(child_start(&c, &e), 0);
		assert_int_equal(child_wait(&c, &e), 0);
		assert_int_equal(spawn_exit_code(c.status), 1);
	}
}

/* What /proc/PID/exe points to, into buf. */
static void exe_of(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, size - 1);
	assert_true(n > 0);
	buf[n] = '\0';
}

/*
 * Hold before exec: the child exists (its own group, as asked) but is
 * still this program until released, however long we wait; released, it
 * becomes ysfix.
 */
static void test_hold_before_exec(void **state)
{
	char *argv[] = { YSFIX, "sleep", "600000", NULL };
	char self[PATH_MAX], fix[PATH_MAX], exe[PATH_MAX];
	struct child c = { .path = argv[0], .argv = argv, .hold = true,
			   .own_group = true,
			   .io = { CHILD_IO_NULL, CHILD_IO_NULL,
				   CHILD_IO_NULL } };
	struct error e;
	pid_t pid;

	(void)state;
	assert_non_null(realpath("/proc/self/exe", self));
	assert_non_null(realpath(YSFIX, fix));
	assert_int_equal(child_start(&c, &e), 0);
	pid = c.pid;
	assert_true(pid > 0);
	assert_int_equal(getpgid(pid), pid);
	exe_of(pid, exe, sizeof(exe));
	assert_string_equal(exe, self);
	usleep(200000);
	exe_of(pid, exe, sizeof(exe));
	assert_string_equal(exe, self);
	assert_int_equal(child_release(&c, &e), 0);
	/* released, it has exec'd by the time child_release returns */
	exe_of(pid, exe, sizeof(exe));
	assert_string_equal(exe, fix);
	child_kill(&c);
	assert_int_equal(c.pid, 0);
	assert_true(process_gone(pid));
}

/* Without own_group, the child is in ours; with it, in its own. */
static void test_process_group(void **state)
{
	char *argv[] = { YSFIX, "sleep", "600000", NULL };
	struct error e;

	(void)state;
	for (int own = 0; own < 2; own++) {
		struct child c = { .path = argv[0], .argv = argv,
				   .own_group = own };
		pid_t pid;

		assert_int_equal(child_start(&c, &e), 0);
		pid = c.pid;
		assert_int_equal(getpgid(pid), own ? pid : getpgrp());
		child_kill(&c);
		assert_true(process_gone(pid));
	}
}

/*
 * The whole tree dies at the timeout: ysfix hang forks a grandchild that
 * sleeps for ever (ignoring nothing); it is killed with the group.
 */
static void test_timeout_kills_tree(void **state)
{
	(void)state;
	for (int hold = 0; hold < 2; hold++) {
		char pidfile[] = "/tmp/ys-child-hang-XXXXXX";
		int fd = mkstemp(pidfile);
		char *argv[] = { YSFIX, "hang", pidfile, NULL };
		struct child c = { .path = argv[0], .argv = argv,
				   .hold = hold, .own_group = true,
				   .timeout = 0.3 };
		struct error e;
		pid_t grandchild;

		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(child_start(&c, &e), 0);
		assert_int_equal(child_release(&c, &e), 0);
		assert_int_equal(child_wait(&c, &e), 0);
		assert_true(c.timed_out);
		assert_false(c.interrupted);
		assert_true(WIFSIGNALED(c.status));
		assert_int_equal(WTERMSIG(c.status), SIGKILL);
		assert_true(c.end_ns - c.start_ns >= 300000000);
		grandchild = read_pidfile(pidfile);
		unlink(pidfile);
		assert_true(process_gone(grandchild));
	}
}

/* child_read_pipe of "sh -c SCRIPT" (writing to its descriptor 3) with
 * at most max bytes and timeout; the bytes read in *len. Returns c. */
static struct child read_pipe_of(const char *script, size_t max,
				 double timeout, size_t *len, bool *overflow,
				 int *ret)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	int p[2];
	struct child_fd_map map;
	struct child c = { .path = argv[0], .argv = argv, .own_group = true,
			   .timeout = timeout, .nmaps = 1 };
	struct error e;
	char *data;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	map = (struct child_fd_map){ p[1], 3 };
	c.maps = &map;
	assert_int_equal(child_start(&c, &e), 0);
	close(p[1]);
	*ret = child_read_pipe(&c, p[0], max, &data, len, overflow, &e);
	close(p[0]);
	assert_int_equal(child_wait(&c, &e), 0);
	assert_int_equal(c.pid, 0);
	if (*len)
		assert_int_equal(data[*len], '\0');
	free(data);
	return c;
}

/*
 * Reading what a child writes to a pipe: to its end when it fits in max
 * (exactly max too), the child killed at max + 1 bytes, at the timeout,
 * and no wait for a process it started that holds the pipe open after it
 * ended (a sleep of 600 s: the read ends long before).
 */
static void test_read_pipe(void **state)
{
	struct child c;
	size_t len;
	bool over;
	int r;

	(void)state;
	c = read_pipe_of("head -c 100000 /dev/zero >&3", 100000, 0, &len,
			 &over, &r);
	assert_int_equal(r, 0);
	assert_false(over);
	assert_int_equal(len, 100000);
	assert_int_equal(spawn_exit_code(c.status), 0);
	c = read_pipe_of("head -c 100001 /dev/zero >&3; sleep 600", 100000, 0,
			 &len, &over, &r);
	assert_int_equal(r, 0);
	assert_true(over);
	assert_true(len > 100000);
	assert_true(WIFSIGNALED(c.status));
	c = read_pipe_of("printf x >&3; exec sleep 600", 100, 0.3, &len, &over,
			 &r);
	assert_int_equal(r, 0);
	assert_true(c.timed_out);
	assert_false(over);
	assert_int_equal(len, 1);
	c = read_pipe_of("printf abc >&3; sleep 600 & echo $! >/dev/null", 100,
			 0, &len, &over, &r);
	assert_int_equal(r, 0);
	assert_false(c.timed_out);
	assert_int_equal(len, 3);
	assert_int_equal(spawn_exit_code(c.status), 0);
	/* the sleep started in the child's group: ours to end */
	kill(-c.reaped, SIGKILL);
	c = read_pipe_of("exit 0", 100, 0, &len, &over, &r);
	assert_int_equal(r, 0);
	assert_int_equal(len, 0);
}

/* An interrupt (Ctrl-C's flag) stops the tree as a terminal would: SIGINT
 * to its group, which ends a program that does not catch it, and its
 * grandchild (child_left.h). */
static void test_interrupt_kills_tree(void **state)
{
	char pidfile[] = "/tmp/ys-child-int-XXXXXX";
	int fd = mkstemp(pidfile);
	char *argv[] = { YSFIX, "hang", pidfile, NULL };
	volatile sig_atomic_t flag = 0;
	struct child c = { .path = argv[0], .argv = argv, .own_group = true,
			   .interrupt = &flag };
	struct error e;
	pid_t grandchild;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(child_start(&c, &e), 0);
	grandchild = read_pidfile(pidfile);
	unlink(pidfile);
	flag = 1;
	assert_int_equal(child_wait(&c, &e), 0);
	assert_true(c.interrupted);
	assert_false(c.timed_out);
	assert_false(c.stop_killed);
	assert_int_equal(WTERMSIG(c.status), SIGINT);
	assert_true(process_gone(grandchild));
}

/* A program that ignores SIGINT is killed at the stop's grace's end
 * (CHILD_STOP_GRACE_NS), not before. */
static void test_interrupt_ignored(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "trap '' INT; exec sleep 600", NULL };
	volatile sig_atomic_t flag = 0;
	struct child c = { .path = argv[0], .argv = argv, .own_group = true,
			   .interrupt = &flag };
	struct error e;
	struct timespec d = { 0, 200 * 1000000L };
	int64_t t0;

	(void)state;
	assert_int_equal(child_start(&c, &e), 0);
	nanosleep(&d, NULL);	/* the trap set */
	flag = 1;
	t0 = monoclock_ns();
	assert_int_equal(child_wait(&c, &e), 0);
	assert_true(c.interrupted);
	assert_true(c.stop_killed);
	assert_int_equal(WTERMSIG(c.status), SIGKILL);
	assert_true(monoclock_ns() - t0 >= CHILD_STOP_GRACE_NS);
}

/* A busy child's rusage is its own: user + system time of its spinning. */
static void test_rusage(void **state)
{
	char *spin[] = { YSFIX, "spin", "200", NULL };
	char *touch[] = { YSFIX, "touch", "32", NULL };
	char out[16];
	struct child c;

	(void)state;
	c = run_out(spin, NULL, false, out, sizeof(out));
	assert_true(c.ru.ru_utime.tv_sec + c.ru.ru_stime.tv_sec +
		    (c.ru.ru_utime.tv_usec + c.ru.ru_stime.tv_usec) * 1e-6 >=
		    0.1);
	assert_true(c.end_ns - c.start_ns >= 200000000);
	c = run_out(touch, NULL, true, out, sizeof(out));
	assert_true(c.ru.ru_maxrss >= 32 * 1024);
	assert_true(c.ru.ru_minflt >= 32 * 256);
}

/* The signal mask and dispositions a child starts with: nothing blocked,
 * nothing ignored that we ignore (as `mem` ignores SIGINT). */
static void test_signals_reset(void **state)
{
	char *argv[] = { "/bin/cat", "/proc/self/status", NULL };
	struct sigaction ign, old_int, old_quit;
	sigset_t usr, old_mask;
	char out[8192];

	(void)state;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr, &old_mask);
	for (int hold = 0; hold < 2; hold++) {
		unsigned long long ignored = ~0ull, blocked = ~0ull;
		char *p;

		run_out(argv, NULL, hold, out, sizeof(out));
		p = strstr(out, "\nSigBlk:");
		assert_non_null(p);
		blocked = strtoull(p + 8, NULL, 16);
		p = strstr(out, "\nSigIgn:");
		assert_non_null(p);
		ignored = strtoull(p + 8, NULL, 16);
		assert_int_equal(blocked, 0);
		assert_int_equal(ignored & (1ull << (SIGINT - 1)), 0);
		assert_int_equal(ignored & (1ull << (SIGQUIT - 1)), 0);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
}

/* Write a file of mode 0755 holding text. */
static void write_prog(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(path, 0755), 0);
}

/*
 * An exec that fails says why, naming the program, spawned or held; the
 * child is reaped. The lookup before it says "not found in PATH", "does
 * not exist", "is not an executable file".
 */
static void test_exec_failures(void **state)
{
	char dir[] = "/tmp/ys-child-exec-XXXXXX", interp[256], junk[256];
	struct {
		const char *path, *msg;
	} cases[] = {
		{ "/nonexistent/prog", "cannot execute '/nonexistent/prog': "
		  "No such file or directory" },
		{ "/etc/passwd", "cannot execute '/etc/passwd': Permission "
		  "denied" },
		{ interp, NULL },
		{ junk, NULL },
	};
	char want[2][600];
	char *resolved = NULL;
	struct error e;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(interp, sizeof(interp), "%s/script", dir);
	snprintf(junk, sizeof(junk), "%s/junk", dir);
	write_prog(interp, "#!/nonexistent/interpreter\n");
	write_prog(junk, "\x01\x02 not a program\n");
	snprintf(want[0], sizeof(want[0]), "cannot execute '%s': the "
		 "interpreter on its #! line does not exist", interp);
	snprintf(want[1], sizeof(want[1]), "cannot execute '%s': not a "
		 "format this system runs (a script needs a #! line)", junk);
	cases[2].msg = want[0];
	cases[3].msg = want[1];
	for (size_t i = 0; i < 4; i++) {
		for (int hold = 0; hold < 2; hold++) {
			char *argv[] = { (char *)cases[i].path, NULL };
			struct child c = { .path = argv[0], .argv = argv,
					   .hold = hold };
			int r = child_start(&c, &e);

			if (hold) {
				assert_int_equal(r, 0);
				r = child_release(&c, &e);
			}
			assert_int_equal(r, -1);
			assert_true(c.exec_failed);
			assert_int_equal(c.pid, 0);
			assert_string_equal(e.msg, cases[i].msg);
		}
	}
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(spawn_resolve_program("ys-no-such-program-here",
					       &resolved, &e), -1);
	assert_string_equal(e.msg, "program 'ys-no-such-program-here' not "
			    "found in PATH");
	assert_int_equal(spawn_resolve_program("/nonexistent/prog",
					       &resolved, &e), -1);
	assert_string_equal(e.msg, "program '/nonexistent/prog' does not "
			    "exist");
	assert_int_equal(spawn_resolve_program("/etc/passwd", &resolved, &e),
			 -1);
	assert_string_equal(e.msg, "program '/etc/passwd' is not an "
			    "executable file");
	unlink(interp);
	unlink(junk);
	rmdir(dir);
}

/* --pin: the child starts on the CPUs given, we stay where we were. */
static void test_pin(void **state)
{
	char *argv[] = { YSFIX, "affinity", NULL };
	cpu_set_t one, before, after;
	char out[64];

	(void)state;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	for (int hold = 0; hold < 2; hold++) {
		struct child c = { .path = argv[0], .argv = argv, .hold = hold,
				   .pin = &one, .io = { CHILD_IO_NULL,
							CHILD_IO_PIPE } };
		struct error e;

		assert_int_equal(child_start(&c, &e), 0);
		assert_int_equal(child_release(&c, &e), 0);
		read_all(c.fd[1], out, sizeof(out));
		close(c.fd[1]);
		assert_int_equal(child_wait(&c, &e), 0);
		assert_string_equal(out, "0\n");
		assert_int_equal(sched_getaffinity(0, sizeof(after), &after),
				 0);
		assert_true(CPU_EQUAL(&before, &after));
	}
}

/* The pids in path, one a line, into pids (at most max); how many. */
static size_t read_pids(const char *path, pid_t *pids, size_t max)
{
	FILE *fp = fopen(path, "r");
	size_t n = 0;
	int pid;

	assert_non_null(fp);
	while (n < max && fscanf(fp, "%d", &pid) == 1)
		pids[n++] = pid;
	fclose(fp);
	return n;
}

/*
 * What a program leaves behind (child_subreaper, child_sweep), for
 * generated trees: n processes started in the background by a shell
 * that then exits, each of kind i % 3 — in its group (`sleep &`), in a
 * session of its own (`setsid sleep &`), or a shell in the background
 * that starts one more and becomes a sleep itself (two processes, the
 * inner one's parent the outer). The shell waits until every pid is
 * written, so that all are running when it exits: child_wait must kill
 * and count exactly those, name each by pid, and leave a child started
 * here (not a stray) alone. Runs last: the subreaper stays set.
 */
static void test_sweep_strays(void **state)
{
	char *keep_argv[] = { "/bin/sleep", "300", NULL };
	struct child keep = { .path = keep_argv[0], .argv = keep_argv,
			      .own_group = true };
	struct error e;

	(void)state;
	assert_int_equal(child_subreaper(&e), 0);
	assert_int_equal(child_start(&keep, &e), 0);
	for (int n = 0; n <= 7; n++) {
		char pidfile[] = "/tmp/ys-child-sweep-XXXXXX";
		char script[2048], kinds[3][160];
		char *argv[] = { "/bin/sh", "-c", script, NULL };
		struct child c = { .path = argv[0], .argv = argv };
		size_t at = 0, expect = 0, got;
		pid_t pids[16];
		int fd = mkstemp(pidfile);

		assert_true(fd >= 0);
		close(fd);
		snprintf(kinds[0], sizeof(kinds[0]),
			 "sleep 300 & echo $! >>%s\n", pidfile);
		snprintf(kinds[1], sizeof(kinds[1]),
			 "setsid sleep 300 & echo $! >>%s\n", pidfile);
		snprintf(kinds[2], sizeof(kinds[2]),
			 "sh -c 'sleep 300 & echo $! >>%s; exec sleep 300' & "
			 "echo $! >>%s\n", pidfile, pidfile);
		for (int i = 0; i < n; i++) {
			at += (size_t)snprintf(script + at, sizeof(script) - at,
					       "%s", kinds[i % 3]);
			expect += i % 3 == 2 ? 2 : 1;
		}
		snprintf(script + at, sizeof(script) - at,
			 "while [ $(wc -l <%s) -lt %zu ]; do sleep 0.01; done\n",
			 pidfile, expect);
		assert_int_equal(child_start(&c, &e), 0);
		assert_int_equal(child_wait(&c, &e), 0);
		assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
		got = read_pids(pidfile, pids, 16);
		unlink(pidfile);
		assert_int_equal(got, expect);
		assert_int_equal(c.strays, expect);
		for (size_t i = 0; i < got; i++) {
			char name[32];

			assert_false(process_alive(pids[i]));
			snprintf(name, sizeof(name), "(pid %d)", (int)pids[i]);
			/* the names hold 192 bytes: the first few at least */
			if (i < 4 && !strstr(c.stray_names, name))
				fail_msg("'%s' lacks '%s'", c.stray_names, name);
		}
		if (expect == 0)
			assert_string_equal(c.stray_names, "");
		/* ours is no stray */
		assert_true(process_alive(keep.pid));
	}
	child_kill(&keep);
	assert_int_equal(child_sweep(NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_and_signal),
		cmocka_unit_test(test_env_addition),
		cmocka_unit_test(test_dir),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_hold_before_exec),
		cmocka_unit_test(test_process_group),
		cmocka_unit_test(test_timeout_kills_tree),
		cmocka_unit_test(test_interrupt_kills_tree),
		cmocka_unit_test(test_interrupt_ignored),
		cmocka_unit_test(test_read_pipe),
		cmocka_unit_test(test_rusage),
		cmocka_unit_test(test_signals_reset),
		cmocka_unit_test(test_exec_failures),
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_sweep_strays),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
