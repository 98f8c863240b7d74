/*
 * sampler_attach (sampler.h): the sampler on a process running already
 * (`record --pid`), and on the descendant processes it has, with
 * sampler.c's rings, parser and reader.
 *
 * Every event of every thread of every process attached writes into the
 * ring of its CPU, which the first of them opened on that CPU owns. A
 * perf fd hangs up once its thread has ended (and nothing inherited from
 * it lives): the ring's samples then wake the reader through another of
 * its events (repoll), not the pass's timeout, which would read Python
 * frames too late.
 *
 * The test hook: with YARDSTICK_TEST_ATTACH_PAUSE=MS, the attach sleeps
 * MS ms after each thread's first event is open, before its others: a
 * thread that ends in between (tests/cli/record_pid.sh, churn_pause)
 * does so deterministically, not once in thousands of attaches.
 */
#include "profile/sampler.h"
#include "profile/sampler_internal.h"

#include "profile/merge.h"

#include "measure/perf_event.h"
#include "util/child_common.h"
#include "util/monoclock.h"
#include "util/number.h"
#include "util/procdir.h"
#include "util/strutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* With a pidfd, how long a pass waits at most: the duration's end and a
 * stop are looked at this often. */
#define POLL_MS_ATTACH 100

/* The threads of pid now (/proc/PID/task), into *tids (malloc'd, grown):
 * their number, or -1 with errno set when the directory cannot be read. */
static int list_threads(uint32_t pid, uint32_t **tids, size_t *cap)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long t = strtoul(d->d_name, &end, 10);

		if (*end || end == d->d_name || t == 0 || t > UINT32_MAX)
			continue;
		*tids = xgrow(*tids, cap, (size_t)n + 1, sizeof(**tids));
		(*tids)[n++] = (uint32_t)t;
	}
	closedir(dir);
	return n;
}

/* The user and system time process pid has used, in ns, from
 * /proc/PID/stat: every thread's, those that ended too, and the children
 * it waited for (as a started program's is counted); -1 when it cannot
 * be read (the process is gone). With state and ppid (else NULL), its
 * state letter and parent from the same read. No allocation: it is read
 * at every pass. */
