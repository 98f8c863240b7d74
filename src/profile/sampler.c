/*
 * The sampling collector: a forked child held before its exec, one
 * sampling event and one ring buffer per online CPU opened on it, then a
 * poll loop that hands every record to the callbacks until the child has
 * been reaped and the buffers are drained. The loop runs beside the
 * profiled program for its whole life, so it does no allocation and no
 * system call per record: everything it needs is allocated before the
 * exec, and a record reaches the callbacks in place in the ring (or in one
 * reused buffer when it wraps).
 *
 * Design notes (the perf ring buffer):
 *
 * 1. A ring is 1 + 2^n pages: a header page (struct perf_event_mmap_page)
 *    and the data. The kernel writes records at data_head and never past
 *    data_tail (we map it writable, which asks for that): when the data
 *    would overrun the tail it drops records and later writes one
 *    PERF_RECORD_LOST with their count. So nothing is ever overwritten
 *    under the reader, and a slow reader costs samples, never garbage.
 *
 * 2. data_head is read with an acquire load: the records below it are
 *    complete only once we see the head. data_tail is written with a
 *    release store after a record has been handed out and the callback
 *    has returned, because from then on the kernel may write over it.
 *    The head and tail are free-running 64-bit byte counts; a position in
 *    the data is count & (size - 1).
 *
 * 3. Every record is a multiple of 8 bytes and starts 8-aligned, so its
 *    8-byte header, and every u64 field, never straddles the end of the
 *    data. A whole record may: such a record is copied, in its two parts,
 *    into s->rec (64 KiB: header.size is a u16) and handed out from there.
 *    Any other record is handed out where it lies in the ring.
 *
 * 4. The kernel writes a side-band record (MMAP2, COMM, FORK, EXIT) into
 *    the ring of the CPU the task was running on, like a sample. A process
 *    that migrates therefore leaves its mapping in one ring and its
 *    samples in another, and a reader that empties one ring after the
 *    other would hand out samples before the mappings that explain them.
 *    So each pass takes every ring's head first and then merges the rings
 *    by record time (sample_id_all puts a time in every record), as perf
 *    does. Records are written at the time they carry, so what the next
 *    pass finds is later than what this one handed out, up to the few
 *    microseconds in which a record can be written but not yet published.
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
 */
#include "profile/sampler.h"

#include "measure/perf_event.h"
#include "measure/spawn.h"
#include "util/strutil.h"
#include "util/monoclock.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_EVENT "cpu-clock"
#define DEFAULT_FREQ 999
#define DEFAULT_STACK 16384
#define DEFAULT_PAGES 128
#define DEFAULT_PAGES_DWARF 256
#define MAX_STACK 65528		/* the largest 8-aligned u16 */
#define MAX_RECORD 65536	/* header.size is a u16 */
#define MAX_IPS (MAX_RECORD / 8)
#define POLL_MS 250		/* with a pidfd: only a safety net */
#define POLL_MS_NO_PIDFD 20	/* without: how soon we notice the exit */
/* a callchain entry at or above this is a context marker */
#define CONTEXT_MARKER ((uint64_t)PERF_CONTEXT_MAX)

struct ring {
	struct perf_event_mmap_page *meta;
	const uint8_t *data;
	size_t map_len;
	uint64_t mask;		/* data size - 1 */
	uint64_t head;		/* taken at the start of a pass */
	uint64_t tail;		/* ours; published to meta->data_tail */
	uint64_t next_time;	/* time of the record at tail, if any */
	int fd;
};

struct sampler {
	struct sampler_opts o;	/* defaults filled in */
	struct sampler_callbacks cb;
	struct sampler_stats *stats;
	struct ring *rings;
	struct pollfd *pfds;	/* nrings perf fds, then the pidfd */
	int nrings;
	uint8_t *rec;		/* a record that wraps (design note 3) */
	uint64_t *ips;		/* a callchain, markers removed */
	const char *path;	/* the program, resolved */
	pid_t child;
	int pidfd;		/* -1: poll with a short timeout instead */
	uint64_t exec_time, exit_time;	/* the child's, 0 until seen */
};

