/*
 * `yardstick export`: result sets in the Prometheus text formats, on
 * stdout or pushed to a Pushgateway (result/openmetrics.h names the
 * metrics; docs/export.md documents them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/options.h"
#include "engine/push.h"
#include "engine/refs.h"
#include "result/openmetrics.h"
#include "util/strutil.h"

static const char *const export_usage[] = { "[OPTIONS] [REF...]", NULL };

static const char export_description[] =
"Print result sets as Prometheus metrics (on stdout), or push them to a\n"
"Prometheus Pushgateway (the report of what was pushed on stderr). Each\n"
"REF is a JSON result file or a reference into the store (latest, an\n"
"id, @COMMIT, branch:NAME); none means latest.\n"
"\n"
"Every summarized metric of every benchmark becomes a gauge named\n"
"yardstick_METRIC_UNIT (yardstick_wall_time_seconds,\n"
"yardstick_peak_rss_bytes, yardstick_throughput_requests_per_second),\n"
"one series per statistic, with the labels benchmark, statistic\n"
"(mean, stddev, min, max, median, mad, p25, p75, p90, p95, p99 and the\n"
"metric's extra keys such as p99_9), param_NAME for each parameter,\n"
"kind, machine, and commit and branch when known; and\n"
"yardstick_metric_values{metric=...}, how many values (runs, sampled\n"
"requests) the statistics are of. A series that an earlier REF gave\n"
"already is left out (with a warning).\n";

static const char export_epilog[] =
"--push replaces, for each benchmark and machine, the group\n"
"/metrics/job/yardstick/benchmark@base64/B/machine@base64/M of the\n"
"gateway (an HTTP PUT of the text format 0.0.4, whatever --format says).\n"
"\n"
"Exit status: 0 ok; 2 bad usage, a REF that cannot be read; 3 the store\n"
"is locked or unreadable, or the Pushgateway could not be reached or\n"
"refused the push (the message gives its status and answer).\n";

enum { FMT_OPENMETRICS, FMT_PROMETHEUS };

static const struct opt_enum export_formats[] = {
	{ "openmetrics", FMT_OPENMETRICS }, { "prometheus", FMT_PROMETHEUS },
	{ NULL, 0 },
};

struct export_args {
	int format;
	const char *push, *store;
	bool quiet;
};

#define OPT_STRUCT struct export_args
static const struct opt_entry export_options[] = {
	{ OPT_ENUM(0, "format", format, export_formats),
	  .help = "openmetrics (OpenMetrics 1.0: # UNIT lines, # EOF) or "
	  "prometheus (the text format 0.0.4); default openmetrics" },
	{ OPT_STRING(0, "push", push), .flags = OPT_NONEMPTY,
	  .metavar = "URL", .help = "push to the Pushgateway at URL "
	  "(http://host:9091) instead of printing" },
	{ OPT_STORE_READ(store) },
	{ OPT_QUIET(quiet, "no message of what was pushed") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

const struct opt_cmd export_cmd = {
	.name = "export",
	.summary = "results as Prometheus/OpenMetrics metrics, or pushed to "
		   "a Pushgateway",
	.usage = export_usage,
	.description = export_description,
	.epilog = export_epilog,
	.mode = OPT_PERMUTE,
	.opts = export_options,
	.args_size = sizeof(struct export_args),
};

struct group {
	const char *benchmark, *machine;
};

/* The distinct (benchmark, machine) pairs of the results, in order. */
static struct group *groups_of(struct result *rs, size_t n, size_t *ng)
{
	struct group *g = NULL;
	size_t cap = 0;

	*ng = 0;
	for (size_t i = 0; i < n; i++) {
		const char *host = rs[i].machine.hostname ?
				   rs[i].machine.hostname : "";

		for (size_t k = 0; k < rs[i].nbenchmarks; k++) {
			const char *name = rs[i].benchmarks[k].name;
			bool seen = false;

			for (size_t j = 0; j < *ng && !seen; j++)
				seen = !strcmp(g[j].benchmark, name) &&
				       !strcmp(g[j].machine, host);
			if (seen)
				continue;
			g = xgrow(g, &cap, *ng + 1, sizeof(*g));
			g[(*ng)++] = (struct group){ name, host };
		}
	}
	return g;
}

/* Push each benchmark and machine of the results as its group. */
static int push_all(const struct export_args *a, const struct om_doc *d,
		    struct result *rs, size_t n)
{
	size_t ng;
	struct group *g = groups_of(rs, n, &ng);
	int ret = 0;

	for (size_t i = 0; i < ng && !ret; i++) {
		struct om_label match[] = {
			{ "benchmark", g[i].benchmark },
			{ "machine", g[i].machine },
		};
		struct strbuf body = { 0 };
		struct error e;

		om_write(d, OM_PROMETHEUS, match, 2, &body);
		if (push_group(a->push, g[i].benchmark, g[i].machine, NULL,
			       body.s, body.len, &e)) {
			fprintf(stderr, "yardstick export: %s\n", e.msg);
			ret = error_exit_code(&e);
		}
		free(body.s);
	}
	if (!ret && !a->quiet)
		fprintf(stderr, "yardstick export: pushed %zu group%s to '%s'\n",
			ng, plural_s(ng), a->push);
	free(g);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct opt_rest rest;
	struct result *rs;
	struct om_doc *d;
	size_t n, loaded = 0, dup = 0;
	const char *latest = "latest";
	char **refs;
	int ret;

	if (!opt_parse_or_exit(&export_cmd, argc, argv, &a, &rest, &ret))
		return ret;
	if (a.push) {
		struct error e;

		if (push_check_url(a.push, &e)) {
			fprintf(stderr, "yardstick export: --push: %s\n",
				e.msg);
			return 2;
		}
	}
	n = (size_t)(rest.end - rest.first);
	refs = n ? argv + rest.first : (char **)&latest;
	if (!n)
		n = 1;
	rs = xcalloc(n, sizeof(*rs));
	d = om_new();
	for (; loaded < n; loaded++) {
		struct error e;

		ret = ref_load(refs[loaded], a.store, &rs[loaded], &e);
		if (ret) {
			fprintf(stderr, "yardstick export: %s\n", e.msg);
			ret = error_exit_code(&e);
			goto out_free;
		}
		dup += om_add_result(d, &rs[loaded]);
	}
	for (size_t i = 0; i < om_ncollisions(d); i++)
		fprintf(stderr, "yardstick export: warning: %s\n",
			om_collision(d, i));
	if (dup)
		fprintf(stderr, "yardstick export: warning: %zu series given "
			"by an earlier result already were left out\n", dup);
	if (a.push) {
		ret = push_all(&a, d, rs, n);
	} else {
		struct strbuf out = { 0 };

		om_write(d, a.format == FMT_PROMETHEUS ? OM_PROMETHEUS :
			 OM_OPENMETRICS, NULL, 0, &out);
		fwrite(out.s, 1, out.len, stdout);
		free(out.s);
		ret = 0;
	}
out_free:
	for (size_t i = 0; i < loaded; i++)
		result_free(&rs[i]);
	free(rs);
	om_free(d);
	return ret;
}
