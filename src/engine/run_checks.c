/*
 * `yardstick run` after its runs, before the statistics: what the values
 * need said or changed once every run is in — leaving out benchmarks that
 * never ran, counters that could not follow a command, the shell's
 * start-up under --shell, and the warnings of peak RSS below the floor and
 * of processes left behind.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/run_internal.h"
#include "measure/spawn.h"
#include "result/metrics.h"
#include "util/strutil.h"

/*
 * Runs whose peak RSS was at or below the floor (spawn.h) have none:
 * say how many, and below what.
 */
void run_rss_warnings(struct runner *rn)
{
	double bound = spawn_rss_floor(&rn->sp);

	for (size_t i = 0; i < rn->njobs; i++) {
		const struct metric *wall, *rss;
		size_t hidden = 0, runs = 0;

		if (!rn->metrics[i])
			continue;	/* never measured */
		wall = rn->metrics[i][M_WALL];
		rss = rn->metrics[i][M_RSS];
		for (size_t k = 0; k < rss->n; k++) {
			runs += !isnan(wall->values[k]);
			hidden += !isnan(wall->values[k]) &&
				  isnan(rss->values[k]);
		}
		if (hidden)
			benchmark_add_warning(rn->jobs[i].bench, "peak RSS "
				"not measured in %zu of %zu runs: it is at "
				"most %.0f KiB, the peak RSS of the process "
				"the command is started from, which the "
				"kernel counts as the command's", hidden, runs,
				bound / 1024);
	}
}

/* Runs that left processes behind (killed by the spawner): say so. */
void run_stray_warnings(struct runner *rn)
{
	for (size_t i = 0; i < rn->njobs; i++) {
		const struct job *j = &rn->jobs[i];

		if (j->stray_runs)
			benchmark_add_warning(j->bench, "%zu run%s left "
				"processes running after the command ended "
				"(%zu in all: in the background, or in a "
				"session of their own); they were killed",
				j->stray_runs, plural_s(j->stray_runs),
				j->strays);
	}
}

/*
 * --shell: subtract the shell's start-up (calibrate_shell) from wall, user
 * and system time — per metric, in every benchmark or in none, so that
 * the benchmarks stay comparable. A metric where some run took less than
 * the shell alone is left as measured (the shell included), and every
 * benchmark says so: clamping such a run at 0 would hide that the command
 * cannot be told apart from the shell's start-up. Each of the three
 * metrics gets the extra keys shell_startup (seconds) and
 * shell_subtracted (1 or 0): the raw value of a run is its value plus
 * shell_startup times shell_subtracted.
 */
/* The warm-up runs' wall times, as the measured ones (a warm-up run
 * faster than the shell alone becomes 0: it is not judged). */
static void shell_correct_warmup(struct benchmark *b, double cost)
{
	struct series *w = &b->warmup_wall_time;

	for (size_t r = 0; r < w->n; r++)
		if (!isnan(w->v[r]))	/* a timed-out one stays null */
			w->v[r] = fmax(w->v[r] - cost, 0);
}