/* ---- options and system facts ---- */

static int fill_opts(struct sampler_opts *o, const struct sampler_opts *in,
		     struct error *e)
{
	*o = *in;
	if (!o->event || !*o->event)
		o->event = DEFAULT_EVENT;
	if (o->freq == 0)
		o->freq = DEFAULT_FREQ;
	if (o->stack_size == 0)
		o->stack_size = DEFAULT_STACK;
	if (o->pages == 0)
		o->pages = o->dwarf ? DEFAULT_PAGES_DWARF : DEFAULT_PAGES;
	if (o->freq < 0)
		return error_set(e, "sampling frequency must be positive");
	if (o->pages & (o->pages - 1) || o->pages > (1u << 20))
		return error_set(e, "ring buffer pages must be a power of 2 "
				 "(at most 1048576), not %zu", o->pages);
	o->stack_size = (o->stack_size + 7) & ~7u;
	if (o->stack_size > MAX_STACK)
		return error_set(e, "stack copy must be at most %d bytes, not "
				 "%u", MAX_STACK, o->stack_size);
	return 0;
}

/*
 * The online CPUs, from /sys/devices/system/cpu/online ("0-3,5"); falls
 * back to 0..nproc-1. Returns a malloc'd array and its length in *n.
 */
static int *online_cpus(int *n)
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

/* ---- the child ---- */

/*
 * In the forked child: wait for the parent's go on the pipe, then exec.
 * Only async-signal-safe calls here (the parent may have threads). An
 * exec failure goes back as errno through the close-on-exec pipe, whose
 * EOF means the exec worked.
 */
static void child_main(const char *path, char *const *argv, int go_rd,
		       int go_wr, int err_rd, int err_wr)
{
	static const int dfl[] = { SIGINT, SIGTERM, SIGPIPE, SIGCHLD };
	struct sigaction sa;
	sigset_t none;
	ssize_t n;
	char c;
	int errnum;

	close(go_wr);
	close(err_rd);
	/* What yardstick ignores or blocks, the program must not. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
		sigaction(dfl[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do
		n = read(go_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	execv(path, argv);
	errnum = errno;
	while (write(err_wr, &errnum, sizeof(errnum)) < 0 && errno == EINTR)
		;
	_exit(127);
}

static void kill_child(struct sampler *s)
{
	int status;

	if (s->child <= 0)
		return;
	kill(s->child, SIGKILL);
	while (waitpid(s->child, &status, 0) < 0 && errno == EINTR)
		;
	s->child = 0;
}

/*
 * Let the child exec and learn whether it did. Returns 0, or -2 (the
 * child has then been reaped).
 */
static int let_go(struct sampler *s, int go_wr, int err_rd, struct error *e)
{
	int errnum = 0;
	ssize_t n;

	while (write(go_wr, "g", 1) < 0 && errno == EINTR)
		;
	close(go_wr);
	do
		n = read(err_rd, &errnum, sizeof(errnum));
	while (n < 0 && errno == EINTR);
	close(err_rd);
	if (n != (ssize_t)sizeof(errnum))
		return 0;
	kill_child(s);
	spawn_exec_error(s->path, errnum, e);
	return SAMPLER_NOT_STARTED;
}

/* ---- opening the events ---- */

static void make_attr(const struct sampler *s, struct perf_event_attr *a)
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
	}
	a->exclude_callchain_kernel = 1;
	/* wake the reader at a quarter full: three quarters of headroom */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data / 4);
}

/*
 * Turn a failed perf_event_open into a message and a return code:
 * SAMPLER_REFUSED for what the environment refuses (not permitted, no perf
 * support, an event this machine does not have), else SAMPLER_FAILED.
 */
