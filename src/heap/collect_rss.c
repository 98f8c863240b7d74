/*
 * The reader thread's looks at the program from outside: its RSS from
 * /proc (sampled between reads of the socket, its peak now and then),
 * and the processes of its tree, seen alive and seen ending.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap/collect_internal.h"
#include "util/strutil.h"
#include "util/monoclock.h"

/* A "Name:   1234 kB" line of /proc/PID/status, in bytes; -1 if absent. */
static double status_kb(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	return p ? strtod(p + strlen(name), NULL) * 1024 : -1;
}

/*
 * /proc/PID/NAME into buf (NUL-terminated) through *fd, opened the first
 * time and read from the start each time after (the kernel writes it
 * anew). Its length, or -1.
 */
static ssize_t proc_read_again(const struct reader *r, int *fd,
			       const char *name, char *buf, size_t size)
{
	ssize_t n;

	if (*fd < 0) {
		snprintf(buf, size, "/proc/%d/%s", (int)r->pid, name);
		*fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return -1;
	}
	n = pread(*fd, buf, size - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* status is read for VmHWM every HWM_EVERY samples only */
#define HWM_EVERY 10

/*
 * The RSS now (for the timeline), from statm: its resident pages are
 * status's VmRSS, for a tenth of the cost. The peak so far: the RSS seen,
 * and now and then VmHWM (the agent reads the exact one at a normal exit).
 */
void heap_sample_rss(struct reader *r)
{
	char buf[4096];
	struct heap_trace *t = r->t;
	unsigned long long pages;
	double rss, hwm;

	if (proc_read_again(r, &r->statm, "statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%*s %llu", &pages) != 1 || !pages)
		return;		/* a zombie has no memory left */
	rss = (double)pages * (double)r->page;
	if (rss > t->hwm)
		t->hwm = rss;
	if (r->nsamples++ % HWM_EVERY == 0 &&
	    proc_read_again(r, &r->status, "status", buf, sizeof(buf)) > 0 &&
	    (hwm = status_kb(buf, "\nVmHWM:")) > t->hwm)
		t->hwm = hwm;
	t->rss = xgrow(t->rss, &t->caprss, t->nrss + 1, sizeof(*t->rss));
	t->rss[t->nrss].t = monoclock_s() - r->t0;
	t->rss[t->nrss].bytes = rss;
	t->nrss++;
}

/* A live process's start time (clock ticks since boot), 0 when it is gone
 * or a zombie. */
static unsigned long long proc_start(pid_t pid)
{
	char path[64], buf[1024], state;
	unsigned long long start;
	const char *p;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (heap_read_proc(path, buf, sizeof(buf)) <= 0 ||
	    !(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
		   "%*u %*d %*d %*d %*d %*d %*d %llu%n", &state, &start,
		   &n) != 2 || !n)
		return 0;
	return state == 'Z' || state == 'X' ? 0 : start + 1;
}

/*
 * Process pid ended: it can write no more, so the slots its threads held
 * go back (records and all: the next owner appends after them, as after
 * a thread's end), else a tree of many short processes would run out.
 */
static void proc_ended(struct reader *r, pid_t pid)
{
	struct heap_trace *t = r->t;

	for (uint32_t i = 0; i < HEAP_SLOTS; i++) {
		uint32_t owned = 1;

		/* owned, by pid (an owner clears pid before it lets go, and
		 * sets it right after it took the slot: a pid of a process
		 * gone on an owned slot is that process's) */
		if (__atomic_load_n(&r->h->slots[i].state, __ATOMIC_ACQUIRE) ==
		    1 && __atomic_load_n(&r->h->slots[i].pid,
					 __ATOMIC_ACQUIRE) == pid)
			__atomic_compare_exchange_n(&r->h->slots[i].state,
						    &owned, 0, false,
						    __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
	}

	t->ends = xgrow(t->ends, &t->capends, t->nends + 1, sizeof(*t->ends));
	t->ends[t->nends++] = (struct heap_end){ pid, monoclock_s() - r->t0 };
}

/*
 * The processes of the tree other than the program (protocol.h, images):
 * the new ones watched, the end of each watched one noted (gone, a
 * zombie, or its pid another process's), so that the tree's heap loses a
 * process's blocks when it ends (analyze.c).
 */
/* The peak RSS of the tree's largest process so far: each watched one's
 * VmHWM, now and then (HWM_EVERY), read while it is alive. A child of
 * multiprocessing that ends by os._exit runs no agent exit to report its
 * own (the program's, the agent reads at its exit). */
static void watch_hwm(struct reader *r, pid_t pid)
{
	char path[64], buf[4096];
	double hwm;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (heap_read_proc(path, buf, sizeof(buf)) > 0 &&
	    (hwm = status_kb(buf, "\nVmHWM:")) > r->t->hwm)
		r->t->hwm = hwm;
}

void heap_watch_procs(struct reader *r)
{
	uint32_t n = __atomic_load_n(&r->h->generation, __ATOMIC_ACQUIRE);
	bool hwm = r->nwatches++ % HWM_EVERY == 0;

	if (n >= HEAP_IMAGES)
		n = HEAP_IMAGES - 1;
	for (size_t i = 0; i < r->nwatch; ) {
		if (proc_start(r->watch[i].pid) == r->watch[i].start) {
			if (hwm)
				watch_hwm(r, r->watch[i].pid);
			i++;
			continue;
		}
		proc_ended(r, r->watch[i].pid);
		r->watch[i] = r->watch[--r->nwatch];
	}
	for (; r->watched < n; r->watched++) {
		pid_t pid = __atomic_load_n(&r->h->images[r->watched + 1].pid,
					    __ATOMIC_ACQUIRE);
		unsigned long long start;
		bool known = false;

		if (!pid)
			break;	/* its agent is writing it: next time */
		if (pid == r->pid || pid < 0)
			continue;
		for (size_t i = 0; i < r->nwatch && !known; i++)
			known = r->watch[i].pid == pid;
		if (known)
			continue;	/* an exec of a watched one */
		start = proc_start(pid);
		if (!start) {
			proc_ended(r, pid);
			continue;
		}
		r->watch = xgrow(r->watch, &r->capwatch, r->nwatch + 1,
				 sizeof(*r->watch));
		r->watch[r->nwatch++] = (struct watch){ pid, start };
		watch_hwm(r, pid);
	}
}
