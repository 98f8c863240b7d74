/*
 * `yardstick roofline --measure`: the command's side (the outputs asked
 * for, the messages, the store, the exit code); the measurement, its
 * result and its table are the engine's (engine/roofline_measure.h).
 */
#include <stdio.h>

#include "cmd/commands.h"
#include "cmd/roofline.h"
#include "engine/roofline_measure.h"
#include "measure/machine.h"
#include "roofline/ceilings.h"
#include "util/stop.h"

#define WHO "yardstick roofline"

/* The options --measure takes, the outputs checked. 0 or the exit code
 * (printed). */
static int check(const struct roofline_args *a, struct output_set *outs)
{
	int ret = check_output_set(outs, WHO);

	if (!ret && !a->no_store)
		ret = save_check(a->store);
	if (ret)
		return ret;
	if (a->nrefs || a->nouts) {
		fprintf(stderr, WHO ": --measure takes no %s\n", a->nrefs ?
			"REF" : "-o (the chart is drawn by placing)");
		return 2;
	}
	return 0;
}

/* Measure into res, saying what is measured and what to beware of. */
static int measure(const struct roofline_args *a,
		   struct roofline_measurement *mm, struct result *res)
{
	const struct roofline_measure_plan plan = { a->quick, a->threads,
						    stop_flag() };
	struct git_probe gp;
	struct error e;
	int ret = roofline_measure_prepare(&plan, mm, &e);

	if (ret) {
		fprintf(stderr, WHO ": %s\n", e.msg);
		return error_exit_code(&e);
	}
	if (!a->quiet)
		fprintf(stderr, WHO ": measuring %zu ceilings, %d "
			"repetitions each\n", mm->n, mm->reps);
	git_detect_start(&res->git, &gp, a->json || !a->no_store);
	ret = roofline_measure_run(mm, res, &e);
	git_detect_finish(&gp);
	if (ret && stop_signal()) {
		fprintf(stderr, WHO ": interrupted by %s: nothing kept\n",
			stop_signal_name());
		return stop_exit_code();
	}
	if (ret) {
		fprintf(stderr, WHO ": %s\n", e.msg);
		return error_exit_code(&e);
	}
	for (size_t i = 0; i < mm->nnotes && !a->quiet; i++)
		fprintf(stderr, WHO ": warning: %s\n", mm->notes[i]);
	if (git_detect_warning(&gp))
		fprintf(stderr, WHO ": warning: %s\n",
			git_detect_warning(&gp));
	return 0;
}

int roofline_measure(const struct roofline_args *a)
{
	struct roofline_measurement mm = { 0 };
	struct output_set outs;
	struct result res;
	struct error e;
	int ret;

	result_init(&res, ROOF_KIND);
	outputs_init(&outs);
	add_result_outputs(&outs, a->json, NULL, NULL, NULL, &res);
	ret = check(a, &outs);
	/* the one signal policy (util/stop.h): a stop ends the measurement
	 * between two ceilings, and nothing is kept (ceilings in part
	 * would place points under a roof that is not there) */
	if (!ret && stop_install(&e))
		fprintf(stderr, WHO ": warning: %s\n", e.msg);
	if (!ret)
		ret = measure(a, &mm, &res);
	if (ret)
		goto out;
	roofline_measure_result(&mm, &res);
	if (!a->quiet)
		roofline_measure_report(outputs_report_fp(&outs), &mm);
	fflush(outputs_report_fp(&outs));
	ret = write_output_set(&outs, WHO);
	if (!ret && !a->no_store)
		ret = save_result(&res, a->store, a->quiet);
out:
	roofline_measurement_free(&mm);
	result_free(&res);
	outputs_free(&outs);
	return ret;
}
