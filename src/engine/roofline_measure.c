/*
 * `yardstick roofline --measure`: this machine's ceilings (src/roofline/
 * measure.h), as a result of kind "roofline" (ceilings.h) printed as a
 * table, written with --json and kept in the store, where `roofline
 * --machine` and placing find them. Beside each compute ceiling, the
 * theoretical peak: threads × the clock measured × the FLOPs per cycle of
 * the core's FMA pipes (roof_flops_per_cycle), where the core is known.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/roofline_measure.h"

#include "config.h"
#include "measure/machine.h"
#include "roofline/ceilings.h"
#include "roofline/measure.h"
#include "roofline/sanity.h"
#include "util/monoclock.h"
#include "util/strutil.h"

/* under $YARDSTICK_SYSFS, when set (a made-up tree, for the tests) */
#define CACHE_DIR "/devices/system/cpu/cpu0/cache"
#define CPUFREQ_DIR "/devices/system/cpu/cpu0/cpufreq"

/*
 * How long and how often: the full run, and --quick's for tests. Many
 * short repetitions rather than a few long ones: on a shared machine a
 * repetition shorter than the scheduler's time slice often runs whole,
 * and the ceiling is the largest (a DRAM sweep takes what it takes: its
 * repetitions are one sweep each at least).
 */
struct roofline_pace {
	int reps;		/* repetitions per ceiling */
	double target;		/* seconds per repetition */
	uint64_t dram_min;	/* bytes: DRAM's working set at least */
	double budget;		/* seconds; past them, one repetition per
				 * ceiling (0: none) */
};

static const struct roofline_pace full_pace = { 20, 0.005, 256ull << 20, 0 };
/* DRAM at least 64 MiB even then: where sysfs lists no large cache, 4 ×
 * the last one would not leave the caches. A few seconds on an idle
 * machine; the budget keeps a loaded one (or a huge cache) quick too. */
static const struct roofline_pace quick_pace = { 3, 0.002, 64ull << 20, 10 };

/* The sysfs path sub (CACHE_DIR ...) under $YARDSTICK_SYSFS or /sys. */
static char *sysfs_path(const char *sub)
{
	const char *root = getenv("YARDSTICK_SYSFS");

	return xasprintf("%s%s", root && *root ? root : "/sys", sub);
}

/* The machine as the ceilings see it, its implausible caches capped
 * (warn[level]: why; roofline/sanity.h): 0, or -1 with e set (class
 * ERROR_ENV: a machine that cannot run the kernels, whose sysfs describes
 * a cache wrongly, or without a cache topology in sysfs or cpuid, is the
 * environment's refusal (cpuid's said in note when sysfs has none); more
 * threads than the CPUs
 * we may run on, bad input, is said first, whatever the machine). */
static int detect(struct roof_machine *m, int threads, char warn[5][256],
		  char note[256], struct error *e)
{
	struct roof_cpuid_caches craw;
	struct roof_cpuid_raw raw;
	char *dir;
	int r;

	memset(m, 0, sizeof(*m));
	m->ncpus = roof_cpus(m->cpus, ROOF_MAX_CPUS);
	if (threads > m->ncpus)
		return error_set(e, "--threads %d: this process may run on "
				 "%d CPU%s only (one thread per CPU)",
				 threads, m->ncpus, plural_s(m->ncpus));
	if (!roof_cpuid_read(&raw)) {
		return error_env(e, "--measure: the kernels are x86-64 only");
	}
	roof_cpu_decode(&raw, &m->cpu);
	if (!m->cpu.has[ROOF_ISA_SSE2]) {
		return error_env(e, "--measure: cpuid reports no SSE2");
	}
	dir = sysfs_path(CACHE_DIR);
	r = roof_caches_read(dir, &m->caches, e);
	/* no cache topology in sysfs (a PVM guest's kernel made none):
	 * cpuid's, said; one sysfs describes wrongly stays a refusal */
	if (r < 0 && access(dir, F_OK) && errno == ENOENT &&
	    roof_cpuid_caches_read(&craw) &&
	    roof_caches_from_cpuid(&craw, m->ncpus, &m->caches) == 0) {
		snprintf(note, 256, "the cache sizes are cpuid's: %.200s",
			 e->msg);
		r = 0;
	}
	free(dir);
	if (r < 0) {
		error_prefix(e, "--measure: ");
		return error_mark(e, ERROR_ENV);
	}
	roof_caches_sanitize(&m->caches, roof_mem_bytes(), warn);
	return 0;
}

/* The theoretical peak of compute ceiling c at clock hz, or 0. */
static double theoretical(const struct roof_machine *m,
			  const struct roof_ceiling *c, double hz)
{
	unsigned fpc = roof_flops_per_cycle(&m->cpu, roof_isa_of(c->isa));

	if (!fpc || !(hz > 0))
		return 0;
	return hz * c->threads * fpc * (strcmp(c->precision, "fp32") ? 1 : 2);
}

