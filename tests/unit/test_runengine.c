/*
 * Unit tests of run's engine (src/engine/run.h) driven as a second caller
 * would drive it: a struct run_plan written by hand, no options struct
 * and no command line, the phases called in order. The commands are
 * true, false and sh from PATH, started from this process (the spawner
 * is pointed at a path that does not exist, which the engine reports as
 * a warning through the plan's callback, never on stderr); no perf
 * counters. Every check is on a value: the number of benchmarks and runs,
 * the settings, the --work values, the comparisons and fits, and the
 * exact messages of bad plans.
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
#include <unistd.h>

#include "engine/run.h"
#include "util/strutil.h"

/* The warnings the engine gave, one a line. */
struct warnings {
	char text[4096];
	size_t n;
};

static void collect(void *arg, const char *msg)
{
	struct warnings *w = arg;
	size_t len = strlen(w->text);

	snprintf(w->text + len, sizeof(w->text) - len, "%s\n", msg);
	w->n++;
}

/* A plan of the commands, as `run` would leave it but quiet and without
 * counters, git or a spawner. */
static struct run_plan plan_of(char *const *commands, size_t n,
			       struct warnings *w)
{
	return (struct run_plan){
		.commands = commands, .ncommands = n,
		.warmup = 1, .runs = 3, .min_runs = 10, .max_runs = 1000,
		.min_time = 3, .order = ORDER_INTERLEAVED,
		.no_counters = true, .seed = 1, .resamples = 1000,
		.warn = collect, .warn_arg = w,
	};
}

static const struct setting *setting(const struct result *r,
				     const char *key)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key))
			return &r->settings[i];
	fail_msg("no setting '%s'", key);
	return NULL;
}

/* All phases; returns prepare's or measure's exit code, or 0. */
static int run_all(struct runner *rn, const struct run_plan *p,
		   struct result *res)
{
	int r;

	result_init(res, "run");
	run_engine_init(rn, p, res);
	r = run_engine_prepare(rn);
	if (!r)
		r = run_engine_measure(rn);
	if (!r)
		run_engine_finish(rn);
	return r;
}

static void run_done(struct runner *rn, struct result *res)
{
	run_engine_free(rn);
	result_free(res);
}

static int setup(void **state)
{
	(void)state;
	/* no spawner: the commands start from here, with a warning */
	return setenv("YARDSTICK_SPAWNER", "/nonexistent/ys-spawner", 1);
}

/* Two commands, 1 warm-up and 3 runs each, interleaved: 2 benchmarks of 3
 * wall times, the run's settings, one comparison with the first. */
static void test_two_commands(void **state)
{
	char *cmds[] = { "true", "sh -c 'exit 0'" };
	struct warnings w = { "", 0 };
	struct run_plan p = plan_of(cmds, 2, &w);
	struct runner rn;
	struct result res;

	(void)state;
	assert_int_equal(run_all(&rn, &p, &res), 0);
	assert_int_equal(rn.failed, 0);
	assert_int_equal(rn.total_runs, 6);
	assert_int_equal(res.nbenchmarks, 2);
	assert_string_equal(res.benchmarks[0].name, "true");
	assert_string_equal(res.benchmarks[1].name, "sh -c 'exit 0'");
	for (size_t i = 0; i < 2; i++) {
		const struct metric *m = benchmark_find_metric(
			&res.benchmarks[i], "wall_time");

		assert_non_null(m);
		assert_int_equal(m->n, 3);
		assert_int_equal(res.benchmarks[i].warmup_wall_time.n, 1);
		for (size_t k = 0; k < 3; k++)
			assert_true(m->values[k] > 0 && m->values[k] < 60);
	}
	assert_true(setting(&res, "runs")->num == 3);
	assert_true(setting(&res, "warmup")->num == 1);
	assert_string_equal(setting(&res, "order")->str, "interleaved");
	assert_string_equal(setting(&res, "shell")->str, "none");
	assert_int_equal(res.ncomparisons, 1);
	assert_string_equal(res.comparisons[0].baseline, "true");
	assert_string_equal(res.comparisons[0].metric, "wall_time");
	/* the one warning, through the callback */
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.text, "commands start from yardstick "
			       "itself"));
	run_done(&rn, &res);
}

/* A scan of n = 1, 2, 4 with --work flops=3*{n}: 3 benchmarks named by
 * their value, work_flops 3, 6, 12 in every run, the expression as the
 * setting, and a complexity fit over the numeric scan. */