static enum sampler_result open_error(const struct sampler *s,
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
		return SAMPLER_REFUSED;
	default:
		return SAMPLER_FAILED;
	}
}

static int map_ring(struct sampler *s, struct ring *r, struct error *e)
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
		return SAMPLER_REFUSED;
	}
	r->meta = p;
	r->data = (const uint8_t *)p + psz;
	r->mask = s->o.pages * psz - 1;
	return 0;
}

static int open_rings(struct sampler *s, struct error *e)
{
	struct perf_event_attr base, attr;
	int *cpus, ncpus, i, ret = 0;

	memset(&base, 0, sizeof(base));
	switch (perf_event_resolve(s->o.event, &base, e)) {
	case PE_OK:
		break;
	case PE_UNSUPPORTED:
		perf_event_other_cpu_error(s->o.event, e);
		return SAMPLER_REFUSED;
	default:
		return SAMPLER_FAILED;
	}
	make_attr(s, &base);
	cpus = online_cpus(&ncpus);
	s->rings = xcalloc((size_t)ncpus, sizeof(*s->rings));
	for (i = 0; i < ncpus; i++)
		s->rings[i].fd = -1;
	s->nrings = ncpus;
	for (i = 0; i < ncpus && ret == 0; i++) {
		attr = base;
		/* kernel level first (a sample in a system call then says
		 * so), else user level only: we only need user stacks */
		s->rings[i].fd = perf_event_open_attr(NULL, NULL, &attr,
						      s->child, cpus[i], -1);
		if (s->rings[i].fd < 0) {
			ret = open_error(s, &attr, -s->rings[i].fd, cpus[i],
					 e);
			s->rings[i].fd = -1;
		} else {
			/* one refusal of kernel level is enough */
			base.exclude_kernel = attr.exclude_kernel;
			base.exclude_hv = attr.exclude_hv;
			ret = map_ring(s, &s->rings[i], e);
		}
	}
	free(cpus);
	return ret;
}

/* ---- reading the rings ---- */

static const uint64_t *take(const uint64_t **p, const uint64_t *end,
			    uint64_t n)
{
	const uint64_t *at = *p;

	if (n > (uint64_t)(end - at))
		return NULL;
	*p = at + n;
	return at;
}

/* Where the user IP sits among the SAMPLER_REGS registers. */
#define REG_IP_INDEX ((size_t)__builtin_popcountll(SAMPLER_REGS & \
		      ((1ULL << PERF_REG_X86_IP) - 1)))

/* The user part of a callchain into s->ips, context markers removed. */
static bool parse_callchain(struct sampler *s, const uint64_t **p,
			    const uint64_t *end, struct raw_sample *out)
{
	uint64_t ctx = PERF_CONTEXT_USER;
	const uint64_t *nr, *v;

	if (!(nr = take(p, end, 1)) || !(v = take(p, end, nr[0])))
		return false;
	for (uint64_t i = 0; i < nr[0]; i++) {
		if (v[i] >= CONTEXT_MARKER)
			ctx = v[i];
		else if (ctx == PERF_CONTEXT_USER && out->nips < MAX_IPS)
			s->ips[out->nips++] = v[i];
	}
	return true;
}

/* The user registers and stack copy of a dwarf-mode sample. */
static bool parse_regs_stack(const uint64_t **p, const uint64_t *end,
			     struct raw_sample *out)
{
	const uint64_t *abi, *size, *data;
	uint64_t dyn;

	if (!(abi = take(p, end, 1)))
		return false;
	if (abi[0] != PERF_SAMPLE_REGS_ABI_NONE) {
		out->nregs = (size_t)__builtin_popcountll(SAMPLER_REGS);
		if (!(out->regs = take(p, end, out->nregs)))
			return false;
	}
	if (!(size = take(p, end, 1)) || (size[0] & 7))
		return false;
	if (size[0] == 0)
		return true;
	/* the copy, then dyn_size: how much of it is real stack */
	if (!(data = take(p, end, size[0] / 8 + 1)))
		return false;
	dyn = data[size[0] / 8];
	out->stack = (const uint8_t *)data;
	out->stack_size = (size_t)(dyn < size[0] ? dyn : size[0]);
	return true;
}

