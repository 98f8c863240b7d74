/*
 * Making sense of a heap trace (collect.h): the slots' records merged into
 * one time order and replayed — every block from its allocation to its
 * free — into totals, the peak and what was live at it, leaks, temporary
 * allocations, a size histogram and the heap over time, per allocation
 * site (a distinct stack). Then the sites are symbolized into a profile.
 *
 * Definitions, the first two as heaptrack's:
 * - sizes are the bytes asked for, not what the allocator used;
 * - the peak is the largest sum of live blocks at any moment, of the
 *   whole process tree (every image's live blocks summed: the tree's
 *   heap; a forked child's copies of its parent's blocks are counted
 *   once, as its parent's), and of each image its own;
 * - a temporary allocation, yardstick's own definition: a block freed by
 *   the thread that allocated it before that thread allocated or freed
 *   anything else (judged by the agent, which sees each thread's calls in
 *   order, by address), so a program's count does not depend on how its
 *   threads interleaved. heaptrack's is not this: it counts a free when
 *   the event before it in the whole process allocated a block of the
 *   same size and stack, whichever block is freed (allocate a and b
 *   alike, free a: heaptrack 1, yardstick 0), and so counts more.
 * In sampled mode a traced block of s bytes stands for 1 / p blocks and
 * s / p bytes, p = 1 - exp(-s / BYTES) its chance of being traced; the
 * peak, the leaks, the sites and the timeline are estimates, the counts
 * of allocations, bytes and temporaries exact.
 */
#ifndef YS_HEAP_ANALYZE_H
#define YS_HEAP_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap/collect.h"
#include "heap/stackstore.h"
#include "profile/profile.h"

struct heap_site {
	uint64_t hash;
	/* its native frames and a CPython program's Python frames
	 * (protocol.h), in heap_report.stacks (stackstore.h: written out
	 * leaf first, innermost first, as the STACK record had them) */
	struct stack_ref stack;
	uint32_t gen;		/* the program image (1 + execs before) */
	uint32_t unloads;	/* the image's unloads: its maps texts
				 * (protocol.h) */
	double allocations, bytes, temporary;
	double leaked_blocks, leaked_bytes;
	double peak_bytes;	/* live at the peak */
	double pyend_blocks, pyend_bytes;	/* live when its image's
						 * Python code ended (PYEND,
						 * protocol.h) */
	uint64_t order;		/* heap_order of its STACK record (the
				 * first), or HEAP_ORDER_LOST | n: none */
	/* replay state */
	double live;
	uint64_t last_mod;
};

/* A Python code object of a CPython program (a PYCODE record): its
 * texts point into the trace, not NUL-terminated. */
struct heap_pycode {
	uint32_t gen, id;
	int firstlineno;
	const char *file, *name;
	uint32_t file_len, name_len;
};

/*
 * A program image of the process tree (protocol.h, images): the process
 * yardstick started, each image after an exec, each forked child, each
 * process started with the agent. Its own allocations: a forked child's
 * live blocks are those it allocated (its copies of its parent's are its
 * parent's, freed by it unmatched). Its peak is the largest sum of its
 * live blocks at any moment.
 */
struct heap_proc {
	int32_t pid;		/* 0: unknown (beyond the table) */
	int32_t ppid;		/* its parent process */
	uint32_t parent;	/* forked from that image, 0: none */
	uint32_t replaced;	/* exec'd over that image, 0: none */
	char cmd[HEAP_CMD_MAX + 1];
	double allocations, bytes, frees, peak, leaked_blocks, leaked_bytes;
	double live;		/* replay state */
	bool seen;		/* it recorded anything */
	bool py_ended;		/* its interpreter began to finalize
				 * (PYEND): its Python code ended */
	uint64_t pyend_ts;	/* then: its stamp */
	bool launcher;		/* ran in front of the program: not in the
				 * tree's figures (heap_launchers) */
};

#define HEAP_TIMELINE 1000

struct heap_point {
	double t;		/* seconds since the start */
	double heap;		/* bytes live: the most in the interval */
	double rss;		/* bytes resident (NaN: no sample) */
};

struct heap_report {
	struct heap_site *sites;
	size_t nsites;
	struct stackstore *stacks;	/* the sites' frames */
	struct heap_pycode *pycodes;
	size_t npycodes;
	size_t py_mismatched;	/* sites of Python frames whose native
				 * stack did not fit them (heap_profile):
				 * kept native */
	double allocations, bytes, frees, temporary;
	double peak, peak_t;
	double leaked_bytes, leaked_blocks;
	/* A CPython program: the blocks live when its Python code ended
	 * (the main module, its non-daemon threads and atexit handlers
	 * done; Py_FinalizeEx then frees the modules' globals, which are
	 * so never leaks), summed over the counted images whose
	 * interpreter began to finalize (py_ends; 0: none did, as a
	 * program not CPython or one that left by os._exit) */
	size_t py_ends;
	double pyend_bytes, pyend_blocks;
	double pyend_t;		/* the first image's moment, seconds */
	double hist_count[HEAP_HIST];	/* by size class: 0, 1, 2-3, 4-7,
					 * ... (exact in both modes) */
	struct heap_point *timeline;
	size_t ntimeline;
	double peak_rss;
	bool estimated;		/* sampled: see above */
	/* sampled: blocks sampled, those drawn at a raised interval (the
	 * throttle: agent_sample.h), and the most doublings of any */
	uint64_t samples, samples_raised;
	uint32_t raised_max;
	bool launch_exact;	/* sampled: the launchers' exact counts were
				 * known and taken off the agent's (else
				 * the exact counts include them) */
	uint64_t unmatched_frees;	/* of blocks never seen allocated */
	uint64_t execs;		/* images replaced by exec */
	struct heap_proc *procs;	/* by image number; [0]: images
					 * beyond the table */
	size_t nprocs;
	uint64_t events;
	uint64_t held_bytes;	/* the most bytes of records yardstick
				 * held at once */
	uint64_t stack_bytes;	/* and of the stacks' store, at the end */
	uint64_t nstacks;	/* the distinct stacks it keeps */
	uint64_t stacks_damaged;	/* stack records sent as a tail of
					 * one not there (protocol.h, stack
					 * tails): their sites have no
					 * frames */
};

