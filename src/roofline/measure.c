/* The ceilings measured on a pool of pinned threads: see measure.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/kernels.h"
#include "roofline/measure.h"
#include "util/monoclock.h"
#include "util/strutil.h"

enum job_kind { JOB_PREPARE, JOB_COMPUTE, JOB_LOAD, JOB_COPY, JOB_TRIAD,
		JOB_CLOCK, JOB_EXIT };

struct job {
	enum job_kind kind;
	int threads;		/* workers 0..threads-1 take part */
	uint64_t iters;		/* kernel iterations or sweeps */
	size_t n;		/* doubles per array per thread */
	double (*compute)(uint64_t);
	bool avx2;		/* the memory kernels of kern_avx2.c */
};

struct worker {
	struct roof_pool *p;
	pthread_t t;
	int idx;
	double *buf;		/* three arrays, ROOFK_ALIGN aligned */
	size_t cap;		/* doubles */
	bool failed;		/* the last JOB_PREPARE could not allocate */
	double t0, t1;		/* the last job's start and end, taken by
				 * the worker itself */
	double sink;
};

struct roof_pool {
	int n;
	struct worker *w;
	pthread_barrier_t start, end;
	struct job job;
	atomic_int arrived;	/* the job's threads past the barrier */
	bool avx2;
	/* the workers wait for every one of them to start before they use
	 * the barriers (sized for all): 1 go, -1 give up, 0 not yet */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;
};

/* Where array k of a worker starts: apart by n and 64 doubles more, so
 * that the arrays do not share their low address bits (4K aliasing). */
#define ARRAY(w, n, k) ((w)->buf + (size_t)(k) * ((n) + 64))

static void prepare(struct worker *w, size_t n)
{
	size_t need = 3 * (n + 64);

	w->failed = false;
	if (w->cap < need) {
		free(w->buf);
		w->cap = 0;
		w->buf = aligned_alloc(ROOFK_ALIGN, need * sizeof(double));
		if (!w->buf) {
			w->failed = true;
			return;
		}
		w->cap = need;
	}
	/* touched by the thread that will use it: its NUMA node */
	for (size_t i = 0; i < n; i++) {
		ARRAY(w, n, 0)[i] = 1.0;
		ARRAY(w, n, 1)[i] = 2.0;
		ARRAY(w, n, 2)[i] = 0.5;
	}
}

static void work(struct worker *w, const struct job *j)
{
	/* the arrays exist for the memory kernels only (allocated by the
	 * JOB_PREPARE before them) */
	bool mem = j->kind == JOB_LOAD || j->kind == JOB_COPY ||
		j->kind == JOB_TRIAD;
	double *a = mem ? ARRAY(w, j->n, 0) : NULL,
	       *b = mem ? ARRAY(w, j->n, 1) : NULL,
	       *c = mem ? ARRAY(w, j->n, 2) : NULL;

	switch (j->kind) {
	case JOB_PREPARE:
		prepare(w, j->n);
		break;
	case JOB_COMPUTE:
		w->sink += j->compute(j->iters);
		break;
	case JOB_LOAD:
		(j->avx2 ? roofk_load_avx2 : roofk_load_sse2)(a, j->n,
							       j->iters);
		break;
	case JOB_COPY:
		(j->avx2 ? roofk_copy_avx2 : roofk_copy_sse2)(b, a, j->n,
							       j->iters);
		break;
	case JOB_TRIAD:
		(j->avx2 ? roofk_triad_avx2 : roofk_triad_sse2)(a, b, c, 0.5,
								 j->n,
								 j->iters);
		break;
	case JOB_CLOCK:
		roofk_clock(j->iters);
		break;
	case JOB_EXIT:
		break;
	}
}

