/*
 * What `load --find-max` reports (load_search.h): the result, one load
 * benchmark per step and the max_throughput benchmark that gate and
 * history follow, and the terminal table of the steps. The verdicts are
 * load_search.c's; this file only writes them down.
 */
#include "engine/load_search.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/metrics.h"
#include "util/strutil.h"
#include "util/term.h"

/* The objectives, comma-separated, the implied one included. */
static char *slo_list(const struct load_search_plan *sp)
{
	char *out = xstrdup(""), *next;
	bool errors = false;

	for (size_t i = 0; i < sp->nslos; i++) {
		next = xasprintf("%s%s%s", out, i ? "," : "",
				 sp->slos[i].text);
		free(out);
		out = next;
		errors |= sp->slos[i].kind == LOAD_SLO_ERRORS;
	}
	if (!errors) {
		next = xasprintf("%s%serrors<=0%%", out, *out ? "," : "");
		free(out);
		out = next;
	}
	return out;
}

static void search_settings(struct result *r, const struct load_plan *p,
			    const struct load_search_plan *sp)
{
	char *slos = slo_list(sp);
	struct load_plan q = *p;

	/* each step has its own length (min_duration, min_requests): the
	 * plan's defaults for one run are not what ran */
	q.duration = 0;
	q.requests = 0;
	load_fill_settings(r, &q);
	result_set_str(r, "model", "open");
	result_set_str(r, "search", "find_max");
	result_set_str(r, "slo", slos);
	result_set_num(r, "start_rate", sp->start_rate);
	if (sp->max_rate > 0)
		result_set_num(r, "max_rate", sp->max_rate);
	result_set_num(r, "rate_factor", sp->factor);
	result_set_num(r, "tolerance", sp->tolerance);
	result_set_num(r, "min_duration", sp->min_duration);
	result_set_num(r, "min_requests", (double)sp->min_requests);
	free(slos);
}

static char *step_name(const char *name, double rate)
{
	return xasprintf("%s @ %.4g/s", name, rate);
}

/* What the search found at step i: "max", "knee", "max knee" or NULL. */
static const char *found(const struct load_search *s, size_t i)
{
	bool max = s->best == (int)i, knee = s->knee == (int)i;

	return max && knee ? "max knee" : max ? "max" : knee ? "knee" : NULL;
}

/* Step i as a benchmark: load's, with the parameters offered_rate,
 * slo_met, holds and found, which the report's capacity chart reads
 * (parameters are read back and stored; metric extras are not). */
static void step_benchmark(struct result *r, const char *name,
			   unsigned long long seed, const struct load_search *s,
			   size_t i)
{
	const struct load_step *st = &s->steps[i];
	char *bname = step_name(name, st->offered), v[32];
	struct benchmark *b;

	load_fill_benchmark(r, bname, st->offered, seed, &st->st);
	free(bname);
	b = &r->benchmarks[r->nbenchmarks - 1];
	snprintf(v, sizeof(v), "%.6g", st->offered);
	benchmark_add_param(b, "offered_rate", v);
	benchmark_add_param(b, PARAM_SLO_MET,
			    st->verdict == LOAD_STEP_PASS ? "yes" : "no");
	snprintf(v, sizeof(v), "%d", st->holds);
	benchmark_add_param(b, PARAM_HOLDS, v);
	if (found(s, i))
		benchmark_add_param(b, PARAM_FOUND, found(s, i));
	if (st->unsure)
		benchmark_add_warning(b, "the objectives were judged by the "
				      "point estimate: their 95%% interval "
				      "held the limit after %d holds",
				      st->holds);
	if (st->verdict == LOAD_STEP_FAIL)
		benchmark_add_warning(b, "objectives not met: %s", st->why);
}

/* The benchmark NAME with max_throughput: one value, the best step's
 * achieved throughput. */
static void max_benchmark(struct result *r, const char *name,
			  const struct load_search *s)
{
	struct benchmark *b = result_add_benchmark(r, name, NULL);

	metric_push(benchmark_metric(b, METRIC_MAX_THROUGHPUT, "requests/s"),
		    s->steps[s->best].achieved);
}

static void max_extras(struct result *r, const struct load_search *s)
{
	struct benchmark *b = &r->benchmarks[r->nbenchmarks - 1];
	struct metric *m = benchmark_find_metric(b, METRIC_MAX_THROUGHPUT);
	const struct load_step *best = &s->steps[s->best];

	metric_set_extra(m, "offered_rate", best->offered);
	if (s->knee >= 0) {
		metric_set_extra(m, "knee_rate", s->steps[s->knee].offered);
		metric_set_extra(m, "knee_throughput",
				 s->steps[s->knee].achieved);
	}
	metric_set_extra(m, "bracket_low", s->lo);
	if (s->hi > 0)
		metric_set_extra(m, "bracket_high", s->hi);
	if (s->end == LOAD_SEARCH_MAX_RATE)
		benchmark_add_warning(b, "--max-rate %.4g/s was met: the "
				      "service may sustain more", s->lo);
}

