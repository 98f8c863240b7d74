/*
 * Unit tests of the roofline model (src/roofline/model.c, points.c) and
 * of the checks of the ceilings (sanity.c, at the end):
 * which ceilings apply, the roof, the binding and next ceilings and the
 * verdict's words, against numbers computed by hand from a made-up
 * machine whose ceilings are powers of two (so every product and ridge
 * is exact):
 *
 *   fp64, 1 thread: scalar 8, sse2 16, avx2_fma 64 GFLOP/s
 *   triad, 1 thread: L1 256, L2 128, L3 64, DRAM 16 GB/s
 *   ridge points under the 64 GFLOP/s roof: L1 0.25, L2 0.5, L3 1,
 *   DRAM 4 FLOP/B
 *   fp32 avx2_fma 1 thread 128; 2 threads: fp64 avx2_fma 128, DRAM triad
 *   20; load, 1 thread: L1 512
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/model.h"
#include "roofline/points.h"
#include "roofline/sanity.h"

#define G 1e9

static struct roof_ceiling cpu(const char *isa, const char *prec,
			       int threads, double v)
{
	struct roof_ceiling c = { .type = ROOF_COMPUTE, .threads = threads,
				  .value = v };

	snprintf(c.isa, sizeof(c.isa), "%s", isa);
	snprintf(c.precision, sizeof(c.precision), "%s", prec);
	return c;
}

static struct roof_ceiling mem(const char *level, const char *pattern,
			       int threads, double v)
{
	struct roof_ceiling c = { .type = ROOF_MEMORY, .threads = threads,
				  .bytes = 4096, .value = v };

	snprintf(c.level, sizeof(c.level), "%s", level);
	snprintf(c.pattern, sizeof(c.pattern), "%s", pattern);
	return c;
}

static struct roof_ceiling machine[16];
static struct roof_ceilings all = { machine, 0 };

static void make_machine(void)
{
	size_t n = 0;

	machine[n++] = cpu("scalar", "fp64", 1, 8 * G);
	machine[n++] = mem("DRAM", "triad", 1, 16 * G);
	machine[n++] = cpu("avx2_fma", "fp64", 1, 64 * G);
	machine[n++] = mem("L2", "triad", 1, 128 * G);
	machine[n++] = cpu("sse2", "fp64", 1, 16 * G);
	machine[n++] = mem("L1", "triad", 1, 256 * G);
	machine[n++] = mem("L3", "triad", 1, 64 * G);
	/* a smaller working set of L3 measured lower: the largest counts */
	machine[n++] = mem("L3", "triad", 1, 40 * G);
	machine[n++] = cpu("avx2_fma", "fp32", 1, 128 * G);
	machine[n++] = cpu("avx2_fma", "fp64", 2, 128 * G);
	machine[n++] = mem("DRAM", "triad", 2, 20 * G);
	machine[n++] = mem("L1", "load", 1, 512 * G);
	all.n = n;
}

static void select_model(struct roof_model *m, int threads,
			 const char *prec, const char *pattern)
{
	struct roof_select s = { threads, prec, pattern };
	struct error e;

	make_machine();
	assert_int_equal(roof_model_select(&all, &s, m, &e), 0);
}