/*
 * Parse a PERF_RECORD_SAMPLE (layout fixed by make_attr's sample_type).
 * Returns false for a record too short for what it claims to hold.
 */
static bool parse_sample(struct sampler *s, const uint8_t *rec, size_t size,
			 struct raw_sample *out)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint64_t *p = (const uint64_t *)(h + 1);
	const uint64_t *end = (const uint64_t *)(rec + size);
	const uint64_t *f;
	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	memset(out, 0, sizeof(*out));
	if (!(f = take(&p, end, 4)))	/* ip, pid/tid, time, period */
		return false;
	out->pid = (uint32_t)f[1];
	out->tid = (uint32_t)(f[1] >> 32);
	out->time = f[2];
	out->period = f[3];
	out->kernel = mode == PERF_RECORD_MISC_KERNEL ||
		      mode == PERF_RECORD_MISC_GUEST_KERNEL;
	out->ips = s->ips;
	if (!s->o.dwarf)
		return parse_callchain(s, &p, end, out);
	if (!parse_regs_stack(&p, end, out))
		return false;
	/* the sampled user IP; after a kernel hit, where user code was */
	if (!out->kernel)
		s->ips[out->nips++] = f[0];
	else if (out->nregs)
		s->ips[out->nips++] = out->regs[REG_IP_INDEX];
	return true;
}

/* Record layouts past the header; sample_id_all appends TID and TIME. */
struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

