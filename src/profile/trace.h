/*
 * The timeline model of `yardstick trace`: the threads of a traced program
 * with their lifetimes and their on-CPU slices (from perf's context-switch
 * records), its zones, instants, counters and async spans (from
 * libyardstick), and CPU samples with their stacks, all in one clock
 * domain: nanoseconds of CLOCK_MONOTONIC (perf's use_clockid, and the
 * clock libyardstick reads). Then its two writers: Chrome's Trace Event
 * JSON and Perfetto's protobuf trace.
 *
 * Memory is bounded: at most max_events events are kept; those past it
 * are counted in `dropped`, never silently lost.
 */
#ifndef YS_PROFILE_TRACE_H
#define YS_PROFILE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/hashmap.h"

enum trace_kind {
	TRACE_ONCPU,		/* a thread on a CPU: start..end; flags say
				 * why it left */
	TRACE_ZONE,		/* a zone of the program: start..end on tid,
				 * depth its nesting */
	TRACE_ASYNC,		/* an async span: id, begun on tid, may end on
				 * another thread (end_tid) */
	TRACE_INSTANT,		/* a mark of the program at start */
	TRACE_COUNTER,		/* a named value at start */
	TRACE_SAMPLE,		/* a CPU sample at start; text its stack,
				 * outermost first, frames joined by ';' */
	TRACE_FAULT,		/* a page fault at start; id its user IP */
};

/* TRACE_ONCPU flags: why the thread left the CPU */
#define TRACE_LEFT_PREEMPTED 1	/* still runnable: the scheduler took it */
#define TRACE_LEFT_BLOCKED 2	/* slept or waited (a lock, I/O, a sleep) */
#define TRACE_LEFT_EXITED 4	/* it ended on the CPU */
#define TRACE_AFTER_WAKEUP 8	/* it came on after a wake-up seen by the
				 * sched_wakeup tracepoint: value is the
				 * scheduling delay before start (ns) */
/* TRACE_ZONE, TRACE_ASYNC flags */
#define TRACE_ZONE_UNFINISHED 1	/* no end came (the program ended or died
				 * inside it): trace_finish ends it when the
				 * collection stopped, its duration a lower
				 * bound */

struct trace_event {
	uint8_t kind, flags;
	uint16_t depth;
	uint32_t pid, tid, end_tid;
	uint64_t start, end;	/* ns CLOCK_MONOTONIC; end == start for a
				 * point */
	const char *name;	/* interned (trace_intern) */
	const char *text;	/* interned, or NULL: dynamic text, a stack */
	uint64_t id;		/* async: the span's id */
	double value;		/* counter value; zone/instant argument */
};

struct trace_thread {
	uint32_t pid, tid;
	const char *name;	/* interned; NULL: unnamed */
	/* a main thread's: its process's name, the name its last exec
	 * gave it (else the one it started with), which a later name of
	 * the thread (prctl PR_SET_NAME: PyTorch's "pt_main_thread") does
	 * not change; NULL: name */
	const char *process_name;
	uint64_t start, end;	/* its lifetime (end 0 until it exits) */
	/* accounting from the switch records */
	uint64_t on_ns, preempted_ns, blocked_ns;
	/* with wake-ups (trace.wakeups): of the time off the CPU after
	 * blocking, the part after its wake-up, waiting for a CPU (perf
	 * sched timehist's "sch delay"), not in blocked_ns; its largest
	 * single wait and how many waits */
	uint64_t sched_delay_ns, sched_delay_max_ns, wakeups;
	uint64_t faults;	/* page faults (with --page-faults) */
	int state;		/* internal: 0 unknown, 1 on CPU, 2
				 * preempted, 3 blocked, 4 woken (waiting
				 * for a CPU after its wake-up) */
	uint64_t since;		/* when state began */
	uint64_t last_delay;	/* internal: the scheduling delay before
				 * the current on-CPU slice, or UINT64_MAX:
				 * none measured */
	bool exited;
};

/* A record of the kernel about a task, kept until trace_finish. */
struct trace_sched {
	uint64_t time;
	uint32_t pid, tid, ppid;
	uint8_t kind;
	bool preempt;
	const char *name;	/* interned */
	size_t seq;		/* arrival order */
};

struct trace {
	struct trace_event *ev;
	size_t n, cap, max_events;
	uint64_t dropped;	/* events not kept: past max_events */
	struct trace_sched *sched;	/* until trace_finish */
	size_t nsched, capsched;
	struct trace_thread *threads;	/* after trace_finish */
	size_t nthreads, capthreads;
	struct hashidx thread_ix;	/* hash of tid -> index */
	struct hashmap strings;		/* interned strings */
	uint64_t first, last;		/* first and last time seen */
	uint32_t pid;			/* the first process */
	bool switches_seen;		/* any switch record came */
	/* NULL, or why the trace ends early ("stopped by SIGINT": a
	 * signal to yardstick, util/stop.h); every writer says so */
	const char *partial;
	/* The wake-ups were recorded (trace_wakeup): a blocked thread's wait
	 * is then split into blocked (until its wake-up) and scheduling
	 * delay (wake-up to running). false: unknown, blocked_ns holds
	 * both; set by the caller before trace_finish. */
	bool wakeups;
	struct hashidx tids;		/* tid + 1 of every task seen: the
					 * wake-ups of others are not kept */
};