static void spin_pause(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#endif
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct roof_pool *p = w->p;
	int state;

	pthread_mutex_lock(&p->mu);
	while (!p->state)
		pthread_cond_wait(&p->cv, &p->mu);
	state = p->state;
	pthread_mutex_unlock(&p->mu);
	if (state < 0)
		return NULL;
	for (;;) {
		struct job j;

		pthread_barrier_wait(&p->start);
		j = p->job;
		if (j.kind == JOB_EXIT)
			break;
		if (w->idx < j.threads) {
			/* the barrier wakes the threads one by one, a
			 * scheduler's latency apart on a busy machine: they
			 * start together once all are awake */
			atomic_fetch_add(&p->arrived, 1);
			while (atomic_load(&p->arrived) < j.threads)
				spin_pause();
			w->t0 = monoclock_s();
			work(w, &j);
			w->t1 = monoclock_s();
		}
		pthread_barrier_wait(&p->end);
	}
	return NULL;
}

int roof_pool_start(struct roof_pool **pp, const int *cpus, int ncpus,
		    int threads, struct error *e)
{
	struct roof_pool *p = xcalloc(1, sizeof(*p));
	struct roof_cpuid_raw raw;
	struct roof_cpu cpu;
	int err = 0;

	roof_cpuid_read(&raw);
	roof_cpu_decode(&raw, &cpu);
	p->avx2 = cpu.has[ROOF_ISA_AVX2_FMA];
	p->w = xcalloc((size_t)threads, sizeof(*p->w));
	pthread_barrier_init(&p->start, NULL, (unsigned)threads + 1);
	pthread_barrier_init(&p->end, NULL, (unsigned)threads + 1);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	for (int i = 0; i < threads && !err; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpus[i % ncpus], &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		p->w[i].p = p;
		p->w[i].idx = i;
		err = pthread_create(&p->w[i].t, &attr, worker_main, &p->w[i]);
		pthread_attr_destroy(&attr);
		if (!err)
			p->n++;
	}
	pthread_mutex_lock(&p->mu);
	p->state = err ? -1 : 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (err) {
		roof_pool_stop(p);
		return error_errno(e, err, "cannot start %d threads", threads);
	}
	*pp = p;
	return 0;
}

/*
 * Run j on the pool: the seconds from the first thread's start to the
 * last one's end. The workers take the times themselves, right around
 * their work, once all of them are awake: a thread preempted on the way
 * only makes the time longer, never shorter (this thread, preempted
 * between a barrier and its clock, would make it shorter), and the
 * threads of an all-cores ceiling run at the same time, sharing what
 * they share (L3, DRAM).
 */
static double run_job(struct roof_pool *p, const struct job *j)
{
	double t0 = 0, t1 = 0;

	p->job = *j;
	atomic_store(&p->arrived, 0);
	pthread_barrier_wait(&p->start);
	pthread_barrier_wait(&p->end);
	for (int i = 0; i < j->threads; i++) {
		if (i == 0 || p->w[i].t0 < t0)
			t0 = p->w[i].t0;
		if (i == 0 || p->w[i].t1 > t1)
			t1 = p->w[i].t1;
	}
	return t1 - t0;
}

/* Run j: the shortest time one thread took for its part, for the
 * calibration (a thread that started late, or was preempted, does not
 * make the count of iterations too small). */
static double run_own(struct roof_pool *p, const struct job *j)
{
	double best = 0;

	run_job(p, j);
	for (int i = 0; i < j->threads; i++)
		if (i == 0 || p->w[i].t1 - p->w[i].t0 < best)
			best = p->w[i].t1 - p->w[i].t0;
	return best;
}

void roof_pool_stop(struct roof_pool *p)
{
	if (!p)
		return;
	if (p->state > 0) {
		p->job.kind = JOB_EXIT;
		pthread_barrier_wait(&p->start);
	}
	for (int i = 0; i < p->n; i++) {
		pthread_join(p->w[i].t, NULL);
		free(p->w[i].buf);
	}
	pthread_barrier_destroy(&p->start);
	pthread_barrier_destroy(&p->end);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->w);
	free(p);
}

