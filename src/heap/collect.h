/*
 * The yardstick side of `mem`'s collection: run a program with the heap
 * agent preloaded, take in the agent's records while it runs and what is
 * left in its buffers when it ends (however it ends), and sample the
 * program's resident set size from /proc meanwhile. The result is raw:
 * one stream of records per agent slot, the stacks and the program's
 * memory maps. heap_analyze (analyze.h) makes sense of it.
 */
#ifndef YS_HEAP_COLLECT_H
#define YS_HEAP_COLLECT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "heap/protocol.h"
#include "util/error.h"

struct heap_opts {
	const char *agent;	/* the agent's path (heap_find_agent) */
	uint64_t sample_bytes;	/* 0: trace every allocation */
	uint64_t sample_rate;	/* sampled: samples a second a thread takes
				 * at most, its interval raised above that
				 * (0: no limit; agent_sample.h) */
	enum heap_unwind unwind;
	unsigned max_depth;	/* frames per stack, <= HEAP_MAX_DEPTH */
	double rss_interval;	/* seconds between RSS samples, 0: 0.01 */
	bool stdout_to_stderr;	/* the program's stdout is yardstick's
				 * stderr: a result is on stdout */
	bool python;		/* walk a CPython program's Python frames */
	bool replay_live;	/* replay while the program runs (analyze.h,
				 * heap_live) rather than after its end */
	/* set (by a signal handler: stop.h) to have the program and what it
	 * started killed; what it sent is still read */
	volatile sig_atomic_t *interrupt;
};

/* The records of one slot, in time order; where its STACK and PYCODE
 * records are, found while it came in (collect.c). */
struct heap_stream {
	uint64_t *words;
	size_t n, cap;
	uint64_t base;		/* words dropped before words[0] (a replay
				 * while the program runs: heap_live) */
	uint64_t last_ts;	/* the stamp of its last event (the last
				 * free of a BURST) */
	size_t scanned;		/* words walked: the next record's start */
	uint64_t *faulted;	/* words from here on not yet in memory */
	size_t *stacks;		/* word index of each whole STACK or PYCODE
				 * record */
	size_t nstacks, capstacks;
};


struct heap_rss {
	double t;		/* seconds since the program started */
	double bytes;
};

struct heap_live;

struct heap_trace {
	struct heap_stream streams[HEAP_SLOTS];
	struct heap_live *live;	/* replayed while the program ran, NULL:
				 * after its end (analyze.h) */
	char **maps;		/* the texts of /proc/PID/maps, oldest first */
	uint32_t *maps_gen;	/* the program image each is of */
	uint32_t *maps_unloads;	/* and its unloads then (protocol.h) */
	size_t nmaps;
	struct heap_counts counts;	/* summed over the slots */
	/* the program images of the process tree by number, [0] unused
	 * (protocol.h; what the agents wrote: bound it), and how many
	 * started beyond the table's room */
	struct heap_image *images;
	uint32_t nimages, images_lost;
	/* the ends of the processes of the tree other than the program, as
	 * yardstick saw them (gone or a zombie, looked for every RSS
	 * sample): seconds since the start, in time order */
	struct heap_end {
		int32_t pid;
		double t;
	} *ends;
	size_t nends, capends;
	uint32_t overflow_threads, unwind_failed, sample_full, stopped;
	/* allocation calls of the program that returned NULL (protocol.h) */
	uint64_t failed_allocs;
	/* a CPython program: its Py_Version (0: none), enum heap_py, and
	 * whether PYTHONMALLOC was set to other than malloc (protocol.h) */
	uint32_t py_version, py_status, py_malloc;
	/* damage (heap_trace_incomplete): bytes on the socket that were no
	 * message of the agent's (the program wrote them), chunks of
	 * records sent and lost (cut by such bytes), records the agent
	 * could not keep (t->counts.dropped: sending had stopped), and the
	 * segment's header found overwritten */
	uint64_t garbage_bytes, lost_chunks;
	bool header_damaged;
	int shm_fd, sock_fd;	/* the descriptors the program had */
	uint64_t sample_bytes;
	uint64_t sample_rate;	/* heap_opts' */
	unsigned max_depth;	/* native frames kept per stack */
	bool all_processes;	/* launchers counted too (analyze.h,
				 * heap_launchers); set before heap_analyze */
	bool agent_started;	/* the agent ran in the program */
	/* time stamps to seconds: t = (ts - ts0) / ticks_per_s */
	uint64_t ts0;
	double ticks_per_s;
	double duration;	/* seconds, from spawn to exit */
	struct heap_rss *rss;
	size_t nrss, caprss;
	pid_t pid;
	int status;		/* raw wait status */
	bool interrupted;	/* killed at heap_opts.interrupt */
	/* what it left running when it ended, killed (child.h: with
	 * child_subreaper); the first of them by name */
	size_t strays;
	char stray_names[192];
	double peak_rss;	/* bytes: the program's VmHWM (at exit, or the
				 * last sample before a crash), else wait4's */
	double hwm;		/* the largest VmHWM seen */
	uint64_t bytes_received;	/* of messages on the socket and of
					 * chunks handed over */
};

