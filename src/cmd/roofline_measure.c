/*
 * `yardstick roofline --measure`: this machine's ceilings (src/roofline/
 * measure.h), as a result of kind "roofline" (ceilings.h) printed as a
 * table, written with --json and kept in the store, where `roofline
 * --machine` and placing find them. Beside each compute ceiling, the
 * theoretical peak: threads × the clock measured × the FLOPs per cycle of
 * the core's FMA pipes (roof_flops_per_cycle), where the core is known.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cmd/commands.h"
#include "cmd/roofline.h"
#include "measure/machine.h"
#include "roofline/ceilings.h"
#include "roofline/measure.h"
#include "roofline/sanity.h"
#include "util/monoclock.h"
#include "util/strutil.h"

#define WHO "yardstick roofline"
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
struct pace {
	int reps;		/* repetitions per ceiling */
	double target;		/* seconds per repetition */
	uint64_t dram_min;	/* bytes: DRAM's working set at least */
	double budget;		/* seconds; past them, one repetition per
				 * ceiling (0: none) */
};

static const struct pace full_pace = { 20, 0.005, 256ull << 20, 0 };
/* DRAM at least 64 MiB even then: where sysfs lists no large cache, 4 ×
 * the last one would not leave the caches. A few seconds on an idle
 * machine; the budget keeps a loaded one (or a huge cache) quick too. */
static const struct pace quick_pace = { 3, 0.002, 64ull << 20, 10 };

/* The sysfs path sub (CACHE_DIR ...) under $YARDSTICK_SYSFS or /sys. */
static char *sysfs_path(const char *sub)
{
	const char *root = getenv("YARDSTICK_SYSFS");

	return xasprintf("%s%s", root && *root ? root : "/sys", sub);
}

/* The machine as the ceilings see it, its implausible caches capped
 * (warn[level]: why; roofline/sanity.h): 0, or the exit code with the
 * message printed. */
static int detect(struct roof_machine *m, char warn[5][256])
{
	struct roof_cpuid_raw raw;
	struct error e;
	char *dir;
	int r;

	memset(m, 0, sizeof(*m));
	if (!roof_cpuid_read(&raw)) {
		fprintf(stderr, WHO ": --measure: the kernels are x86-64 "
			"only\n");
		return 3;
	}
	roof_cpu_decode(&raw, &m->cpu);
	if (!m->cpu.has[ROOF_ISA_SSE2]) {
		fprintf(stderr, WHO ": --measure: cpuid reports no SSE2\n");
		return 3;
	}
	dir = sysfs_path(CACHE_DIR);
	r = roof_caches_read(dir, &m->caches, &e);
	free(dir);
	if (r < 0) {
		fprintf(stderr, WHO ": --measure: %s\n", e.msg);
		return 3;
	}
	roof_caches_sanitize(&m->caches, roof_mem_bytes(), warn);
	m->ncpus = roof_cpus(m->cpus, ROOF_MAX_CPUS);
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
		     const struct pace *pace, int threads, double clock_hz)
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