static void test_select(void **state)
{
	struct roof_model m;
	struct roof_select s = { 1, "fp64", "triad" };
	struct error e;

	(void)state;
	select_model(&m, 1, "fp64", "triad");
	assert_int_equal(m.ncompute, 3);
	assert_string_equal(m.compute[0]->isa, "avx2_fma");
	assert_string_equal(m.compute[1]->isa, "sse2");
	assert_string_equal(m.compute[2]->isa, "scalar");
	assert_true(roof_peak(&m) == 64 * G);
	assert_true(m.mem[ROOF_L3]->value == 64 * G);
	assert_true(m.mem[ROOF_DRAM]->value == 16 * G);
	assert_true(roof_ridge(&m, m.mem[ROOF_DRAM]) == 4);
	assert_true(roof_ridge(&m, m.mem[ROOF_L1]) == 0.25);

	select_model(&m, 2, "fp64", "triad");
	assert_int_equal(m.ncompute, 1);
	assert_true(roof_peak(&m) == 128 * G);
	assert_null(m.mem[ROOF_L1]);
	assert_true(roof_at(&m, 1) == 20 * G);

	select_model(&m, 1, "fp32", "triad");
	assert_true(roof_peak(&m) == 128 * G);
	assert_true(roof_at(&m, 1) == 16 * G);

	select_model(&m, 1, "fp64", "load");
	assert_true(m.mem[ROOF_L1]->value == 512 * G);
	assert_null(m.mem[ROOF_DRAM]);
	assert_true(roof_at(&m, 0.0625) == 32 * G);

	/* what is missing is named */
	s.threads = 2;
	s.precision = "fp32";
	assert_int_equal(roof_model_select(&all, &s, &m, &e), -1);
	assert_string_equal(e.msg, "no fp32 compute ceiling for 2 threads");
	s.precision = "fp64";
	s.pattern = "copy";
	assert_int_equal(roof_model_select(&all, &s, &m, &e), -1);
	assert_string_equal(e.msg, "no copy bandwidth for 2 threads");
	s.threads = 3;
	assert_int_equal(roof_model_select(&all, &s, &m, &e), -1);
	assert_string_equal(e.msg, "no fp64 compute ceiling for 3 threads");
	s.threads = 0;
	assert_int_equal(roof_model_select(&all, &s, &m, &e), -1);
}

static void test_roof_at(void **state)
{
	struct roof_model m;

	(void)state;
	select_model(&m, 1, "fp64", "triad");
	/* the slowest level's line up to the peak */
	assert_true(roof_at(&m, 1) == 16 * G);
	assert_true(roof_at(&m, 4) == 64 * G);	/* the ridge exactly */
	assert_true(roof_at(&m, 3.5) == 56 * G);
	assert_true(roof_at(&m, 1e12) == 64 * G);
	assert_true(roof_at(&m, 1.0 / 1024) == 16 * G / 1024);
	assert_true(isnan(roof_at(&m, 0)));
	assert_true(isnan(roof_at(&m, -1)));
	assert_true(isnan(roof_at(&m, NAN)));
	assert_true(isnan(roof_at(&m, INFINITY)));
}

static void place(const struct roof_model *m, double flops, double ai,
		  struct roof_verdict *v, const char *text)
{
	char buf[160];
	struct error e;

	assert_int_equal(roof_place(m, flops, ai, v, &e), 0);
	assert_string_equal(roof_verdict_text(v, buf, sizeof(buf)), text);
}

static void test_ridge(void **state)
{
	struct roof_model m;
	struct roof_verdict v;

	(void)state;
	select_model(&m, 1, "fp64", "triad");
	/* at DRAM's ridge (4 FLOP/B) its line meets the peak: compute */
	place(&m, 60 * G, 4, &v, "compute-bound (fp64 avx2_fma): 94% of the "
	      "compute roof");
	assert_false(v.memory_bound);
	assert_true(v.top);
	assert_true(v.roof == 64 * G);
	assert_true(v.fraction == 60.0 / 64);
	assert_null(v.next);
	assert_true(isnan(v.next_factor));
	/* just left of it: DRAM's line, 56 GFLOP/s at 3.5 */
	place(&m, 50 * G, 3.5, &v, "memory-bound (DRAM): 89% of the DRAM "
	      "roof; compute roof 1.3× away");
	assert_true(v.memory_bound);
	assert_string_equal(v.ceiling->level, "DRAM");
	assert_true(v.roof == 56 * G);
	assert_true(v.next_top);
	assert_true(v.next_factor == 64.0 / 50);
}

