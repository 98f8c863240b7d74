/*
 * yardstick-spawner: the process that starts the commands `yardstick run`
 * measures, so that they do not start inside yardstick's own memory.
 *
 * A child made by posix_spawn (or vfork) runs in its parent's address
 * space until it execs, and at exec the kernel (exec_mmap) folds the peak
 * RSS of that address space into the child's ru_maxrss. Started by
 * yardstick, every command smaller than yardstick (6 MiB, far more under
 * ASan) would report yardstick's peak as its own. Started from here — a
 * small static program that does nothing else — the floor is this
 * program's own peak, below that of any dynamically linked program, and
 * each reply says what the floor is, so that a command below it is
 * reported as not measurable rather than with our number.
 *
 * The one thing to know before changing it: everything this process
 * touches raises that floor. No stdio, no allocation but the request
 * buffer (which only grows, and after which the peak is read again) and
 * the static buffer of replies, the work per run kept to what child.c
 * does in yardstick: posix_spawn and wait4, two setitimer calls with a
 * timeout; besides, one read of /proc/self/statm (1 us), one read per
 * counter group handed over, and the reply, written with others (below).
 * Wire format and start-up arguments: spawner_proto.h.
 *
 * Batches: a request for several runs is run here from start to end
 * (run_batch), with --pin set once around it. The replies go out together
 * when the batch ends, when the buffer is full, or after a run that ended
 * REPLY_FLUSH_NS or more after the first reply waiting: yardstick, which
 * waits for them, wakes once per write instead of once per run, and
 * still sees every run of a long command (its progress) as it ends.
 *
 * Interrupts: yardstick sends SIGUSR1 with sigqueue, its value the seq of
 * the request to stop. The handler passes the running command SIGINT (to
 * its group, as a terminal's Ctrl-C) if it is that request's, and sets the
 * timer to SPAWNER_STOP_GRACE_NS, at whose end on_alarm kills it (it
 * alone: what it left gets sweep_graceful); and the main loop checks again right after the spawn,
 * so an interrupt that arrives just before or during the spawn is not
 * lost; one that arrives for a request not read yet is remembered by its
 * seq. Timeouts work the same way through SIGALRM.
 *
 * Leftovers: the spawner is a child subreaper (PR_SET_CHILD_SUBREAPER), so
 * whatever a command leaves behind when it exits or is killed — background
 * processes, daemons that called setsid() to leave its process group —
 * becomes our child instead of init's. After every run one waitpid(-1,
 * WNOHANG) tells whether any is left; if so they are killed and reaped
 * (sweep), and their number goes back in the reply. The same happens when
 * the request socket closes and, from the signal handler, when yardstick dies
 * (PR_SET_PDEATHSIG): no command outlives the run that started it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../util/child_common.h"
#include "spawner_proto.h"

extern char **environ;

/* Replies waiting to be written (design note: batches). */
#define REPLY_FLUSH_NS 20000000LL
#define REPLY_BUF (8 * 1024)

/* What the signal handlers share with the loop (design note: top). */
static volatile sig_atomic_t child_pid;	/* the running command, or 0 */
static volatile sig_atomic_t child_seq;	/* its request's seq */
static volatile sig_atomic_t stop_seq;	/* highest seq asked to stop */
static volatile sig_atomic_t alarm_fired;
/* the running command was passed the stop (SIGINT to its group) and has
 * SPAWNER_STOP_GRACE_NS to end by itself, the timer set to that (as
 * child_left.h's CHILD_STOP_GRACE_NS in yardstick) */
static volatile sig_atomic_t stop_passed;
#define SPAWNER_STOP_GRACE_NS (2000 * 1000000LL)
static pid_t parent;

struct server {
	int req_fd, rep_fd;
	int base;			/* slot i is descriptor base + 2 + i */
	int nslots;
	char *buf;			/* the request's strings, argv[] */
	size_t cap;
	size_t largest;			/* largest request so far */
	int64_t hwm_kib;		/* our VmHWM as last read */
	long hwm_rss;			/* our resident pages then */
	int status_fd, statm_fd;	/* /proc/self/status, statm */
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;	/* for the stdio of fa_fd[] */
	int fa_fd[3];
	bool fa_ready;
	/* the counter groups handed over, and the words of each one's read */
	int ctr_fd[SPAWNER_MAX_GROUPS];
	uint32_t ctr_len[SPAWNER_MAX_GROUPS];	/* words */
	size_t nctr, ctr_words;
	/* replies not written yet, since out_since */
	size_t out_len;
	int64_t out_since;
};

