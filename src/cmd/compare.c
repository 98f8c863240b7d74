/* `yardstick compare BASE NEW`: two result sets, metric by metric. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/refs.h"
#include "result/compare.h"
#include "stats/shift.h"
#include "util/outputs.h"
#include "util/strutil.h"

const char compare_help[] =
"usage: yardstick compare [OPTIONS] BASE NEW\n"
"\n"
"Compare two result sets metric by metric: for each benchmark both have\n"
"(matched by name and parameters), the baseline and candidate median, the\n"
"change of the median in % with a 95% CI (bootstrap of the ratio of\n"
"medians; order statistics beyond 20,000 runs), a Mann-Whitney U p-value,\n"
"and a verdict. A change counts only when it is significant (p < alpha)\n"
"AND its whole CI lies beyond the noise threshold. p90, p95 and p99 are\n"
"judged as 'yardstick gate' judges them: slower when a gate of\n"
"--max-increase M.pNN=NOISE% would fail (a one-sided permutation test,\n"
"p < alpha, with its 95% interval); inconclusive when too few runs could\n"
"show any change (fewer than 5 a side at alpha 0.01). A result that holds\n"
"one benchmark twice (same name and parameters) is refused (exit 2);\n"
"benchmarks on one side only are listed as such.\n"
"\n"
"BASE and NEW are result sets: a JSON file (yardstick's, hyperfine's\n"
"--export-json, Google Benchmark's --benchmark_out), or a reference into\n"
"the store: latest, a result id, @COMMIT, branch:NAME.\n"
"\n"
"  -m, --metric M        compare only metric M (repeatable; default all)\n"
"      --alpha A         significance level (default 0.01)\n"
"      --noise P         noise threshold in percent (default 2)\n"
"      --resamples N     bootstrap resamples (default 1000)\n"
"      --seed N          bootstrap seed (default 1)\n"
"      --store PATH      the store (default $YARDSTICK_STORE, else\n"
"                        .yardstick/results.db at the git top level)\n"
"      --json FILE       the comparison as JSON (- for stdout)\n"
"      --markdown FILE   a table for a pull-request comment (- for stdout)\n"
"  -q, --quiet           no terminal report\n"
"\n"
"Exit status: 0 compared (whatever the verdicts; see 'yardstick gate' to\n"
"fail a build); 2 bad usage, a result that cannot be read or found or\n"
"that holds a benchmark twice; 3 the store is locked, unreadable or\n"
"another user's.\n";

enum { OPT_ALPHA = 256, OPT_NOISE, OPT_RESAMPLES, OPT_SEED, OPT_STORE,
       OPT_JSON, OPT_MARKDOWN };

static const struct option long_opts[] = {
	{ "metric", required_argument, NULL, 'm' },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "resamples", required_argument, NULL, OPT_RESAMPLES },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "markdown", required_argument, NULL, OPT_MARKDOWN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct compare_args {
	struct compare_opts o;
	char **metrics;
	size_t nmetrics;
	const char *store, *json, *markdown;
	bool quiet;
};

static int bad_value(const char *opt, const char *arg)
{
	fprintf(stderr, "yardstick compare: %s: '%s' is not a valid value\n",
		opt, arg);
	return 2;
}

static int parse(struct compare_args *a, int argc, char **argv)
{
	double d;
	long l;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			a->metrics = xrealloc(a->metrics, (a->nmetrics + 2) *
					      sizeof(char *));
			a->metrics[a->nmetrics++] = optarg;
			a->metrics[a->nmetrics] = NULL;
			break;
		case OPT_ALPHA:
			/* below the permutation test's reach: see shift.h */
			if (parse_double(optarg, &d) || d < SHIFT_ALPHA_MIN ||
			    d >= 1)
				return bad_value("--alpha", optarg);
			a->o.alpha = d;
			break;
		case OPT_NOISE:
			if (parse_double(optarg, &d) || d < 0)
				return bad_value("--noise", optarg);
			a->o.noise = d / 100;
			break;
		case OPT_RESAMPLES:
			if (parse_long(optarg, &l) || l < 100 ||
			    l > RESULT_READ_MAX_RESAMPLES)
				return bad_value("--resamples", optarg);
			a->o.resamples = (size_t)l;
			break;
		case OPT_SEED:
			if (parse_long(optarg, &l) || l < 0)
				return bad_value("--seed", optarg);
			a->o.seed = (unsigned long long)l;
			break;
		case OPT_STORE: a->store = optarg; break;
		case OPT_JSON: a->json = optarg; break;
		case OPT_MARKDOWN: a->markdown = optarg; break;
		case 'q': a->quiet = true; break;
		case 'h': fputs(compare_help, stdout); return 1;
		case ':':
			fprintf(stderr, "yardstick compare: option '%s' needs a "
				"value\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "yardstick compare: unknown option "
				"'%s'\n", argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fputs("yardstick compare: give two result sets, BASE and NEW "
		      "(see 'yardstick compare --help')\n", stderr);
		return 2;
	}
	a->o.metrics = (const char *const *)a->metrics;
	return 0;
}

static int load(const char *ref, const char *store, struct result *r)
{
	struct error e;
	int ret = ref_load(ref, store, r, &e);

	if (ret)
		fprintf(stderr, "yardstick compare: %s\n", e.msg);
	return ret;
}

static int write_json(const char *path, void *rep, struct error *e)
{
	return compare_write_json(rep, path, e);
}

static int write_markdown(const char *path, void *rep, struct error *e)
{
	return compare_write_markdown(rep, path, e);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct result base, cand;
	struct compare_report rep;
	struct output_set outs;
	char *base_label = NULL, *cand_label = NULL;
	struct error e;
	int ret;

	compare_opts_init(&a.o);
	outputs_init(&outs);
	ret = parse(&a, argc, argv);
	if (ret) {
		free(a.metrics);
		return ret == 1 ? 0 : ret;
	}
	outputs_add(&outs, "--json", a.json, "json", write_json, &rep);
	outputs_add(&outs, "--markdown", a.markdown, "markdown",
		    write_markdown, &rep);
	ret = check_output_set(&outs, "yardstick compare");
	if (ret)
		goto out_free;
	ret = load(argv[optind], a.store, &base);
	if (ret)
		goto out_free;
	ret = load(argv[optind + 1], a.store, &cand);
	if (ret) {
		result_free(&base);
		goto out_free;
	}
	base_label = xasprintf("the baseline '%s'", argv[optind]);
	cand_label = xasprintf("the candidate '%s'", argv[optind + 1]);
	a.o.base_label = base_label;
	a.o.cand_label = cand_label;
	if (compare_results(&base, &cand, &a.o, &rep, &e)) {
		fprintf(stderr, "yardstick compare: %s\n", e.msg);
		ret = 2;
		goto out_results;
	}
	if (!a.quiet)
		compare_print(&rep, outputs_report_fp(&outs));
	ret = write_output_set(&outs, "yardstick compare");
	compare_report_free(&rep);
out_results:
	result_free(&base);
	result_free(&cand);
out_free:
	free(base_label);
	free(cand_label);
	free(a.metrics);
	outputs_free(&outs);
	return ret;
}
