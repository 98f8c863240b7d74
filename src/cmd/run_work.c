/*
 * `run --work NAME=EXPR`: the work one run of a benchmark does, declared
 * as an expression over the --param scans (util/expr.h) — an analytic
 * count as a paper's table gives it: flops='2*{n}^3'. Each expression is
 * parsed and its parameters checked before anything runs, evaluated for
 * every benchmark (every combination of the scans) before the first run,
 * and recorded with every measured run as the metric work_flops (unit
 * flop) or work_bytes (unit bytes); the expression itself is the
 * result's setting of the same name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run.h"
#include "util/strutil.h"

/* The NAME of --work NAME=EXPR for WORK_*. */
static const char *const work_names[WORK_COUNT] = { "flops", "bytes" };

int run_work_option(struct run_opts *o, const char *arg, struct error *e)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;

	if (!eq)
		return error_set(e, "'%s' is not NAME=EXPR (flops=EXPR or "
				 "bytes=EXPR)", arg);
	for (size_t w = 0; w < WORK_COUNT; w++) {
		if (strlen(work_names[w]) != len ||
		    strncmp(arg, work_names[w], len))
			continue;
		if (o->work_arg[w])
			return error_set(e, "%s given twice", work_names[w]);
		o->work_arg[w] = arg;
		return 0;
	}
	return error_set(e, "'%.*s' is not a kind of work: flops or bytes",
			 (int)len, arg);
}

/* The --param names, for a message: "n, m", or "none". */
char *run_param_names(const struct run_opts *o)
{
	struct strbuf b = { 0 };

	for (size_t i = 0; i < o->nscans; i++) {
		strbuf_puts(&b, i ? ", " : "");
		strbuf_puts(&b, o->scans[i].name);
	}
	return b.s ? b.s : xstrdup("none");
}

int run_work_check(struct run_opts *o, struct error *e)
{
	for (size_t w = 0; w < WORK_COUNT; w++) {
		const char *text;
		struct error why;

		if (!o->work_arg[w])
			continue;
		text = strchr(o->work_arg[w], '=') + 1;
		if (expr_parse(text, &o->work[w], &why))
			return error_set(e, "--work %s='%s': %s",
					 work_names[w], text, why.msg);
		for (size_t i = 0; i < expr_param_count(o->work[w]); i++) {
			const char *name = expr_param_name(o->work[w], i);
			size_t k = 0;
			char *names;

			while (k < o->nscans && strcmp(o->scans[k].name, name))
				k++;
			if (k < o->nscans)
				continue;
			names = run_param_names(o);
			error_set(e, "--work %s='%s': column %d: unknown "
				  "parameter {%s} (this command's --param: %s)",
				  work_names[w], text,
				  expr_param_column(o->work[w], i), name, names);
			free(names);
			return -1;
		}
	}
	return 0;
}

int run_work_eval(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	const char **names = xcalloc(o->nscans + 1, sizeof(char *));
	int ret = 0;

	for (size_t k = 0; k < o->nscans; k++)
		names[k] = o->scans[k].name;
	rn->nwork = 0;
	for (size_t w = 0; w < WORK_COUNT; w++) {
		if (!o->work[w])
			continue;
		for (size_t i = 0; i < rn->njobs && !ret; i++) {
			struct job *j = &rn->jobs[i];
			struct error why;

			double *v = &j->work[rn->nwork];

			if (!expr_eval(o->work[w], names,
				       (const char *const *)j->param_values,
				       o->nscans, v, &why)) {
				if (*v >= 0)
					continue;
				/* a count: a roofline's axes are logarithmic */
				error_set(&why, "%g %s: work is never below 0",
					  *v, work_names[w]);
			}
			ret = error_set(&rn->err, "--work %s='%s': benchmark "
					"'%s': %s", work_names[w],
					strchr(o->work_arg[w], '=') + 1,
					j->name, why.msg);
		}
		rn->nwork++;
	}
	free(names);
	return ret;
}

void run_work_settings(const struct runner *rn)
{
	for (size_t w = 0; w < WORK_COUNT; w++)
		if (rn->o->work_arg[w])
			result_set_str(rn->res, run_work_metrics[w].name,
				       strchr(rn->o->work_arg[w], '=') + 1);
}
