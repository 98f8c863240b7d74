/*
 * The jobs of a run's plan: every command (split with shell quoting
 * rules, or given as words) crossed with every combination of the --param
 * values, each {NAME} replaced by its value and the program resolved
 * before anything runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/run.h"
#include "measure/spawn.h"
#include "util/strutil.h"

/* Replace every {NAME} of the scans by the job's values. */
static char *substitute(const struct run_plan *p, const char *s,
			char **values)
{
	char *cur = xstrdup(s);

	for (size_t i = 0; i < p->nscans; i++) {
		char *key = xasprintf("{%s}", p->scans[i].name);
		char *next = str_replace(cur, key, values[i]);

		free(key);
		free(cur);
		cur = next;
	}
	return cur;
}

static int make_job(const struct run_plan *p, struct job *j, size_t t,
		    struct error *e)
{
	if (p->argv) {
		j->argv = xcalloc(1, sizeof(char *));
		for (size_t k = 0; p->argv[k]; k++) {
			j->argv = xrealloc(j->argv, (k + 2) * sizeof(char *));
			j->argv[k] = substitute(p, p->argv[k], j->param_values);
			j->argv[k + 1] = NULL;
		}
		if (p->shell) {
			/* The words, quoted back into one command line. */
			char *line = argv_join(j->argv);
			char *sh[] = { "/bin/sh", "-c", line, NULL };

			argv_free(j->argv);
			j->argv = argv_dup(sh);
			free(line);
		}
	} else {
		char *cmd = substitute(p, p->commands[t], j->param_values);
		int r;

		if (p->shell) {
			char *sh[] = { "/bin/sh", "-c", cmd, NULL };

			j->argv = argv_dup(sh);
			r = 0;
		} else {
			r = split_words(cmd, &j->argv, NULL, e);
			if (r == 0 && !j->argv[0])
				r = error_set(e, "command %zu is empty", t + 1);
		}
		free(cmd);
		if (r)
			return -1;
	}
	if (t < p->nnames) {
		j->name = substitute(p, p->names[t], j->param_values);
	} else if (p->argv) {
		j->name = p->shell ? xstrdup(j->argv[2]) : argv_join(j->argv);
	} else {
		j->name = substitute(p, p->commands[t], j->param_values);
	}
	if (spawn_resolve_program(j->argv[0], &j->path, e) == 0)
		return 0;
	/* `run python3 app.py`: two commands, the second a word that is no
	 * program; most likely one command whose quotes were forgotten */
	if (!p->argv && !p->shell && t > 0 && !j->argv[1] && e) {
		char msg[sizeof(e->msg)];

		snprintf(msg, sizeof(msg), "%s", e->msg);
		error_set(e, "%s; each argument of run is a whole command: "
			  "to run '%s %s', quote it or put it after '--'", msg,
			  p->commands[t - 1], p->commands[t]);
	}
	return -1;
}

int run_jobs_make(const struct run_plan *p, struct job **jobsp,
		  size_t *njobsp, struct error *e)
{
	size_t ntemplates = p->argv ? 1 : p->ncommands, ncombos = 1;
	struct job *jobs;
	size_t njobs;

	for (size_t i = 0; i < p->nscans; i++) {
		if (ncombos > SIZE_MAX / p->scans[i].n / 2 / ntemplates)
			return error_set(e, "--param: too many combinations");
		ncombos *= p->scans[i].n;
	}
	njobs = ntemplates * ncombos;
	if (njobs > 100000)
		return error_set(e, "--param: %zu benchmarks are too many",
				 njobs);
	jobs = xcalloc(njobs, sizeof(*jobs));
	*jobsp = jobs;
	*njobsp = 0;
	/* Order: for each parameter combination, each command — so that a
	 * scan of two commands compares them value by value. */
	for (size_t c = 0; c < ncombos; c++) {
		for (size_t t = 0; t < ntemplates; t++) {
			struct job *j = &jobs[(*njobsp)++];
			size_t rest = c;

			j->template = t;
			j->combo = c;
			j->param_values = xcalloc(p->nscans + 1, sizeof(char *));
			for (size_t i = p->nscans; i-- > 0; ) {
				const struct scan *s = &p->scans[i];

				j->param_values[i] = xstrdup(s->values[rest % s->n]);
				rest /= s->n;
			}
			if (make_job(p, j, t, e))
				return -1;
		}
	}
	return 0;
}

void run_jobs_free(struct job *jobs, size_t njobs)
{
	if (!jobs)
		return;
	for (size_t i = 0; i < njobs; i++) {
		free(jobs[i].name);
		argv_free(jobs[i].argv);
		argv_free(jobs[i].param_values);
		free(jobs[i].path);
	}
	free(jobs);
}
