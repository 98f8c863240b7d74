/*
 * The sampling collector: a child held before its exec (child.h), one
 * sampling event and one ring buffer per online CPU opened on it, then a
 * poll loop that hands every record to the callbacks until the child has
 * been reaped and the buffers are drained. The loop runs beside the
 * profiled program for its whole life, so it does no allocation and no
 * system call per record: everything it needs is allocated before the
 * exec, and a record reaches the callbacks in place in the ring (or in one
 * reused buffer when it wraps).
 *
 * Design notes (the sampler; 1-3, the perf ring buffer, are in ring.c, 4,
 * merging the rings by time, in merge.c; records.c parses the records):
 *
 * 5. Record times use CLOCK_MONOTONIC (use_clockid), so a duration taken
 *    from the records (the child's exec COMM to its EXIT) matches what the
 *    monotonic clock says around it.
 *
 * 6. An inherited event in a thread or child process writes into the ring
 *    of the event it was inherited from, so the per-CPU rings opened on the
 *    first child see the whole tree. A fork copies the parent's mappings
 *    without a record for them: only the FORK record says the new process
 *    has them (see sampler.h).
 *
 * 7. We stop when the child has been reaped, then drain once more: every
 *    record the child wrote (its samples, its EXIT) was in the ring before
 *    its parent could reap it. A perf fd reports POLLHUP once its event's
 *    task has exited and would then wake poll for ever, so such an fd
 *    leaves the poll set; its ring is still drained every pass.
 *
 * 8. The wake-ups (opts.wakeups, for the scheduling delay of `trace`)
 *    come from the sched:sched_wakeup tracepoint (not sched_wakeup_new:
 *    a new task's wait for its first CPU is runnable since its FORK,
 *    counted preempted by trace.c with or without the wake-ups).
 *    A tracepoint fires in the waker's context, so an event on the
 *    program's tasks would see only the wake-ups its own threads make,
 *    never those of a timer, of I/O completing or of another process:
 *    they are opened per CPU for the whole system (pid -1, which needs
 *    perf_event_paranoid 0 or less, or CAP_PERFMON) and write into the
 *    ring of their CPU; the wakee is the "pid" field of the raw record,
 *    at the offset its format file in tracefs gives, and the callback
 *    keeps the program's own. Not permitted, or no tracefs: the run goes
 *    on without, and stats say why (the report then says the scheduling
 *    delay is unknown, never 0).
 *
 * 9. With opts.prompt (Python frames read from the process after each
 *    sample), the reader wakes at every sample and runs at the lowest
 *    real-time priority (SCHED_FIFO, reset on fork) while the program
 *    runs: on a machine loaded past its cores a normal-priority reader
 *    waits for a CPU for milliseconds, and the sampled thread runs on
 *    meanwhile, so its frames are no longer the sample's. The kernel's
 *    real-time throttling (sched_rt_runtime_us) still leaves the other
 *    tasks 5% of each CPU whatever the reader does.
 */
#include "profile/sampler.h"
#include "profile/sampler_internal.h"

#include "profile/merge.h"
#include "profile/records.h"
#include "profile/ring.h"
#include "profile/tracepoint.h"

#include "measure/perf_event.h"
#include "util/child.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/monoclock.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* ---- options and system facts ---- */

/* The most entries the kernel stores in a callchain
 * (kernel.perf_event_max_stack), asked for as the events' own limit so
 * that a chain of that length is known to be cut (records.c); 0 where it
 * cannot be read: the kernel's limit, unknown. */
uint32_t sampler_chain_limit(void)
{
	char *data = NULL;
	size_t len;
	long v = 0;

	if (!file_read_all("/proc/sys/kernel/perf_event_max_stack", &data,
			   &len, NULL))
		v = strtol(data, NULL, 10);
	free(data);
	return v > 0 && v <= UINT16_MAX ? (uint32_t)v : 0;
}