static int64_t proc_stat(uint32_t pid, char *state, uint32_t *ppid)
{
	char path[64], buf[1024], *p, st_c;
	unsigned long long ut, st, cut, cst;
	unsigned int pp;
	long tck = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (child_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* the name, in parentheses, may hold anything: after its last ')'
	 * come state (field 3), ppid (4) ... utime (14), stime (15), cutime
	 * (16), cstime (17) */
	p = strrchr(buf, ')');
	if (!p || tck <= 0 ||
	    sscanf(p + 1, " %c %u %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu "
		   "%llu %llu %llu", &st_c, &pp, &ut, &st, &cut, &cst) != 6)
		return -1;
	if (state)
		*state = st_c;
	if (ppid)
		*ppid = pp;
	return (int64_t)((ut + st + cut + cst) *
			 (1000000000ULL / (unsigned long)tck));
}

static int64_t proc_cpu_ns(uint32_t pid)
{
	return proc_stat(pid, NULL, NULL);
}

/* The refusal of an event on a process not ours (perf_event_open checks
 * that we could ptrace it): what would allow it. */
static enum sampler_result attach_refused(struct sampler *s, uint32_t pid,
					  int err, const struct
					  perf_event_attr *a, struct error *e)
{
	char level[32], scope[32];

	if (err != EACCES && err != EPERM)
		return sampler_open_error(s, a, err, -1, e);
	perf_event_sysctl("perf_event_paranoid", level, sizeof(level));
	snprintf(scope, sizeof(scope), "?");
	{
		FILE *fp = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");

		if (fp) {
			if (!fgets(scope, sizeof(scope), fp))
				snprintf(scope, sizeof(scope), "?");
			scope[strcspn(scope, "\n")] = '\0';
			fclose(fp);
		}
	}
	error_set(e, "not permitted to sample process %u (%s): perf events "
		  "on another process need the right to ptrace it — the same "
		  "user and kernel.yama.ptrace_scope %s allowing it, or root "
		  "(CAP_SYS_PTRACE) — and kernel.perf_event_paranoid %s at "
		  "most 2 (or CAP_PERFMON): run yardstick as the process's "
		  "user or with sudo", pid, strerror(err), scope, level);
	error_mark(e, ERROR_ENV);
	return SAMPLER_REFUSED;
}

/* Whether tid is among tids[0..n). */
static bool has_tid(const uint32_t *tids, int n, uint32_t tid)
{
	for (int i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* An event of the attached processes' besides the rings' own: kept to
 * be disabled and closed, and polled for ring (-1: never) when the one
 * polled hangs up. */
static void keep_fd(struct sampler *s, int fd, int ring)
{
	s->afds = xgrow(s->afds, &s->capafds, s->nafds + 1, sizeof(*s->afds));
	s->afd_ring = xgrow(s->afd_ring, &s->capafd_ring, s->nafds + 1,
			    sizeof(*s->afd_ring));
	s->afd_ring[s->nafds] = ring;
	s->afds[s->nafds++] = fd;
}

/* What open_thread and open_process return besides 0 and a
 * sampler_result. */
#define OPEN_GONE 1	/* the thread (process) ended meanwhile */
#define OPEN_DENIED 2	/* not permitted: e says why */

/* The limit of open files reached: how many events were open, what they
 * are for, and what raises it. */
static int too_many_files(struct sampler *s, uint32_t pid, int err,
			  struct error *e)
{
	struct rlimit rl = { 0 };
	char lim[32] = "?";
	size_t nopen = s->nafds;

	for (int i = 0; i < s->nrings; i++)
		nopen += s->rings[i].fd >= 0;
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		snprintf(lim, sizeof(lim), "%llu",
			 (unsigned long long)rl.rlim_cur);
	if (err == ENFILE)
		error_set(e, "cannot open more perf events at process %u "
			  "after %zu: the system's limit of open files "
			  "(fs.file-max) is reached", pid, nopen);
	else
		error_set(e, "cannot open more perf events at process %u "
			  "after %zu (one per thread and CPU%s, %d CPUs): the "
			  "limit of open files, %s, is reached (its soft limit "
			  "raised to the hard one): raise the hard limit (ulimit "
			  "-Hn as root, LimitNOFILE= of a systemd service) or "
			  "attach to fewer processes (--no-children)", pid,
			  nopen, s->o.offcpu ? ", twice with --idle" : "",
			  s->nrings, lim);
	error_mark(e, ERROR_ENV);
	return SAMPLER_REFUSED;
}

/* perf_event_open on thread tid of pid failed with err: OPEN_GONE,
 * OPEN_DENIED or a sampler_result, e set. */
static int open_failed(struct sampler *s, uint32_t pid, int err,
		       const struct perf_event_attr *a, struct error *e)
{
	if (err == ESRCH)
		return OPEN_GONE;
	if (err == EMFILE || err == ENFILE)
		return too_many_files(s, pid, err, e);
	if (err == EACCES || err == EPERM) {
		attach_refused(s, pid, err, a, e);
		return OPEN_DENIED;
	}
	return attach_refused(s, pid, err, a, e);
}

/* Event fd, opened on thread tid, into family fam (famfilter.h): 0 or
 * SAMPLER_FAILED with e set. */
static int add_family(struct sampler *s, int fd, uint32_t fam, uint32_t tid,
		      struct error *e)
{
	uint64_t id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
		error_errno(e, errno, "cannot read the id of thread %u's "
			    "event", tid);
		return SAMPLER_FAILED;
	}
	famfilter_add(&s->fam, id, fam, tid);
	return 0;
}

/* The test hook (notes at the top): YARDSTICK_TEST_ATTACH_PAUSE's ms, 0
 * when unset or not a number of ms up to a minute. */
static unsigned test_pause_from_env(void)
{
	const char *v = getenv("YARDSTICK_TEST_ATTACH_PAUSE");
	long ms;

	if (!v || parse_long(v, &ms) || ms <= 0 || ms > 60000)
		return 0;
	return (unsigned)ms;
}

static void test_pause(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * Whether tid is a thread of pid now. Its first event is opened on
 * whatever task has the tid: one that ended after the list of pid's
 * threads may have given it to another process's thread meanwhile (a
 * server starting thousands a second wraps a pid_max of 32768 in
 * seconds), which must not be sampled as pid's. Looked at after that
 * open, a thread of pid holds the tid, and the event is on it: the
 * tid would have to be given up and taken again in between.
 */
static bool thread_of(uint32_t pid, uint32_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, tid);
	return access(path, F_OK) == 0;
}

/*
 * Thread tid's events, one per CPU, each writing into that CPU's ring
 * (the first thread's event on it owns the ring: the kernel maps no
 * inherited event opened on cpu -1), with --idle its context switches
 * too, opened disabled into fds[0..*n): every one opened, also when it
 * fails (the events of a thread that ended after its first are kept and
 * enabled: open_thread). Returns 0, OPEN_GONE when the thread ended
 * meanwhile (passed over), OPEN_DENIED, or a sampler_result.
 */
static int open_disabled(struct sampler *s, struct perf_event_attr *base,
			 uint32_t pid, uint32_t tid, const int *cpus,
			 uint32_t fam, int *fds, int *n, struct error *e)
{
	struct perf_event_attr attr;
	int ret;

	for (int i = 0; i < s->nrings; i++) {
		struct ring *r = &s->rings[i];
		int fd;

		attr = *base;
		attr.disabled = 1;
		fd = perf_event_open_attr(NULL, NULL, &attr, (pid_t)tid,
					  cpus[i], -1);
		if (fd < 0)
			return open_failed(s, pid, -fd, &attr, e);
		if (i == 0 && !thread_of(pid, tid)) {
			close(fd);
			return OPEN_GONE;
		}
		base->exclude_kernel = attr.exclude_kernel;
		base->exclude_hv = attr.exclude_hv;
		if ((ret = add_family(s, fd, fam, tid, e))) {
			close(fd);
			return ret;
		}
		fds[(*n)++] = fd;
		if (r->fd < 0) {
			r->fd = fd;
			ret = sampler_map_ring(s, r, e);
			if (ret)
				return ret;
		} else {
			keep_fd(s, fd, i);
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd))
				return error_errno(e, errno, "cannot send "
						   "thread %u's samples to the "
						   "ring buffer of CPU %d",
						   tid, cpus[i]);
		}
		if (i == 0 && s->test_pause_ms)
			test_pause(s->test_pause_ms);
		if (!s->o.offcpu)
			continue;
		sampler_side_attr(&attr, PERF_COUNT_SW_CONTEXT_SWITCHES, &attr);
		attr.disabled = 1;
		fd = perf_event_open_attr(NULL, NULL, &attr, (pid_t)tid,
					  cpus[i], -1);
		if (fd < 0)
			return open_failed(s, pid, -fd, &attr, e);
		fds[(*n)++] = fd;
		keep_fd(s, fd, -1);
		if (attr.exclude_kernel)
			return sampler_offcpu_refused(e);
		s->off_ids = xgrow(s->off_ids, &s->capoff, s->noff + 1,
				   sizeof(*s->off_ids));
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) ||
		    ioctl(fd, PERF_EVENT_IOC_ID, &s->off_ids[s->noff]))
			return error_errno(e, errno, "cannot send context "
					   "switches to the ring buffer of "
					   "CPU %d", cpus[i]);
		famfilter_add(&s->fam, s->off_ids[s->noff++], fam, tid);
	}
	return 0;
}

