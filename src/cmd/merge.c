/*
 * `yardstick merge`: the results of the segments of one load test (`load
 * --segment I/N`) as the result of the whole test, merged by the engine
 * (engine/load_merge.h); this file parses, calls, writes and prints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "engine/load_merge.h"
#include "result/metrics.h"
#include "util/options.h"
#include "util/outputs.h"
#include "util/strutil.h"
#include "util/term.h"

static const char *const merge_usage[] = {
	"[OPTIONS] -o FILE SEGMENT...", NULL
};

static const char merge_description[] =
"Merge the results of the segments of one load test (`yardstick load\n"
"--segment I/N`, each with --json) into the result of the whole test:\n"
"latency histograms merged exactly, percentiles recomputed from them,\n"
"requests, errors and bytes summed, throughput summed second by second\n"
"(the segments' seconds aligned by their start time, one with\n"
"--start-at), the latency samples merged into a uniform sample of all\n"
"requests. Every segment 0/N .. N-1/N must be given once, all of the\n"
"same test: the same URL, method, model, rate, connections, duration,\n"
"requests, warm-up and N.\n";

static const char merge_epilog[] =
"Exit status: 0 ok; 2 bad usage, a file that cannot be read, results\n"
"that are not the segments of one test, a segment whose counts\n"
"contradict each other (ok and the error kinds not adding up to the\n"
"requests, per-second counts not adding up to the totals, a histogram\n"
"holding another number of responses), counts whose sums pass 2^53\n"
"(the message says which file, which key and what differs).\n";

struct merge_args {
	const char *out;
	bool quiet;
};

#define OPT_STRUCT struct merge_args
static const struct opt_entry merge_options[] = {
	{ OPT_OUTPUT('o', "output", out), .help = "the merged result "
	  "(JSON, named .json; - for stdout); required" },
	{ OPT_QUIET(quiet, "no summary on stderr") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

const struct opt_cmd merge_cmd = {
	.name = "merge",
	.summary = "merge the results of a load test's segments into one",
	.usage = merge_usage,
	.description = merge_description,
	.epilog = merge_epilog,
	.mode = OPT_PERMUTE,
	.opts = merge_options,
	.args_size = sizeof(struct merge_args),
};

static void summary(const struct result *r, size_t n)
{
	const struct benchmark *b = r->benchmarks;
	const struct metric *lat = benchmark_find_metric(b, METRIC_LATENCY);
	const struct load_detail *d = &b->load;
	double req = load_detail_count(d, "requests");
	double ok = load_detail_count(d, "ok");
	char p50[32], p99[32], el[32], *name = term_safe(b->name);

	fprintf(stderr, "yardstick merge: %zu segment%s of '%s': %.0f requests "
		"(%.0f failed) in %s, %.1f/s; latency p50 %s, p99 %s\n", n,
		plural_s(n),
		name, req, req - ok,
		fmt_value(d->elapsed, "s", el, sizeof(el)),
		d->elapsed > 0 ? ok / d->elapsed : 0,
		fmt_value(lat->summary.median, "s", p50, sizeof(p50)),
		fmt_value(lat->summary.p99, "s", p99, sizeof(p99)));
	free(name);
}

/* What -o may be named: the result is JSON whatever its name. */
static const char *const json_exts[] = { ".json", NULL };

int cmd_merge(int argc, char **argv)
{
	struct merge_args a = { 0 };
	struct opt_rest rest;
	struct result out;
	struct error e;
	size_t n;
	int ret;

	if (!opt_parse_or_exit(&merge_cmd, argc, argv, &a, &rest, &ret))
		return ret;
	n = (size_t)(rest.end - rest.first);
	if (!a.out || !n) {
		fprintf(stderr, "yardstick merge: %s (see 'yardstick merge "
			"--help')\n", !a.out ? "no -o FILE given" :
			"no segment given");
		return 2;
	}
	if (!output_ext_fits(a.out, json_exts)) {
		fprintf(stderr, "yardstick merge: -o '%s': merge writes a "
			"result (JSON): name it .json (- for stdout)\n", a.out);
		return 2;
	}
	ret = load_merge_files((const char *const *)argv + rest.first, n,
			       &out, &e);
	if (!ret && result_write_json(&out, a.out, &e))
		ret = 2;
	if (ret)
		fprintf(stderr, "yardstick merge: %s\n", e.msg);
	else if (!a.quiet)
		summary(&out, n);
	result_free(&out);
	return ret;
}