int sampler_fill_opts(struct sampler_opts *o, const struct sampler_opts *in,
		     struct error *e)
{
	*o = *in;
	if (!o->event || !*o->event)
		o->event = DEFAULT_EVENT;
	if (o->freq == 0)
		o->freq = SAMPLER_DEFAULT_FREQ;
	if (o->stack_size == 0)
		o->stack_size = SAMPLER_DEFAULT_STACK;
	/* pages 0: sized by sampler_prepare (ring_pages) */
	if (o->freq < 0)
		return error_set(e, "sampling frequency must be positive");
	if (o->pages & (o->pages - 1) || o->pages > (1u << 20))
		return error_set(e, "ring buffer pages must be a power of 2 "
				 "(at most 1048576), not %zu", o->pages);
	o->stack_size = (o->stack_size + 7) & ~7u;
	if (o->stack_size > SAMPLER_MAX_STACK)
		return error_set(e, "stack copy must be at most %d bytes, not "
				 "%u", SAMPLER_MAX_STACK, o->stack_size);
	return 0;
}

/*
 * The online CPUs, from /sys/devices/system/cpu/online ("0-3,5"); falls
 * back to 0..nproc-1. Returns a malloc'd array and its length in *n.
 */
static int *sampler_online_cpus(int *n)
{
	FILE *fp = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096];
	int *cpus = NULL;
	size_t cap = 0, len = 0;
	char *p;

	if (fp && fgets(buf, sizeof(buf), fp)) {
		for (p = buf; *p && *p != '\n'; ) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p || a < 0)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			for (; a <= b && b < 65536; a++) {
				cpus = xgrow(cpus, &cap, len + 1,
					     sizeof(*cpus));
				cpus[len++] = (int)a;
			}
			p = *end == ',' ? end + 1 : end;
		}
	}
	if (fp)
		fclose(fp);
	if (len == 0) {
		long nproc = sysconf(_SC_NPROCESSORS_ONLN);

		len = nproc > 0 ? (size_t)nproc : 1;
		cpus = xrealloc(cpus, len * sizeof(*cpus));
		for (size_t i = 0; i < len; i++)
			cpus[i] = (int)i;
	}
	*n = (int)len;
	return cpus;
}

/* ---- opening the events ---- */

static void sampler_make_attr(const struct sampler *s,
			      struct perf_event_attr *a)
{
	size_t data = s->o.pages * (size_t)sysconf(_SC_PAGESIZE);

	perf_event_attr_sampling(a, s->o.freq);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_PERIOD;
	if (s->o.dwarf) {
		a->sample_type |= PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = SAMPLER_REGS;
		a->sample_stack_user = s->o.stack_size;
	} else {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)s->rp.chain_max;
	}
	a->exclude_callchain_kernel = 1;
	/* PERF_RECORD_SWITCH of the traced tasks (a task's own switches:
	 * allowed at perf_event_paranoid 2) */
	a->context_switch = s->o.switches || s->o.offcpu;
	/* the page-fault events write into the same rings: every record
	 * says which event it comes from */
	if (s->o.page_faults || s->o.offcpu || s->o.wakeups)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	/* wake the reader at a quarter full: three quarters of headroom */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data / 4);
	if (s->o.prompt) {
		a->watermark = 0;
		a->wakeup_events = 1;
	}
}

/*
 * Turn a failed perf_event_open into a message and a return code:
 * SAMPLER_REFUSED for what the environment refuses (not permitted, no perf
 * support, an event this machine does not have), else SAMPLER_FAILED.
 */
enum sampler_result sampler_open_error(const struct sampler *s,
		      const struct perf_event_attr *attr, int err, int cpu,
		      struct error *e)
{
	const struct pe_context ctx = { .event = s->o.event, .cpu = cpu,
					.sampling = true,
					.freq = s->o.freq };

	switch (perf_event_open_strerror(err, attr, &ctx, e)) {
	case PE_DENIED:
	case PE_NO_PERF:
	case PE_UNSUPPORTED:
		error_mark(e, ERROR_ENV);
		return SAMPLER_REFUSED;
	default:
		return SAMPLER_FAILED;
	}
}

int sampler_map_ring(struct sampler *s, struct ring *r, struct error *e)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	char limit[32];
	void *p;

	r->map_len = (1 + s->o.pages) * psz;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 0);
	if (p == MAP_FAILED) {
		int err = errno;

		r->map_len = 0;
		if (err != EPERM)
			return error_errno(e, err, "cannot map a perf ring "
					   "buffer of %zu KiB",
					   s->o.pages * psz / 1024);
		perf_event_sysctl("perf_event_mlock_kb", limit,
				  sizeof(limit));
		error_set(e, "cannot map a perf ring buffer of %zu KiB per "
			  "CPU: above the sysctl kernel.perf_event_mlock_kb "
			  "(%s) and the memlock limit; ask for fewer pages or "
			  "grant CAP_IPC_LOCK", s->o.pages * psz / 1024, limit);
		error_mark(e, ERROR_ENV);
		return SAMPLER_REFUSED;
	}
	r->meta = p;
	r->identifier = s->rp.identifier;
	r->data = (const uint8_t *)p + psz;
	r->mask = s->o.pages * psz - 1;
	return 0;
}