void run_shell_correct(struct runner *rn)
{
	for (int k = M_WALL; k <= M_SYS; k++) {
		const char *name = k == M_WALL ? METRIC_WALL_TIME
				 : k == M_USER ? METRIC_USER_TIME : METRIC_SYSTEM_TIME;
		double cost = rn->shell_cost[k];
		size_t below = 0, runs = 0, culprit = 0;
		bool subtract;

		for (size_t i = 0; i < rn->njobs && !below; i++) {
			const struct metric *m = rn->metrics[i]
						 ? rn->metrics[i][k] : NULL;

			if (!m)
				continue;
			runs = 0;
			for (size_t r = 0; r < m->n; r++) {
				if (isnan(m->values[r]))
					continue;
				runs++;
				below += m->values[r] < cost;
			}
			culprit = i;
		}
		subtract = below == 0;
		for (size_t i = 0; i < rn->njobs; i++) {
			struct metric *m = rn->metrics[i]
					   ? rn->metrics[i][k] : NULL;

			if (!m)
				continue;
			for (size_t r = 0; subtract && r < m->n; r++)
				m->values[r] -= cost;
			if (subtract && k == M_WALL)
				shell_correct_warmup(rn->jobs[i].bench, cost);
			metric_set_extra(m, "shell_startup", cost);
			metric_set_extra(m, "shell_subtracted", subtract);
			if (!subtract)
				benchmark_add_warning(rn->jobs[i].bench, "%s "
					"includes the shell's start-up (%.3g ms, "
					"not subtracted): %zu of %zu runs of '%s' "
					"took less than the shell alone, which "
					"they cannot be told apart from", name,
					cost * 1e3, below, runs,
					rn->jobs[culprit].name);
		}
	}
}

/* Name every counter metric of b unsupported and say why (a job's
 * perf_blind). */
void run_mark_perf_blind(struct runner *rn, struct benchmark *b,
			const char *why)
{
	size_t nc = counters_metric_count(rn->ctr);

	for (size_t k = 0; k < nc; k++)
		benchmark_add_unsupported(b, counters_metric_name(rn->ctr, k));
	if (rn->ipc)
		benchmark_add_unsupported(b, "ipc");
	benchmark_add_warning(b, "perf counters cannot follow this command: "
			      "%s; the kernel stops perf events at the exec "
			      "of a program that changes credentials or "
			      "cannot be read, so they are not reported "
			      "(run yardstick as the user the program runs "
			      "as, or measure a copy without the set-ID bits "
			      "or capabilities)", why);
}

/* The index of task_clock among rn's counter metrics, -1: none. */
static long task_clock_index(const struct runner *rn)
{
	size_t nc = rn->ctr ? counters_metric_count(rn->ctr) : 0;

	for (size_t k = 0; k < nc; k++)
		if (!strcmp(counters_metric_name(rn->ctr, k), METRIC_TASK_CLOCK))
			return (long)k;
	return -1;
}

/* How job i's runs went for the follow check: those busy enough to
 * judge and those whose task clock lost the CPU time, with pre seconds
 * of each run's CPU time its spawn's before the exec (not the task
 * clock's to count). */
struct follow {
	size_t runs, busy, lost;
	double cpu_sum, tc_sum;
};

static bool follow_runs(const struct runner *rn, size_t i, long tc,
			double pre, struct follow *f)
{
	struct metric **row = rn->metrics[i];
	const struct metric *u, *sy, *t;

	memset(f, 0, sizeof(*f));
	if (!row || rn->jobs[i].perf_blind || !row[M_RUSAGE_COUNT + tc])
		return false;
	u = row[M_USER];
	sy = row[M_SYS];
	t = row[M_RUSAGE_COUNT + tc];
	for (size_t r = 0; r < t->n && r < u->n && r < sy->n; r++) {
		double cpu = u->values[r] + sy->values[r] - pre;

		if (isnan(cpu) || isnan(t->values[r]))
			continue;
		f->runs++;
		if (cpu < 0.002)
			continue;
		f->busy++;
		if (t->values[r] < 0.5 * cpu) {
			f->lost++;
			f->cpu_sum += cpu;
			f->tc_sum += t->values[r];
		}
	}
	/* a few busy runs among many short ones are the spawn's outliers,
	 * not the command's work: no evidence either way */
	return f->lost && f->lost * 2 >= f->busy && f->busy * 2 >= f->runs;
}

bool run_perf_follow_suspect(const struct runner *rn)
{
	long tc = task_clock_index(rn);
	struct follow f;

	for (size_t i = 0; tc >= 0 && i < rn->njobs; i++)
		if (follow_runs(rn, i, tc, 0, &f))
			return true;
	return false;
}