static void settings(struct result *r, const struct roof_machine *m,
		     const struct roofline_pace *pace, int threads, double clock_hz)
{
	struct strbuf isas = { 0 };
	const char *model = m->cpu.brand[0] ? m->cpu.brand : NULL;
	char *dir;
	double hz;

	for (int i = 0; i < ROOF_NISA; i++)
		if (m->cpu.has[i]) {
			if (isas.len)
				strbuf_putc(&isas, ' ');
			strbuf_puts(&isas, roof_isa_name((enum roof_isa)i));
		}
	result_set_str(r, "isas", isas.s ? isas.s : "");
	free(isas.s);
	result_set_num(r, "threads", threads);
	result_set_num(r, "repetitions", pace->reps);
	result_set_num(r, "repetition_seconds", pace->target);
	result_set_num(r, "clock_hz", clock_hz);
	result_set_str(r, "clock_source", "measured: dependent integer adds "
		       "on one core");
	dir = sysfs_path(CPUFREQ_DIR);
	hz = roof_cpufreq_max_hz(dir);
	free(dir);
	if (hz > 0)
		result_set_num(r, "cpufreq_max_hz", hz);
	hz = model ? roof_model_hz(model) : 0;
	if (hz > 0)
		result_set_num(r, "nominal_hz", hz);
}

/* A size: "48 KiB", "1 MiB", "256 MiB". */
static char *fmt_bytes(uint64_t b, char *buf, size_t n)
{
	if (b >= 1ull << 20 && b % (1ull << 20) == 0)
		snprintf(buf, n, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1ull << 20)
		snprintf(buf, n, "%.1f MiB", (double)b / (1 << 20));
	else if (b % 1024 == 0)
		snprintf(buf, n, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, n, "%.1f KiB", (double)b / 1024);
	return buf;
}

void roofline_measure_report(FILE *fp, const struct roofline_measurement *mm)
{
	const struct roof_machine *m = mm->m;
	const struct roof_ceiling *c = mm->c;
	size_t n = mm->n;
	double clock_hz = mm->clock_hz;
	char name[96], num[32];

	fprintf(fp, "%s, %d CPU%s, clock %.2f GHz (measured)\n",
		m->cpu.brand[0] ? m->cpu.brand : m->cpu.vendor, m->ncpus,
		plural_s(m->ncpus), clock_hz / 1e9);
	fprintf(fp, "\n%-28s %10s %12s\n", "compute ceiling", "GFLOP/s",
		"theoretical");
	for (size_t i = 0; i < n; i++) {
		if (c[i].type != ROOF_COMPUTE)
			continue;
		double th = theoretical(m, &c[i], clock_hz);

		if (th > 0)
			snprintf(num, sizeof(num), "%.1f", th / 1e9);
		else
			snprintf(num, sizeof(num), "-");
		fprintf(fp, "%-28s %10.1f %12s\n",
			roof_ceiling_name(&c[i], name, sizeof(name)),
			c[i].value / 1e9, num);
	}
	fprintf(fp, "\n%-28s %10s %12s\n", "memory ceiling", "GB/s",
		"working set");
	for (size_t i = 0; i < n; i++)
		if (c[i].type == ROOF_MEMORY)
			fprintf(fp, "%-28s %10.1f %12s\n",
				roof_ceiling_name(&c[i], name, sizeof(name)),
				c[i].value / 1e9,
				fmt_bytes(c[i].bytes, num, sizeof(num)));
}

/* e's message after "--measure: ", class ERROR_ENV (threads or memory
 * refused). Returns -1. */
static int measure_error(struct error *e)
{
	error_prefix(e, "--measure: ");
	return error_mark(e, ERROR_ENV);
}

/* Whether a stop was asked (the plan's interrupt): the measurement
 * ends between two ceilings, with "interrupted" in e. */
static bool stopped(const struct roofline_measurement *mm, struct error *e)
{
	if (!mm->interrupt || !*mm->interrupt)
		return false;
	error_set(e, "interrupted");
	return true;
}

/* Measure every ceiling of the plan into r (and each one's largest value
 * into c[i].value): 0, or -1 with e set (ERROR_ENV; "interrupted" when
 * *mm->interrupt was set). */
static int measure_all(struct roofline_measurement *mm, struct result *r,
		       struct error *e)
{
	const struct roof_machine *m = mm->m;
	struct roof_ceiling *c = mm->c;
	size_t n = mm->n;
	int threads = mm->threads;
	const struct roofline_pace *pace = mm->pace;
	double *clock_hz = &mm->clock_hz;
	struct roof_pool *pool;
	double *values = xcalloc((size_t)pace->reps, sizeof(*values));
	double t0;
	int ret = 0;