/*
 * A thread's events, one per CPU (and its context switches' with
 * --off-cpu), opened disabled and enabled once all are open. A thread
 * it starts meanwhile inherits every one of them, and enabling an event
 * enables the copies its children inherited (PERF_EVENT_IOC_ENABLE goes
 * down the event's children). Enabled at their open, a thread started
 * between the first CPU's open and the last inherited only the CPUs
 * opened by then, and was not sampled on the others until a later list
 * of the threads found it: tests/cli/trace_pid.sh's storm at a load of
 * 5, a thread of 20 ms of CPU with 3 samples, or none.
 *
 * Every event opened is enabled, also when the open of a later one
 * failed: a thread that ended between its first event and its last
 * (ESRCH) may have started threads meanwhile, which inherited the
 * events opened so far, disabled; left so, they and every thread they
 * start were never sampled (unless a later list found them: a relay of
 * threads each starting the next, tests/cli/record_pid.sh churn_pause,
 * had none of its CPU time sampled). Those events cover only the CPUs
 * opened before the end: their family is marked partial, so that a
 * task that also inherited a whole family keeps that one's records
 * (famfilter.h). They stay open until the end, as every event does: a
 * closed event takes its inherited copies with it.
 */
static int open_thread(struct sampler *s, struct perf_event_attr *base,
		       uint32_t pid, uint32_t tid, const int *cpus,
		       struct error *e)
{
	int *fds = xmalloc(2 * (size_t)s->nrings * sizeof(*fds)), n = 0;
	uint32_t fam = ++s->nfam;
	int ret = open_disabled(s, base, pid, tid, cpus, fam, fds, &n, e);