/*
 * After the runs: a command that execs such a program later (through a
 * shell, env, a wrapper) is seen by its task clock stopping while its CPU
 * time goes on. rusage (user + system time of the command and what it
 * waited for) never exceeds the counters' task clock (the command and all
 * it started) by more than the CPU time before its exec, which the task
 * clock does not count: rn->exec_cost, measured on a command that does
 * nothing (run_calibrate_exec) when a job looks blind, since it is
 * anything but small when yardstick runs under a tracer (strace -f, gdb:
 * every system call of the spawn before the exec stops). A run whose task
 * clock is under half its CPU time less that, with 2 ms of it at least
 * (busy), lost the counters. When at least half of the runs were busy
 * and at least half of those lost them, the counters of that benchmark
 * are dropped and named unsupported. Before
 * run_shell_correct: the CPU times must be raw.
 */
void run_perf_follow_check(struct runner *rn)
{
	size_t nc = rn->ctr ? counters_metric_count(rn->ctr) : 0;
	long tc = task_clock_index(rn);

	if (tc < 0)
		return;
	for (size_t i = 0; i < rn->njobs; i++) {
		struct job *j = &rn->jobs[i];
		struct follow f;

		if (!follow_runs(rn, i, tc, rn->exec_cost, &f))
			continue;
		j->perf_blind = xasprintf("in %zu of %zu runs its task clock "
			"counted %.3g ms of the %.3g ms of CPU time it used "
			"after its exec, so it runs a program perf events "
			"cannot follow (set-user-ID, set-group-ID, file "
			"capabilities, or not readable)", f.lost, f.busy,
			f.tc_sum * 1e3, f.cpu_sum * 1e3);
		for (size_t k = 0; k < nc; k++)
			benchmark_remove_metric(j->bench,
						counters_metric_name(rn->ctr, k));
		if (rn->ipc)
			benchmark_remove_metric(j->bench, "ipc");
		for (size_t k = M_RUSAGE_COUNT; k < rn->nmetrics; k++)
			rn->metrics[i][k] = NULL;
		run_mark_perf_blind(rn, j->bench, j->perf_blind);
	}
}

/*
 * After an interrupt or a failure: the benchmarks that never had a
 * measured run hold nothing; they are left out, so that what follows
 * (statistics, report, files, store) costs what was measured, not what
 * was planned. The kept jobs move to the front, in order; the others
 * after them, to be freed with the rest.
 */
void run_drop_unrun(struct runner *rn)
{
	size_t nc = rn->ctr ? counters_metric_count(rn->ctr) : 0;
	bool *keep = xcalloc(rn->njobs + 1, sizeof(bool));
	struct job *jobs = xcalloc(rn->njobs + 1, sizeof(*jobs));
	struct metric ***rows = xcalloc(rn->njobs + 1, sizeof(*rows));
	size_t kept = 0;

	for (size_t i = 0; i < rn->njobs; i++)
		kept += keep[i] = rn->jobs[i].runs > 0;
	if (kept < rn->njobs) {
		size_t k = 0, d = kept;

		for (size_t i = 0; i < rn->njobs; i++) {
			size_t to = keep[i] ? k++ : d++;

			jobs[to] = rn->jobs[i];
			rows[to] = rn->metrics[i];
			if (keep[i] && to != i && nc)
				memmove(&rn->mux[to * nc], &rn->mux[i * nc],
					nc * sizeof(size_t));
		}
		memcpy(rn->jobs, jobs, rn->njobs * sizeof(*jobs));
		memcpy(rn->metrics, rows, rn->njobs * sizeof(*rows));
		result_keep_benchmarks(rn->res, keep);
		for (size_t i = 0; i < rn->njobs; i++)
			rn->jobs[i].bench = i < kept ? &rn->res->benchmarks[i]
						     : NULL;
		rn->njobs = kept;	/* below rn->planned: the caller says so */
	}
	free(keep);
	free(jobs);
	free(rows);
}