/*
 * A side event on CPU cpu writing into ring i (PERF_EVENT_IOC_SET_OUTPUT),
 * told apart by its id: a sample of every page fault of the program (user
 * level), or of every time one of its threads leaves a CPU (the context
 * switch software event, sampled in the thread going off: its user
 * registers and stack are where it stopped). The ring's event's
 * attributes (the same sample layout), no side records of its own.
 */
/* The attributes of a side event of config from its ring's event's. */
void sampler_side_attr(const struct perf_event_attr *ring_attr,
		      uint64_t config, struct perf_event_attr *out)
{
	struct perf_event_attr a = *ring_attr;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.freq = 0;
	a.sample_period = 1;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 0;
	a.context_switch = 0;
	/* a switch's stack is read at once, as the ring's samples are */
	a.watermark = config == PERF_COUNT_SW_PAGE_FAULTS ? 0
							  : ring_attr->watermark;
	a.wakeup_events = config == PERF_COUNT_SW_PAGE_FAULTS ? 0
				: ring_attr->wakeup_events;
	/* a switch happens in the kernel: a user-level-only event never
	 * sees one */
	a.exclude_kernel = config == PERF_COUNT_SW_PAGE_FAULTS;
	a.exclude_hv = 1;
	*out = a;
}

/* Context switches opened at user level only (perf_event_open_attr's
 * retry): they never fire. */
int sampler_offcpu_refused(struct error *e)
{
	char level[32];

	perf_event_sysctl("perf_event_paranoid", level, sizeof(level));
	error_set(e, "the time off the CPU needs kernel-level context "
		  "switch events, not permitted at "
		  "kernel.perf_event_paranoid %s (needs 1 or less, or "
		  "CAP_PERFMON)", level);
	error_mark(e, ERROR_ENV);
	return SAMPLER_REFUSED;
}

static int open_side_event(struct sampler *s,
			   const struct perf_event_attr *ring_attr, int i,
			   pid_t pid, int cpu, uint64_t config, int **fds,
			   uint64_t **ids, struct error *e)
{
	struct perf_event_attr a;
	int fd;

	if (!*fds) {
		*fds = xmalloc((size_t)s->nrings * sizeof(int));
		*ids = xcalloc((size_t)s->nrings, sizeof(uint64_t));
		for (int k = 0; k < s->nrings; k++)
			(*fds)[k] = -1;
	}
	sampler_side_attr(ring_attr, config, &a);
	fd = perf_event_open_attr(NULL, NULL, &a, pid, cpu, -1);
	if (fd < 0)
		return sampler_open_error(s, &a, -fd, cpu, e);
	(*fds)[i] = fd;
	if (config == PERF_COUNT_SW_CONTEXT_SWITCHES && a.exclude_kernel)
		return sampler_offcpu_refused(e);
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &(*ids)[i]))
		return error_errno(e, errno, "cannot send %s to the ring "
				   "buffer of CPU %d",
				   config == PERF_COUNT_SW_PAGE_FAULTS
				   ? "page faults" : "context switches", cpu);
	return 0;
}

/* The wake-ups given up: why, and their events closed. */
static void wakeups_off(struct sampler *s, const char *why)
{
	snprintf(s->stats->wakeups_why, sizeof(s->stats->wakeups_why), "%s",
		 why);
	s->wake_off = true;
	for (int k = 0; s->wake_fds && k < s->nrings; k++) {
		if (s->wake_fds[k] >= 0)
			close(s->wake_fds[k]);
		s->wake_fds[k] = -1;
	}
}

/* The format of sched_wakeup: its id in *id, the wakee's pid offset for
 * records.c; the fds and ids, one per ring. */
