/*
 * sampler_attach (sampler.h): the sampler on a process running already
 * (`record --pid`), with sampler.c's rings, parser and reader.
 */
#include "profile/sampler.h"
#include "profile/sampler_internal.h"

#include "profile/merge.h"

#include "measure/perf_event.h"
#include "util/monoclock.h"
#include "util/strutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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
 * be read (the process is gone). No allocation: it is read at every
 * pass. */
static int64_t proc_cpu_ns(uint32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st, cut, cst;
	long tck = sysconf(_SC_CLK_TCK);
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	/* the name, in parentheses, may hold anything: after its last ')'
	 * come state (field 3) ... utime (14), stime (15), cutime (16),
	 * cstime (17) */
	p = strrchr(buf, ')');
	if (!p || tck <= 0 ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu "
		   "%llu %llu %llu", &ut, &st, &cut, &cst) != 4)
		return -1;
	return (int64_t)((ut + st + cut + cst) *
			 (1000000000ULL / (unsigned long)tck));
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

/* An event of the attached process's besides the rings' own: kept to
 * be disabled and closed. */
static void keep_fd(struct sampler *s, int fd)
{
	s->afds = xgrow(s->afds, &s->capafds, s->nafds + 1, sizeof(*s->afds));
	s->afds[s->nafds++] = fd;
}

/*
 * Thread tid's events, one per CPU, each writing into that CPU's ring
 * (the first thread's event on it owns the ring: the kernel maps no
 * inherited event opened on cpu -1), with --idle its context switches
 * too. Returns 0, 1 when the thread ended meanwhile (passed over), or a
 * sampler_result.
 */
static int open_thread(struct sampler *s, struct perf_event_attr *base,
		       uint32_t pid, uint32_t tid, const int *cpus,
		       struct error *e)
{
	struct perf_event_attr attr;
	int ret;

	for (int i = 0; i < s->nrings; i++) {
		struct ring *r = &s->rings[i];
		int fd;

		attr = *base;
		fd = perf_event_open_attr(NULL, NULL, &attr, (pid_t)tid,
					  cpus[i], -1);
		if (fd == -ESRCH)
			return 1;	/* it ended meanwhile */
		if (fd < 0)
			return attach_refused(s, pid, -fd, &attr, e);
		base->exclude_kernel = attr.exclude_kernel;
		base->exclude_hv = attr.exclude_hv;
		if (r->fd < 0) {
			r->fd = fd;
			ret = sampler_map_ring(s, r, e);
			if (ret)
				return ret;
		} else {
			keep_fd(s, fd);
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd))
				return error_errno(e, errno, "cannot send "
						   "thread %u's samples to the "
						   "ring buffer of CPU %d",
						   tid, cpus[i]);
		}
		if (!s->o.offcpu)
			continue;
		sampler_side_attr(&attr, PERF_COUNT_SW_CONTEXT_SWITCHES, &attr);
		fd = perf_event_open_attr(NULL, NULL, &attr, (pid_t)tid,
					  cpus[i], -1);
		if (fd == -ESRCH)
			return 1;
		if (fd < 0)
			return attach_refused(s, pid, -fd, &attr, e);
		keep_fd(s, fd);
		if (attr.exclude_kernel)
			return sampler_offcpu_refused(e);
		s->off_ids = xgrow(s->off_ids, &s->capoff, s->noff + 1,
				   sizeof(*s->off_ids));
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) ||
		    ioctl(fd, PERF_EVENT_IOC_ID, &s->off_ids[s->noff]))
			return error_errno(e, errno, "cannot send context "
					   "switches to the ring buffer of "
					   "CPU %d", cpus[i]);
		s->noff++;
	}
	return 0;
}

/*
 * The events of every thread of pid (inherit: what a thread starts later
 * is followed), one per CPU each, into one ring per CPU, enabled at
 * their open; the threads listed again until none is new, so that one
 * started meanwhile by a thread not yet followed is. A thread that ended
 * meanwhile is passed over.
 */
static int open_threads(struct sampler *s, uint32_t pid, struct error *e)
{
	struct perf_event_attr base;
	uint32_t *now = NULL, *done = NULL;
	size_t capnow = 0, capdone = 0;
	int n, i, ret = 0, ndone = 0, nopen = 0, ncpus, *cpus;
	bool grew = true;

	if ((ret = sampler_prepare(s, &base, &cpus, &ncpus, e)))
		return ret;
	/* running already: sampled from the open on */
	base.disabled = 0;
	base.enable_on_exec = 0;
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
			ret = open_thread(s, &base, pid, now[i], cpus, e);
			if (ret == 1)
				ret = 0;
			else if (ret == 0)
				nopen++;
		}
		if (ret == 0 && grew)
			n = list_threads(pid, &now, &capnow);
	}
	free(now);
	free(done);
	free(cpus);
	if (ret == 0 && nopen == 0) {
		error_set(e, "process %u exited as yardstick attached", pid);
		return SAMPLER_NOT_STARTED;
	}
	if (s->o.offcpu) {
		s->rp.off_ids = s->off_ids;
		s->rp.noff_ids = s->noff;
	}
	return ret;
}

/*
 * The mappings pid has now, which the kernel reports no MMAP2 record for:
 * the executable ones read from /proc/PID/maps, handed to the mmap
 * callback before any sample is (the events are open already, so a
 * mapping made meanwhile is reported too, twice at most).
 */
static void report_maps(struct sampler *s, uint32_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *fp;

	if (!s->cb.mmap)
		return;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
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
 * Hand out records until end_ns (0: none), a stop (*o.interrupt) or the
 * process's end; then the events are disabled and the rings drained once
 * more. The process is never signalled.
 */
static int collect_attached(struct sampler *s, uint32_t pid, uint64_t end_ns,
			    int64_t cpu0, struct error *e)
{
	int64_t cpu = cpu0, c;
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
		c = proc_cpu_ns(pid);
		if (c >= 0)
			cpu = c;
		if (s->pidfd >= 0 ? n > 0 && s->pfds[s->nrings].revents
				  : c < 0) {
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
	s->stats->cpu_ns = cpu > cpu0 ? cpu - cpu0 : 0;
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
	int64_t cpu0;
	int ret;

	memset(&s, 0, sizeof(s));
	s.pidfd = -1;
	s.stats = stats ? stats : &spare;
	memset(s.stats, 0, sizeof(*s.stats));
	if (cb)
		s.cb = *cb;
	if (sampler_fill_opts(&s.o, o, e))
		return SAMPLER_FAILED;
	if (s.o.page_faults || s.o.wakeups) {
		error_set(e, "page faults and wake-ups are not sampled in an "
			  "attached process");
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
	s.rp.identifier = s.o.offcpu;
	s.rp.cb = s.cb;
	s.rp.stats = s.stats;
	s.rp.child = pid;
	raise_nofile();
	cpu0 = proc_cpu_ns(pid);
	ret = open_threads(&s, pid, e);
	if (ret < 0)
		goto out;
	t_go = monoclock_ns();
	report_maps(&s, pid);
	s.pfds = xcalloc((size_t)s.nrings + 1, sizeof(*s.pfds));
	{
		struct sched_param old_param;
		int old_policy;
		bool raised = s.o.prompt &&
			      sampler_raise_reader(&s, &old_policy, &old_param);

		ret = collect_attached(&s, pid, duration_ns ? t_go + duration_ns
							    : 0,
				       cpu0 < 0 ? 0 : cpu0, e);
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
	sampler_close_all(&s);
	return ret;
}
