/*
 * The engine of `yardstick bench` (bench_run.h): the bench plan into the
 * plan of measure/benchproc.h (each process's command line, the options
 * passed on), the processes run, and the merged result stamped with
 * where and when.
 */
#include "engine/bench_run.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "measure/machine.h"
#include "util/stop.h"
#include "util/strutil.h"

/* PROGRAM [ARGS...] (argv0 in place of PROGRAM) and the options passed
 * on. malloc'd vector of strings, argv_free'd. */
static char **program_argv(const struct bench_plan *a, const char *argv0)
{
	size_t n = 0;
	char **v;

	while (a->argv[n])
		n++;
	v = xcalloc(n + 7, sizeof(char *));
	v[0] = xstrdup(argv0);
	for (size_t i = 1; i < n; i++)
		v[i] = xstrdup(a->argv[i]);
	if (a->filter) {
		v[n++] = xstrdup("--filter");
		v[n++] = xstrdup(a->filter);
	}
	if (a->min_time_given) {
		v[n++] = xstrdup("--min-time");
		v[n++] = xasprintf("%.9g", a->min_time);
	}
	if (a->epochs_given || a->processes > 1) {
		v[n++] = xstrdup("--epochs");
		v[n++] = xasprintf("%ld", a->epochs_given ? a->epochs :
					 BENCH_PROCESS_EPOCHS);
	}
	return v;
}

/* Where and when: this machine and (git non-NULL) checkout, which the
 * program cannot know; the program's time and version when it gave
 * them. */
void bench_stamp(struct result *res, struct git_info *git)
{
	struct machine *m = &res->machine;

	free(m->hostname);
	free(m->os);
	free(m->cpu);
	free(m->governor);
	memset(m, 0, sizeof(*m));
	machine_detect(m);
	if (git) {
		free(res->git.commit);
		free(res->git.branch);
		res->git = *git;
		memset(git, 0, sizeof(*git));
	}
	if (!res->created)
		res->created = utc_timestamp();
	if (!res->tool_version)
		res->tool_version = xstrdup(YS_VERSION);
	result_unique_names(res);
}

/* The plan of the processes from the bench plan. */
static void make_plan(const struct bench_plan *a, char *const paths[2],
		      char **argvs[2], struct benchproc_plan *p)
{
	memset(p, 0, sizeof(*p));
	for (int k = 0; k < 2; k++) {
		p->path[k] = paths[k];
		p->argv[k] = argvs[k];
	}
	p->processes = (unsigned)a->processes;
	p->timeout = a->timeout;
	p->max_result = a->max_result;
	p->show_output = a->show_output;
	p->interrupt = stop_flag();
}

int bench_run(const struct bench_plan *p, char *const paths[2],
	      struct benchproc_run *run, struct error *e)
{
	char **argvs[2] = { NULL, NULL };
	struct benchproc_plan plan;
	int ret;

	argvs[0] = program_argv(p, p->argv[0]);
	if (paths[BENCHPROC_BASE])
		argvs[1] = program_argv(p, p->baseline_program);
	make_plan(p, paths, argvs, &plan);
	ret = benchproc_run(&plan, run, e);
	argv_free(argvs[0]);
	if (argvs[1])
		argv_free(argvs[1]);
	return ret;
}
