/*
 * Merging the results of one benchmark program's processes (procmerge.h).
 * Benchmarks are matched by name: a libyardstick result's names are unique
 * (result_unique_names), and every process of one program registers the
 * same benchmarks under the same names.
 */
#include "result/procmerge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/analyze.h"
#include "stats/judge.h"
#include "util/strutil.h"

/* Every value of r marked as process's. */
static void mark_all(struct result *r, unsigned process)
{
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		struct benchmark *b = &r->benchmarks[i];

		for (size_t k = 0; k < b->nmetrics; k++) {
			struct metric *m = &b->metrics[k];

			free(m->process);
			m->process = xcalloc(m->cap ? m->cap : 1,
					     sizeof(*m->process));
			for (size_t v = 0; v < m->n; v++)
				m->process[v] = process;
		}
	}
}

/* The benchmark of into named like b, added (name, command, parameters)
 * when into has none. */
static struct benchmark *match(struct result *into,
			       const struct benchmark *b)
{
	struct benchmark *t = result_find_benchmark(into, b->name);

	if (t)
		return t;
	t = result_add_benchmark(into, b->name, b->command);
	for (size_t i = 0; i < b->nparams; i++)
		benchmark_add_param(t, b->params[i].name, b->params[i].value);
	return t;
}

/* Whether v holds a warning that says what s says, up to the first
 * number of either: each process words its own "varies by 8.9%". */
static bool has_warning(char *const *v, size_t n, const char *s)
{
	size_t len = strcspn(s, "0123456789");

	for (size_t i = 0; i < n; i++)
		if (strcspn(v[i], "0123456789") == len &&
		    !strncmp(v[i], s, len))
			return true;
	return false;
}

static int merge_benchmark(struct benchmark *t, const struct benchmark *b,
			   unsigned process, struct error *e)
{
	for (size_t k = 0; k < b->nmetrics; k++) {
		const struct metric *m = &b->metrics[k];
		struct metric *tm = benchmark_find_metric(t, m->name);

		if (tm && strcmp(tm->unit, m->unit))
			return error_set(e, "process %u: benchmark '%s': "
					 "metric '%s' in '%s', not '%s' as "
					 "before", process, b->name, m->name,
					 m->unit, tm->unit);
		if (!tm)
			tm = benchmark_metric(t, m->name, m->unit);
		for (size_t v = 0; v < m->n; v++)
			metric_push_process(tm, m->values[v], process);
	}
	for (size_t i = 0; i < b->nexit; i++)
		benchmark_push_exit(t, b->exit_codes[i]);
	t->timeouts += b->timeouts;
	for (size_t i = 0; i < b->nunsupported; i++)
		benchmark_add_unsupported(t, b->unsupported[i]);
	for (size_t i = 0; i < b->nwarnings; i++)
		if (!has_warning(t->warnings, t->nwarnings, b->warnings[i]))
			benchmark_add_warning(t, "%s", b->warnings[i]);
	return 0;
}

int result_merge_process(struct result *into, struct result *part,
			 unsigned process, struct error *e)
{
	int ret = 0;

	if (into->nbenchmarks == 0) {
		result_free(into);
		*into = *part;
		memset(part, 0, sizeof(*part));
		mark_all(into, process);
		return 0;
	}
	for (size_t i = 0; i < part->nbenchmarks && !ret; i++) {
		const struct benchmark *b = &part->benchmarks[i];

		ret = merge_benchmark(match(into, b), b, process, e);
	}
	result_free(part);
	return ret;
}

/* The number of setting key of r, or dflt when absent or a string. */
static double setting_num(const struct result *r, const char *key,
			  double dflt)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key) && !r->settings[i].str &&
		    isfinite(r->settings[i].num))
			return r->settings[i].num;
	return dflt;
}

/* The comparisons of r again, over the merged values: each pair once, in
 * its order (the old ones taken out first), one family. */
static void compare_again(struct result *r, double alpha)
{
	struct comparison *old = r->comparisons;
	size_t n = r->ncomparisons, np = 0;
	struct analyze_pair *pairs = xcalloc(n + 1, sizeof(*pairs));

	r->comparisons = NULL;
	r->ncomparisons = 0;
	for (size_t i = 0; i < n; i++) {
		const struct benchmark *base =
			result_find_benchmark(r, old[i].baseline);
		const struct benchmark *cand =
			result_find_benchmark(r, old[i].candidate);

		if (base && cand)
			pairs[np++] = (struct analyze_pair){ base, cand,
							     old[i].metric };
	}
	analyze_compare(r, pairs, np, alpha, NULL);
	free(pairs);
	for (size_t i = 0; i < n; i++) {
		free(old[i].baseline);
		free(old[i].candidate);
		free(old[i].metric);
	}
	free(old);
}

static void drop_process(struct result *r)
{
	for (size_t i = 0; i < r->nbenchmarks; i++)
		for (size_t k = 0; k < r->benchmarks[i].nmetrics; k++) {
			free(r->benchmarks[i].metrics[k].process);
			r->benchmarks[i].metrics[k].process = NULL;
		}
}

void result_merge_finish(struct result *r, unsigned nprocesses)
{
	unsigned long long seed =
		(unsigned long long)setting_num(r, "seed", RESULT_READ_SEED);
	double resamples = setting_num(r, "bootstrap_resamples",
				       RESULT_READ_RESAMPLES);

	if (!(resamples >= 1 && resamples <= RESULT_READ_MAX_RESAMPLES))
		resamples = RESULT_READ_RESAMPLES;
	result_set_num(r, "processes", nprocesses);
	if (nprocesses == 1) {	/* all in one: the model's NULL, and the
				 * program's own summaries and comparisons */
		drop_process(r);
		return;
	}
	result_summarize(r, seed, (size_t)resamples);
	compare_again(r, setting_num(r, "alpha", JUDGE_ALPHA));
}
