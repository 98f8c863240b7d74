/*
 * The counting of `yardstick roofline --count`: a program's floating-point
 * operations and the bytes it loads and stores, counted under valgrind
 * with ysflops (src/roofline/ysflops/), a valgrind tool of our own, where
 * no PMU can count them. The run itself (the child, its messages) and the
 * timing through run's path are cmd/roofline_count.c's.
 */
#ifndef YS_ENGINE_ROOFLINE_COUNT_H
#define YS_ENGINE_ROOFLINE_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "result/result.h"
#include "util/error.h"

#define ROOFLINE_COUNT_TOOL "ysflops"
#define ROOFLINE_COUNT_TOOL_FILE ROOFLINE_COUNT_TOOL "-amd64-linux"

/* The totals ysflops writes, summed over the processes (the keys in
 * roofline_count.c, in the order of its key_names). */
struct roofline_counts {
	uint64_t v[21];
	size_t processes;	/* files read */
	size_t incomplete;	/* of them, without their "end" line */
};


/* The directory of the system's valgrind that holds its core's files:
 * $VALGRIND_LIB when set, else where valgrind's prefix puts it
 * (malloc'd), or NULL with e set. */
char *roofline_valgrind_libdir(const char *valgrind, struct error *e);
/* In dir, the private VALGRIND_LIB: a link to the tool, links to every
 * file of vglib. 0, or -1 with e set. */
int roofline_count_libdir(const char *dir, const char *tool,
			  const char *vglib, struct error *e);
/* dir and the files in it, removed. */
void roofline_count_remove_dir(const char *dir);
/* s with every '%' doubled: a path in valgrind's --log-file, which
 * expands %p and %q{VAR} (malloc'd). */
char *roofline_count_pct_escape(const char *s);

/* Sum into c (zeroed first) the files counts.* the processes wrote in
 * dir. 0, or -1 with e set. */
int roofline_counts_read(const char *dir, struct roofline_counts *c,
			 struct error *e);
/* The table of c, counted in secs under the tool; status follows the
 * heading (": PARTIAL, ..."). */
void roofline_counts_print(FILE *fp, const struct roofline_counts *c,
			   double secs, const char *status);

/* The counted work in r (a result of kind "run"): metrics work_flops and
 * work_bytes with one value per timed run of each benchmark, the settings
 * that say they were counted, and the counted_* totals. */
void roofline_count_add_work(struct result *r,
			     const struct roofline_counts *c);

#endif