enum roof_isa roof_isa_of(const char *name)
{
	for (int i = 0; i < ROOF_NISA; i++)
		if (!strcmp(name, roof_isa_name((enum roof_isa)i)))
			return (enum roof_isa)i;
	return ROOF_NISA;
}

static double (*const compute_kernels[ROOF_NISA][2])(uint64_t) = {
	{ roofk_fp64_scalar, roofk_fp32_scalar },
	{ roofk_fp64_sse2, roofk_fp32_sse2 },
	{ roofk_fp64_avx2, roofk_fp32_avx2 },
	{ roofk_fp64_avx512, roofk_fp32_avx512 },
};

/* The arrays a memory pattern streams over. */
static int pattern_arrays(const char *pattern)
{
	return !strcmp(pattern, "load") ? 1 : !strcmp(pattern, "copy") ? 2 : 3;
}

/* The job of c, and the work of one iteration on one thread (FLOPs or
 * bytes) into *unit. */
static void job_of(const struct roof_pool *p, const struct roof_ceiling *c,
		   struct job *j, double *unit)
{
	memset(j, 0, sizeof(*j));
	j->threads = c->threads;
	j->avx2 = p->avx2;
	if (c->type == ROOF_COMPUTE) {
		enum roof_isa isa = roof_isa_of(c->isa);
		bool fp32 = !strcmp(c->precision, "fp32");

		j->kind = JOB_COMPUTE;
		j->compute = compute_kernels[isa][fp32];
		*unit = ROOFK_FLOPS(roof_isa_bytes(isa), fp32 ? 4 : 8);
		return;
	}
	j->n = (size_t)(c->bytes / (uint64_t)c->threads /
			(uint64_t)pattern_arrays(c->pattern) / 8);
	j->kind = !strcmp(c->pattern, "load") ? JOB_LOAD :
		!strcmp(c->pattern, "copy") ? JOB_COPY : JOB_TRIAD;
	*unit = (double)j->n * 8 * pattern_arrays(c->pattern);
}

/* Iterations of j that take about target seconds. */
static uint64_t calibrate(struct roof_pool *p, struct job *j, double target)
{
	uint64_t iters = 1;

	for (;;) {
		double t, scale;

		j->iters = iters;
		/* the shorter of two: one preemption does not stop the
		 * calibration early */
		t = run_own(p, j);
		scale = run_own(p, j);
		if (scale < t)
			t = scale;
		if (t >= target / 2 || iters >= UINT64_MAX / 64)
			return t >= target || t <= 0 ? iters :
				(uint64_t)(iters * (target / t)) + 1;
		scale = t > 0 ? target / t : 64;
		iters *= scale > 64 ? 64 : scale < 2 ? 2 : (uint64_t)scale;
	}
}

int roof_run(struct roof_pool *p, const struct roof_ceiling *c, int reps,
	     double target, double *values, struct error *e)
{
	struct job j;
	double unit;

	if (c->threads < 1 || c->threads > p->n)
		return error_set(e, "ceiling of %d threads on a pool of %d",
				 c->threads, p->n);
	job_of(p, c, &j, &unit);
	if (c->type == ROOF_MEMORY) {
		struct job prep = j;
		bool failed = false;

		if (j.n < ROOFK_ALIGN / 8 || j.n % (ROOFK_ALIGN / 8) ||
		    (uint64_t)j.n * 8 * (uint64_t)pattern_arrays(c->pattern) *
		    (uint64_t)c->threads != c->bytes)
			return error_set(e, "working set of %llu bytes: not "
					 "a whole number of %d-byte blocks "
					 "per thread and array",
					 (unsigned long long)c->bytes,
					 ROOFK_ALIGN);
		prep.kind = JOB_PREPARE;
		run_job(p, &prep);
		for (int i = 0; i < c->threads; i++)
			failed = failed || p->w[i].failed;
		if (failed)
			return error_errno(e, ENOMEM, "cannot allocate %llu "
					   "bytes for the %s working set",
					   (unsigned long long)c->bytes,
					   c->level);
	}
	j.iters = calibrate(p, &j, target);
	for (int r = 0; r < reps; r++) {
		double t = run_job(p, &j);

		values[r] = t > 0 ? unit * (double)j.iters * c->threads / t :
			0;
	}
	return 0;
}

