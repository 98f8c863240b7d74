/*
 * pystacks' state, shared by pystacks.c (the captures and merges) and
 * pystacks_report.c (the labels, the threads, the summary); internal to
 * profile/.
 */
#ifndef YS_PROFILE_PYSTACKS_INTERNAL_H
#define YS_PROFILE_PYSTACKS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/pystacks.h"
#include "profile/python_proc.h"
#include "util/hashmap.h"

enum pstate { P_UNPROBED, P_NONE, P_PYTHON, P_UNSUPPORTED };

struct code_ent {
	uint64_t addr, qualname_ptr, filename_ptr;
	char *name, *file;	/* "qualname (base:first)", co_filename */
	int firstlineno;
	uint8_t *tab;
	size_t tablen;
};

/* (code entry, line) -> its synthetic address */
struct line_ent {
	uint32_t code;
	int line;
	uint64_t addr;
};

struct tid_ent {
	uint32_t tid;
	uint64_t tstate;
};

struct pyp {
	uint32_t pid;
	enum pstate state;
	bool dirty;		/* mapped a file since the probe */
	struct py_proc pp;
	struct tid_ent *tids;
	size_t ntids, captids;
	struct code_ent *codes;
	size_t ncodes, capcodes;
	struct hashidx code_index;	/* codes + 1 by address */
	struct line_ent *lines;
	size_t nlines, caplines;
	struct hashidx line_index;	/* lines + 1 */
	uint64_t interp_frame;		/* [CPython interpreter], 0: not
					 * made yet */
	/* the C library's condition variable waits (py_proc_condwaits),
	 * read at the first off-CPU sample that needs them */
	bool cond_read;
	size_t ncond;
	uint64_t cond_lo[6], cond_hi[6];
};

struct pystacks {
	struct symtab *s;
	struct pyp **procs;
	size_t nprocs, capprocs;
	struct hashidx proc_index;	/* procs + 1 by pid */
	struct pystacks_stats st;
	struct pystacks_thread *threads;
	size_t nthreads, capthreads;
	struct hashidx thread_index;	/* threads + 1 by (pid, tid) */
	char **warnings;
	size_t nwarnings, capwarnings;
	/* one sample's walk, its frames' addresses; a code object's
	 * location table being read */
	struct py_frame frames[PY_MAX_DEPTH];
	uint64_t addrs[PY_MAX_DEPTH];
	uint8_t tab[PY_LINETABLE_MAX];
	/* the run's set-up (pystacks_set_run) */
	bool ready;
	bool native;		/* --python off (pystacks_set_native) */
	char *program;
	char *reader_why;
	/* the sample's process when it is a supported CPython, and the
	 * capture (pystacks_capture), NULL if none */
	struct pyp *proc;
	struct pyp *cur;
	size_t cur_thread;	/* its thread: threads + 1, 0 none */
	bool unchecked;		/* pystacks_check found no trace of the
				 * innermost frame in the stack copy */
	size_t nframes;
	enum py_walk_error cur_err;
	/* the last merge was cut short with no base for its thread and
	 * outermost Python frame (pystacks_hold): that frame */
	bool rootless;
	uint64_t rootless_frame, rootless_code;
	/* the stacks held for their base; a base kept since the last
	 * pystacks_release */
	struct held *held;
	size_t nheld, capheld, held_ips;
	bool base_new;
};

/* A merged stack held until its thread shows its base (pystacks_hold):
 * room for PYSTACKS_BASE_MAX more addresses after its n */
struct held {
	uint32_t pid, n;
	size_t thread;		/* threads + 1 */
	uint64_t frame, code;	/* its outermost Python frame */
	uint64_t tag;		/* the caller's */
	uint64_t *ips;
};

#endif
