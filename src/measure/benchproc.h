/*
 * A libyardstick benchmark program run in processes (`yardstick bench`):
 * each process writes its result (kind "bench") to the descriptor named
 * by BENCHPROC_ENV, read through a pipe; the results of one program's
 * processes are merged into one (result/procmerge.h), every value marked
 * with the process that measured it. With a baseline program the two
 * programs' processes alternate A B B A A B B A ... (A the baseline), so
 * that a drift of the machine falls on both alike.
 *
 * A process shifts as a whole with the CPU it lands on and what runs
 * beside it; its epochs are not independent. Processes are the unit a
 * judge can count on: the plan says how many.
 */
#ifndef YS_MEASURE_BENCHPROC_H
#define YS_MEASURE_BENCHPROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"
#include "util/child.h"
#include "util/error.h"

/* The descriptor a process writes its result to, and how it learns it. */
#define BENCHPROC_FD 3
#define BENCHPROC_ENV "YARDSTICK_BENCH_JSON"

/* The program (BENCHPROC_CAND) and the baseline program (BENCHPROC_BASE). */
enum { BENCHPROC_CAND = 0, BENCHPROC_BASE = 1 };

struct benchproc_plan {
	/* the programs (spawn_resolve_program) and their argv, NULL-
	 * terminated; path[BENCHPROC_BASE] NULL: no baseline program */
	const char *path[2];
	char *const *argv[2];
	unsigned processes;	/* of each program, at least 1 */
	double timeout;		/* per process; 0: none */
	size_t max_result;	/* bytes a process may write */
	bool show_output;	/* stdout through (else /dev/null) */
	/* set by a signal handler (no SA_RESTART): the running process is
	 * killed, none other started */
	volatile sig_atomic_t *interrupt;
};

/* Why the processes stopped before all had run. */
enum benchproc_fail {
	BENCHPROC_OK,
	BENCHPROC_START,	/* not started (message; exec_failed) */
	BENCHPROC_PIPE,		/* no pipe, or it could not be read */
	BENCHPROC_ENDED,	/* exited non-zero, killed, timed out or
				 * interrupted: see child */
	BENCHPROC_OVERFLOW,	/* wrote more than max_result */
	BENCHPROC_NO_RESULT,	/* exited 0 without writing a result */
	BENCHPROC_BAD_RESULT,	/* unreadable (message) */
	BENCHPROC_KIND,		/* of another kind: kind */
	BENCHPROC_EMPTY,	/* no benchmark in it */
	BENCHPROC_MERGE,	/* unlike the earlier processes (message) */
	BENCHPROC_INTERRUPTED,	/* *interrupt set between two processes */
};

struct benchproc_run {
	/* each program's merged result (result_merge_finish'ed when any
	 * process of it was measured, else empty) and how many of its
	 * processes were measured */
	struct result res[2];
	unsigned done[2];
	/* the programs in the order their processes ran (BENCHPROC_CAND or
	 * BENCHPROC_BASE), nrun of them; process i's values are marked i */
	unsigned char *order;
	size_t nrun;
	/* the stop: why, which program, how its process ended (status,
	 * timed_out, interrupted), the kind it wrote, what it wrote to its
	 * standard error when that was captured (more than one process:
	 * only a failing one's is shown; NULL otherwise) */
	enum benchproc_fail fail;
	int which;
	struct child child;
	char *kind;
	char *err_text;
	size_t err_len;
	/* what the processes left running when they ended, killed (util/
	 * child.h): how many, over all the processes, the first named */
	size_t strays;
	char stray_names[192];
};


/*
 * Run the plan's processes, one at a time, into *out (initialized here;
 * benchproc_free it). Returns 0 when all ran and wrote a result, -1 when
 * out->fail says why they stopped (with a message in e for those that
 * carry one); what the processes before it measured is kept in out.
 */
int benchproc_run(const struct benchproc_plan *p, struct benchproc_run *out,
		  struct error *e);
/*
 * More processes after benchproc_run (which must have succeeded): up to
 * `processes` of each program in all, continuing the order A B B A ...
 * where it stopped; each program's result merged and finished again.
 * Returns as benchproc_run (0 at once when it already has as many).
 */
int benchproc_more(const struct benchproc_plan *p, struct benchproc_run *out,
		   unsigned processes, struct error *e);
void benchproc_free(struct benchproc_run *out);

#endif