static void test_levels(void **state)
{
	struct roof_model m;
	struct roof_verdict v;

	(void)state;
	select_model(&m, 1, "fp64", "triad");
	/* 0.5 FLOP/B: DRAM 8, L3 32, L2 64 (= the peak: does not count),
	 * L1 128; compute 8, 16, 64. 19.52 is 61% of L3's 32. */
	place(&m, 19.52 * G, 0.5, &v, "memory-bound (L3): 61% of the L3 "
	      "roof; compute roof 3.3× away");
	assert_true(fabs(v.fraction - 0.61) < 1e-12);
	assert_true(fabs(v.next_factor - 64 / 19.52) < 1e-12);
	/* below DRAM's 8: DRAM binds, the next line up is L3's */
	place(&m, 4 * G, 0.5, &v, "memory-bound (DRAM): 50% of the DRAM "
	      "roof; L3 roof 8.0× away");
	/* below the scalar and sse2 peaks too, but left of the ridge the
	 * memory lines bind: a lower instruction set binds only a point
	 * that no line holds */
	place(&m, 12 * G, 0.5, &v, "memory-bound (L3): 38% of the L3 roof; "
	      "compute roof 5.3× away");
	assert_true(v.memory_bound);
	/* right of the ridge, between the scalar and sse2 peaks */
	place(&m, 12 * G, 8, &v, "compute-bound (fp64 sse2): 75% of the "
	      "sse2 roof; compute roof 5.3× away");
	assert_false(v.memory_bound);
	assert_false(v.top);
	assert_string_equal(v.next->isa, "avx2_fma");
	/* tolerance: 10% above DRAM's 16 at 1 FLOP/B is still DRAM's */
	place(&m, 17.5 * G, 1, &v, "memory-bound (DRAM): 109% of the DRAM "
	      "roof; compute roof 3.7× away");
	place(&m, 17.7 * G, 1, &v, "compute-bound (fp64 avx2_fma): 28% of "
	      "the compute roof");
}

static void test_extremes(void **state)
{
	struct roof_model m;
	struct roof_verdict v;
	struct error e;

	(void)state;
	select_model(&m, 1, "fp64", "triad");
	/* tiny intensity: every line far below every compute ceiling */
	place(&m, 10e3, 1e-6, &v, "memory-bound (DRAM): 62% of the DRAM "
	      "roof; L3 roof 6.4× away");
	/* above every roof: the top one (L1's line here), above 100% */
	place(&m, 1e6, 1e-6, &v, "memory-bound (L1): 391% of the L1 roof");
	place(&m, 1e30, 1e-6, &v, "memory-bound (L1): 3.9e+26% of the L1 "
	      "roof");
	assert_null(v.next);
	/* huge intensity: the compute ceilings only */
	place(&m, 1 * G, 1e9, &v, "compute-bound (fp64 scalar): 12% of the "
	      "scalar roof; sse2 roof 16.0× away");
	place(&m, 1 * G, 1e300, &v, "compute-bound (fp64 scalar): 12% of "
	      "the scalar roof; sse2 roof 16.0× away");
	place(&m, 1.6e-3, 1e9, &v, "compute-bound (fp64 scalar): 2e-11% of "
	      "the scalar roof; sse2 roof 1e+13× away");
	/* refused */
	assert_int_equal(roof_place(&m, NAN, 1, &v, &e), -1);
	assert_string_equal(e.msg, "attained rate nan FLOP/s is not a "
			    "positive number");
	assert_int_equal(roof_place(&m, 0, 1, &v, &e), -1);
	assert_int_equal(roof_place(&m, -5, 1, &v, &e), -1);
	assert_int_equal(roof_place(&m, INFINITY, 1, &v, &e), -1);
	assert_int_equal(roof_place(&m, 1 * G, 0, &v, &e), -1);
	assert_string_equal(e.msg, "arithmetic intensity 0 FLOP/B is not a "
			    "positive number");
	assert_int_equal(roof_place(&m, 1 * G, NAN, &v, &e), -1);
	assert_int_equal(roof_place(&m, 1 * G, -1, &v, &e), -1);
	assert_int_equal(roof_place(&m, 1 * G, INFINITY, &v, &e), -1);
}

static void test_rate_text(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(roof_rate_text(64 * G, "FLOP/s", buf,
					   sizeof(buf)), "64.00 GFLOP/s");
	assert_string_equal(roof_rate_text(16e9, "B/s", buf, sizeof(buf)),
			    "16.00 GB/s");
	assert_string_equal(roof_rate_text(5, "FLOP/s", buf, sizeof(buf)),
			    "5 FLOP/s");
	/* beyond the prefixes: no string of 50 digits */
	assert_string_equal(roof_rate_text(1e60, "FLOP/s", buf, sizeof(buf)),
			    "1e+60 FLOP/s");
	assert_string_equal(roof_rate_text(1.5e-60, "FLOP/s", buf,
					   sizeof(buf)), "1.5e-60 FLOP/s");
}

