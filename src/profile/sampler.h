/*
 * The sampling collector of `record`: starts a program stopped before its
 * exec, opens one sampling perf event per CPU on it (inherit: every thread
 * and child process it starts is followed; enable_on_exec: sampling starts
 * at its exec), maps one ring buffer per CPU, lets it exec, and hands every
 * record to callbacks until the program has exited and the buffers are
 * drained. The program's stdin, stdout and stderr are yardstick's own
 * (its stdout yardstick's stderr with stdout_to_stderr).
 */
#ifndef YS_PROFILE_SAMPLER_H
#define YS_PROFILE_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The defaults of a zero sampler_opts, and the largest stack copy (the
 * largest 8-aligned u16). */
#define SAMPLER_DEFAULT_FREQ 999
#define SAMPLER_DEFAULT_STACK 16384
#define SAMPLER_MAX_STACK 65528
/* A CPython program's: the most. Its evaluation loop's frames, which its
 * Python frames are placed by and checked against (pystacks.h), sit
 * under whatever C or C++ it calls: 16 KB reached them in 84% of
 * ResNet-18's samples, 64 KB in 96% (bench/RESULTS.md). */
#define SAMPLER_PYTHON_STACK SAMPLER_MAX_STACK

struct sampler_opts {
	const char *event;	/* NULL or "cpu-clock" (default), "cycles",
				 * "task-clock", any name perf_event_resolve
				 * accepts */
	int freq;		/* samples per second, default 999 */
	bool dwarf;		/* copy user registers and stack */
	uint32_t stack_size;	/* bytes of stack copied, default 16384 */
	size_t pages;		/* ring buffer data pages per CPU, power of
				 * 2; default 128, with dwarf 60 stack
				 * copies' worth (256 for 16 KiB), less
				 * where the user's memlock limit says
				 * (stats->ring_why) */
	bool stdout_to_stderr;	/* the program's stdout is yardstick's
				 * stderr: an output is on stdout */
	bool switches;		/* context-switch records too (the
				 * sched_switch callback; `trace`) */
	bool wakeups;		/* with switches: every wake-up of a task
				 * too (the wakeup callback; `trace`), from
				 * the sched_wakeup tracepoint opened per
				 * CPU, system-wide: when refused (tracefs
				 * not mounted, not permitted), the run goes
				 * on without and stats say why */
	bool page_faults;	/* a sample of every page fault too (the
				 * page_fault callback; `trace`) */
	bool offcpu;		/* a sample (stack and all) of every time a
				 * thread leaves a CPU too (the offcpu
				 * callback), and the context-switch
				 * records (sched_switch): `record --idle` */
	const char *const *env_add;	/* the program's environment
					 * additions (child.h), or NULL */
	/* set (by a signal handler: stop.h) to have the program and what it
	 * started killed; the records it wrote are still handed out */
	volatile sig_atomic_t *interrupt;
	bool children;		/* sampler_attach: pid's descendant
				 * processes at the attach too */
	bool prompt;		/* wake the reader at every sample, not at
				 * a quarter full: a callback that reads
				 * the sampled process's memory (Python
				 * frames) reads it as soon as can be; and
				 * run the reader at real-time priority
				 * meanwhile (stats->rt, rt_why) */
};

/* A sample as the kernel gave it. */
struct raw_sample {
	uint32_t pid, tid;
	uint64_t time;		/* ns, perf clock (CLOCK_MONOTONIC) */
	uint64_t period;
	const uint64_t *ips;	/* user-space callchain, leaf first, context
				 * markers removed; in dwarf mode just the
				 * sampled IP (after a kernel hit: the user
				 * IP, regs[8]); always user addresses */
	size_t nips;
	bool kernel;		/* the sample hit kernel code (the user
				 * chain is the caller's) */
	bool cut;		/* the callchain stopped at the kernel's
				 * limit (perf_event_max_stack): its
				 * outermost frames are missing */
	/* dwarf mode: user registers (mask SAMPLER_REGS, ascending bit
	 * order) and a copy of the user stack from SP upwards */
	const uint64_t *regs;
	size_t nregs;
	const uint8_t *stack;
	size_t stack_size;
};

/* A new executable mapping of a process (MMAP2, executable only). */
struct raw_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	const char *path;	/* "[vdso]", "//anon", a file path */
	uint64_t time;
};