static char out_buf[REPLY_BUF] __attribute__((aligned(8)));	/* words */

static int kill_one(pid_t pid, void *arg)
{
	(void)arg;
	return kill(pid, SIGKILL);
}

/*
 * SIGKILL every child we have (child_each_child, shared with yardstick's
 * own sweep in child.c). Returns how many were signalled. Safe in a
 * signal handler, and no allocation to raise our peak RSS (the
 * rss_floor).
 */
static long kill_children(void)
{
	return child_each_child(kill_one, NULL);
}

/*
 * Kill and reap every process left over (design note: leftovers) until we
 * have no child. Returns how many were found still running; 0 at once
 * when none is (one waitpid).
 */
static long sweep(void)
{
	long killed = 0;
	int st;

	for (;;) {
		pid_t r = waitpid(-1, &st, WNOHANG);

		if (r > 0)
			continue;	/* one that had exited already */
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return killed;	/* ECHILD: none left */
		/* Alive: kill what we see, wait for one to go, look again
		 * (its own children are ours once it is gone). */
		killed += kill_children();
		while ((r = waitpid(-1, &st, 0)) < 0 && errno == EINTR)
			;
		if (r < 0)
			return killed;
	}
}

/*
 * After a run that ended by itself: its leftovers get the time to end by
 * themselves, as child.c's sweep gives them (the reasons are there:
 * multiprocessing's resource tracker unlinks the program's shared
 * memory once the program has ended): SWEEP_QUIET_NS with no signal
 * (what ends then is not counted), then SIGTERM to each and
 * SWEEP_TERM_NS, then sweep(). Returns how many were signalled; one
 * waitpid when nothing is left (the common case). A stop asked for
 * (stop_seq past seq) ends the grace.
 */
#define SWEEP_QUIET_NS (200 * 1000000LL)
#define SWEEP_TERM_NS (2000 * 1000000LL)
#define SWEEP_TOLD_MAX 256

static int64_t now_ns(void);

static pid_t told[SWEEP_TOLD_MAX];
static size_t ntold;

static int term_one(pid_t pid, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < ntold; i++)
		if (told[i] == pid)
			return 1;
	if (ntold == SWEEP_TOLD_MAX || kill(pid, SIGTERM))
		return 1;
	told[ntold++] = pid;
	return 0;
}

static long sweep_graceful(int32_t seq)
{
	int64_t start = now_ns();
	struct timespec nap = { 0, 2000000 };
	long killed;
	int st;

	ntold = 0;
	for (;;) {
		pid_t r = waitpid(-1, &st, WNOHANG);
		int64_t t;

		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r < 0)
			return (long)ntold;	/* ECHILD: none left */
		t = now_ns() - start;
		if (stop_seq >= seq || t >= SWEEP_QUIET_NS + SWEEP_TERM_NS)
			break;
		/* past the quiet time, every stray is told once (those
		 * its ended ones leave to us too) */
		if (t >= SWEEP_QUIET_NS)
			child_each_child(term_one, NULL);
		/* the spawner has no nanosleep of its own (spawner_libc.c) */
		syscall(SYS_nanosleep, &nap, NULL);
	}
	killed = sweep();
	/* a told one still alive is killed too: the larger, not the
	 * sum (one killed that was never told is then left out) */
	return killed > (long)ntold ? killed : (long)ntold;
}

/* yardstick died (PR_SET_PDEATHSIG): take the running command and
 * everything it left with us. */
static void on_parent_death(int sig)
{
	pid_t pid = child_pid;

	(void)sig;
	if (pid > 0)
		child_kill_group(pid);
	sweep();
	_exit(1);
}

static void set_timer(int64_t ns);

/* A stop for the running command: SIGINT to its group, as a terminal's
 * Ctrl-C, and the timer to the grace's end, when on_alarm kills it. */
