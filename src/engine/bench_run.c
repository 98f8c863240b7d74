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
#include "result/gate.h"
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

/*
 * As many processes as the judge needs (a baseline program and checks):
 * the checks judged on the processes so far each say at how many
 * processes a side their test would find a change twice the threshold
 * with 90% power (stats/judge.h, units_needed), and the programs run on,
 * alternating, up to the most any asks, within max_processes; again, up
 * to BENCH_ROUNDS times, as the errors of more processes say better what
 * the spread is. Only the spread sets the number (the checks are judged
 * once, at the end, by the command): tests/stats/judge_sim measures the
 * false alarms of these stages. Returns as benchproc_more.
 */
static int more_processes(const struct bench_plan *a,
			  const struct benchproc_plan *plan,
			  struct benchproc_run *run, struct error *e)
{
	unsigned most = (unsigned)(a->max_processes > a->processes
				   ? a->max_processes : a->processes);
	unsigned have = plan->processes;

	for (int round = 0; round < BENCH_ROUNDS && have < most; round++) {
		struct gate_report rep;
		struct gate_opts o;
		size_t need;
		char *msg;
		int ret;

		gate_opts_init(&o);
		o.alpha = a->gate->alpha;
		if (a->gate->correction >= 0)
			o.correction =
				(enum judge_correction)a->gate->correction;
		if (gate_evaluate(&run->res[BENCHPROC_BASE],
				  &run->res[BENCHPROC_CAND], a->gate->t,
				  a->gate->nt, &o, &rep, e))
			return 0;	/* said by the gate at the end */
		need = gate_units_needed(&rep);
		gate_report_free(&rep);
		if (need <= have)
			return 0;
		if (a->say && need > most) {
			msg = xasprintf("the checks would need about %zu "
					"processes of each program to tell a "
					"change twice their threshold from this "
					"noise; --max-processes stops at %u",
					need, most);
			a->say(msg);
			free(msg);
		}
		if (need > most)
			need = most;
		if (a->say) {
			msg = xasprintf("measuring %zu more processes of each "
					"program: %u are too noisy for the "
					"checks", need - have, have);
			a->say(msg);
			free(msg);
		}
		ret = benchproc_more(plan, run, (unsigned)need, e);
		if (ret)
			return ret;
		have = (unsigned)need;
	}
	return 0;
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
	if (!ret && paths[BENCHPROC_BASE] && p->gate && p->gate->nt &&
	    plan.processes >= 2)
		ret = more_processes(p, &plan, run, e);
	argv_free(argvs[0]);
	if (argvs[1])
		argv_free(argvs[1]);
	return ret;
}
