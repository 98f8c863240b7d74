/*
 * Python frames in sampled stacks, for `record` and `trace`: at each
 * sample of a CPython process (python_proc.h recognises it), the sampled
 * thread's Python frames are read at once (python.h's walker through
 * process_vm_readv, while the thread may already run on) and each
 * interpreter-evaluation frame (_PyEval_EvalFrameDefault) of the native
 * chain is replaced with the Python frames it was running, innermost
 * first, the native frames above and below kept — as `py-spy --native`
 * does. Python frames travel as symtab_synth addresses.
 *
 * Never guessed: when the walk fails a check, or the chain's evaluation
 * frames are not as many as the walk's C-level evaluations (a broken
 * frame-pointer chain, a truncated DWARF unwind, a thread caught between
 * the two), the sample keeps its native frames and is counted
 * unreadable.
 */
#ifndef YS_PROFILE_PYSTACKS_H
#define YS_PROFILE_PYSTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/symbolize.h"

struct pystacks;

/* Frames of Python code are named "qualname (file.py:FIRSTLINE)" —
 * FIRSTLINE the function's first line, so that a function is one entry
 * of a top table and same-named functions of two files stay apart —
 * with the file and the executing line as the frame's file and line, and
 * PYSTACKS_MODULE as module. */
#define PYSTACKS_MODULE "[python]"

/* The interpreter's own code that no symbol names (a stripped python3's
 * static functions): in a stack with Python frames it is left out, its
 * time the Python frame's that runs it (as py-spy shows it); in a stack
 * kept native each run of it is one frame of this name, in the
 * interpreter's module. */
#define PYSTACKS_INTERP "[CPython interpreter]"


/* Whether f is a Python frame (its module PYSTACKS_MODULE). */
bool pystacks_is_python(const struct frame *f);

/*
 * The one naming rule of frames in every output of record, mem and trace
 * (docs/guide/python.md): a Python frame is "qualname (file.py:FIRSTLINE)",
 * the function's def line, and with lines "qualname (file.py:LINE)", the
 * line executing; another frame is its function, and with lines
 * "function (file:LINE)" when its line is known. malloc'd.
 */
char *pystacks_label(const struct frame *f, bool lines);

struct pystacks *pystacks_new(struct symtab *s);
void pystacks_free(struct pystacks *ps);

/*
 * How the run was set up, before it starts: ready when its samples carry
 * stack copies (dwarf) and the reader wakes at every sample — what a
 * CPython needs; program is what was started (argv[0]), or NULL when the
 * user chose frame pointers (-g fp). A run not ready reads no Python
 * frames and its summary says why (python_proc.h's py_argv_runs_python
 * could not tell program runs Python).
 */
void pystacks_set_run(struct pystacks *ps, bool ready, const char *program);

/* Why the reader could not run at real-time priority (sampler_stats'
 * rt_why), for the summary's "read too late"; NULL or "" if it did. */
void pystacks_set_reader(struct pystacks *ps, const char *why);

/*
 * --python off: no Python frames are read; a CPython's samples keep their
 * native frames, each run of the interpreter's unnamed code one
 * PYSTACKS_INTERP frame as in a stack kept native with --python on, so
 * that both views name the interpreter's frames alike. Before the run.
 */
void pystacks_set_native(struct pystacks *ps);

/*
 * Process pid is the CPython pp describes (python_proc.h: what a probe
 * finds), read through pp->t from now on (pp moved in, py_proc_move: a
 * process's reads then go through ps's copy alone), without a probe of
 * its own:
 * its memory may be a test's or a fuzz target's (tests/fuzz/
 * fuzz_python_walk.c) rather than a process's. Until it execs or exits.
 */
struct py_proc;
void pystacks_attach(struct pystacks *ps, uint32_t pid,
		     const struct py_proc *pp);

/* The process mapped path (a python* or libpython* file: look for
 * CPython again at its next sample), forked from ppid, exec'd, exited. */
void pystacks_mmap(struct pystacks *ps, uint32_t pid, const char *path);
void pystacks_fork(struct pystacks *ps, uint32_t pid, uint32_t ppid);
void pystacks_exec(struct pystacks *ps, uint32_t pid);
void pystacks_exit(struct pystacks *ps, uint32_t pid);

/*
 * A sample of thread tid of pid taken at time (ns, CLOCK_MONOTONIC): read
 * its Python frames now, before anything else (the thread runs on), for
 * the pystacks_merge that follows. Nothing is read when pid is not a
 * supported CPython, or when the sample is older than
 * PYSTACKS_MAX_LAG_NS: its Python frames now are not the sample's
 * (sampler_opts.prompt keeps the lag short).
 */
#define PYSTACKS_MAX_LAG_NS 2000000
void pystacks_capture(struct pystacks *ps, uint32_t pid, uint32_t tid,
		      uint64_t time);

/* The same for a sample taken as the thread left its CPU (record
 * --idle): not counted in the thread's samples and GIL share. */
void pystacks_capture_offcpu(struct pystacks *ps, uint32_t pid, uint32_t tid,
			     uint64_t time);

/*
 * With the sample's registers and stack copy (dwarf mode), check the
 * capture against them: the evaluation loop keeps its instruction
 * pointer into the running function's bytecode in a register or on the
 * C stack, so when no register and no stack word points into the
 * innermost Python frame's bytecode, that frame is not the one the
 * sample caught (the thread returned from it, or called another, since)
 * and the capture is dropped, counted as changed (by pystacks_merge,
 * which knows whether the copy reached an evaluation frame: one cut short
 * before any holds no trace of it either way, and the capture is kept).
 */