static void test_missing_levels(void **state)
{
	struct roof_ceiling few[3];
	struct roof_ceilings c = { few, 3 };
	struct roof_select s = { 1, "fp64", "triad" };
	struct roof_model m;
	struct roof_verdict v;
	struct error e;

	(void)state;
	few[0] = cpu("avx2_fma", "fp64", 1, 64 * G);
	few[1] = mem("L1", "triad", 1, 256 * G);
	few[2] = mem("DRAM", "triad", 1, 16 * G);
	assert_int_equal(roof_model_select(&c, &s, &m, &e), 0);
	assert_null(m.mem[ROOF_L2]);
	assert_null(m.mem[ROOF_L3]);
	/* above DRAM's 8 at 0.5 FLOP/B, no L3 or L2 known: the peak */
	place(&m, 20 * G, 0.5, &v, "compute-bound (fp64 avx2_fma): 31% of "
	      "the compute roof");
	/* an instruction set measured within 10% of the compute roof is
	 * that roof, not a ceiling below it */
	few[1] = cpu("avx512", "fp64", 1, 62 * G);
	c.n = 3;
	assert_int_equal(roof_model_select(&c, &s, &m, &e), 0);
	assert_string_equal(m.compute[0]->isa, "avx2_fma");
	assert_int_equal(m.ncompute, 1);
	place(&m, 60 * G, 1e6, &v, "compute-bound (fp64 avx2_fma): 94% of "
	      "the compute roof");
	few[1] = cpu("avx512", "fp64", 1, 58 * G);	/* 10.3% below */
	assert_int_equal(roof_model_select(&c, &s, &m, &e), 0);
	place(&m, 50 * G, 1e6, &v, "compute-bound (fp64 avx512): 86% of "
	      "the avx512 roof; compute roof 1.3× away");
	few[1] = mem("L1", "triad", 1, 256 * G);
	/* only a memory level or only compute: refused */
	c.n = 1;
	assert_int_equal(roof_model_select(&c, &s, &m, &e), -1);
	assert_string_equal(e.msg, "no triad bandwidth for 1 thread");
	c.c = few + 1;
	c.n = 2;
	assert_int_equal(roof_model_select(&c, &s, &m, &e), -1);
	assert_string_equal(e.msg, "no fp64 compute ceiling for 1 thread");
}

static void push(struct benchmark *b, const char *name, const char *unit,
		 const double *v, size_t n)
{
	struct metric *m = benchmark_metric(b, name, unit);

	for (size_t i = 0; i < n; i++)
		metric_push(m, v[i]);
}

