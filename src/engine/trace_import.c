/*
 * `yardstick import`'s engine: a torch.profiler trace read into the
 * timeline model (profile/torchops_trace.c), its operators tabled and
 * made a result by the same code as trace's zones (trace_report.c), so
 * that an operator's count, self time and percentiles mean what a zone's
 * do.
 */
#include "engine/trace_import.h"

#include <inttypes.h>
#include <string.h>

#include "config.h"
#include "engine/trace_run.h"
#include "measure/machine.h"
#include "result/metrics.h"
#include "util/strutil.h"
#include "util/term.h"

int trace_import_read(struct trace_import *im,
		      const struct trace_import_plan *p, struct error *e)
{
	memset(im, 0, sizeof(*im));
	im->p = p;
	trace_init(&im->tr, (size_t)p->max_events);
	return torchops_read_trace(&im->tr, p->path, &im->st, e) ? -1 : 0;
}

void trace_import_free(struct trace_import *im)
{
	trace_free(&im->tr);
	if (im->have_res)
		result_free(&im->res);
}

void trace_import_report(const struct trace_import *im, FILE *fp)
{
	const struct trace *t = &im->tr;

	term_puts(fp, im->p->path);
	fprintf(fp, ": %" PRIu64 " operator event%s on %" PRIu64
		" thread%s over %.3f s; %" PRIu64 " other events ignored",
		im->st.events, plural_s(im->st.events), im->st.threads,
		plural_s(im->st.threads),
		(double)(t->last - t->first) / 1e9, im->st.ignored);
	if (t->dropped)
		fprintf(fp, "; %" PRIu64 " past --max-events dropped (not in "
			"the table)", t->dropped);
	if (im->st.clipped)
		fprintf(fp, "; %" PRIu64 " ends clipped to their parent's "
			"(the format's 1 µs rounding)", im->st.clipped);
	fputc('\n', fp);
	trace_ops_table(t, (size_t)im->p->top, fp);
}

void trace_import_build_result(struct trace_import *im)
{
	struct result *res = &im->res;
	const struct trace *t = &im->tr;

	if (im->have_res)
		return;
	im->have_res = true;
	result_init(res, "trace");
	res->created = utc_timestamp();
	res->tool_version = xstrdup(YS_VERSION);
	machine_detect(&res->machine);
	result_set_str(res, "source", "torch.profiler");
	result_set_str(res, "imported_from", im->p->path);
	result_set_num(res, METRIC_WALL_TIME, (double)(t->last - t->first) /
		       1e9);
	result_set_num(res, "threads", (double)im->st.threads);
	result_set_num(res, "dropped_events", (double)t->dropped);
	result_set_num(res, "ignored_events", (double)im->st.ignored);
	result_set_num(res, "clipped_events", (double)im->st.clipped);
	trace_zone_benchmarks(res, t, t->last, im->p->name, NULL, false);
	for (size_t i = 0; t->dropped && i < res->nbenchmarks; i++)
		benchmark_add_warning(&res->benchmarks[i], "incomplete: %"
				      PRIu64 " events past --max-events "
				      "dropped", t->dropped);
	result_unique_names(res);
	result_summarize(res, 1, 1000);
}

int trace_import_write_result(const char *path, void *ctx, struct error *e)
{
	struct trace_import *im = ctx;

	trace_import_build_result(im);
	return result_write_json(&im->res, path, e);
}