static void test_scan_and_work(void **state)
{
	char *cmds[] = { "true {n}" };
	struct warnings w = { "", 0 };
	struct run_plan p = plan_of(cmds, 1, &w);
	struct scan scan;
	struct expr *x;
	struct error e;
	struct runner rn;
	struct result res;
	const double want[] = { 3, 6, 12 };

	(void)state;
	assert_int_equal(scan_parse(&scan, "n=1,2,4", &e), 0);
	p.scans = &scan;
	p.nscans = 1;
	p.warmup = 0;
	p.runs = 2;
	assert_int_equal(run_work_parse(WORK_FLOPS, "3*{n}", &scan, 1, &x,
					&e), 0);
	p.work[WORK_FLOPS] = x;
	p.work_text[WORK_FLOPS] = "3*{n}";
	assert_int_equal(run_all(&rn, &p, &res), 0);
	assert_int_equal(res.nbenchmarks, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct metric *m = benchmark_find_metric(
			&res.benchmarks[i], "work_flops");
		char name[32];

		snprintf(name, sizeof(name), "true %g", want[i] / 3);
		assert_string_equal(res.benchmarks[i].name, name);
		assert_non_null(m);
		assert_string_equal(m->unit, "flop");
		assert_int_equal(m->n, 2);
		assert_true(m->values[0] == want[i] && m->values[1] == want[i]);
	}
	assert_string_equal(setting(&res, "work_flops")->str, "3*{n}");
	assert_int_equal(res.nfits, 1);
	assert_string_equal(res.fits[0].parameter, "n");
	run_done(&rn, &res);
	expr_free(x);
	scan_free(&scan);
}

/* A parameter the scans do not have, in --work: the column named. */
static void test_work_unknown_parameter(void **state)
{
	struct scan scan;
	struct expr *x = NULL;
	struct error e;

	(void)state;
	assert_int_equal(scan_parse(&scan, "n=1,2", &e), 0);
	assert_int_equal(run_work_parse(WORK_BYTES, "8*{m}", &scan, 1, &x,
					&e), -1);
	assert_string_equal(e.msg, "--work bytes='8*{m}': column 3: unknown "
			    "parameter {m} (this command's --param: n)");
	expr_free(x);
	scan_free(&scan);
}

/* Plans the engine refuses before any run: exit 2, the message exact. */
static void test_bad_plans(void **state)
{
	static const struct {
		const char *reference, *metric, *command, *msg;
	} cases[] = {
		{ "nope", NULL, "true",
		  "--reference: no benchmark named 'nope'" },
		{ NULL, "frobs", "true",
		  "--compare-metric: unknown metric 'frobs'" },
		{ NULL, NULL, "/nonexistent/ys-prog", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *cmds[] = { (char *)cases[i].command };
		char *metrics[] = { (char *)cases[i].metric };
		struct warnings w = { "", 0 };
		struct run_plan p = plan_of(cmds, 1, &w);
		struct runner rn;
		struct result res;

		p.reference = cases[i].reference;
		if (cases[i].metric) {
			p.compare_metrics = metrics;
			p.ncompare_metrics = 1;
		}
		assert_int_equal(run_all(&rn, &p, &res), 2);
		if (cases[i].msg)
			assert_string_equal(rn.err.msg, cases[i].msg);
		else
			assert_non_null(strstr(rn.err.msg,
					       "/nonexistent/ys-prog"));
		assert_int_equal(rn.total_runs, 0);
		run_done(&rn, &res);
	}
}

/* Run the phases with stderr into a file; what the engine wrote there
 * (it must write nothing) is returned, malloc'd. */
static char *run_quiet(struct runner *rn, const struct run_plan *p,
		       struct result *res, int *ret)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	char *text = xcalloc(4096, 1);

	assert_non_null(tmp);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	*ret = run_all(rn, p, res);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	if (!fread(text, 1, 4095, tmp))
		text[0] = '\0';
	fclose(tmp);
	return text;
}

/* A command that fails stops the runs: rn.failed 1, the message, the one
 * run it made kept, the command after it (never run) left out — and not
 * a word on stderr: saying so is the caller's (rn.planned, rn.njobs). */
static void test_failure(void **state)
{
	char *cmds[] = { "false", "true" };
	struct warnings w = { "", 0 };
	struct run_plan p = plan_of(cmds, 2, &w);
	struct runner rn;
	struct result res;
	char *printed;
	int ret;

	(void)state;
	p.warmup = 0;
	p.order = ORDER_SEQUENTIAL;
	printed = run_quiet(&rn, &p, &res, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(printed, "");
	assert_int_equal(rn.failed, 1);
	assert_string_equal(rn.err.msg, "'false' failed with exit code 1");
	assert_true(rn.hint_ignore);
	assert_int_equal(rn.total_runs, 1);
	assert_int_equal(rn.planned, 2);
	assert_int_equal(rn.njobs, 1);
	assert_int_equal(res.nbenchmarks, 1);
	assert_string_equal(res.benchmarks[0].name, "false");
	assert_int_equal(res.benchmarks[0].nexit, 1);
	assert_int_equal(res.benchmarks[0].exit_codes[0], 1);
	free(printed);
	run_done(&rn, &res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_commands),
		cmocka_unit_test(test_scan_and_work),
		cmocka_unit_test(test_work_unknown_parameter),
		cmocka_unit_test(test_bad_plans),
		cmocka_unit_test(test_failure),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
