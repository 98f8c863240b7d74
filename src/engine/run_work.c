/*
 * `run --work NAME=EXPR`: the work one run of a benchmark does, declared
 * as an expression over the --param scans (util/expr.h) — an analytic
 * count as a paper's table gives it: flops='2*{n}^3'. Each expression is
 * parsed and its parameters checked before anything runs
 * (run_work_parse, called by the command on its options), evaluated for
 * every benchmark (every combination of the scans) before the first run,
 * and recorded with every measured run as the metric work_flops (unit
 * flop) or work_bytes (unit bytes); the expression itself is the
 * result's setting of the same name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/run_internal.h"
#include "util/strutil.h"

/* The NAME of --work NAME=EXPR for WORK_*. */
static const char *const work_names[WORK_COUNT] = { "flops", "bytes" };

int run_work_kind(const char *name, size_t len)
{
	for (size_t w = 0; w < WORK_COUNT; w++)
		if (strlen(work_names[w]) == len &&
		    !strncmp(name, work_names[w], len))
			return (int)w;
	return -1;
}

const char *run_work_name(size_t w)
{
	return work_names[w];
}

char *run_param_names(const struct scan *scans, size_t nscans)
{
	struct strbuf b = { 0 };

	for (size_t i = 0; i < nscans; i++) {
		strbuf_puts(&b, i ? ", " : "");
		strbuf_puts(&b, scans[i].name);
	}
	return b.s ? b.s : xstrdup("none");
}

int run_work_parse(size_t w, const char *text, const struct scan *scans,
		   size_t nscans, struct expr **out, struct error *e)
{
	struct error why;

	if (expr_parse(text, out, &why))
		return error_set(e, "--work %s='%s': %s", work_names[w], text,
				 why.msg);
	for (size_t i = 0; i < expr_param_count(*out); i++) {
		const char *name = expr_param_name(*out, i);
		size_t k = 0;
		char *names;

		while (k < nscans && strcmp(scans[k].name, name))
			k++;
		if (k < nscans)
			continue;
		names = run_param_names(scans, nscans);
		error_set(e, "--work %s='%s': column %d: unknown parameter "
			  "{%s} (this command's --param: %s)", work_names[w],
			  text, expr_param_column(*out, i), name, names);
		free(names);
		return -1;
	}
	return 0;
}

int run_work_eval(struct runner *rn)
{
	const struct run_plan *p = rn->p;
	const char **names = xcalloc(p->nscans + 1, sizeof(char *));
	int ret = 0;

	for (size_t k = 0; k < p->nscans; k++)
		names[k] = p->scans[k].name;
	rn->nwork = 0;
	for (size_t w = 0; w < WORK_COUNT; w++) {
		if (!p->work[w])
			continue;
		for (size_t i = 0; i < rn->njobs && !ret; i++) {
			struct job *j = &rn->jobs[i];
			struct error why;

			double *v = &j->work[rn->nwork];

			if (!expr_eval(p->work[w], names,
				       (const char *const *)j->param_values,
				       p->nscans, v, &why)) {
				if (*v >= 0)
					continue;
				/* a count: a roofline's axes are logarithmic */
				error_set(&why, "%g %s: work is never below 0",
					  *v, work_names[w]);
			}
			ret = error_set(&rn->err, "--work %s='%s': benchmark "
					"'%s': %s", work_names[w],
					p->work_text[w], j->name, why.msg);
		}
		rn->nwork++;
	}
	free(names);
	return ret;
}

void run_work_settings(const struct runner *rn)
{
	for (size_t w = 0; w < WORK_COUNT; w++)
		if (rn->p->work_text[w])
			result_set_str(rn->res, run_work_metrics[w].name,
				       rn->p->work_text[w]);
}