static void report(FILE *fp, const struct roof_machine *m,
		   const struct roof_ceiling *c, size_t n, double clock_hz)
{
	char name[96], num[32];

	fprintf(fp, "%s, %d CPU%s, clock %.2f GHz (measured)\n",
		m->cpu.brand[0] ? m->cpu.brand : m->cpu.vendor, m->ncpus,
		m->ncpus == 1 ? "" : "s", clock_hz / 1e9);
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

/* Measure every ceiling of the plan into r (and each one's largest value
 * into c[i].value): 0, or the exit code with the message printed. */
static int measure_all(const struct roof_machine *m, struct roof_ceiling *c,
		       size_t n, int threads, const struct pace *pace,
		       struct result *r, double *clock_hz)
{
	struct roof_pool *pool;
	double *values = xcalloc((size_t)pace->reps, sizeof(*values));
	struct error e;
	double t0;
	int ret = 0;

	if (roof_pool_start(&pool, m->cpus, m->ncpus, threads, &e) < 0) {
		fprintf(stderr, WHO ": --measure: %s\n", e.msg);
		free(values);
		return 3;
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

		if (i > 0 && c[i - 1].type == ROOF_COMPUTE &&
		    c[i].type != ROOF_COMPUTE) {
			double hz = roof_clock_hz(pool, 40, 0.002);

			if (hz > *clock_hz)
				*clock_hz = hz;
		}
		if (roof_run(pool, &c[i], reps, pace->target, values,
			     &e) < 0) {
			fprintf(stderr, WHO ": --measure: %s\n", e.msg);
			ret = 3;
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

/* The warnings of the ceilings: a level capped (warn, from detect) and
 * a cache measured slower than DRAM, on the ceilings' benchmarks of r
 * (benchmark i is c[i]) and on stderr. */
static void warn_ceilings(const struct roof_ceiling *c, size_t n,
			  char warn[5][256], struct result *r, bool quiet)
{
	char buf[512];

	for (int l = 1; l < 5; l++)
		if (warn[l][0] && !quiet)
			fprintf(stderr, WHO ": warning: %s\n", warn[l]);
	for (size_t i = 0; i < n; i++) {
		int l = c[i].type == ROOF_MEMORY && c[i].level[0] == 'L'
			? atoi(c[i].level + 1) : 0;

		if (l >= 1 && l < 5 && warn[l][0])
			benchmark_add_warning(&r->benchmarks[i], "%s",
					      warn[l]);
		if (!roof_ceiling_below_dram(c, n, i, buf, sizeof(buf)))
			continue;
		benchmark_add_warning(&r->benchmarks[i], "%s", buf);
		if (!quiet)
			fprintf(stderr, WHO ": warning: %s\n", buf);
	}
}

int roofline_measure(const struct roofline_args *a)
{
	const struct pace *pace = a->quick ? &quick_pace : &full_pace;
	struct roof_machine *m = xcalloc(1, sizeof(*m));
	struct roof_ceiling *c = NULL;
	struct output_set outs;
	struct git_probe gp;
	struct result res;
	char warn[5][256];
	double clock_hz = 0;
	size_t n = 0;
	int threads, ret;

	result_init(&res, ROOF_KIND);
	outputs_init(&outs);
	add_result_outputs(&outs, a->json, NULL, NULL, NULL, &res);
	ret = check_output_set(&outs, WHO);
	if (!ret && !a->no_store)
		ret = save_check(a->store);
	if (ret)
		goto out;
	if (a->nrefs || a->nouts) {
		fprintf(stderr, WHO ": --measure takes no %s\n", a->nrefs ?
			"REF" : "-o (the chart is drawn by placing)");
		ret = 2;
		goto out;
	}
	ret = detect(m, warn);
	if (ret)
		goto out;
	threads = a->threads ? (int)a->threads : m->ncpus;
	if (threads > m->ncpus) {
		fprintf(stderr, WHO ": --threads %d: this process may run on "
			"%d CPU%s only (one thread per CPU)\n", threads,
			m->ncpus, m->ncpus == 1 ? "" : "s");
		ret = 2;
		goto out;
	}
	roof_plan(m, threads, pace->dram_min, &c, &n);
	if (!a->quiet)
		fprintf(stderr, WHO ": measuring %zu ceilings, %d "
			"repetitions each\n", n, pace->reps);
	git_detect_start(&res.git, &gp);
	ret = measure_all(m, c, n, threads, pace, &res, &clock_hz);
	git_detect_finish(&gp);
	if (ret)
		goto out;
	warn_ceilings(c, n, warn, &res, a->quiet);
	if (git_detect_warning(&gp))
		fprintf(stderr, "yardstick: warning: %s\n",
			git_detect_warning(&gp));
	machine_detect(&res.machine);
	res.created = utc_timestamp();
	res.tool_version = xstrdup(YS_VERSION);
	settings(&res, m, pace, threads, clock_hz);
	result_summarize(&res, 1, 0);
	if (!a->quiet)
		report(outputs_report_fp(&outs), m, c, n, clock_hz);
	fflush(outputs_report_fp(&outs));
	ret = write_output_set(&outs, WHO);
	if (!ret && !a->no_store)
		ret = save_result(&res, a->store, a->quiet);
out:
	result_free(&res);
	outputs_free(&outs);
	free(c);
	free(m);
	return ret;
}