	for (int i = 0; i < n; i++)
		if (ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0) && ret == 0)
			ret = error_errno(e, errno, "cannot enable the events "
					  "of thread %u", tid);
	if (ret != 0 && n > 0)
		famfilter_partial(&s->fam, fam);

	free(fds);
	return ret;
}

/* A process whose events are open (sampled) or that was passed over
 * (not sampled: its CPU time reaches its parent's when it is waited
 * for, and is taken off then). */
static void add_proc(struct sampler *s, uint32_t pid, int64_t cpu0,
		     bool sampled)
{
	s->procs = xgrow(s->procs, &s->capprocs, s->nprocs + 1,
			 sizeof(*s->procs));
	s->procs[s->nprocs++] = (struct sampler_proc){
		.pid = pid, .cpu0 = cpu0, .cpu = cpu0, .sampled = sampled };
}

/*
 * Thread tid of pid as it is now, for cb->attached: its name into name
 * (size bytes; "" when gone) and whether it is asleep (its state in
 * /proc/PID/task/TID/stat neither R, running or runnable, nor unknown).
 */
static bool thread_now(uint32_t pid, uint32_t tid, char *name, size_t size)
{
	char path[96], buf[512], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	n = child_read_small(path, name, size);
	name[n > 0 ? strcspn(name, "\n") : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	n = child_read_small(path, buf, sizeof(buf));
	p = n > 0 ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] && p[2] != 'R';
}

/* Thread tid of pid: handed to cb->attached (its state and a time
 * taken before its events open, so that its records come after it),
 * then its events opened (open_thread). */
static int attach_thread(struct sampler *s, struct perf_event_attr *base,
			 uint32_t pid, uint32_t tid, const int *cpus,
			 struct error *e)
{
	char name[64] = "";
	bool asleep = false;
	uint64_t t = 0;
	int ret;

	if (s->cb.attached) {
		asleep = thread_now(pid, tid, name, sizeof(name));
		t = monoclock_ns();
	}
	ret = open_thread(s, base, pid, tid, cpus, e);
	if (ret == 0 && s->cb.attached)
		s->cb.attached(s->cb.arg, pid, tid, name, asleep, t);
	return ret;
}

/*
 * The events of every thread of process pid (inherit: what a thread
 * starts later is followed), one per CPU each, into one ring per CPU,
 * enabled at their open; the threads listed again until none is new, so
 * that one started meanwhile by a thread not yet followed is, for at
 * most ATTACH_ROUNDS lists. A thread that ended meanwhile is passed over.
 * Returns 0 when some thread's events are open, OPEN_GONE when none (the
 * process ended), OPEN_DENIED when not permitted and nothing of it is
 * open, or a sampler_result.
 *
 * Why a bound: a process that starts threads all the time (a server's
 * thread per request) shows new ones at every list, and the attach, and
 * with it --duration, which counts from its end, never ended. After the
 * first list every thread of it is followed, and a thread started since
 * by a followed one inherits its events (opened again they count once:
 * famfilter.h). Left out is only a thread started, in the last round's
 * few milliseconds, by one that was itself started unfollowed in the
 * round before, and so on back to the first list.
 */