/*
 * Every pointer a callback gets (the sample, its ips, regs and stack, a
 * path or name) points into the ring buffer or a buffer the sampler
 * reuses: valid until the callback returns, copied if kept. Records come
 * in time order across CPUs (to a few microseconds), so a process's FORK
 * and MMAP2 records come before its samples. Any callback may be NULL.
 *
 * A forked process inherits its parent's mappings without an MMAP2 record
 * for them: only its own later mappings are reported. So at fork(pid,
 * ppid) a symbolizer must copy ppid's mappings to pid, and at a COMM with
 * exec set drop pid's mappings (the MMAP2 records of the new image
 * follow).
 */
struct sampler_callbacks {
	void *arg;
	void (*sample)(void *arg, const struct raw_sample *s);
	void (*mmap)(void *arg, const struct raw_mmap *m);
	/* a process forked from parent, or exited (its main thread did);
	 * threads starting and ending are not reported */
	void (*fork)(void *arg, uint32_t pid, uint32_t ppid);
	void (*exit)(void *arg, uint32_t pid);
	/* a process's name: set by exec (exec true) or prctl; a thread
	 * naming itself is not reported */
	void (*comm)(void *arg, uint32_t pid, const char *name, bool exec);
	/* For a timeline (`trace`): every task, thread or process, starting
	 * (its FORK) or ending (its EXIT), at time (ns, CLOCK_MONOTONIC)... */
	void (*task)(void *arg, uint32_t pid, uint32_t tid, uint64_t time,
		     bool exit);
	/* ...every name a task takes (exec, prctl, pthread_setname_np)... */
	void (*task_comm)(void *arg, uint32_t pid, uint32_t tid,
			  const char *name, uint64_t time);
	/* ...and, with opts.switches, every time a task leaves a CPU (out;
	 * preempt: it was still runnable, else it blocked or slept) or
	 * comes onto one */
	void (*sched_switch)(void *arg, uint32_t pid, uint32_t tid,
			     uint64_t time, bool out, bool preempt);
	/* with opts.wakeups: task tid was woken at time (any task of the
	 * system: the callback keeps its own) */
	void (*wakeup)(void *arg, uint32_t tid, uint64_t time);
	/* with opts.offcpu: a thread left its CPU, its stack where it
	 * stopped (the sched_switch records say when it comes back) */
	void (*offcpu)(void *arg, const struct raw_sample *s);
	/* with opts.page_faults: a page fault at ip (user level) */
	void (*page_fault)(void *arg, uint32_t pid, uint32_t tid,
			   uint64_t time, uint64_t ip);
	/* sampler_attach: a thread the process (or a descendant attached)
	 * had at the attach, which no FORK reports, its events about to be
	 * opened at time: its name then and whether it was asleep (its
	 * /proc state neither running nor runnable: S, D, ...). Each
	 * thread once, before any of its records, those of pid first */
	void (*attached)(void *arg, uint32_t pid, uint32_t tid,
			 const char *name, bool asleep, uint64_t time);
};

/* What the run came to. */
struct sampler_stats {
	int status;		/* the program's wait status */
	uint64_t samples, lost;	/* lost: records the kernel dropped for
				 * want of ring buffer space */
	uint32_t ring_kib;	/* each CPU's ring's data, KiB */
	char ring_why[160];	/* the rings made smaller than the default
				 * for the memlock limit: says so, else "" */
	uint64_t faults;	/* page faults seen (opts.page_faults) */
	int64_t duration_ns;	/* exec to exit (of the first process) */
	int64_t cpu_ns;		/* user + system time of the program and the
				 * children it waited for (wait4), and of
				 * the orphans of its tree yardstick reaped
				 * (child.h, stray_cpu_ns) */
	int ncpus;
	bool interrupted;	/* killed at opts.interrupt */
	/* what it left running when it ended, killed (child.h: with
	 * child_subreaper); the first of them by name */
	size_t strays;
	char stray_names[192];
	bool wakeups;		/* opts.wakeups and the wake-ups were
				 * recorded */
	char wakeups_why[ERROR_MSG_MAX];	/* else, with opts.wakeups:
						 * why not (an error's
						 * message, whole) */
	bool rt;		/* opts.prompt: the reader ran at real-time
				 * priority */
	char rt_why[128];	/* else, with opts.prompt: why not */
	bool ended;		/* sampler_attach: the process exited while
				 * sampled */
	uint64_t start_ns;	/* sampler_attach: when sampling began
				 * (CLOCK_MONOTONIC), duration_ns from it */
	/* sampler_attach with opts.children: the descendant processes
	 * attached besides pid; those passed over as zombies (exited, not
	 * yet waited for: nothing to sample); those not permitted (another
	 * user's), skipped, the first of them by pid and name */
	size_t children, zombies, refused;
	/* sampler_attach: the records dropped as second copies of a task
	 * two of our events followed (famfilter.h): one inherited during
	 * the attach and found again */
	uint64_t second_copies;
	uint32_t refused_pid;
	char refused_name[64];
};