static void wakeup_format(struct sampler *s, uint64_t *id)
{
	struct tp_format f;
	struct error e;

	if (tp_format_read("sched/sched_wakeup", "pid", &f, &e)) {
		wakeups_off(s, e.msg);
		return;
	}
	if (f.size != 4) {
		wakeups_off(s, "the 'pid' field of sched_wakeup is not 4 bytes");
		return;
	}
	s->wake_pid_offset = f.offset;
	*id = f.id;
	s->wake_fds = xmalloc((size_t)s->nrings * sizeof(int));
	s->wake_ids = xcalloc((size_t)s->nrings, sizeof(uint64_t));
	for (int k = 0; k < s->nrings; k++)
		s->wake_fds[k] = -1;
}

/*
 * The wake-up tracepoint on CPU cpu, system-wide, writing into ring i
 * (design note 8): its own sample layout (records.c's on_wakeup), the
 * ring's clock, always enabled (enable_on_exec is for a task's events).
 * A refusal turns the wake-ups off, never the run.
 */
static void open_wakeups(struct sampler *s,
			 const struct perf_event_attr *ring_attr, int i,
			 int cpu, uint64_t id)
{
	char why[sizeof(s->stats->wakeups_why)], level[32];
	struct perf_event_attr a;
	struct error e;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;	/* the ring's trailer: tid, time, id */
	a.use_clockid = ring_attr->use_clockid;
	a.clockid = ring_attr->clockid;
	a.watermark = ring_attr->watermark;
	a.wakeup_events = ring_attr->wakeup_events;
	a.wakeup_watermark = ring_attr->wakeup_watermark;
	/* not perf_event_open_attr: its retry at user level only would
	 * open a tracepoint that never fires */
	fd = perf_event_sys_open(&a, -1, cpu, -1, NULL);
	if (fd < 0) {
		int err = errno;

		perf_event_sysctl("perf_event_paranoid", level, sizeof(level));
		snprintf(why, sizeof(why), "the sched_wakeup tracepoint on CPU "
			 "%d: %s (system-wide events need "
			 "kernel.perf_event_paranoid 0 or less, now %s, or "
			 "CAP_PERFMON)", cpu, strerror(err), level);
		wakeups_off(s, why);
		return;
	}
	s->wake_fds[i] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &s->wake_ids[i])) {
		error_errno(&e, errno, "cannot send the wake-ups to the ring "
			    "buffer of CPU %d", cpu);
		wakeups_off(s, e.msg);
	}
}

void sampler_open_wakeups(struct sampler *s,
			  const struct perf_event_attr *ring_attr,
			  const int *cpus)
{
	uint64_t wake_tp = 0;

	wakeup_format(s, &wake_tp);
	for (int i = 0; i < s->nrings && !s->wake_off; i++)
		open_wakeups(s, ring_attr, i, cpus[i], wake_tp);
	if (s->wake_off)
		return;
	s->rp.wake_ids = s->wake_ids;
	s->rp.nwake_ids = (size_t)s->nrings;
	s->rp.wake_pid_offset = s->wake_pid_offset;
	s->stats->wakeups = true;
}

static size_t pow2_ceil(size_t v)
{
	size_t p = 1;

	while (p < v)
		p *= 2;
	return p;
}

/* the kernel's limit of a user's perf rings, its pages: -1 none */
static long long ring_budget(int ncpus)
{
	char v[32];
	struct rlimit rl;
	long long mlock_kb, psz_kb = sysconf(_SC_PAGESIZE) / 1024;

	/* root (CAP_IPC_LOCK), or perf_event_paranoid -1: no limit */
	perf_event_sysctl("perf_event_paranoid", v, sizeof(v));
	if (geteuid() == 0 || strtol(v, NULL, 10) < 0)
		return -1;
	perf_event_sysctl("perf_event_mlock_kb", v, sizeof(v));
	mlock_kb = strtoll(v, NULL, 10);
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return -1;
	return (mlock_kb > 0 ? mlock_kb / psz_kb * ncpus : 0) +
	       (long long)(rl.rlim_cur / 1024 / (rlim_t)psz_kb);
}