#define ATTACH_ROUNDS 8

static int open_process(struct sampler *s, struct perf_event_attr *base,
			uint32_t pid, const int *cpus, struct error *e)
{
	uint32_t *now = NULL, *done = NULL;
	size_t capnow = 0, capdone = 0;
	int n, i, ret = 0, ndone = 0, nopen = 0, rounds = 1;
	bool grew = true;

	n = list_threads(pid, &now, &capnow);
	while (grew && n > 0 && ret == 0) {
		grew = false;
		for (i = 0; i < n && ret == 0; i++) {
			if (has_tid(done, ndone, now[i]))
				continue;
			done = xgrow(done, &capdone, (size_t)ndone + 1,
				     sizeof(*done));
			done[ndone++] = now[i];
			grew = true;
			ret = attach_thread(s, base, pid, now[i], cpus, e);
			if (ret == OPEN_GONE)
				ret = 0;
			else if (ret == 0)
				nopen++;
		}
		if (ret == 0 && grew && rounds++ < ATTACH_ROUNDS)
			n = list_threads(pid, &now, &capnow);
		else
			grew = false;
	}
	free(now);
	free(done);
	if (ret == OPEN_DENIED && nopen)
		ret = SAMPLER_REFUSED;	/* half of it: e says why */
	if (ret == 0 && nopen == 0)
		ret = OPEN_GONE;
	return ret;
}

/* ---- the descendants ---- */

/* The processes of a tree: pid and parent, the root first. */
struct tree {
	struct { uint32_t pid, ppid; } *v;
	size_t n, cap;
};

static bool tree_has(const struct tree *t, uint32_t pid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].pid == pid)
			return true;
	return false;
}

static void tree_add(struct tree *t, uint32_t pid, uint32_t ppid)
{
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n].pid = pid;
	t->v[t->n++].ppid = ppid;
}

static void tree_init(struct tree *t, uint32_t root)
{
	memset(t, 0, sizeof(*t));
	tree_add(t, root, 0);
}

struct tree_visit {
	struct tree *t;
	uint32_t parent;
};

/* child_each_child_of's visit: a child not in the tree yet, added */
static int tree_visit(pid_t pid, void *arg)
{
	struct tree_visit *v = arg;

	if (pid <= 0 || tree_has(v->t, (uint32_t)pid))
		return 1;
	tree_add(v->t, (uint32_t)pid, v->parent);
	return 0;
}

/*
 * One generation: the children of t->v[from..to) not in t yet, appended
 * to t (child_each_child_of: the kernel's children files, else a scan of
 * /proc). Returns how many were added.
 *
 * Only the processes attached last are looked at again: a child another
 * forks after its own events are open inherits them (looking for it
 * would sample it twice), and a server that forks a child every few
 * milliseconds would never let a walk of the whole tree end.
 */
static size_t tree_round(struct tree *t, size_t from, size_t to)
{
	size_t before = t->n;

	for (size_t i = from; i < to; i++) {
		struct tree_visit v = { t, t->v[i].pid };

		child_each_child_of((pid_t)t->v[i].pid, tree_visit, &v);
	}
	return t->n - before;
}

static void tree_free(struct tree *t)
{
	free(t->v);
}

size_t sampler_descendants(uint32_t pid, uint32_t **pids)
{
	struct tree t;
	size_t n;

	tree_init(&t, pid);
	for (size_t from = 0, to = 1; tree_round(&t, from, to); to = t.n)
		from = to;
	n = t.n - 1;
	*pids = xmalloc((n ? n : 1) * sizeof(**pids));
	for (size_t i = 0; i < n; i++)
		(*pids)[i] = t.v[i + 1].pid;
	tree_free(&t);
	return n;
}

/* A process not permitted, skipped: counted, the first named. */
static void child_refused(struct sampler *s, uint32_t pid)
{
	char path[64], name[64] = "?";
	ssize_t n;

	if (s->stats->refused++)
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	n = child_read_small(path, name, sizeof(name));
	if (n > 0)
		name[strcspn(name, "\n")] = '\0';
	else
		snprintf(name, sizeof(name), "?");
	s->stats->refused_pid = pid;
	snprintf(s->stats->refused_name, sizeof(s->stats->refused_name), "%s",
		 name);
}