struct task_body {		/* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

#define TRAILER 16		/* pid, tid, time */
#define HDR sizeof(struct perf_event_header)

/* A NUL-terminated string at rec + at, before the trailer; or NULL. */
static const char *record_string(const uint8_t *rec, size_t size, size_t at)
{
	if (size < at + TRAILER || !memchr(rec + at, '\0',
					   size - at - TRAILER))
		return NULL;
	return (const char *)(rec + at);
}

static uint64_t trailer_time(const uint8_t *rec, size_t size)
{
	uint64_t t;

	memcpy(&t, rec + size - 8, sizeof(t));
	return t;
}

static void on_mmap2(struct sampler *s, const uint8_t *rec, size_t size)
{
	struct mmap2_body b;
	struct raw_mmap m;

	if (size < HDR + sizeof(b) + TRAILER)
		return;
	memcpy(&b, rec + HDR, sizeof(b));
	if (!(b.prot & PROT_EXEC) || !s->cb.mmap)
		return;
	m.path = record_string(rec, size, HDR + sizeof(b));
	if (!m.path)
		return;
	m.pid = b.pid;
	m.tid = b.tid;
	m.start = b.addr;
	m.len = b.len;
	m.pgoff = b.pgoff;
	m.time = trailer_time(rec, size);
	s->cb.mmap(s->cb.arg, &m);
}

static void on_comm(struct sampler *s, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	bool exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
	const char *name = record_string(rec, size, HDR + 8);
	uint32_t id[2];

	if (!name)
		return;
	memcpy(id, rec + HDR, sizeof(id));
	if (exec && id[0] == (uint32_t)s->child && !s->exec_time)
		s->exec_time = trailer_time(rec, size);
	/* a process's name; a thread naming itself is not reported */
	if (id[0] == id[1] && s->cb.comm)
		s->cb.comm(s->cb.arg, id[0], name, exec);
}

static void on_task(struct sampler *s, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	struct task_body b;

	if (size < HDR + sizeof(b))
		return;
	memcpy(&b, rec + HDR, sizeof(b));
	if (h->type == PERF_RECORD_FORK) {
		/* a new process; a new thread has its parent's pid */
		if (b.pid != b.ppid && s->cb.fork)
			s->cb.fork(s->cb.arg, b.pid, b.ppid);
		return;
	}
	if (b.pid != b.tid)
		return;		/* a thread other than the main one */
	if (b.pid == (uint32_t)s->child)
		s->exit_time = b.time;
	if (s->cb.exit)
		s->cb.exit(s->cb.arg, b.pid);
}

static void dispatch(struct sampler *s, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	struct raw_sample smp;
	uint64_t n;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (!parse_sample(s, rec, size, &smp))
			break;
		s->stats->samples++;
		if (s->cb.sample)
			s->cb.sample(s->cb.arg, &smp);
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(s, rec, size);
		break;
	case PERF_RECORD_COMM:
		on_comm(s, rec, size);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		on_task(s, rec, size);
		break;
	case PERF_RECORD_LOST:		/* id, lost */
		if (size >= HDR + 16) {
			memcpy(&n, rec + HDR + 8, sizeof(n));
			s->stats->lost += n;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:	/* lost */
		if (size >= HDR + 8) {
			memcpy(&n, rec + HDR, sizeof(n));
			s->stats->lost += n;
		}
		break;
	}
}

/* The time of the record at r->tail (design note 4); 0 if it has none. */
static uint64_t record_time(const struct ring *r)
{
	struct perf_event_header h;
	uint64_t at, t;

	memcpy(&h, r->data + (r->tail & r->mask), sizeof(h));
	at = h.type == PERF_RECORD_SAMPLE ? 24 : (uint64_t)h.size - 8;
	if (h.size & 7 || h.size < HDR + TRAILER || at + 8 > h.size)
		return 0;
	memcpy(&t, r->data + ((r->tail + at) & r->mask), sizeof(t));
	return t;
}

/* Hand out the record at r->tail and publish the new tail. */
static void consume(struct sampler *s, struct ring *r)
{
	uint64_t off = r->tail & r->mask, data_size = r->mask + 1;
	const uint8_t *rec = r->data + off;
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	if (h.size < HDR || (h.size & 7) || h.size > r->head - r->tail) {
		/* not a record: give up the rest of this pass's data */
		r->tail = r->head;
	} else {
		if (off + h.size > data_size) {
			size_t first = (size_t)(data_size - off);

			memcpy(s->rec, rec, first);
			memcpy(s->rec + first, r->data, h.size - first);
			rec = s->rec;
		}
		dispatch(s, rec, h.size);
		r->tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
	if (r->tail < r->head)
		r->next_time = record_time(r);
}

/* One pass over every ring, merged by time (design note 4). */
static void drain(struct sampler *s)
{
	struct ring *r, *best;
	int i;

	for (i = 0; i < s->nrings; i++) {
		r = &s->rings[i];
		r->head = __atomic_load_n(&r->meta->data_head,
					  __ATOMIC_ACQUIRE);
		if (r->tail < r->head)
			r->next_time = record_time(r);
	}
	for (;;) {
		best = NULL;
		for (i = 0; i < s->nrings; i++) {
			r = &s->rings[i];
			if (r->tail < r->head &&
			    (!best || r->next_time < best->next_time))
				best = r;
		}
		if (!best)
			break;
		consume(s, best);
	}
}

/*
 * Hand out records until the child has been reaped (its wait status in
 * stats->status), then drain once more (design note 7).
 */
static int collect(struct sampler *s, struct error *e)
{
	int timeout = s->pidfd >= 0 ? POLL_MS : POLL_MS_NO_PIDFD;
	int n, i;
	pid_t w;
	struct rusage ru;

	for (i = 0; i < s->nrings; i++)
		s->pfds[i] = (struct pollfd){ .fd = s->rings[i].fd,
					      .events = POLLIN };
	s->pfds[s->nrings] = (struct pollfd){ .fd = s->pidfd,
					      .events = POLLIN };
	for (;;) {
		n = poll(s->pfds, (nfds_t)s->nrings + 1, timeout);
		if (n < 0 && errno != EINTR)
			return error_errno(e, errno, "cannot poll the perf "
					   "ring buffers");
		drain(s);
		for (i = 0; n > 0 && i < s->nrings; i++)
			if (s->pfds[i].revents & (POLLHUP | POLLERR |
						  POLLNVAL))
				s->pfds[i].fd = -1;
		if (s->pidfd >= 0 && !(n > 0 && s->pfds[s->nrings].revents))
			continue;
		w = wait4(s->child, &s->stats->status, WNOHANG, &ru);
		if (w == s->child) {
			s->stats->cpu_ns = (ru.ru_utime.tv_sec +
					    ru.ru_stime.tv_sec) * 1000000000LL +
					   (ru.ru_utime.tv_usec +
					    ru.ru_stime.tv_usec) * 1000LL;
			break;
		}
		if (w < 0 && errno != EINTR)
			return error_errno(e, errno, "cannot wait for '%s'",
					   s->path);
	}
	s->child = 0;
	drain(s);
	return 0;
}

/* ---- the run ---- */

static void close_all(struct sampler *s)
{
	for (int i = 0; s->rings && i < s->nrings; i++) {
		if (s->rings[i].map_len)
			munmap(s->rings[i].meta, s->rings[i].map_len);
		if (s->rings[i].fd >= 0)
			close(s->rings[i].fd);
	}
	if (s->pidfd >= 0)
		close(s->pidfd);
	free(s->rings);
	free(s->pfds);
	free(s->rec);
	free(s->ips);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Fork the child that waits on go[0] (child_main). */
static int start_child(struct sampler *s, char *const *argv, int go[2],
		       int err[2], struct error *e)
{
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return error_errno(e, errno, "cannot create a pipe");
	s->child = fork();
	if (s->child < 0) {
		s->child = 0;
		return error_errno(e, errno, "cannot fork");
	}
	if (s->child == 0)
		child_main(s->path, argv, go[0], go[1], err[0], err[1]);
	close_fd(&go[0]);
	close_fd(&err[1]);
	return 0;
}

enum sampler_result sampler_run(const struct sampler_opts *o,
				char *const *argv,
				const struct sampler_callbacks *cb,
				struct sampler_stats *stats, struct error *e)
{
	struct sampler s;
	struct sampler_stats spare;
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };
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
	if (fill_opts(&s.o, o, e))
		return SAMPLER_FAILED;
	if (!argv || !argv[0]) {
		error_set(e, "no program to run");
		return SAMPLER_FAILED;
	}
	if (spawn_resolve_program(argv[0], &path, e))
		return SAMPLER_NOT_STARTED;
	s.path = path;
	/* all the collector's memory, before the program starts */
	s.rec = xmalloc(MAX_RECORD);
	s.ips = xmalloc(MAX_IPS * sizeof(*s.ips));
	ret = start_child(&s, argv, go, err, e);
	if (ret == 0)
		ret = open_rings(&s, e);
	if (ret < 0)
		goto out_kill;
	s.pfds = xcalloc((size_t)s.nrings + 1, sizeof(*s.pfds));
	s.pidfd = (int)syscall(SYS_pidfd_open, s.child, 0);
	t_go = monoclock_ns();
	ret = let_go(&s, go[1], err[0], e);
	go[1] = err[0] = -1;
	if (ret == 0)
		ret = collect(&s, e);
	if (ret < 0)
		goto out_kill;
	s.stats->ncpus = s.nrings;
	if (s.exec_time && s.exit_time > s.exec_time)
		s.stats->duration_ns = (int64_t)(s.exit_time - s.exec_time);
	else
		s.stats->duration_ns = (int64_t)(monoclock_ns() - t_go);
out_kill:
	kill_child(&s);
	close_fd(&go[0]);
	close_fd(&go[1]);
	close_fd(&err[0]);
	close_fd(&err[1]);
	close_all(&s);
	free(path);
	return ret;
}