/* x86-64 registers copied in dwarf mode (PERF_REG_X86_*): the ones DWARF
 * CFI needs — AX..DI, BP, SP, IP and R8..R15. */
#define SAMPLER_REGS 0xff0fffULL

/* What sampler_run came to. */
enum sampler_result {
	SAMPLER_OK = 0,			/* the program ran */
	SAMPLER_FAILED = -1,		/* anything else (an unknown event
					 * name among them) */
	SAMPLER_NOT_STARTED = -2,	/* the program cannot be started */
	SAMPLER_REFUSED = -3,		/* perf events not permitted or not
					 * supported here */
};

/*
 * Run argv (argv[0] is looked up in PATH) under the sampler. Returns
 * SAMPLER_OK when the program ran (whatever its exit status, in
 * stats->status), SAMPLER_NOT_STARTED when it cannot be started (message
 * names it; exit 2), SAMPLER_REFUSED when perf events are not permitted or
 * not supported (message from perf_event_open_strerror: it names the
 * sysctl kernel.perf_event_paranoid or the capability CAP_PERFMON, or
 * suggests cpu-clock; exit 3), SAMPLER_FAILED for other failures. Every process
 * started on the way has been reaped when it returns.
 *
 * The program is in yardstick's process group and gets a terminal's
 * SIGINT itself (the program starts with SIGINT, SIGTERM, SIGPIPE and
 * SIGCHLD at their defaults whatever yardstick does with them). When
 * *opts.interrupt is set (stop.h's handler) the program is killed
 * (stats->interrupted), and the sampler drains until it is reaped.
 * Processes the program leaves running after it exits are killed at its
 * reap when the caller is a subreaper (child_subreaper; stats->strays).
 */
enum sampler_result sampler_run(const struct sampler_opts *o,
				char *const *argv,
				const struct sampler_callbacks *cb,
				struct sampler_stats *stats, struct error *e);

/* The descendant processes pid has now (the tree walked a generation at
 * a time, until one adds no process), into *pids (malloc'd, pid not among them): their
 * number. */
size_t sampler_descendants(uint32_t pid, uint32_t **pids);

/*
 * Sample process pid, running already, instead of a program started
 * (`record --pid`): one event per thread it has and CPU (inherit: the
 * threads and processes they start later are followed), opened and
 * enabled at once, writing into one ring per CPU; with opts.children
 * the same for every descendant process it has at the attach (the tree
 * walked a generation at a time, until one adds no process; a zombie is
 * passed over, one not permitted skipped: stats say so). The executable mappings of
 * each (which no record reports) are handed to cb->mmap first, from
 * /proc/PID/maps. Runs until duration_ns has passed (0: no limit),
 * *o->interrupt is set or pid exits (stats->ended); no process is ever
 * signalled, stopped or waited for. stats->cpu_ns is the CPU time they
 * used meanwhile (/proc/PID/stat of each), duration_ns from the attach
 * (start_ns) to the end (or pid's exit), status 0. The threads they
 * have at the attach are handed to cb->attached as their events are
 * opened. opts.wakeups as sampler_run (system-wide, refusal not fatal);
 * opts.page_faults is not supported. Returns SAMPLER_OK, SAMPLER_NOT_STARTED when there
 * is no such process (or it exited while the events were opened),
 * SAMPLER_REFUSED when perf events on pid are not permitted (the message
 * names ptrace and kernel.perf_event_paranoid) or the limit of open
 * files is too low for them, SAMPLER_FAILED.
 */
enum sampler_result sampler_attach(const struct sampler_opts *o, uint32_t pid,
				   uint64_t duration_ns,
				   const struct sampler_callbacks *cb,
				   struct sampler_stats *stats,
				   struct error *e);

#endif