/* Replay t into r (with t->live, finish that replay). Returns 0. */
int heap_analyze(const struct heap_trace *t, struct heap_report *r);

/* A record's place in the trace: its slot, and its word in the slot's
 * stream since the start (heap_stream.base). Sites are in this order. */
#define HEAP_ORDER_LOST (UINT64_C(1) << 63)
static inline uint64_t heap_order(uint32_t slot, uint64_t pos)
{
	return (uint64_t)slot << 48 | pos;
}

/*
 * A replay while the program runs (collect.h, heap_trace.live): the
 * collector's reader thread hands it every STACK and PYCODE record as
 * it comes (heap_live_record, pos as heap_order's) and, now and then,
 * has it replay the events whose merge keys are below a bound it knows
 * no record still to come can be under (heap_live_advance; tree: the
 * process tree has more than one image, or processes ended, whose
 * records need the whole trace: the rest waits for the end). The streams'
 * words it is done with are dropped. heap_analyze finishes it; the sites
 * point into it, so it lives as long as the trace (heap_trace_free).
 * heap_live_clock gives it the clock's rate, measured once the program
 * ran a little, before it advances (a free's merge key is a microsecond
 * before its stamp).
 */
struct heap_live *heap_live_new(struct heap_trace *t);
void heap_live_clock(struct heap_live *l, double ticks_per_s);
void heap_live_record(struct heap_live *l, uint32_t slot, uint64_t pos,
		      const uint64_t *w);
void heap_live_advance(struct heap_live *l, uint64_t below, bool tree);
void heap_live_free(struct heap_live *l);
void heap_report_free(struct heap_report *r);

/*
 * What ran in front of the program (analyze_launch.c has the rule: the
 * images the program's process exec'd away from, and every process they
 * started), kept out of the totals, the peak, the timeline, the sites and
 * the processes unless the trace says all_processes. Their own counts
 * stay in their heap_proc rows (launcher set); with --sample the exact
 * counts of the whole tree (the agent's) still include them.
 */
struct heap_launch {
	size_t processes;	/* processes other than the program's */
	size_t images;		/* the program's own images before its exec */
	double allocations;	/* theirs, all of them */
	char names[160];	/* "bash: pyenv, readlink, ...": the first
				 * few distinct names */
};
void heap_launchers(const struct heap_report *r, struct heap_launch *l);

/* Does site s count in r's figures (not a launcher's)? */
static inline bool heap_site_counted(const struct heap_report *r,
				     const struct heap_site *s)
{
	return !(s->gen < r->nprocs && r->procs[s->gen].launcher);
}

/* The lower bound of size class i of the histogram. */
uint64_t heap_hist_low(int i);

/* The sample types of heap_profile's profile, in order. */
enum heap_type {
	HEAP_T_ALLOC_OBJECTS, HEAP_T_ALLOC_SPACE, HEAP_T_INUSE_OBJECTS,
	HEAP_T_INUSE_SPACE, HEAP_T_TEMPORARY, HEAP_T_PEAK_SPACE,
	HEAP_T_PYEND_SPACE,	/* only when r->py_ends: then the
				 * profile has HEAP_NTYPES types, else
				 * one less */
	HEAP_NTYPES
};

/*
 * The sites of r as a profile (types as above; "inuse" is at the end of
 * the program, that is leaked), symbolized with the program's maps from
 * t; with lines, frames carry file:line. Sites whose stacks symbolize the
 * same are one stack of the profile. cache_dir: the symbolizer's disk
 * cache (profile/symcache.h), NULL for none. A CPython program's sites
 * with Python frames have each _PyEval_EvalFrameDefault frame replaced by
 * the Python functions it ran, innermost first, named as `record` names
 * them (profile/pystacks.h: "qualname (file.py:FIRSTLINE)", the file and
 * executing line as the frame's, with lines or not). A native stack cut
 * at the depth limit, or that stopped short of the C library's root
 * frames (heap_root_frame: a frame-pointer walk through code built
 * without them), takes the Python frames left over at its outer end;
 * one whose interpreter frames are not as many as the Python frames'
 * evaluations stays native (counted in r->py_mismatched: never a wrong
 * frame).
 */
void heap_profile(const struct heap_trace *t, struct heap_report *r,
		  bool lines, const char *cache_dir, struct profile *p);
/* The same profile, each site's frames looked up one by one rather than
 * read through the stack store's paths (heap/sitepath.h, and per node of
 * the Python trie):
 * the reference heap_profile is checked against (tests/unit/
 * test_heap_paths.c). */
void heap_profile_by_frame(const struct heap_trace *t,
			   struct heap_report *r, bool lines,
			   const char *cache_dir, struct profile *p);

/* Is function one of the C library's frames under main or under a
 * thread's function (where a whole native stack ends)? */
bool heap_root_frame(const char *function);

#endif