void load_search_fill_result(struct result *r, const struct load_plan *p,
			     const struct load_search_plan *sp,
			     const struct load_search *s)
{
	char *name = load_bench_name(p);

	search_settings(r, p, sp);
	for (size_t i = 0; i < s->nsteps; i++)
		step_benchmark(r, name, p->seed, s, i);
	if (s->best >= 0) {
		max_benchmark(r, name, s);
		result_summarize(r, p->seed, 1000);
		max_extras(r, s);
	}
	free(name);
}

/* ---- the terminal ---- */

static void step_header(FILE *fp)
{
	fprintf(fp, "  %10s %10s %10s %10s %8s  %s\n", "offered/s",
		"achieved/s", "p50", "p99", "errors", "verdict");
}

static void pad_value(FILE *fp, double v, const char *unit)
{
	char b[32];

	if (isnan(v))
		fprintf(fp, " %10s", "-");
	else
		fprintf(fp, " %10s", fmt_value(v, unit, b, sizeof(b)));
}

void load_search_step_line(const struct load_step *s, FILE *fp)
{
	fprintf(fp, "  %10.4g %10.4g", s->offered, s->achieved);
	pad_value(fp, s->p50, "s");
	pad_value(fp, s->p99, "s");
	fprintf(fp, " %8" PRIu64 "  ", load_errors_total(&s->st));
	/* a stop ended it: what it measured says nothing of the rate */
	if (s->st.interrupted) {
		fputs("not counted: cut short by a stop", fp);
		fputc('\n', fp);
		return;
	}
	fprintf(fp, "%s%s", s->verdict == LOAD_STEP_PASS ? "pass" : "fail",
		s->unsure ? " (unsure)" : "");
	if (s->holds > 1)
		fprintf(fp, " [%d holds]", s->holds);
	if (s->decided)
		fprintf(fp, " [decided after %.3g s]", s->st.elapsed);
	if (s->verdict == LOAD_STEP_FAIL) {
		fputs(": ", fp);
		term_puts(fp, s->why);	/* a reason may quote the server */
	}
	fputc('\n', fp);
}

const char *load_search_failure(const struct load_search *s, char *buf,
				size_t n)
{
	if (s->best >= 0)
		return NULL;
	if (!s->nsteps)
		snprintf(buf, n, "no step was measured");
	else if (s->end == LOAD_SEARCH_INTERRUPTED && s->nsteps == 1 &&
		 s->steps[0].verdict == LOAD_STEP_PASS)
		snprintf(buf, n, "interrupted in the first step");
	else if (!s->steps[0].st.ok)
		snprintf(buf, n, "the first step, %.4g/s, had no request "
			 "succeed (%s)", s->steps[0].offered, s->steps[0].why);
	else
		snprintf(buf, n, "the first step, %.4g/s, did not meet the "
			 "objectives (%s)%s", s->steps[0].offered,
			 s->steps[0].why, strncmp(s->steps[0].why, "errors", 6)
			 ? ": lower --start-rate" : "");
	return buf;
}

static const char *end_text(enum load_search_end end)
{
	switch (end) {
	case LOAD_SEARCH_CONVERGED: return "the bracket is within tolerance";
	case LOAD_SEARCH_MAX_RATE: return "--max-rate was met";
	case LOAD_SEARCH_FIRST_FAILED: return "the first step failed";
	case LOAD_SEARCH_INTERRUPTED: return "interrupted";
	}
	return "";
}

void load_search_report_head(const struct load_plan *p,
			     const struct load_search_plan *sp, FILE *fp)
{
	char *slos = slo_list(sp), *name = load_bench_name(p);
	bool color = term_use_color(fp);

	fputs(term_bold(color), fp);
	term_puts(fp, name);
	fprintf(fp, "%s\n  find-max: %s; open model over %ld connections, "
		"%ld thread%s\n", term_reset(color), slos, p->connections,
		p->threads, plural_s(p->threads));
	step_header(fp);
	free(slos);
	free(name);
}

void load_search_report_tail(const struct load_search_plan *sp,
			     const struct load_search *s, FILE *fp)
{
	char *slos = slo_list(sp);
	bool color = term_use_color(fp);

	fprintf(fp, "  search ended: %s", end_text(s->end));
	if (s->hi > 0 && s->lo > 0)
		fprintf(fp, " (passed %.4g/s, failed %.4g/s)", s->lo, s->hi);
	fputc('\n', fp);
	if (s->best >= 0)
		fprintf(fp, "  %smax throughput  %.4g requests/s%s (offered "
			"%.4g/s) met %s\n", term_bold(color),
			s->steps[s->best].achieved, term_reset(color),
			s->steps[s->best].offered, slos);
	if (s->knee >= 0) {
		const struct load_step *k = &s->steps[s->knee];
		bool rose = false;

		/* a step at a higher rate measured whole: latency rose there */
		for (size_t i = 0; i < s->nsteps; i++)
			rose |= !s->steps[i].st.interrupted &&
				s->steps[i].offered > k->offered;
		fprintf(fp, "  knee            %.4g/s offered, %.4g/s achieved "
			"(%s)\n", k->offered, k->achieved, rose
			? "the last rate before the median latency rose 1.5x"
			: "the median latency did not rise over the rates "
			  "measured: the knee is there or above");
	}
	free(slos);
}