/*
 * The rings' data pages (unless the caller set them): DEFAULT_PAGES;
 * with dwarf, RING_DWARF_SAMPLES stack copies' worth, at least
 * DEFAULT_PAGES_DWARF (a CPython's 64 KiB copies: 4 MiB, where 1 MiB
 * held 15 and a reader held up on a loaded machine lost 16% of a run's
 * samples); the rings together at most RING_TOTAL_MAX. A user without
 * CAP_IPC_LOCK may lock kernel.perf_event_mlock_kb per CPU and then
 * RLIMIT_MEMLOCK (the kernel's perf_mmap): the rings are made smaller to
 * fit it, so that a machine of many CPUs still records (1 MiB per CPU
 * took a 17th CPU past Debian's 8 MiB), and stats->ring_why says so.
 * Never below 4 stack copies' worth (then the mapping says what to do).
 */
#define RING_DWARF_SAMPLES 60
#define RING_TOTAL_MAX ((size_t)64 << 20)
static void ring_pages(struct sampler *s, int ncpus)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	size_t copy = s->o.stack_size + 1024;	/* registers, header */
	size_t want = DEFAULT_PAGES, least = 8, pages;
	long long budget;

	if (s->o.pages)
		return;
	if (s->o.dwarf) {
		want = pow2_ceil((RING_DWARF_SAMPLES * copy + psz - 1) / psz);
		if (want < DEFAULT_PAGES_DWARF)
			want = DEFAULT_PAGES_DWARF;
		least = pow2_ceil((4 * copy + psz - 1) / psz);
	}
	while (want > least && want * psz * (size_t)ncpus > RING_TOTAL_MAX)
		want /= 2;
	pages = want;
	budget = ring_budget(ncpus);
	while (budget >= 0 && pages > least &&
	       (long long)(pages + 1) * ncpus > budget)
		pages /= 2;
	s->o.pages = pages;
	if (!s->stats)
		return;
	s->stats->ring_kib = (uint32_t)(pages * psz / 1024);
	if (pages < want)
		snprintf(s->stats->ring_why, sizeof(s->stats->ring_why),
			 "%zu KiB per CPU, not %zu: what a user may lock "
			 "(kernel.perf_event_mlock_kb per CPU, then ulimit -l)",
			 pages * psz / 1024, want * psz / 1024);
}

int sampler_prepare(struct sampler *s, struct perf_event_attr *base,
		    int **cpus, int *ncpus, struct error *e)
{
	memset(base, 0, sizeof(*base));
	switch (perf_event_resolve(s->o.event, base, e)) {
	case PE_OK:
		break;
	case PE_UNSUPPORTED:
		perf_event_other_cpu_error(s->o.event, e);
		error_mark(e, ERROR_ENV);
		return SAMPLER_REFUSED;
	default:
		return SAMPLER_FAILED;
	}
	*cpus = sampler_online_cpus(ncpus);
	ring_pages(s, *ncpus);
	sampler_make_attr(s, base);
	s->rings = xcalloc((size_t)*ncpus, sizeof(*s->rings));
	for (int i = 0; i < *ncpus; i++)
		s->rings[i].fd = -1;
	s->nrings = *ncpus;
	return 0;
}

/* One wait of the reader: poll the rings and the pidfd up to timeout
 * ms, hand out what the rings hold, and drop a ring that hung up. The
 * poll's count (-1: interrupted), or -2 with a message. */