static void test_points(void **state)
{
	static const double wall[] = { 0.5, 2, 1 }, fl[] = { 1e9, 1e9, 1e9 };
	static const double by[] = { 12e9, 12e9, NAN }, rate[] = { 3e9, 1e9,
								   2e9 };
	static const double ai[] = { 0.5, 0.5 };
	struct roof_points pts = { 0 };
	struct result r, rb;
	struct benchmark *b;
	struct error e;

	(void)state;
	result_init(&r, "run");
	result_set_str(&r, "work_flops", "2*{n}");
	b = result_add_benchmark(&r, "declared", NULL);
	push(b, "wall_time", "s", wall, 3);
	push(b, "work_flops", "flop", fl, 3);
	push(b, "work_bytes", "bytes", by, 3);
	benchmark_add_param(b, "threads", "2");
	b = result_add_benchmark(&r, "pmu", NULL);
	push(b, "wall_time", "s", wall, 3);
	push(b, "flops", "count", fl, 3);
	push(b, "dram_bytes", "bytes", by, 2);
	benchmark_add_param(b, "precision", "fp32");
	b = result_add_benchmark(&r, "none", NULL);
	push(b, "wall_time", "s", wall, 3);
	b = result_add_benchmark(&r, "flops only", NULL);
	push(b, "wall_time", "s", wall, 3);
	push(b, "work_flops", "flop", fl, 3);
	b = result_add_benchmark(&r, "bad", NULL);
	push(b, "wall_time", "s", wall, 3);
	push(b, "work_flops", "flop", fl, 3);
	push(b, "work_bytes", "bytes", by, 2);
	benchmark_add_param(b, "precision", "fp16");
	assert_int_equal(roof_points_add(&pts, &r, &e), 0);
	assert_int_equal(pts.n, 5);
	/* 1e9 FLOPs / median 1 s; 1e9 / 12e9 bytes */
	assert_true(pts.p[0].flops == 1e9);
	assert_true(pts.p[0].ai == 1e9 / 12e9);
	assert_int_equal(pts.p[0].threads, 2);
	assert_string_equal(pts.p[0].precision, "");
	assert_string_equal(pts.p[0].flops_from, "work_flops (2*{n})");
	assert_string_equal(pts.p[0].bytes_from, "work_bytes");
	assert_null(pts.p[0].unplaced);
	assert_string_equal(pts.p[1].flops_from, "flops (PMU)");
	assert_string_equal(pts.p[1].bytes_from, "dram_bytes (PMU)");
	assert_string_equal(pts.p[1].precision, "fp32");
	assert_int_equal(pts.p[1].threads, 0);
	assert_string_equal(pts.p[2].unplaced, "no work declared: use --work "
			    "or --count");
	assert_true(isnan(pts.p[2].flops));
	assert_string_equal(pts.p[3].unplaced, "no bytes declared: use "
			    "--work bytes=EXPR or --count");
	assert_string_equal(pts.p[4].unplaced, "parameter precision 'fp16' "
			    "is neither fp64 nor fp32");
	assert_true(isnan(pts.p[4].ai));

	result_init(&rb, "bench");
	b = result_add_benchmark(&rb, "kernel", NULL);
	push(b, "flops_per_second", "flop/s", rate, 3);
	push(b, "arithmetic_intensity", "flop/byte", ai, 2);
	b = result_add_benchmark(&rb, "plain", NULL);
	push(b, "time_per_op", "s", wall, 3);
	assert_int_equal(roof_points_add(&pts, &rb, &e), 0);
	assert_int_equal(pts.n, 7);
	assert_true(pts.p[5].flops == 2e9);
	assert_true(pts.p[5].ai == 0.5);
	assert_string_equal(pts.p[5].flops_from, "declared (ys_set_flops)");
	assert_string_equal(pts.p[6].unplaced, "no work declared: use "
			    "ys_set_flops and ys_set_bytes");
	result_free(&rb);

	/* ceilings are not points */
	result_init(&rb, "roofline");
	assert_int_equal(roof_points_add(&pts, &rb, &e), -1);
	assert_string_equal(e.msg, "a result of kind 'roofline' holds "
			    "ceilings, not benchmarks: give it with --ceilings; "
			    "the benchmarks to place are results with work "
			    "(run --work, roofline --count -- PROGRAM)");
	assert_int_equal(pts.n, 7);
	result_free(&rb);
	result_free(&r);
	roof_points_free(&pts);
}

/* A cache ceiling below DRAM's (same threads, same pattern) is warned
 * with both values; one above it, DRAM itself, a compute ceiling, or
 * one whose DRAM counterpart has other threads or another pattern are
 * not. Every pair of the generated grid is checked against the rule
 * stated independently: below iff a cache level and a DRAM ceiling of the
 * same threads and pattern holds a larger value. */