	if (roof_pool_start(&pool, m->cpus, m->ncpus, threads, e) < 0) {
		free(values);
		return measure_error(e);
	}
	/* many short repetitions: the clock of a core that was not
	 * preempted; before the compute ceilings and after them, the
	 * higher (the clock moves with the temperature and the other
	 * cores' load) */
	*clock_hz = roof_clock_hz(pool, 40, 0.002);
	t0 = monoclock_s();
	for (size_t i = 0; i < n && !ret; i++) {
		bool over = pace->budget > 0 &&
			    monoclock_s() - t0 > pace->budget;
		int reps = over ? 1 : pace->reps;

		if (stopped(mm, e)) {
			ret = -1;
			break;
		}
		if (i > 0 && c[i - 1].type == ROOF_COMPUTE &&
		    c[i].type != ROOF_COMPUTE) {
			double hz = roof_clock_hz(pool, 40, 0.002);

			if (hz > *clock_hz)
				*clock_hz = hz;
		}
		if (roof_run(pool, &c[i], reps, pace->target, values,
			     e) < 0) {
			ret = measure_error(e);
			break;
		}
		c[i].value = 0;
		for (int k = 0; k < reps; k++)
			if (values[k] > c[i].value)
				c[i].value = values[k];
		roof_ceiling_add(r, &c[i], values, (size_t)reps);
		if (over)
			benchmark_add_warning(&r->benchmarks[i], "measured "
				"once: --quick's budget of %.0f s was spent",
				pace->budget);
	}
	/* the theoretical peaks at the clock found: benchmark i is c[i] */
	for (size_t i = 0; i < n && !ret; i++) {
		double th = c[i].type == ROOF_COMPUTE ?
			theoretical(m, &c[i], *clock_hz) : 0;

		if (th > 0)
			metric_set_extra(benchmark_find_metric(
				&r->benchmarks[i], "flops_per_second"),
				"theoretical_peak", th);
	}
	roof_pool_stop(pool);
	free(values);
	return ret;
}

static void add_note(struct roofline_measurement *mm, const char *note)
{
	mm->notes = xrealloc(mm->notes, (mm->nnotes + 1) * sizeof(char *));
	mm->notes[mm->nnotes++] = xstrdup(note);
}

/* The warnings of the ceilings: a level capped (warn, from detect) and
 * a cache measured slower than DRAM, on the ceilings' benchmarks of r
 * (benchmark i is c[i]) and in mm's notes. */
static void warn_ceilings(struct roofline_measurement *mm, struct result *r)
{
	const struct roof_ceiling *c = mm->c;
	size_t n = mm->n;
	char (*warn)[256] = mm->warn;
	char buf[512];

	if (mm->caches_note[0])
		add_note(mm, mm->caches_note);
	for (int l = 1; l < 5; l++)
		if (warn[l][0])
			add_note(mm, warn[l]);
	for (size_t i = 0; i < n; i++) {
		int l = c[i].type == ROOF_MEMORY && c[i].level[0] == 'L'
			? atoi(c[i].level + 1) : 0;

		if (l >= 1 && mm->caches_note[0])
			benchmark_add_warning(&r->benchmarks[i], "%s",
					      mm->caches_note);
		if (l >= 1 && l < 5 && warn[l][0])
			benchmark_add_warning(&r->benchmarks[i], "%s",
					      warn[l]);
		if (!roof_ceiling_below_dram(c, n, i, buf, sizeof(buf)))
			continue;
		benchmark_add_warning(&r->benchmarks[i], "%s", buf);
		add_note(mm, buf);
	}
}


int roofline_measure_prepare(const struct roofline_measure_plan *p,
			     struct roofline_measurement *mm,
			     struct error *e)
{
	int ret;

	memset(mm, 0, sizeof(*mm));
	mm->m = xcalloc(1, sizeof(*mm->m));
	mm->pace = p->quick ? &quick_pace : &full_pace;
	mm->interrupt = p->interrupt;
	mm->reps = mm->pace->reps;
	/* (a bad --threads is said before what the machine lacks) */
	ret = detect(mm->m, (int)p->threads, mm->warn, mm->caches_note, e);
	if (ret)
		return ret;
	mm->threads = p->threads ? (int)p->threads : mm->m->ncpus;
	roof_plan(mm->m, mm->threads, mm->pace->dram_min, &mm->c, &mm->n);
	return 0;
}

int roofline_measure_run(struct roofline_measurement *mm, struct result *res,
			 struct error *e)
{
	int ret = measure_all(mm, res, e);

	if (ret)
		return ret;
	warn_ceilings(mm, res);
	return 0;
}

void roofline_measure_result(const struct roofline_measurement *mm,
			     struct result *res)
{
	machine_detect(&res->machine);
	res->created = utc_timestamp();
	res->tool_version = xstrdup(YS_VERSION);
	settings(res, mm->m, mm->pace, mm->threads, mm->clock_hz);
	result_summarize(res, 1, 0);
}

void roofline_measurement_free(struct roofline_measurement *mm)
{
	for (size_t i = 0; i < mm->nnotes; i++)
		free(mm->notes[i]);
	free(mm->notes);
	free(mm->c);
	free(mm->m);
}
