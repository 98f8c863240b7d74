/*
 * `yardstick roofline`, shared between its files: roofline.c (options and
 * dispatch), roofline_measure.c (--measure: the ceilings), roofline_count.c
 * (--count: a program's FLOPs and bytes counted, then timed),
 * REFS and --machine in roofline.c, through the engine's
 * engine/roofline_place.h.
 */
#ifndef YS_CMD_ROOFLINE_H
#define YS_CMD_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result/result.h"
#include "util/error.h"

struct roofline_args {
	bool measure;		/* --measure */
	bool machine;		/* --machine */
	bool count;		/* --count */
	bool quick;		/* --measure --quick */
	const char *json;	/* --json FILE */
	char **outs;		/* -o FILE (repeatable): roofline.svg */
	size_t nouts;
	const char *store;	/* --store PATH */
	bool no_store;
	bool quiet;
	long threads;		/* --threads N: 0 all cores */
	long runs;		/* --runs N (--count's timed runs) */
	bool runs_given;
	char **argv;		/* --count: the program after "--" */
	char **refs;		/* REFS: the operands */
	size_t nrefs;
	const char *ceilings;	/* --ceilings REF|FILE */
	long point_threads;	/* --point-threads N (default 1) */
	int precision;		/* --precision: 0 fp64, 1 fp32 */
	int pattern;		/* --pattern: 0 triad, 1 copy, 2 load */
	bool place_given;	/* one of the four above was given */
};

int roofline_measure(const struct roofline_args *a);
int roofline_count(const struct roofline_args *a);
/* --machine (a->machine) or REFS. */
int roofline_place(const struct roofline_args *a);

/* Place the benchmarks of r under this machine's stored ceilings, as
 * REFS does (the table, --json, -o): --count calls it once it has timed
 * the program. Returns the exit code. */
int roofline_place_result(const struct result *r,
			  const struct roofline_args *a);

#endif