static void test_below_dram(void **state)
{
	static const char *const levels[] = { "L1", "L2", "L3", "DRAM" };
	static const char *const patterns[] = { "load", "triad" };
	struct roof_ceiling c[2 * 4 * 2 + 1];
	size_t n = 0;
	char buf[512];

	(void)state;
	for (int t = 1; t <= 2; t++)
		for (int l = 0; l < 4; l++)
			for (int p = 0; p < 2; p++) {
				struct roof_ceiling x = { .type = ROOF_MEMORY,
							  .threads = t,
							  .bytes = 4096 };

				snprintf(x.level, sizeof(x.level), "%s",
					 levels[l]);
				snprintf(x.pattern, sizeof(x.pattern), "%s",
					 patterns[p]);
				/* DRAM 10.4 GB/s (t 1) or 20 (t 2); L3
				 * triad 1 thread 8.6, below it; every
				 * other cache above */
				x.value = l == 3 ? (t == 1 ? 10.4e9 : 20e9)
					: (l == 2 && p == 1 && t == 1) ? 8.6e9
					: (100.0 - 10 * l) * 1e9;
				c[n++] = x;
			}
	c[n++] = (struct roof_ceiling){ .type = ROOF_COMPUTE, .threads = 1,
					.isa = "scalar", .precision = "fp64",
					.value = 1e9 };
	for (size_t i = 0; i < n; i++) {
		bool want = false;

		for (size_t k = 0; k < n; k++)
			want |= c[i].type == ROOF_MEMORY &&
				strcmp(c[i].level, "DRAM") &&
				c[k].type == ROOF_MEMORY &&
				!strcmp(c[k].level, "DRAM") &&
				c[k].threads == c[i].threads &&
				!strcmp(c[k].pattern, c[i].pattern) &&
				c[i].value < c[k].value;
		assert_int_equal(roof_ceiling_below_dram(c, n, i, buf,
							 sizeof(buf)), want);
		if (want)
			assert_string_equal(buf, "L3 triad 1 thread measured "
				"at 8.6 GB/s, slower than DRAM triad 1 thread "
				"at 10.4 GB/s: its working set (4096 bytes) was "
				"not served by L3 (a cache smaller than sysfs "
				"says, or a machine busy while it was "
				"measured)");
	}
}

/* The caches of a real machine pass; a virtual machine's 480 MiB L3 on 2
 * CPUs (240 MiB a CPU) and a cache of more than 1/8 of the memory are
 * capped at 2 MiB a CPU sharing it, with a warning at their level. */
/* cpuid's caches, decoded from registers written here by hand: the
 * deterministic leaves (sizes = ways x partitions x line x sets, the
 * instruction cache skipped, sharers capped at the CPUs there are), AMD's
 * legacy leaves when they describe no level 1 data cache, and nothing. */