/* Whether the process of pidfd has exited (or cannot be told: no). */
static bool pidfd_ended(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&p, 1, 0) > 0;
}

/*
 * Descendant pid, found a child of ppid: its events opened as the
 * root's, unless it is no longer ppid's child (it ended, and its pid was
 * taken by another process: a pidfd held while /proc says who it is), a
 * zombie (exited, not waited for: passed over, counted) or not
 * permitted (skipped, counted). 0 or a sampler_result.
 */
static int attach_child(struct sampler *s, struct perf_event_attr *base,
			uint32_t pid, uint32_t ppid, const int *cpus,
			struct error *e)
{
	int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0), ret = 0;
	uint32_t parent, *tids = NULL;
	size_t cap = 0;
	int64_t cpu0;
	char state;

	if (pidfd < 0 && errno == ESRCH)
		return 0;
	cpu0 = proc_stat(pid, &state, &parent);
	if (cpu0 < 0 || parent != ppid)
		goto out;
	/* a zombie's main thread alone: its other threads may still run */
	if (state == 'Z' && list_threads(pid, &tids, &cap) <= 1) {
		s->stats->zombies++;
		add_proc(s, pid, cpu0, false);
		goto out;
	}
	if (pidfd_ended(pidfd))
		goto out;
	ret = open_process(s, base, pid, cpus, e);
	if (ret == OPEN_DENIED) {
		child_refused(s, pid);
		add_proc(s, pid, cpu0, false);
		ret = 0;
	} else if (ret == OPEN_GONE) {
		ret = 0;
	} else if (ret == 0) {
		s->stats->children++;
		add_proc(s, pid, cpu0, true);
	}
out:
	free(tids);
	if (pidfd >= 0)
		close(pidfd);
	return ret;
}

/* Every descendant of root, a generation at a time: the children of
 * the processes just attached looked for again, until none is new (one
 * may have forked before its own events were open). */
static int open_descendants(struct sampler *s, struct perf_event_attr *base,
			    uint32_t root, const int *cpus, struct error *e)
{
	struct tree t;
	size_t from = 0, to = 1;
	int ret = 0;

	tree_init(&t, root);
	while (ret == 0 && tree_round(&t, from, to)) {
		from = to;
		to = t.n;
		for (size_t i = from; i < to && ret == 0; i++)
			ret = attach_child(s, base, t.v[i].pid, t.v[i].ppid,
					   cpus, e);
	}
	tree_free(&t);
	return ret;
}

/*
 * The events of pid's threads and, with opts.children, of its
 * descendants'. pid gone: SAMPLER_NOT_STARTED; not permitted:
 * SAMPLER_REFUSED.
 */
static int open_all(struct sampler *s, uint32_t pid, struct error *e)
{
	struct perf_event_attr base;
	int ret, ncpus, *cpus;
	int64_t cpu0 = proc_cpu_ns(pid);

	if ((ret = sampler_prepare(s, &base, &cpus, &ncpus, e)))
		return ret;
	s->test_pause_ms = test_pause_from_env();
	/* running already: sampled from the open on */
	base.disabled = 0;
	base.enable_on_exec = 0;
	/* every record says which of our events wrote it (famfilter.h) */
	base.sample_type |= PERF_SAMPLE_IDENTIFIER;
	ret = open_process(s, &base, pid, cpus, e);
	if (ret == OPEN_GONE) {
		error_set(e, "process %u exited as yardstick attached", pid);
		ret = SAMPLER_NOT_STARTED;
	} else if (ret == OPEN_DENIED) {
		ret = SAMPLER_REFUSED;
	}
	if (ret == 0)
		add_proc(s, pid, cpu0, true);
	if (ret == 0 && s->o.children)
		ret = open_descendants(s, &base, pid, cpus, e);
	if (ret == 0 && s->o.wakeups)
		sampler_open_wakeups(s, &base, cpus);
	free(cpus);
	famfilter_seal(&s->fam);
	s->ring_next = xcalloc((size_t)s->nrings, sizeof(*s->ring_next));
	if (s->o.offcpu) {
		s->rp.off_ids = s->off_ids;
		s->rp.noff_ids = s->noff;
	}
	return ret;
}