int sampler_pass(struct sampler *s, int timeout, struct error *e)
{
	int n = poll(s->pfds, (nfds_t)s->nrings + 1, timeout);

	if (n < 0 && errno != EINTR) {
		error_errno(e, errno, "cannot poll the perf ring buffers");
		return -2;
	}
	merge_drain(s->rings, s->nrings, s->rec, records_dispatch, &s->rp);
	for (int i = 0; n > 0 && i < s->nrings; i++)
		if (s->pfds[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			s->pfds[i].fd = -1;
	return n;
}

static int open_rings(struct sampler *s, struct error *e)
{
	struct perf_event_attr base, attr;
	int *cpus, ncpus, i, ret;

	if ((ret = sampler_prepare(s, &base, &cpus, &ncpus, e)))
		return ret;
	for (i = 0; i < ncpus && ret == 0; i++) {
		attr = base;
		/* kernel level first (a sample in a system call then says
		 * so), else user level only: we only need user stacks */
		s->rings[i].fd = perf_event_open_attr(NULL, NULL, &attr,
						      s->child.pid, cpus[i], -1);
		if (s->rings[i].fd < 0) {
			ret = sampler_open_error(s, &attr, -s->rings[i].fd,
						 cpus[i], e);
			s->rings[i].fd = -1;
		} else {
			/* one refusal of kernel level is enough */
			base.exclude_kernel = attr.exclude_kernel;
			base.exclude_hv = attr.exclude_hv;
			ret = sampler_map_ring(s, &s->rings[i], e);
		}
		if (ret == 0 && s->o.page_faults)
			ret = open_side_event(s, &attr, i, s->child.pid,
					      cpus[i],
					      PERF_COUNT_SW_PAGE_FAULTS,
					      &s->fault_fds, &s->fault_ids, e);
		if (ret == 0 && s->o.offcpu)
			ret = open_side_event(s, &attr, i, s->child.pid,
					      cpus[i],
					      PERF_COUNT_SW_CONTEXT_SWITCHES,
					      &s->off_fds, &s->off_ids, e);
	}
	if (ret == 0 && s->o.wakeups)
		sampler_open_wakeups(s, &base, cpus);
	free(cpus);
	if (s->o.page_faults) {
		s->rp.fault_ids = s->fault_ids;
		s->rp.nfault_ids = (size_t)ncpus;
	}
	if (s->o.offcpu) {
		s->rp.off_ids = s->off_ids;
		s->rp.noff_ids = (size_t)ncpus;
	}
	return ret;
}

/* ---- reading the rings ---- */

/*
 * Hand out records until the child has been reaped (its wait status in
 * stats->status), then drain once more (design note 7).
 */
static int collect(struct sampler *s, struct error *e)
{
	int timeout = s->pidfd >= 0 ? POLL_MS : POLL_MS_NO_PIDFD;
	int n, i, w;

	for (i = 0; i < s->nrings; i++)
		s->pfds[i] = (struct pollfd){ .fd = s->rings[i].fd,
					      .events = POLLIN };
	s->pfds[s->nrings] = (struct pollfd){ .fd = s->pidfd,
					      .events = POLLIN };
	for (;;) {
		/* again and again: SIGINT first, SIGKILL after a grace */
		if (s->o.interrupt && *s->o.interrupt)
			child_interrupt(&s->child);
		if ((n = sampler_pass(s, timeout, e)) < -1)
			return -1;
		if (s->pidfd >= 0 && !(n > 0 && s->pfds[s->nrings].revents))
			continue;
		w = child_try_wait(&s->child, e);
		if (w < 0)
			return -1;
		if (w == 1) {
			const struct rusage *ru = &s->child.ru;

			s->stats->status = s->child.status;
			s->stats->interrupted = s->child.interrupted;
			s->stats->strays = s->child.strays;
			memcpy(s->stats->stray_names, s->child.stray_names,
			       sizeof(s->stats->stray_names));
			s->stats->cpu_ns = (ru->ru_utime.tv_sec +
					    ru->ru_stime.tv_sec) * 1000000000LL +
					   (ru->ru_utime.tv_usec +
					    ru->ru_stime.tv_usec) * 1000LL +
					   s->child.stray_cpu_ns;
			break;
		}
	}
	s->rp.child = 0;
	merge_drain(s->rings, s->nrings, s->rec, records_dispatch, &s->rp);
	return 0;
}

/* ---- the reader's priority ---- */

/*
 * With opts.prompt (design note 9) the reader runs at real-time priority
 * while the program runs: the lowest SCHED_FIFO level, reset on fork so
 * nothing it starts inherits it. Returns whether it was raised; *old
 * holds what to restore. Refused (no CAP_SYS_NICE, RLIMIT_RTPRIO 0), the
 * reason goes to stats and the run goes on at normal priority.
 */
bool sampler_raise_reader(struct sampler *s, int *old_policy,
			 struct sched_param *old)
{
	struct sched_param sp = {
		.sched_priority = sched_get_priority_min(SCHED_FIFO) };

	*old_policy = sched_getscheduler(0);
	if (*old_policy < 0 || sched_getparam(0, old))
		return false;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)) {
		snprintf(s->stats->rt_why, sizeof(s->stats->rt_why),
			 "cannot run the reader at real-time priority: %s",
			 strerror(errno));
		return false;
	}
	s->stats->rt = true;
	return true;
}

void sampler_restore_reader(int old_policy, const struct sched_param *old)
{
	/* back to where it was: the reports and outputs that follow are
	 * no business of a real-time thread */
	sched_setscheduler(0, old_policy, old);
}

/* ---- the run ---- */

