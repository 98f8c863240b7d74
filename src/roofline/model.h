/*
 * The roofline model: which of a machine's ceilings apply to a benchmark,
 * the roof at an arithmetic intensity, and the verdict for a point (its
 * attained FLOP/s at its intensity in FLOPs per byte). Pure functions of
 * their arguments.
 *
 * Which ceilings apply (roof_model_select):
 *  - the thread count of the point (a benchmark's parameter "threads",
 *    else the caller's default, 1): only ceilings measured with exactly
 *    that many threads;
 *  - the precision (parameter "precision", fp64 unless fp32 is said):
 *    the compute ceilings of that precision;
 *  - one memory access pattern for every level, triad unless asked (a
 *    streaming kernel reads two arrays and writes one, which is what
 *    most loops over arrays do; load-only is the optimistic roof);
 *  - "the" compute roof is the fastest instruction set measured (avx512
 *    over avx2_fma over sse2 over scalar, by value); the others are
 *    lower compute ceilings, drawn as extra lines and able to bind a
 *    point below them.
 * Where one level has several ceilings of the selection (several working
 * sets), the largest value is taken, as for the repetitions of one.
 *
 * The verdict (roof_place) is the cache-aware roofline's: at intensity
 * AI each memory level L draws the line bw(L) x AI, P is the compute
 * roof. The memory lines below P are tried first, lowest first: the
 * first that the attained rate does not exceed by more than
 * ROOF_TOLERANCE binds (ceilings and benchmarks are measured at
 * different times: a benchmark measured 5% above the DRAM roof is still
 * DRAM's), and the point is memory-bound at that level. A point above
 * every such line is compute-bound when some level's line reaches P at
 * AI (at the ridge point exactly, bw x AI = P, it does): bound by the
 * lowest compute ceiling it does not exceed (a lower instruction set's
 * peak binds a point below it; one within ROOF_TOLERANCE of P is P),
 * else by P. When no line reaches P (AI
 * left of every ridge), a point above every line is held by the top line
 * (more than 100% of it). The next ceiling is the next roof above both
 * the binding one and the point: a faster level's line, or the compute
 * roof after the lines below it.
 */
#ifndef YS_ROOFLINE_MODEL_H
#define YS_ROOFLINE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "roofline/ceilings.h"
#include "util/error.h"

/* A point up to this fraction above a roof is held bound by it. */
#define ROOF_TOLERANCE 0.10

/* The memory levels, fastest first: the index of struct roof_model's
 * mem[]. */
enum { ROOF_L1, ROOF_L2, ROOF_L3, ROOF_DRAM, ROOF_NLEVELS };
extern const char *const roof_level_names[ROOF_NLEVELS];

/* The compute instruction sets a ceiling may name. */
#define ROOF_NISAS 4

struct roof_select {
	int threads;		/* > 0 */
	const char *precision;	/* "fp64" or "fp32" */
	const char *pattern;	/* "load", "copy" or "triad" */
};

/* The ceilings of one selection; pointers into the roof_ceilings given
 * to roof_model_select, which must outlive the model. */
struct roof_model {
	const struct roof_ceiling *mem[ROOF_NLEVELS];	/* NULL: level not
							 * measured */
	const struct roof_ceiling *compute[ROOF_NISAS];	/* fastest first */
	size_t ncompute;	/* >= 1 */
};

/*
 * The ceilings of c that apply to s into *m: 0, or -1 with e saying
 * what is missing ("no fp32 compute ceiling for 2 threads", "no triad
 * bandwidth for 2 threads") when there is no compute ceiling or no
 * memory ceiling of the selection, or s is invalid.
 */
int roof_model_select(const struct roof_ceilings *c,
		      const struct roof_select *s, struct roof_model *m,
		      struct error *e);

/* The compute roof (FLOP/s). */
double roof_peak(const struct roof_model *m);
/* The classic roof at intensity ai: min(peak, bw x ai) over the memory
 * levels measured, i.e. the slowest level's line (DRAM's when measured)
 * up to the peak. NaN for an ai that is not a positive number. */
double roof_at(const struct roof_model *m, double ai);
/* The ridge point of memory ceiling c: the intensity where its line
 * meets the compute roof of m (FLOP/B). */
double roof_ridge(const struct roof_model *m, const struct roof_ceiling *c);

struct roof_verdict {
	bool memory_bound;
	const struct roof_ceiling *ceiling;	/* the binding one */
	bool top;		/* ceiling is the compute roof (m's
				 * compute[0]) */
	double roof;		/* its FLOP/s at the point's intensity */
	double fraction;	/* attained / roof (above 1 when above it) */
	const struct roof_ceiling *next;	/* NULL: none above */
	bool next_top;		/* next is the compute roof */
	double next_roof;	/* its FLOP/s at the intensity (NaN: none) */
	double next_factor;	/* next_roof / attained (NaN: none) */
};

/*
 * Place a point of flops FLOP/s at intensity ai FLOP/B under m: 0, or -1
 * with e naming the number when either is not a positive finite number
 * (NaN, infinite, zero, negative).
 */
int roof_place(const struct roof_model *m, double flops, double ai,
	       struct roof_verdict *v, struct error *e);

/*
 * The verdict in words into buf: "memory-bound (L3): 61% of the L3 roof;
 * compute roof 7.4x away", "compute-bound (fp64 sse2): 80% of the sse2
 * roof; compute roof 2.5x away", "compute-bound: 92% of the compute roof
 * (fp64 avx2_fma)". Returns buf.
 */
char *roof_verdict_text(const struct roof_verdict *v, char *buf, size_t n);

/* A rate for people: "64.00 GFLOP/s", "16.00 GB/s" (4 significant
 * digits, k M G T prefixes), "1e+60 FLOP/s" beyond them. Returns buf. */
char *roof_rate_text(double v, const char *unit, char *buf, size_t n);

#endif