/*
 * The mappings pid has now, which the kernel reports no MMAP2 record for:
 * the executable ones read from /proc/PID/maps (a live thread's when the
 * main one has exited: util/procdir.h), handed to the mmap
 * callback before any sample is (the events are open already, so a
 * mapping made meanwhile is reported too, twice at most).
 */
static void report_maps(struct sampler *s, uint32_t pid)
{
	char path[96], *line = NULL;
	size_t cap = 0;
	FILE *fp;

	if (!s->cb.mmap)
		return;
	procdir_path(pid, "maps", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (getline(&line, &cap, fp) > 0) {
		unsigned long long lo, hi, off;
		char perms[8];
		int name = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi,
			   perms, &off, &name) < 4 || perms[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = '\0';
		s->cb.mmap(s->cb.arg, &(struct raw_mmap){
			.pid = pid, .tid = pid, .start = lo, .len = hi - lo,
			.pgoff = off,
			.path = name && line[name] ? line + name : "//anon",
			.time = monoclock_ns() });
	}
	free(line);
	fclose(fp);
}

/*
 * The CPU time the processes attached used since the attach (ns), each
 * one's /proc/PID/stat read again: its threads' and the children's it
 * waited for. A descendant gone was waited for by its parent, attached
 * too, whose children's time now holds all of it: of a sampled one the
 * time before the attach is taken off, of one passed over all of it. pid
 * itself, gone, keeps its last reading.
 */
static int64_t attached_cpu(struct sampler *s)
{
	int64_t sum = 0, c;

	for (size_t i = 0; i < s->nprocs; i++) {
		struct sampler_proc *p = &s->procs[i];

		if (!p->gone) {
			c = proc_cpu_ns(p->pid);
			if (c >= 0)
				p->cpu = c;
			else if (i > 0)
				p->gone = true;
		}
		if (p->cpu0 < 0)
			continue;
		if (!p->gone)
			sum += p->sampled ? p->cpu - p->cpu0 : 0;
		else
			sum -= p->sampled ? p->cpu0 : p->cpu;
	}
	return sum > 0 ? sum : 0;
}

/* Ring i's polled event hung up (its thread ended): the next of its
 * events polled instead, if any, so that its samples still wake the
 * reader (perf wakes every event writing into a ring). */
static void repoll(struct sampler *s, int i)
{
	while (s->ring_next[i] < s->nafds) {
		size_t k = s->ring_next[i]++;

		if (s->afd_ring[k] == i) {
			s->pfds[i].fd = s->afds[k];
			return;
		}
	}
}

/*
 * Hand out records until end_ns (0: none), a stop (*o.interrupt) or the
 * process's end; then the events are disabled and the rings drained once
 * more. No process is ever signalled.
 */
static int collect_attached(struct sampler *s, uint32_t pid, uint64_t end_ns,
			    struct error *e)
{
	uint64_t read_at = 0;
	int n, i, timeout;

	for (i = 0; i < s->nrings; i++)
		s->pfds[i] = (struct pollfd){ .fd = s->rings[i].fd,
					      .events = POLLIN };
	s->pfds[s->nrings] = (struct pollfd){ .fd = s->pidfd,
					      .events = POLLIN };
	for (;;) {
		uint64_t now = monoclock_ns();

		if (s->o.interrupt && *s->o.interrupt)
			break;
		if (end_ns && now >= end_ns)
			break;
		timeout = s->pidfd >= 0 ? POLL_MS_ATTACH : POLL_MS_NO_PIDFD;
		if (end_ns && (end_ns - now) / 1000000 + 1 < (uint64_t)timeout)
			timeout = (int)((end_ns - now) / 1000000 + 1);
		if ((n = sampler_pass(s, timeout, e)) < -1)
			return -1;
		for (i = 0; i < s->nrings; i++)
			if (s->pfds[i].fd < 0)
				repoll(s, i);
		/* every process's stat at most every pass's timeout: with
		 * opts.prompt a pass is a sample */
		now = monoclock_ns();
		if (now - read_at >= POLL_MS_ATTACH * 1000000ULL) {
			attached_cpu(s);
			read_at = now;
		}
		if (s->pidfd >= 0 ? n > 0 && s->pfds[s->nrings].revents
				  : proc_cpu_ns(pid) < 0) {
			s->stats->ended = true;
			break;
		}
	}
	for (i = 0; i < s->nrings; i++)
		if (s->rings[i].fd >= 0)
			ioctl(s->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (size_t k = 0; k < s->nafds; k++)
		ioctl(s->afds[k], PERF_EVENT_IOC_DISABLE, 0);
	merge_drain(s->rings, s->nrings, s->rec, records_dispatch, &s->rp);
	s->stats->cpu_ns = attached_cpu(s);
	s->stats->second_copies = s->fam.dropped;

	s->stats->interrupted = s->o.interrupt && *s->o.interrupt;
	return 0;
}

/* An event per thread and CPU: a PyTorch server's threads (one per core
 * and more) on a many-core machine pass the usual soft limit of 1024
 * descriptors. The soft limit raised to the hard one. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

enum sampler_result sampler_attach(const struct sampler_opts *o, uint32_t pid,
				   uint64_t duration_ns,
				   const struct sampler_callbacks *cb,
				   struct sampler_stats *stats,
				   struct error *e)
{
	struct sampler s;
	struct sampler_stats spare;
	uint64_t t_go;
	int ret;

	memset(&s, 0, sizeof(s));
	s.pidfd = -1;
	s.stats = stats ? stats : &spare;
	memset(s.stats, 0, sizeof(*s.stats));
	if (cb)
		s.cb = *cb;
	if (sampler_fill_opts(&s.o, o, e))
		return SAMPLER_FAILED;
	if (s.o.page_faults) {
		error_set(e, "page faults are not sampled in an attached "
			  "process");
		return SAMPLER_FAILED;
	}
	/* held before anything else: the process is the one we attach to
	 * (a pid reused after it is not) */
	s.pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (s.pidfd < 0 && errno == ESRCH) {
		error_set(e, "no process %u", pid);
		return SAMPLER_NOT_STARTED;
	}
	s.rec = xmalloc(RING_MAX_RECORD);
	s.rp.ips = xmalloc(RECORDS_MAX_IPS * sizeof(*s.rp.ips));
	s.rp.dwarf = s.o.dwarf;
	s.rp.chain_max = s.o.dwarf ? 0 : sampler_chain_limit();
	s.rp.identifier = true;	/* open_all asks for it */
	s.rp.fam = &s.fam;
	famfilter_init(&s.fam);
	s.rp.cb = s.cb;
	s.rp.stats = s.stats;
	s.rp.child = pid;
	raise_nofile();
	ret = open_all(&s, pid, e);
	if (ret < 0)
		goto out;
	t_go = monoclock_ns();
	s.stats->start_ns = t_go;
	for (size_t i = 0; i < s.nprocs; i++)
		if (s.procs[i].sampled)
			report_maps(&s, s.procs[i].pid);
	s.pfds = xcalloc((size_t)s.nrings + 1, sizeof(*s.pfds));
	{
		struct sched_param old_param;
		int old_policy;
		bool raised = s.o.prompt &&
			      sampler_raise_reader(&s, &old_policy, &old_param);

		ret = collect_attached(&s, pid, duration_ns ? t_go + duration_ns
							    : 0, e);
		if (raised)
			sampler_restore_reader(old_policy, &old_param);
	}
	if (ret < 0)
		goto out;
	s.stats->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (s.stats->ended && s.rp.exit_time > t_go)
		s.stats->duration_ns = (int64_t)(s.rp.exit_time - t_go);
	else
		s.stats->duration_ns = (int64_t)(monoclock_ns() - t_go);
out:
	for (size_t k = 0; k < s.nafds; k++)
		close(s.afds[k]);
	free(s.afds);
	free(s.afd_ring);
	free(s.ring_next);
	free(s.procs);
	famfilter_free(&s.fam);
	sampler_close_all(&s);
	return ret;
}
