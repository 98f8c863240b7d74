/*
 * A machine's roofline ceilings, and how they live in a result of kind
 * "roofline" (so that the store, `history`, `compare` and every writer
 * keep them like any other result):
 *
 *   one benchmark per ceiling, named "fp64 avx2_fma 1 thread" or
 *   "L2 triad 2 threads", with the parameters
 *     compute: ceiling=compute isa=scalar|sse2|avx2_fma|avx512
 *              precision=fp64|fp32 threads=N
 *     memory:  ceiling=memory level=L1|L2|L3|DRAM
 *              pattern=load|copy|triad threads=N bytes=WORKING_SET
 *   and one metric, "flops_per_second" (unit "flop/s") for compute and
 *   "bytes_per_second" (unit "bytes/s") for memory, a value per
 *   repetition. The ceiling is the largest value: a ceiling is what the
 *   machine can do, and every repetition below it lost time to something
 *   else.
 */
#ifndef YS_ROOFLINE_CEILINGS_H
#define YS_ROOFLINE_CEILINGS_H

#include <stddef.h>
#include <stdint.h>

#include "result/result.h"
#include "util/error.h"

#define ROOF_KIND "roofline"

enum roof_type { ROOF_COMPUTE, ROOF_MEMORY };

struct roof_ceiling {
	enum roof_type type;
	char isa[16];		/* compute: "scalar", "sse2", "avx2_fma",
				 * "avx512" */
	char precision[8];	/* compute: "fp64", "fp32" */
	char level[8];		/* memory: "L1", "L2", "L3", "DRAM" */
	char pattern[8];	/* memory: "load", "copy", "triad" */
	int threads;
	uint64_t bytes;		/* memory: the working set */
	double value;		/* FLOP/s or bytes/s: the largest of the
				 * repetitions */
};

struct roof_ceilings {
	struct roof_ceiling *c;
	size_t n;
};

/* The benchmark name of c ("fp64 avx2_fma 1 thread", "L2 triad 2
 * threads") into buf; returns buf. */
char *roof_ceiling_name(const struct roof_ceiling *c, char *buf, size_t n);

/* Add c to r (kind ROOF_KIND) as a benchmark with its repetitions'
 * values[0..n) (c->value is not used: the reader takes the largest). */
void roof_ceiling_add(struct result *r, const struct roof_ceiling *c,
		      const double *values, size_t n);

/*
 * The ceilings of r: 0, or -1 with e naming the benchmark whose
 * parameters or metric are missing or wrong (a result of another kind
 * is refused too). *out is the caller's to roof_ceilings_free.
 */
int roof_ceilings_read(const struct result *r, struct roof_ceilings *out,
		       struct error *e);
void roof_ceilings_free(struct roof_ceilings *c);

#endif