static void on_interrupt(int sig, siginfo_t *si, void *uc)
{
	pid_t pid = child_pid;

	(void)sig;
	(void)uc;
	if (si->si_code != SI_QUEUE || si->si_pid != parent)
		return;
	if (si->si_value.sival_int > stop_seq)
		stop_seq = si->si_value.sival_int;
	if (pid > 0 && stop_seq >= child_seq && !stop_passed) {
		stop_passed = 1;
		kill(-pid, SIGINT);
		set_timer(SPAWNER_STOP_GRACE_NS);
	}
}

static void on_alarm(int sig)
{
	pid_t pid = child_pid;

	(void)sig;
	alarm_fired = 1;
	/* a stop's grace ended: the command alone, its leftovers get
	 * sweep_graceful's */
	if (pid > 0 && stop_passed)
		kill(pid, SIGKILL);
	else if (pid > 0)
		child_kill_group(pid);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Read a /proc/self file kept open (a pread at 0 makes the kernel write it
 * afresh) into buf, NUL-terminated. Returns its length, or -1.
 */
static ssize_t read_proc(int fd, char *buf, size_t size)
{
	ssize_t n = fd >= 0 ? pread(fd, buf, size - 1, 0) : -1;

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Our own VmHWM in KiB, from /proc/self/status; -1 if unreadable. */
static int64_t read_hwm_kib(const struct server *sv)
{
	char buf[4096];
	char *p;

	if (read_proc(sv->status_fd, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nVmHWM:");
	return p ? strtoll(p + 7, NULL, 10) : -1;
}

/* Our resident pages now, from /proc/self/statm (cheap: 1 us). */
static long read_rss_pages(const struct server *sv)
{
	char buf[256], *p;

	if (read_proc(sv->statm_fd, buf, sizeof(buf)) < 0)
		return -1;
	p = strchr(buf, ' ');
	return p ? strtol(p + 1, NULL, 10) : -1;
}

/*
 * After a run: read our peak again if we may have grown since it was
 * last read — by a larger request (the buffer) or by anything else that
 * stayed resident (a code path taken for the first time). The stack
 * posix_spawn lends the child is unmapped by then, but its pages are the
 * same for the same request size.
 */
static void update_hwm(struct server *sv, size_t request_size)
{
	long rss = read_rss_pages(sv);

	if (request_size <= sv->largest && rss >= 0 && rss <= sv->hwm_rss)
		return;
	if (request_size > sv->largest)
		sv->largest = request_size;
	sv->hwm_rss = rss;
	sv->hwm_kib = read_hwm_kib(sv);
}

/* The file actions for stdio fd[]; kept while the next run uses the
 * same, which in `run` is every run. */
static int setup_actions(struct server *sv, const int32_t fd[3])
{
	posix_spawn_file_actions_t *fa = &sv->fa;

	if (sv->fa_ready && !memcmp(sv->fa_fd, fd, sizeof(sv->fa_fd)))
		return 0;
	if (sv->fa_ready)
		posix_spawn_file_actions_destroy(fa);
	sv->fa_ready = false;
	if (posix_spawn_file_actions_init(fa))
		return -1;
	sv->fa_ready = true;
	for (int i = 0; i < 3; i++) {
		int r;

		if (fd[i] < 0)
			r = child_action_null(fa, i);
		else
			r = posix_spawn_file_actions_adddup2(fa,
				sv->base + 2 + fd[i], i);
		if (r) {
			posix_spawn_file_actions_destroy(fa);
			sv->fa_ready = false;
			return -1;
		}
	}
	memcpy(sv->fa_fd, fd, sizeof(sv->fa_fd));
	return 0;
}

/*
 * Read one request's strings into sv->buf and lay out argv after them.
 * Returns the argv (argv[-1] is the path), or NULL for a malformed one.
 */
static char **read_strings(struct server *sv,
			   const struct spawner_request *rq)
{
	size_t len = rq->len, argc = rq->argc, at, need;
	char **argv;

	if (len == 0 || len > SPAWNER_MAX_STRINGS || argc == 0 ||
	    argc > len)
		return NULL;
	at = (len + sizeof(char *) - 1) / sizeof(char *) * sizeof(char *);
	need = at + (argc + 2) * sizeof(char *);
	if (need > sv->cap) {
		char *p = realloc(sv->buf, need);

		if (!p)
			return NULL;
		sv->buf = p;
		sv->cap = need;
	}
	if (child_read_full(sv->req_fd, sv->buf, len) != 1 || sv->buf[len - 1])
		return NULL;
	argv = (char **)(void *)(sv->buf + at);
	argv[0] = sv->buf;		/* the path */
	for (size_t i = 1, k = 0; i <= argc; i++) {
		k += strlen(sv->buf + k) + 1;
		if (k >= len)
			return NULL;
		argv[i] = sv->buf + k;
	}
	if (argv[argc] + strlen(argv[argc]) + 1 != sv->buf + len)
		return NULL;
	argv[argc + 1] = NULL;
	return argv + 1;
}

static bool valid_fds(const struct server *sv, const int32_t fd[3])
{
	for (int i = 0; i < 3; i++)
		if (fd[i] < -1 || fd[i] >= sv->nslots)
			return false;
	return true;
}

static void set_timer(int64_t ns)
{
	struct itimerval it = { { 0, 0 }, { (time_t)(ns / 1000000000),
					    (suseconds_t)(ns % 1000000000 /
							  1000) } };

	/* a positive timeout shorter than 1 us still fires */
	if (ns > 0 && it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void fill_usage(struct spawner_reply *rp, const struct rusage *ru)
{
	rp->utime_us = ru->ru_utime.tv_sec * 1000000LL + ru->ru_utime.tv_usec;
	rp->stime_us = ru->ru_stime.tv_sec * 1000000LL + ru->ru_stime.tv_usec;
	rp->maxrss_kib = ru->ru_maxrss;
	rp->minflt = ru->ru_minflt;
	rp->majflt = ru->ru_majflt;
	rp->nvcsw = ru->ru_nvcsw;
	rp->nivcsw = ru->ru_nivcsw;
}

/* Spawn, wait and measure one command; fill *rp. */
static void run_one(struct server *sv, const struct spawner_request *rq,
		    char **argv, struct spawner_reply *rp)
{
	const char *path = argv[-1];
	struct rusage ru = { 0 };
	int64_t t0;
	pid_t pid;
	int status = 0, r;
	bool killed;

	if (setup_actions(sv, rq->fd)) {
		rp->err = ENOMEM;
		rp->flags = SPAWNER_SETUP_FAILED;
		return;
	}
	alarm_fired = 0;
	stop_passed = 0;
	t0 = now_ns();
	rp->start_ns = t0;
	if (rq->timeout_ns > 0)
		set_timer(rq->timeout_ns);
	r = posix_spawn(&pid, path, &sv->fa, &sv->attr, argv, environ);
	if (r) {
		if (rq->timeout_ns > 0)
			set_timer(0);
		rp->err = r;
		return;
	}
	child_seq = rq->seq;
	child_pid = pid;
	/* What the handlers could not kill: it did not exist yet. */
	if ((stop_seq >= rq->seq && !stop_passed) || alarm_fired)
		child_kill_group(pid);
	child_wait4(pid, &status, &ru);	/* pid is our child: it returns */
	rp->wall_ns = now_ns() - t0;
	child_pid = 0;
	if (rq->timeout_ns > 0 || stop_passed)
		set_timer(0);
	rp->status = status;
	if (stop_seq >= rq->seq)
		rp->flags |= SPAWNER_INTERRUPTED;
	else if (alarm_fired)
		rp->flags |= SPAWNER_TIMED_OUT;
	/* A killed one's stragglers die with its group; a stopped one that
	 * ended by itself leaves them the grace (a second stop is
	 * yardstick's death: on_parent_death) */
	killed = !stop_passed && (alarm_fired || rp->flags);
	if (killed)
		kill(-pid, SIGKILL);
	fill_usage(rp, &ru);
	/* and whatever else it left, in its group or not */
	rp->strays = killed ? sweep()
		     : sweep_graceful(rp->flags ? INT32_MAX : rq->seq);
}

/* Write the replies waiting. */
static int flush_replies(struct server *sv)
{
	int r = child_write_full(sv->rep_fd, out_buf, sv->out_len);

	sv->out_len = 0;
	return r;
}

/*
 * Queue reply rp, with the counter reading when it asks for one; write
 * what waits if rp is its request's last, the buffer would overflow, or
 * the first reply waiting is REPLY_FLUSH_NS old.
 */
static int queue_reply(struct server *sv, struct spawner_reply *rp,
		       bool read_counters)
{
	size_t need = sizeof(*rp) + sv->ctr_words * sizeof(uint64_t);
	uint64_t *words;
	int64_t now;

	if (sv->out_len + need > sizeof(out_buf) && flush_replies(sv))
		return -1;
	if (sv->out_len == 0)
		sv->out_since = now_ns();
	words = (uint64_t *)(void *)(out_buf + sv->out_len + sizeof(*rp));
	for (size_t g = 0, at = 0; read_counters && !rp->err &&
	     g < sv->nctr; g++) {
		size_t len = sv->ctr_len[g] * sizeof(uint64_t);
		ssize_t got = read(sv->ctr_fd[g], words + at, len);

		if (got != (ssize_t)len) {
			rp->ctr_err = got < 0 ? errno : EIO;
			rp->nwords = 0;
			break;
		}
		at += sv->ctr_len[g];
		rp->nwords = (uint32_t)at;
	}
	memcpy(out_buf + sv->out_len, rp, sizeof(*rp));
	sv->out_len += sizeof(*rp) + rp->nwords * sizeof(uint64_t);
	now = now_ns();
	if ((rp->flags & SPAWNER_LAST) || now - sv->out_since >= REPLY_FLUSH_NS)
		return flush_replies(sv);
	return 0;
}

/* Whether run i of a batch (its reply rp, the batch's wall time so far
 * sum) is the batch's last. */
static bool batch_over(const struct spawner_request *rq,
		       const struct spawner_reply *rp, uint32_t i,
		       int64_t sum)
{
	bool clean = WIFEXITED(rp->status) && WEXITSTATUS(rp->status) == 0 &&
		     !(rp->flags & SPAWNER_TIMED_OUT);

	if (i + 1 >= rq->count || rp->err || (rp->flags & ~SPAWNER_TIMED_OUT))
		return true;
	if (stop_seq >= rq->seq)
		return true;
	if ((rq->flags & SPAWNER_STOP_ON_FAILURE) && !clean)
		return true;
	return rq->min_wall_ns > 0 && i + 1 >= rq->min_count &&
	       sum >= rq->min_wall_ns;
}

/* The runs of one request, a reply each (design note: batches). */
static int run_batch(struct server *sv, const struct spawner_request *rq,
		     char **argv)
{
	cpu_set_t saved;
	int64_t sum = 0;
	int r = 0;

	if (rq->flags & SPAWNER_PIN) {
		sched_getaffinity(0, sizeof(saved), &saved);
		if (sched_setaffinity(0, sizeof(rq->pin), &rq->pin)) {
			struct spawner_reply rp = {
				.seq = rq->seq, .err = errno,
				.flags = SPAWNER_PIN_FAILED | SPAWNER_LAST,
				.hwm_kib = sv->hwm_kib,
			};

			return queue_reply(sv, &rp, false);
		}
	}
	for (uint32_t i = 0; !r; i++) {
		struct spawner_reply rp;

		memset(&rp, 0, sizeof(rp));
		rp.seq = rq->seq;
		run_one(sv, rq, argv, &rp);
		update_hwm(sv, rq->len + rq->argc * sizeof(char *));
		rp.hwm_kib = sv->hwm_kib;
		sum += (rp.flags & SPAWNER_TIMED_OUT) &&
		       rp.wall_ns < rq->timeout_ns ? rq->timeout_ns
						   : rp.wall_ns;
		if (batch_over(rq, &rp, i, sum))
			rp.flags |= SPAWNER_LAST;
		r = queue_reply(sv, &rp, rq->flags & SPAWNER_READ_COUNTERS);
		if (rp.flags & SPAWNER_LAST)
			break;
	}
	if (rq->flags & SPAWNER_PIN)
		sched_setaffinity(0, sizeof(saved), &saved);
	return r;
}

/* Read one request's fixed part; descriptors that came with it (SCM_RIGHTS)
 * go to fds[], their number to *nfds. Returns child_read_full's 1, 0 or -1. */
static int read_request(struct server *sv, struct spawner_request *rq,
			int *fds, size_t *nfds)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(SPAWNER_MAX_GROUPS * sizeof(int))];
	} cm;
	struct iovec iov = { rq, sizeof(*rq) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cm.b,
			      .msg_controllen = sizeof(cm.b) };
	ssize_t got;

	*nfds = 0;
	while ((got = recvmsg(sv->req_fd, &msg, MSG_CMSG_CLOEXEC)) < 0 &&
	       errno == EINTR)
		;
	if (got <= 0)
		return got == 0 ? 0 : -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
	     c = CMSG_NXTHDR(&msg, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds + *nfds, CMSG_DATA(c), n * sizeof(int));
		*nfds += n;
	}
	if ((size_t)got == sizeof(*rq))
		return 1;
	return child_read_full(sv->req_fd, (char *)rq + got,
			       sizeof(*rq) - (size_t)got) == 1 ? 1 : -1;
}

/*
 * A SPAWNER_COUNTERS request: rq->len bytes of uint32_t words per group,
 * the groups' leaders in fds[0..n). Replaces what was handed before.
 */
static int take_counters(struct server *sv, const struct spawner_request *rq,
			 const int *fds, size_t n)
{
	struct spawner_reply rp = { .seq = rq->seq, .flags = SPAWNER_LAST };
	size_t words = 0;

	for (size_t g = 0; g < sv->nctr; g++)
		close(sv->ctr_fd[g]);
	sv->nctr = sv->ctr_words = 0;
	if (rq->len != n * sizeof(uint32_t) || n == 0 ||
	    child_read_full(sv->req_fd, sv->ctr_len, rq->len) != 1) {
		for (size_t g = 0; g < n; g++)
			close(fds[g]);
		return 1;
	}
	for (size_t g = 0; g < n; g++)
		words += sv->ctr_len[g];
	if (words > SPAWNER_MAX_WORDS) {
		rp.err = E2BIG;
		for (size_t g = 0; g < n; g++)
			close(fds[g]);
	} else {
		memcpy(sv->ctr_fd, fds, n * sizeof(int));
		sv->nctr = n;
		sv->ctr_words = words;
	}
	rp.hwm_kib = sv->hwm_kib;
	return queue_reply(sv, &rp, false) ? 1 : 0;
}

/* Answer requests until the request socket is closed. */
static int serve(struct server *sv)
{
	for (;;) {
		struct spawner_request rq;
		int fds[SPAWNER_MAX_GROUPS];
		size_t nfds;
		char **argv;
		int r = read_request(sv, &rq, fds, &nfds);

		if (r == 0)
			return 0;
		if (r < 0 || rq.seq <= 0)
			return 1;
		if (rq.flags & SPAWNER_COUNTERS) {
			if (take_counters(sv, &rq, fds, nfds))
				return 1;
			continue;
		}
		for (size_t g = 0; g < nfds; g++)	/* not asked for */
			close(fds[g]);
		if (!valid_fds(sv, rq.fd) || rq.count == 0)
			return 1;
		argv = read_strings(sv, &rq);
		if (!argv || run_batch(sv, &rq, argv))
			return 1;
	}
}

static int setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sa.sa_sigaction = on_interrupt;
	if (sigaction(SIGUSR1, &sa, NULL))
		return -1;
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_alarm;
	if (sigaction(SIGALRM, &sa, NULL))
		return -1;
	sa.sa_handler = on_parent_death;
	sigfillset(&sa.sa_mask);
	return sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct server sv;
	struct spawner_hello hello = { SPAWNER_MAGIC, SPAWNER_VERSION, 0 };
	int r;

	if (argc != 4)
		return 2;
	memset(&sv, 0, sizeof(sv));
	sv.base = atoi(argv[1]);
	sv.nslots = atoi(argv[2]);
	parent = (pid_t)atol(argv[3]);
	sv.req_fd = sv.base;
	sv.rep_fd = sv.base + 1;
	if (sv.base < 3 || sv.nslots < 0 || sv.nslots > 64)
		return 2;
	/* Orphans of the commands come to us (design note: leftovers). */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return 1;
	if (setup_signals() || child_spawnattr(&sv.attr, true))
		return 1;
	/* Die with yardstick, taking the commands along; it may be gone
	 * already. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		return 1;
	/* None of ours may leak into the commands. */
	for (int fd = sv.base; fd < sv.base + 2 + sv.nslots; fd++)
		if (fcntl(fd, F_SETFD, FD_CLOEXEC))
			return 1;
	sv.status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	sv.statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	hello.hwm_kib = sv.hwm_kib = read_hwm_kib(&sv);
	if (child_write_full(sv.rep_fd, &hello, sizeof(hello)))
		return 1;
	r = serve(&sv);
	sweep();
	return r;
}