void sampler_close_all(struct sampler *s)
{
	for (int i = 0; s->rings && i < s->nrings; i++) {
		if (s->rings[i].map_len)
			munmap(s->rings[i].meta, s->rings[i].map_len);
		if (s->rings[i].fd >= 0)
			close(s->rings[i].fd);
	}
	for (int i = 0; s->fault_fds && i < s->nrings; i++)
		if (s->fault_fds[i] >= 0)
			close(s->fault_fds[i]);
	for (int i = 0; s->off_fds && i < s->nrings; i++)
		if (s->off_fds[i] >= 0)
			close(s->off_fds[i]);
	for (int i = 0; s->wake_fds && i < s->nrings; i++)
		if (s->wake_fds[i] >= 0)
			close(s->wake_fds[i]);
	if (s->pidfd >= 0)
		close(s->pidfd);
	free(s->wake_fds);
	free(s->wake_ids);
	free(s->fault_fds);
	free(s->fault_ids);
	free(s->off_fds);
	free(s->off_ids);
	free(s->rings);
	free(s->pfds);
	free(s->rec);
	free(s->rp.ips);
}

enum sampler_result sampler_run(const struct sampler_opts *o,
				char *const *argv,
				const struct sampler_callbacks *cb,
				struct sampler_stats *stats, struct error *e)
{
	struct sampler s;
	struct sampler_stats spare;
	char *path = NULL;
	uint64_t t_go;
	int ret;

	static const struct sampler_opts defaults;

	memset(&s, 0, sizeof(s));
	s.pidfd = -1;
	if (!o)
		o = &defaults;
	s.stats = stats ? stats : &spare;
	memset(s.stats, 0, sizeof(*s.stats));
	if (cb)
		s.cb = *cb;
	if (sampler_fill_opts(&s.o, o, e))
		return SAMPLER_FAILED;
	if (!argv || !argv[0]) {
		error_set(e, "no program to run");
		return SAMPLER_FAILED;
	}
	if (spawn_resolve_program(argv[0], &path, e))
		return SAMPLER_NOT_STARTED;
	s.path = path;
	/* all the collector's memory, before the program starts */
	s.rec = xmalloc(RING_MAX_RECORD);
	s.rp.ips = xmalloc(RECORDS_MAX_IPS * sizeof(*s.rp.ips));
	s.rp.dwarf = s.o.dwarf;
	s.rp.chain_max = s.o.dwarf ? 0 : sampler_chain_limit();
	s.rp.identifier = s.o.page_faults || s.o.offcpu || s.o.wakeups;
	s.rp.cb = s.cb;
	s.rp.stats = s.stats;
	/* held before its exec while the events are opened on it; in our
	 * process group (sampler.h) */
	s.child = (struct child){ .path = path, .argv = argv, .hold = true,
				  .env_add = s.o.env_add };
	if (s.o.stdout_to_stderr) {
		/* an output of ours is stdout (outputs.h) */
		s.child.io[1] = CHILD_IO_FD;
		s.child.fd[1] = STDERR_FILENO;
	}
	ret = child_start(&s.child, e);
	s.rp.child = (uint32_t)s.child.pid;
	if (ret == 0)
		ret = open_rings(&s, e);
	if (ret < 0)
		goto out_kill;
	s.pfds = xcalloc((size_t)s.nrings + 1, sizeof(*s.pfds));
	s.pidfd = (int)syscall(SYS_pidfd_open, s.child.pid, 0);
	t_go = monoclock_ns();
	if (child_release(&s.child, e))
		ret = SAMPLER_NOT_STARTED;
	if (ret == 0) {
		struct sched_param old_param;
		int old_policy;
		bool raised = s.o.prompt &&
			      sampler_raise_reader(&s, &old_policy, &old_param);

		ret = collect(&s, e);
		if (raised)
			sampler_restore_reader(old_policy, &old_param);
	}
	if (ret < 0)
		goto out_kill;
	s.stats->ncpus = s.nrings;
	if (s.rp.exec_time && s.rp.exit_time > s.rp.exec_time)
		s.stats->duration_ns = (int64_t)(s.rp.exit_time -
						 s.rp.exec_time);
	else
		s.stats->duration_ns = (int64_t)(monoclock_ns() - t_go);
out_kill:
	child_kill(&s.child);
	sampler_close_all(&s);
	free(path);
	return ret;
}
