/*
 * The records of the sampler's events, parsed where they lie: no
 * allocation, bounds checked against the record's own size (a record
 * from the ring is whole, but may claim more than it holds).
 */
#include "profile/records.h"

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>

/* a callchain entry at or above this is a context marker */
#define CONTEXT_MARKER ((uint64_t)PERF_CONTEXT_MAX)

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
static bool parse_callchain(struct records *s, const uint64_t **p,
			    const uint64_t *end, struct raw_sample *out)
{
	uint64_t ctx = PERF_CONTEXT_USER;
	const uint64_t *nr, *v;

	if (!(nr = take(p, end, 1)) || !(v = take(p, end, nr[0])))
		return false;
	for (uint64_t i = 0; i < nr[0]; i++) {
		if (v[i] >= CONTEXT_MARKER)
			ctx = v[i];
		else if (ctx == PERF_CONTEXT_USER &&
			 out->nips < RECORDS_MAX_IPS)
			s->ips[out->nips++] = v[i];
	}
	/* the kernel stops storing at chain_max entries (the user's only:
	 * exclude_callchain_kernel), whatever is under them */
	out->cut = s->chain_max && out->nips >= s->chain_max;
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
 * Parse a PERF_RECORD_SAMPLE (layout fixed by the sample_type of
 * sampler.c's make_attr).
 * Returns false for a record too short for what it claims to hold.
 */
static bool parse_sample(struct records *s, const uint8_t *rec, size_t size,
			 struct raw_sample *out)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint64_t *p = (const uint64_t *)(h + 1);
	const uint64_t *end = (const uint64_t *)(rec + size);
	const uint64_t *f;
	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	memset(out, 0, sizeof(*out));
	if (s->identifier && !take(&p, end, 1))
		return false;		/* the identifier: is_fault reads it */
	if (!(f = take(&p, end, 4)))	/* ip, pid/tid, time, period */
		return false;
	out->pid = (uint32_t)f[1];
	out->tid = (uint32_t)(f[1] >> 32);
	out->time = f[2];
	out->period = f[3];
	out->kernel = mode == PERF_RECORD_MISC_KERNEL ||
		      mode == PERF_RECORD_MISC_GUEST_KERNEL;
	out->ips = s->ips;
	if (!s->dwarf)
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

/* the sample_id trailer: pid, tid, time (and the identifier) */
#define TRAILER(s) ((size_t)((s)->identifier ? 24 : 16))
#define HDR sizeof(struct perf_event_header)

/* A NUL-terminated string at rec + at, before the trailer; or NULL. */
static const char *record_string(const struct records *s, const uint8_t *rec,
				 size_t size, size_t at)
{
	if (size < at + TRAILER(s) || !memchr(rec + at, '\0',
					      size - at - TRAILER(s)))
		return NULL;
	return (const char *)(rec + at);
}

static uint64_t trailer_time(const struct records *s, const uint8_t *rec,
			     size_t size)
{
	uint64_t t;

	memcpy(&t, rec + size - TRAILER(s) + 8, sizeof(t));
	return t;
}

static void on_mmap2(struct records *s, const uint8_t *rec, size_t size)
{
	struct mmap2_body b;
	struct raw_mmap m;

	if (size < HDR + sizeof(b) + TRAILER(s))
		return;
	memcpy(&b, rec + HDR, sizeof(b));
	if (!(b.prot & PROT_EXEC) || !s->cb.mmap)
		return;
	m.path = record_string(s, rec, size, HDR + sizeof(b));
	if (!m.path)
		return;
	m.pid = b.pid;
	m.tid = b.tid;
	m.start = b.addr;
	m.len = b.len;
	m.pgoff = b.pgoff;
	m.time = trailer_time(s, rec, size);
	s->cb.mmap(s->cb.arg, &m);
}

static void on_comm(struct records *s, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	bool exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
	const char *name = record_string(s, rec, size, HDR + 8);
	uint32_t id[2];

	if (!name)
		return;
	memcpy(id, rec + HDR, sizeof(id));
	if (exec && id[0] == s->child && !s->exec_time)
		s->exec_time = trailer_time(s, rec, size);
	/* a process's name; a thread naming itself is not reported */
	if (id[0] == id[1] && s->cb.comm)
		s->cb.comm(s->cb.arg, id[0], name, exec);
	if (s->cb.task_comm)
		s->cb.task_comm(s->cb.arg, id[0], id[1], name,
				trailer_time(s, rec, size));
}

static void on_task(struct records *s, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	struct task_body b;

	if (size < HDR + sizeof(b))
		return;
	memcpy(&b, rec + HDR, sizeof(b));
	if (s->cb.task)
		s->cb.task(s->cb.arg, b.pid, b.tid, b.time,
			   h->type == PERF_RECORD_EXIT);
	if (h->type == PERF_RECORD_FORK) {
		/* a new process; a new thread has its parent's pid */
		if (b.pid != b.ppid && s->cb.fork)
			s->cb.fork(s->cb.arg, b.pid, b.ppid);
		return;
	}
	/* the child ends with its last thread, which need not be the main
	 * one: a main thread that called pthread_exit ends first */
	if (b.pid == s->child && b.time > s->exit_time)
		s->exit_time = b.time;
	if (b.pid != b.tid)
		return;		/* a thread other than the main one */
	if (s->cb.exit)
		s->cb.exit(s->cb.arg, b.pid);
}

/* Whether a sample (whole, parsed) is of one of the events ids: its
 * identifier is the first u64 after the header. */
static bool is_of(const uint64_t *ids, size_t n, const uint8_t *rec)
{
	uint64_t id;

	memcpy(&id, rec + HDR, sizeof(id));
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * A sched_wakeup sample (sampler.c's wake-up layout: identifier, pid/tid
 * of the waker, time, raw size and raw record): the wakee's pid (a tid)
 * at wake_pid_offset of the raw record. Dropped when too short.
 */
static void on_wakeup(struct records *s, const uint8_t *rec, size_t size)
{
	const size_t at = HDR + 24;	/* past identifier, pid/tid, time */
	uint32_t raw, tid;
	uint64_t time;

	if (size < at + 4 || !s->cb.wakeup)
		return;
	memcpy(&raw, rec + at, sizeof(raw));
	if (raw > size - at - 4 || s->wake_pid_offset > raw ||
	    raw - s->wake_pid_offset < 4)
		return;
	memcpy(&time, rec + HDR + 16, sizeof(time));
	memcpy(&tid, rec + at + 4 + s->wake_pid_offset, sizeof(tid));
	s->cb.wakeup(s->cb.arg, tid, time);
}

/*
 * Whether a record is a second copy (famfilter.h): its task and its
 * identifier, a sample's from its body (identifier, ip, pid/tid), another
 * record's from its trailer (pid/tid, time, identifier); for FORK and
 * COMM too, the task is the one the kernel wrote it for (the trailer's:
 * the parent of a fork). A record without them is kept.
 */
static bool second_copy(struct records *s, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t id;
	uint32_t tid;

	if (!s->fam || !s->identifier)
		return false;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (size < HDR + 24)
			return false;
		memcpy(&id, rec + HDR, sizeof(id));
		memcpy(&tid, rec + HDR + 20, sizeof(tid));
	} else {
		if (size < HDR + TRAILER(s))
			return false;
		memcpy(&tid, rec + size - TRAILER(s) + 4, sizeof(tid));
		memcpy(&id, rec + size - 8, sizeof(id));
	}
	return !famfilter_keep(s->fam, tid, id, h->type == PERF_RECORD_EXIT);
}

void records_dispatch(void *rp, const uint8_t *rec, size_t size)
{
	struct records *s = rp;
	const struct perf_event_header *h = (const void *)rec;
	struct raw_sample smp;
	uint64_t n;

	if (h->type == PERF_RECORD_SAMPLE && s->nwake_ids && size >= HDR + 8 &&
	    is_of(s->wake_ids, s->nwake_ids, rec)) {
		on_wakeup(s, rec, size);
		return;
	}
	if (h->type != PERF_RECORD_LOST && h->type != PERF_RECORD_LOST_SAMPLES &&
	    second_copy(s, rec, size))
		return;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (!parse_sample(s, rec, size, &smp))
			break;
		if (s->noff_ids && is_of(s->off_ids, s->noff_ids, rec)) {
			if (s->cb.offcpu)
				s->cb.offcpu(s->cb.arg, &smp);
			break;
		}
		if (s->nfault_ids && is_of(s->fault_ids, s->nfault_ids,
					   rec)) {
			s->stats->faults++;
			if (s->cb.page_fault)
				s->cb.page_fault(s->cb.arg, smp.pid, smp.tid,
						 smp.time, smp.nips ? smp.ips[0]
						 : 0);
			break;
		}
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
	case PERF_RECORD_SWITCH:	/* only the pid, tid, time trailer */
		if (size >= HDR + TRAILER(s) && s->cb.sched_switch) {
			uint32_t id[2];

			memcpy(id, rec + size - TRAILER(s), sizeof(id));
			s->cb.sched_switch(s->cb.arg, id[0], id[1],
				trailer_time(s, rec, size),
				h->misc & PERF_RECORD_MISC_SWITCH_OUT,
				h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		}
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