/*
 * The agent: $YARDSTICK_HEAP_AGENT if set, else libyardstick-heap.so next
 * to this executable (the build tree), else in LIBDIR/yardstick/ beside
 * the binary's directory (an install, moved or not), else in the
 * configured prefix's. A malloc'd path, or NULL
 * with a message naming the places looked at.
 */
char *heap_find_agent(struct error *e);

/* The agent's file name: a frame in it is the agent's own (sites.c leaves
 * them out of every stack: the program never called them) */
#define HEAP_AGENT_NAME "libyardstick-heap.so"

/*
 * Why a preloaded agent cannot work with the program at path, or NULL:
 * a statically linked program, a set-user/group-ID one, or one built
 * with a sanitizer that replaces malloc. Returns a static string.
 * *defines_malloc: whether the program (a script's interpreter) defines
 * malloc itself (heap/elfalloc.h): an allocator of its own, whose calls
 * the agent does not see, or a wrapper, which passes them on to it.
 */
const char *heap_unpreloadable(const char *path, bool *defines_malloc);

/*
 * Run argv (argv[0] resolved to path) with stdin, stdout and stderr its
 * own (its stdout our stderr with o->stdout_to_stderr), to its end. SIGINT and SIGQUIT go to the program only; yardstick
 * stays to take in what was traced. Returns 0 when the program ran
 * (whatever its exit status), -1 (message set) when it could not be
 * started or watched; the trace is then empty.
 */
/*
 * Is the trace short of what the program did (records lost or not sent,
 * threads untraced, the agent's memory damaged)? The counts of
 * t->counts are exact all the same, unless header_damaged.
 */
bool heap_trace_incomplete(const struct heap_trace *t);

/*
 * What to say of the program's allocation calls that returned NULL, into
 * buf: 0 when there were none, else 1. The agent's shared memory counts in
 * the program's address space: a limit (RLIMIT_AS, ulimit -v) that the
 * program sets itself comes sooner under mem than without.
 */
int heap_failed_allocs_note(const struct heap_trace *t, char *buf,
			    size_t size);

/*
 * Whether an address-space limit (RLIMIT_AS, ulimit -v) leaves room for
 * mem's shared memory and the least of yardstick's own work: 0, or -1
 * with a message saying how much more it needs (without it, yardstick ran
 * out of memory somewhere: "out of memory", or "cannot start the heap
 * reader thread"). *limit: the limit in bytes, 0 without one. The
 * program, which maps the segment too, has that much less of it under
 * mem than natively (heap_failed_allocs_note).
 */
int heap_address_room(size_t *limit, struct error *e);

/* The address space the agent's shared memory takes, in each process. */
size_t heap_segment_bytes(void);

int heap_collect(const struct heap_opts *o, const char *path,
		 char *const *argv, struct heap_trace *t, struct error *e);
void heap_trace_free(struct heap_trace *t);

#endif