void pystacks_check(struct pystacks *ps, const uint64_t *regs,
		    size_t nregs, const uint8_t *stack, size_t stack_size);

/*
 * The chain ips[0..n) (leaf first; ips[0] the sampled IP, the others
 * return addresses) of the sample just captured, with its Python frames
 * in, into out (at most max). Returns the new length; the chain as it
 * was when nothing was captured or the frames do not fit it (then, cut,
 * ending in a [truncated] frame: symtab_mark_cut).
 *
 * cut: the native walk stopped short of the thread's outermost frame
 * (symtab_unwind's *cut: in a JIT's code, such as oneDNN's kernels or
 * CPython's -X perf trampolines, or at the end of the stack copy). Its
 * evaluation frames are then the innermost ones: they take the innermost
 * Python frames, the Python frames left follow the native chain, and
 * after them the thread's native frames outside its outermost
 * evaluation, as its last whole stack had them if that stack's outermost
 * Python frame is this one's (else none: the stack starts at its
 * outermost Python frame rather than under a root that is not its own;
 * pystacks_hold can wait for a later one).
 */
size_t pystacks_merge(struct pystacks *ps, const uint64_t *ips, size_t n,
		      bool cut, uint64_t *out, size_t max);

/*
 * A stack the last pystacks_merge cut short with no base known for its
 * thread under its outermost Python frame (its first samples in a JIT's
 * code, or on a loaded machine, where the samples before it were read
 * too late): pystacks_hold keeps a copy of ips[0..n) with tag (the
 * caller's: record's sample weight, trace's sample index) and returns
 * true, until the thread's first whole stack under that frame (whose
 * native frames outside the outermost evaluation stay the same while
 * that frame lives) gives them; false when the last merge was not such
 * a stack, or the held stacks are at their bound (32 MiB). pystacks_release
 * hands the held stacks that now have their base to emit, bases
 * appended, in the order held; all: every one (at the end of the run, or
 * before an exec renames the process's stacks), those still without a
 * base as they were.
 */
bool pystacks_hold(struct pystacks *ps, uint32_t pid, const uint64_t *ips,
		   size_t n, uint64_t tag);
typedef void (*pystacks_emit_fn)(void *arg, uint32_t pid,
				 const uint64_t *ips, size_t n, uint64_t tag);
void pystacks_release(struct pystacks *ps, bool all, pystacks_emit_fn emit,
		      void *arg);

/*
 * Whether the native chain ips[0..n) of thread of pid (leaf first, as
 * unwound) is waiting for the GIL: a frame in take_gil or in the entry
 * points that take it back (PyEval_RestoreThread ...). 1, 0, or -1 when
 * pid is not a supported CPython.
 */
int pystacks_gil_wait(struct pystacks *ps, uint32_t pid, const uint64_t *ips,
		      size_t n);

/* What the merges came to. */
struct pystacks_stats {
	uint64_t samples;		/* of supported CPython processes */
	uint64_t merged;		/* with Python frames put in */
	uint64_t merged_cut;		/* ... of them, onto a native chain
					 * cut short (pystacks_merge) */
	uint64_t rootless;		/* ... of them, held (pystacks_hold)
					 * and no base came */
	uint64_t truncated;		/* ... of them, of a recursion deeper
					 * than PY_MAX_DEPTH: the innermost
					 * frames, then [truncated] */
	uint64_t unreadable;		/* kept native: the walk failed a
					 * check */
	uint64_t mismatched;		/* kept native: evaluation frames
					 * and walk disagreed */
	uint64_t stale;			/* kept native: read too late */
	uint64_t changed;		/* ... or the innermost frame was
					 * no longer the sample's */
	uint64_t unready;		/* kept native: the run was not set
					 * up for Python (pystacks_set_run) */
	uint64_t nopython;		/* native, and rightly: no Python
					 * code was running (start-up,
					 * shut-down, a thread Python does
					 * not know) */
	uint64_t lag_ns_max;		/* of the samples read in time */
	uint64_t lag_ns_sum;
};
void pystacks_stats(const struct pystacks *ps, struct pystacks_stats *st);

/* The Python threads seen in samples (struct pystacks_thread, below):
 * how many, and the i-th. */
size_t pystacks_nthreads(const struct pystacks *ps);
const struct pystacks_thread *pystacks_thread_at(const struct pystacks *ps,
						 size_t i);

#define PYSTACKS_BASE_MAX 32

/* Per Python thread seen in samples: its name (threading's main thread
 * "MainThread"; a threading.Thread's own name, read from the Thread
 * object its outermost frame, Thread._bootstrap, runs for, at the
 * thread's first sample that walks and every 64th sample after; else
 * the OS thread name), on-CPU samples,
 * and samples in which it held the GIL (gil_known of them could tell). */
struct pystacks_thread {
	uint32_t pid, tid;
	char name[64];
	uint64_t samples, gil, gil_known;
	uint64_t tstate;		/* the PyThreadState last seen */
	bool py_named;			/* name is threading's */
	unsigned name_tries;		/* reads of it that failed */
	/* its native frames outside its outermost evaluation, from its
	 * last stack walked whole (pystacks_merge), and that stack's
	 * outermost Python frame (its _PyInterpreterFrame and code) */
	uint64_t base[PYSTACKS_BASE_MAX];
	uint32_t nbase;
	uint64_t base_frame, base_code;
};


/*
 * The summary for a terminal, to fp: the warnings (always), and unless
 * quiet the samples of CPython processes (with Python frames, kept
 * native and why) and the Python threads (name, samples, share holding
 * the GIL). Nothing when no CPython was seen. Names are escaped.
 */
void pystacks_fput_report(const struct pystacks *ps, bool quiet, FILE *fp);

#endif