void trace_init(struct trace *t, size_t max_events);
void trace_free(struct trace *t);

/* s, interned: the same pointer for equal strings, valid until
 * trace_free. NULL for NULL. */
const char *trace_intern(struct trace *t, const char *s);

/* A new event (zeroed but for kind), or NULL when max_events are kept
 * (counted in dropped). */
struct trace_event *trace_add(struct trace *t, enum trace_kind kind);

/* A new thread (pid, tid), begun at time, indexed by its tid. */
struct trace_thread *trace_thread_new(struct trace *t, uint32_t pid,
				      uint32_t tid, uint64_t time);

/* The index in threads of the thread tid that was alive at time (tids
 * are reused), SIZE_MAX when none has that tid. */
size_t trace_thread_at(const struct trace *t, uint32_t tid, uint64_t time);

/* What perf says: a task started or exited, took a name (also from
 * libyardstick, after the fact: the thread of that tid alive at time),
 * left or came onto a CPU. Kept (bounded by max_events, the rest counted
 * in dropped) and replayed in time order by trace_finish, which makes
 * the threads. */
void trace_task(struct trace *t, uint32_t pid, uint32_t tid, uint64_t time,
		bool exit);
void trace_task_name(struct trace *t, uint32_t pid, uint32_t tid,
		     const char *name, uint64_t time);
/* The name an exec gave pid (its main thread): its process's name too. */
void trace_exec_name(struct trace *t, uint32_t pid, const char *name,
		     uint64_t time);
void trace_switch(struct trace *t, uint32_t pid, uint32_t tid,
		  uint64_t time, bool out, bool preempt);
/* A thread present when the collection began on a process running
 * already (`trace --pid`): it starts in the trace at time, named name;
 * asleep (neither running nor runnable then), its time until its next
 * record counts as blocked, else it is unknown until its first switch
 * record (runnable: preempted until it comes on a CPU). */
void trace_attached(struct trace *t, uint32_t pid, uint32_t tid,
		    const char *name, bool asleep, uint64_t time);
/* The task tid was woken (made runnable) at time; the wake-ups of tasks
 * no earlier record named (the rest of the system's) are not kept. */
void trace_wakeup(struct trace *t, uint32_t tid, uint64_t time);

/* A new process pid forked from ppid (after its trace_task), taking its
 * parent's name; a process exec'd name: each an instant on its main
 * thread ("fork", value the parent's pid; "exec", text the name). */
void trace_fork(struct trace *t, uint32_t pid, uint32_t ppid,
		uint64_t time);
void trace_exec(struct trace *t, uint32_t pid, const char *name,
		uint64_t time);

/* At the end (time: when the collection stopped): the threads from the
 * kernel's records and the events (a thread only the program's events
 * name included, page faults counted), what is open closed (a thread
 * still alive, an unfinished zone or async span end at time), the events
 * sorted by start. */
void trace_finish(struct trace *t, uint64_t time);

/* Where a writer stops: at most max_bytes (0: no cap); written and
 * truncated say what happened (events not written past the cap). */
struct trace_write_opts {
	uint64_t max_bytes;
	const char *process_name;	/* for a process with no COMM */
};

struct trace_write_stats {
	uint64_t bytes, events, truncated;
};

/* Chrome's Trace Event Format, JSON object form: {"traceEvents":[...],
 * "displayTimeUnit":"ns", "otherData":{...}}; ts in µs. */
int trace_write_chrome(const struct trace *t, const struct trace_write_opts *o,
		       const char *path, struct trace_write_stats *st,
		       struct error *e);

/* What trace_read_chrome skipped: events of phases it does not keep,
 * events the tracer itself lost or cut (otherData's counts). */
struct trace_read_stats {
	uint64_t ignored, lost;
};

/* The latest time in µs a trace file may give (ts, ts + dur): 9e15 µs is
 * 9e18 ns, under 2^63 (llround's long, into the model's ns), and under
 * 2^53 µs, so that a whole µs is exact; epoch µs (1.6e15 and up, as
 * Kineto's older traces have) are far within it. Both readers of traces
 * in µs (trace_read_chrome, torchops_read) hold to it. */
#define TRACE_US_MAX 9e15

/* A Chrome Trace Event JSON file (trace_write_chrome's, or another
 * tool's X, b/e, i, C and M events) read back, as untrusted input, into
 * t (initialized here; at most max_events kept, the rest in dropped),
 * its events sorted by start. A file of more than TRACE_READ_MAX_BYTES
 * is refused (its tree would take a gigabyte). 0, or -1 with a message naming the file
 * and the event (t is then freed). */
#define TRACE_READ_MAX_BYTES ((uint64_t)64 << 20)
int trace_read_chrome(struct trace *t, const char *path, size_t max_events,
		      struct trace_read_stats *st, struct error *e);

/* Perfetto's protobuf trace (perfetto.protos.Trace): track descriptors
 * for processes, threads, async and counter tracks, track events; packet
 * timestamps in CLOCK_MONOTONIC (timestamp_clock_id 3) with a clock
 * snapshot against BOOTTIME. */
int trace_write_perfetto(const struct trace *t,
			 const struct trace_write_opts *o, const char *path,
			 struct trace_write_stats *st, struct error *e);

#endif