double roof_clock_hz(struct roof_pool *p, int reps, double target)
{
	struct job j = { .kind = JOB_CLOCK, .threads = 1 };
	double best = 0;

	j.iters = calibrate(p, &j, target);
	for (int r = 0; r < reps; r++) {
		double t = run_job(p, &j);

		if (t > 0 && (double)j.iters * ROOFK_CLOCK_ADDS / t > best)
			best = (double)j.iters * ROOFK_CLOCK_ADDS / t;
	}
	return best;
}

/* ---- the plan ---------------------------------------------------------- */

/* Round a working set of total bytes for threads threads and an access
 * pattern of arrays arrays down to whole blocks per array and thread. */
static uint64_t whole_blocks(uint64_t total, int threads, int arrays)
{
	uint64_t per = total / (uint64_t)threads / (uint64_t)arrays;

	per -= per % ROOFK_ALIGN;
	if (per < ROOFK_ALIGN)
		per = ROOFK_ALIGN;
	return per * (uint64_t)threads * (uint64_t)arrays;
}

/* The working set of a cache level for threads threads: half of each
 * instance of the cache the threads spread over. */
static uint64_t cache_set(const struct roof_cache *c, int threads)
{
	uint64_t instances = ((uint64_t)threads + (uint64_t)c->shared - 1) /
		(uint64_t)c->shared;

	return instances * (c->size / 2);
}

static void add(struct roof_ceiling **v, size_t *n, size_t *cap,
		const struct roof_ceiling *c)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = *c;
}

void roof_plan(const struct roof_machine *m, int threads, uint64_t dram_min,
	       struct roof_ceiling **out, size_t *n)
{
	static const char *const patterns[] = { "load", "copy", "triad" };
	static const char *const precisions[] = { "fp64", "fp32" };
	int counts[2] = { 1, threads };
	int nt = threads > 1 ? 2 : 1;
	const struct roof_cache *llc = &m->caches.c[m->caches.n - 1];
	uint64_t dram;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	for (int isa = 0; isa < ROOF_NISA; isa++)
		for (int p = 0; p < 2 && m->cpu.has[isa]; p++)
			for (int t = 0; t < nt; t++) {
				struct roof_ceiling c = {
					.type = ROOF_COMPUTE,
					.threads = counts[t] };

				snprintf(c.isa, sizeof(c.isa), "%s",
					 roof_isa_name((enum roof_isa)isa));
				snprintf(c.precision, sizeof(c.precision),
					 "%s", precisions[p]);
				add(out, n, &cap, &c);
			}
	/* DRAM: 4 × every instance of the last level cache on the
	 * machine, so that no cache holds a useful part of it */
	dram = 4 * cache_set(llc, m->ncpus) * 2;
	if (dram < dram_min)
		dram = dram_min;
	for (int level = 1; level <= 4; level++) {
		const struct roof_cache *cache = NULL;

		if (level <= 3) {
			cache = roof_cache_level(&m->caches, level);
			if (!cache)
				continue;
		}
		for (int t = 0; t < nt; t++)
			for (int p = 0; p < 3; p++) {
				struct roof_ceiling c = {
					.type = ROOF_MEMORY,
					.threads = counts[t] };
				uint64_t set = cache ?
					cache_set(cache, counts[t]) : dram;

				/* L1..L3 or DRAM: a level's name from a
				 * table, so that no width is in doubt */
				static const char *const names[] = {
					"L1", "L2", "L3", "DRAM" };
				snprintf(c.level, sizeof(c.level), "%s",
					 names[level - 1]);
				snprintf(c.pattern, sizeof(c.pattern), "%s",
					 patterns[p]);
				c.bytes = whole_blocks(set, counts[t], p + 1);
				add(out, n, &cap, &c);
			}
	}
}