static void test_caches_from_cpuid(void **state)
{
	struct roof_cpuid_caches raw;
	struct roof_caches c;

	(void)state;
	memset(&raw, 0, sizeof(raw));
	/* L1d: 12 ways, 64 sets of 64 bytes, 2 sharers */
	raw.det[0][0] = 1 | 1 << 5 | 1 << 14;
	raw.det[0][1] = 11u << 22 | 63;
	raw.det[0][2] = 63;
	/* L1i: skipped */
	raw.det[1][0] = 2 | 1 << 5 | 1 << 14;
	raw.det[1][1] = 7u << 22 | 63;
	raw.det[1][2] = 63;
	/* L2: 10 ways, 2048 sets */
	raw.det[2][0] = 3 | 2 << 5 | 1 << 14;
	raw.det[2][1] = 9u << 22 | 63;
	raw.det[2][2] = 2047;
	/* L3: 12 ways, 2 partitions, 32768 sets, 64 sharers */
	raw.det[3][0] = 3 | 3 << 5 | 63 << 14;
	raw.det[3][1] = 11u << 22 | 1 << 12 | 63;
	raw.det[3][2] = 32767;
	raw.ndet = 4;
	raw.l5_ecx = 32u << 24;		/* ignored: the leaves above say it */
	assert_int_equal(roof_caches_from_cpuid(&raw, 8, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.c[0].level, 1);
	assert_string_equal(c.c[0].type, "Data");
	assert_int_equal(c.c[0].size, 12 * 64 * 64);
	assert_int_equal(c.c[0].shared, 2);
	assert_int_equal(c.c[1].level, 2);
	assert_string_equal(c.c[1].type, "Unified");
	assert_int_equal(c.c[1].size, 10 * 2048 * 64);
	assert_int_equal(c.c[2].level, 3);
	assert_int_equal(c.c[2].size, 12 * 2 * 32768 * 64);
	assert_int_equal(c.c[2].shared, 8);

	/* AMD without TOPOEXT: 0x80000005/6 (what a PVM guest's cpuid
	 * said: 48 KiB, 1 MiB, and 1016 x 512 KiB of L3) */
	memset(&raw, 0, sizeof(raw));
	raw.l5_ecx = 48u << 24 | 12 << 16 | 64;
	raw.l6_ecx = 1024u << 16 | 6 << 12 | 64;
	raw.l6_edx = 1016u << 18 | 9 << 12 | 64;
	assert_int_equal(roof_caches_from_cpuid(&raw, 2, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.c[0].size, 48 << 10);
	assert_int_equal(c.c[0].shared, 1);
	assert_int_equal(c.c[1].size, 1 << 20);
	assert_int_equal(c.c[1].shared, 1);
	assert_int_equal(c.c[2].size, 1016ull << 19);
	assert_int_equal(c.c[2].shared, 2);
	assert_true(c.from_cpuid);
	{
		char warn[5][256];

		/* capped as sysfs' would be, the warning naming cpuid */
		assert_int_equal(roof_caches_sanitize(&c, 24ull << 30, warn),
				 1);
		assert_non_null(strstr(warn[3], "cpuid reports a 508 MiB L3 "
				       "cache shared by 2 CPUs"));
	}
	/* no L3 there */
	raw.l6_edx = 0;
	assert_int_equal(roof_caches_from_cpuid(&raw, 2, &c), 0);
	assert_int_equal(c.n, 2);
	/* deterministic leaves with no data cache: the legacy ones */
	raw.det[0][0] = 2 | 1 << 5;
	raw.det[0][1] = 7u << 22 | 63;
	raw.det[0][2] = 63;
	raw.ndet = 1;
	assert_int_equal(roof_caches_from_cpuid(&raw, 2, &c), 0);
	assert_int_equal(c.c[0].size, 48 << 10);
	/* nothing at all */
	memset(&raw, 0, sizeof(raw));
	assert_int_equal(roof_caches_from_cpuid(&raw, 2, &c), -1);
	assert_int_equal(c.n, 0);
}

static void test_caches_sanitize(void **state)
{
	struct roof_caches real = { .n = 3, .c = {
		{ 1, "Data", 48 << 10, 2 }, { 2, "Unified", 2 << 20, 2 },
		{ 3, "Unified", 96u << 20, 16 } } };
	struct roof_caches vm = { .n = 3, .c = {
		{ 1, "Data", 32 << 10, 1 }, { 2, "Unified", 1 << 20, 1 },
		{ 3, "Unified", 480u << 20, 2 } } };
	struct roof_caches small = { .n = 1, .c = {
		{ 2, "Unified", 64u << 20, 8 } } };
	char warn[5][256];

	(void)state;
	assert_int_equal(roof_caches_sanitize(&real, 16ull << 30, warn), 0);
	assert_true(real.c[2].size == 96u << 20);
	for (int l = 0; l < 5; l++)
		assert_int_equal(warn[l][0], 0);
	assert_int_equal(roof_caches_sanitize(&vm, 16ull << 30, warn), 1);
	assert_true(vm.c[2].size == 4u << 20 && vm.c[1].size == 1u << 20);
	assert_string_equal(warn[3], "sysfs reports a 480 MiB L3 cache shared "
		"by 2 CPUs, more than this machine can have (over 16 MiB a "
		"CPU): measured with 4 MiB (a virtual machine may report its "
		"host's cache); its ceiling may be DRAM's");
	assert_int_equal(warn[2][0], 0);
	/* 8 MiB a CPU is plausible, but not 64 MiB of 256 MiB of memory */
	assert_int_equal(roof_caches_sanitize(&small, 1ull << 30, warn), 0);
	assert_int_equal(roof_caches_sanitize(&small, 256ull << 20, warn), 1);
	assert_true(small.c[0].size == 16u << 20);
	assert_non_null(strstr(warn[2], "over 1/8 of its memory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_caches_from_cpuid),
		cmocka_unit_test(test_roof_at),
		cmocka_unit_test(test_ridge),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_missing_levels),
		cmocka_unit_test(test_rate_text),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_below_dram),
		cmocka_unit_test(test_caches_sanitize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
