/*
 * The sampler's own state and helpers, shared by sampler.c (a program
 * started) and sampler_attach.c (a process running already); internal
 * to profile/.
 */
#ifndef YS_PROFILE_SAMPLER_INTERNAL_H
#define YS_PROFILE_SAMPLER_INTERNAL_H

#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>

#include "profile/famfilter.h"
#include "profile/records.h"
#include "profile/ring.h"
#include "profile/sampler.h"
#include "util/child.h"
#include "util/error.h"

#define DEFAULT_EVENT "cpu-clock"
#define DEFAULT_PAGES 128
#define DEFAULT_PAGES_DWARF 256
#define POLL_MS 250		/* with a pidfd: only a safety net */
#define POLL_MS_NO_PIDFD 20	/* without: how soon we notice the exit */

/* A process sampler_attach opened events on. */
struct sampler_proc {
	uint32_t pid;
	int64_t cpu0, cpu;	/* ns of CPU at the attach, last read; -1
				 * unknown */
	bool sampled;		/* its events open, else passed over (a
				 * zombie, another user's) */
	bool gone;		/* its /proc/PID/stat no longer read */
};

struct sampler {
	struct sampler_opts o;	/* defaults filled in */
	struct sampler_callbacks cb;
	struct sampler_stats *stats;
	struct ring *rings;
	struct pollfd *pfds;	/* nrings perf fds, then the pidfd */
	int nrings;
	int *fault_fds;		/* page-fault events, one per ring, writing
				 * into it (-1: none) */
	uint64_t *fault_ids;
	int *off_fds;		/* context-switch events, the same way */
	uint64_t *off_ids;
	int *wake_fds;		/* sched_wakeup per ring (design note 8),
				 * -1: none */
	uint64_t *wake_ids;
	uint32_t wake_pid_offset;
	bool wake_off;		/* not opened: stats->wakeups_why says why */
	uint8_t *rec;		/* a record that wraps (ring.c, note 3) */
	struct records rp;	/* the parser, its ips and the child's
				 * exec and exit times */
	const char *path;	/* the program, resolved */
	struct child child;	/* held until the events are open */
	/* sampler_attach: the events besides the rings' own (per thread and
	 * CPU), the ring each samples into (-1: a context-switch event),
	 * and the context switches' ids */
	int *afds;
	int *afd_ring;
	size_t nafds, capafds, capafd_ring;
	size_t noff, capoff;
	/* sampler_attach: per ring, the next of afds to poll for it when the
	 * event polled hangs up (its thread ended) */
	size_t *ring_next;
	/* sampler_attach: the processes attached (the first is pid), their
	 * CPU time at the attach and as last read */
	struct sampler_proc *procs;
	size_t nprocs, capprocs;
	/* sampler_attach: each event's family, the thread it was opened on
	 * (famfilter.h); nfam families so far */
	struct famfilter fam;
	uint32_t nfam;
	/* sampler_attach: the test hook's pause (YARDSTICK_TEST_ATTACH_PAUSE,
	 * sampler_attach.c), ms; 0: none */
	unsigned test_pause_ms;
	int pidfd;		/* -1: poll with a short timeout instead */
};

int sampler_fill_opts(struct sampler_opts *o, const struct sampler_opts *in,
		      struct error *e);
/* kernel.perf_event_max_stack, 0 when unknown */
uint32_t sampler_chain_limit(void);
/* The event's attributes for s (from its options) into base, and s's
 * rings, one per online CPU, none open yet (their CPUs in *cpus, a
 * malloc'd list of *ncpus): 0, or SAMPLER_REFUSED / SAMPLER_FAILED. */
int sampler_prepare(struct sampler *s, struct perf_event_attr *base,
		    int **cpus, int *ncpus, struct error *e);
/* One wait of the reader: poll, hand out the records, drop a ring that
 * hung up. The poll's count (-1: interrupted), or -2 with a message. */
int sampler_pass(struct sampler *s, int timeout, struct error *e);
/* a failed perf_event_open as a message and a sampler_result */
enum sampler_result sampler_open_error(const struct sampler *s,
				       const struct perf_event_attr *attr,
				       int err, int cpu, struct error *e);
/* the ring of r->fd mapped: 0 or a sampler_result */
int sampler_map_ring(struct sampler *s, struct ring *r, struct error *e);
/* a side event's attributes (page faults, context switches) from its
 * ring's event's */
void sampler_side_attr(const struct perf_event_attr *ring_attr,
		       uint64_t config, struct perf_event_attr *out);
/* With opts.wakeups, once every ring is open: the sched_wakeup
 * tracepoint on each ring's CPU (cpus), system-wide, into that ring
 * (sampler.c, design note 8), the parser told their ids; a refusal turns
 * the wake-ups off (stats say why), never the run. */
void sampler_open_wakeups(struct sampler *s,
			  const struct perf_event_attr *ring_attr,
			  const int *cpus);
/* context switches refused at kernel level: the message, REFUSED */
int sampler_offcpu_refused(struct error *e);
/* the reader at real-time priority (opts.prompt), and back */
bool sampler_raise_reader(struct sampler *s, int *old_policy,
			  struct sched_param *old);
void sampler_restore_reader(int old_policy, const struct sched_param *old);
/* every event closed, every ring unmapped, s's memory freed */
void sampler_close_all(struct sampler *s);

#endif
