/*
 * `yardstick report [REF...] -o report.html`: one self-contained HTML page
 * of result sets, their comparison with a baseline and a benchmark's
 * history from the store. The page itself is the report module's
 * (report/report.h); this file loads what it shows.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "engine/gate_config.h"
#include "util/options.h"
#include "engine/refs.h"
#include "engine/roofline_place.h"
#include "report/report.h"
#include "result/compare.h"
#include "result/gate.h"
#include "result/metrics.h"
#include "stats/shift.h"
#include "store/store.h"
#include "util/child.h"
#include "util/outputs.h"
#include "util/strutil.h"

static const char *const report_usage[] = {
	"[OPTIONS] REF... -o FILE",
	"[OPTIONS] --history BENCHMARK [REF...] -o FILE",
	"[OPTIONS] --profile FILE.folded [REF...] -o FILE",
	"[OPTIONS] --trace FILE.json [REF...] -o FILE",
	NULL,
};

static const char report_description[] =
"Write one self-contained HTML page (inline style, SVG charts, no request\n"
"of any kind when opened, works from file://, prints, follows the dark\n"
"mode of the system) of the result sets REF...: a run of several\n"
"commands first on one shared axis under its verdict ('B is 1.42x\n"
"faster than A', as run judged it); per benchmark a summary\n"
"table with 95% CIs and, per metric drawn (--charts), the distribution\n"
"(every run a dot, outliers red, warm-up runs apart) and the run\n"
"sequence; the latency\n"
"percentile spectrum of load results; the heap and RSS timeline of mem\n"
"results; the complexity fit of a parameter\n"
"scan on log axes. With --baseline, each REF compared with it: per\n"
"metric a forest plot of the ratios of medians with their CIs, coloured\n"
"by verdict (as 'yardstick compare' judges), and the checks of gate\n"
"thresholds when given. With --history, a benchmark's metric over the\n"
"stored results with its CI band and change points ('history\n"
"--detect'). With --profile, a profile's interactive flame graph and its\n"
"top functions. With --trace, a trace's timeline (see below). The\n"
"benchmarks with work declared (run --work, roofline --count, a\n"
"libyardstick benchmark's ys_set_flops and ys_set_bytes) are placed on a\n"
"roofline chart under this machine's ceilings when they are stored\n"
"('yardstick roofline --measure'), or under --ceilings.\n"
"\n"
"A REF is a JSON file (yardstick's, hyperfine's --export-json, Google\n"
"Benchmark's --benchmark_out), or a reference into the store: latest, a\n"
"result id, @COMMIT, branch:NAME.\n"
"\n"
"--trace reads the Chrome JSON that 'yardstick trace -o FILE.json' writes\n"
"(or X, b/e, i, C and M events of another tool) and draws one row per\n"
"thread: its on-CPU slices, its zones nested by depth with their names\n"
"and durations (tooltips), the async spans, each counter as a step\n"
"chart, the marks; a time axis in ms; and a table of the zones (count,\n"
"total, p50/p95/p99, max). At most 20,000 events are drawn, the number\n"
"left out is said.\n";

static const char report_epilog[] =
"Exit status: 0 written; 2 bad usage, a result that cannot be read or\n"
"found, a file that cannot be written; 3 the store is locked,\n"
"unreadable or another user's, or SQLite or libpq cannot be loaded or a\n"
"PostgreSQL store's server reached.\n";

struct report_args {
	struct compare_opts o;
	struct gate_config cfg;		/* --max-increase, ..., --config */
	struct store_query q;
	const char *out, *baseline, *since, *store, *profile, *trace;
	const char *ceilings;
	char **charts;
	size_t ncharts;
	bool open, quiet;
};

/* --max-increase, --max-decrease, --limit: .data is the kind, as gate's */
static int opt_threshold(void *args, const struct opt_entry *o,
			 const char *arg, struct error *e)
{
	struct report_args *a = args;

	return gate_config_add(&a->cfg, arg, (enum gate_kind)o->data, NULL,
			       e);
}

#define OPT_STRUCT struct report_args
static const struct opt_entry report_options[] = {
	{ OPT_OUTPUT('o', "output", out), .help = "the HTML page, named "
	  ".html or .htm (- for stdout); required" },
	{ OPT_LIST(0, "charts", charts, ncharts), .metavar = "M",
	  .help = "draw metric M of each benchmark (repeatable; 'all': every "
	  "metric; default its headline metric and its rates: wall_time, a "
	  "bench's time_per_op and flop/s, a load's latency, throughput and "
	  "error_rate; else the first metric); the others are rows of the "
	  "table" },
	{ OPT_STRING('b', "baseline", baseline), .metavar = "REF",
	  .help = "compare each REF with this result set" },
	{ OPT_ALPHA(o.alpha, SHIFT_ALPHA_MIN, 0,
		    "significance level of the comparison and of the gate's "
		    "checks (those: default the [gate] alpha of --config)"),
	  OPT_SETS(cfg.alpha_given) },
	{ OPT_PERCENT(0, "noise", o.noise, 0, INFINITY),
	  .help = "noise threshold of the comparison, in percent" },
	{ OPT_CALLBACK(0, "max-increase", opt_threshold),
	  .data = GATE_INCREASE, .metavar = "SPEC",
	  .help = "with --baseline: a gate threshold, METRIC[.STAT]=VALUE as "
	  "'yardstick gate' takes it; its verdict is shown beside each "
	  "ratio, and one on the median is drawn. Repeatable" },
	{ OPT_CALLBACK(0, "max-decrease", opt_threshold),
	  .data = GATE_DECREASE, .metavar = "SPEC",
	  .help = "with --baseline: likewise for a fall. Repeatable" },
	{ OPT_CALLBACK(0, "gate-limit", opt_threshold), .data = GATE_LIMIT,
	  .metavar = "SPEC", .help = "with --baseline or --history: an "
	  "absolute ceiling of the statistic, as gate's --limit (--limit is "
	  "--history's); one on the median is drawn on the history too. "
	  "Repeatable" },
	{ OPT_ENUM(0, "correction", cfg.correction, gate_corrections),
	  .defval = "holm", .help = "the family-wise correction of the "
	  "comparison and of the gate's checks, as compare and gate apply "
	  "it: holm or none" },
	{ GATE_CONFIG_OPT(cfg.) },
	{ OPT_STRING(0, "history", q.benchmark), .metavar = "BENCHMARK",
	  .help = "the history of this benchmark from the store" },
	{ OPT_STRING('m', "metric", q.metric), .metavar = "M",
	  .help = "the metric of --history (default wall_time; peak_heap or "
	  "latency when the store holds only mem or load results)" },
	{ OPT_STRING(0, "branch", q.branch), .metavar = "NAME",
	  .help = "--history: only results from this branch" },
	{ OPT_STRING(0, "machine", q.machine), .metavar = "HOST",
	  .help = "--history: only results measured on this host" },
	{ OPT_STRING(0, "since", since), .metavar = "DATE",
	  .help = "--history: only results made at or after DATE (UTC, "
	  "2026-11-01 or 2026-11-01T12:00:00Z)" },
	{ OPT_COUNT('n', "limit", q.limit, 1, LONG_MAX),
	  .help = "--history: the newest N results" },
	{ OPT_PATH(0, "profile", profile), .metavar = "FILE",
	  .help = "a profile in the folded format (record -o FILE.folded, "
	  "mem's folded sites): its flame graph and top table" },
	{ OPT_PATH(0, "trace", trace), .metavar = "FILE",
	  .help = "a trace in Chrome's JSON (trace -o FILE.json): its "
	  "timeline and zone table" },
	{ OPT_STRING(0, "ceilings", ceilings), .metavar = "REF|FILE",
	  .help = "the roofline's ceilings (a result of kind roofline), "
	  "instead of this machine's stored ones" },
	{ OPT_FLAG(0, "open", open),
	  .help = "open the page with xdg-open once written" },
	{ OPT_STORE_READ(store) },
	{ OPT_QUIET(quiet, "no note of what the page leaves out (no "
		    "roofline without stored ceilings); errors and warnings "
		    "are still said") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void report_init(void *args)
{
	struct report_args *a = args;

	compare_opts_init(&a->o);
	gate_config_init(&a->cfg);
}

const struct opt_cmd report_cmd = {
	.name = "report",
	.summary = "an HTML page of results, a comparison, a history, a "
		   "profile, a trace, a roofline",
	.usage = report_usage,
	.description = report_description,
	.epilog = report_epilog,
	.mode = OPT_PERMUTE,
	.opts = report_options,
	.args_size = sizeof(struct report_args),
	.init = report_init,
};

/* "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SSZ", which compare with the store's
 * ISO 8601 UTC times as strings. */
static bool date_ok(const char *s)
{
	static const char full[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t n = strlen(s);

	if (n != 10 && n != sizeof(full) - 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (full[i] == 'd' ? !isdigit((unsigned char)s[i])
				   : s[i] != full[i])
			return false;
	return true;
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "yardstick report: %s\n", msg);
	return 2;
}

/* The [gate] thresholds of --config (default yardstick.ini), after the
 * command line's: drawn where they apply, ignored where nothing is
 * compared. The gate's alpha is --alpha when given, else the file's. */
static int read_config(struct report_args *a)
{
	struct error e;

	a->cfg.alpha = a->o.alpha;
	if (gate_config_read(&a->cfg, &e)) {
		fprintf(stderr, "yardstick report: %s\n", e.msg);
		return 2;
	}
	return 0;
}

/* What -o may be named: the page is HTML whatever its name. */
static const char *const html_exts[] = { ".html", ".htm", NULL };

static int parse(struct report_args *a, int argc, char **argv,
		 struct opt_rest *rest)
{
	int ret;

	if (!opt_parse_or_exit(&report_cmd, argc, argv, a, rest, &ret))
		return ret ? ret : 1;
	if (!a->out)
		return usage_error("give the page's file with -o FILE (- for "
				   "stdout)");
	if (!output_ext_fits(a->out, html_exts)) {
		fprintf(stderr, "yardstick report: -o '%s': report writes an "
			"HTML page: name it .html or .htm (- for stdout)\n",
			a->out);
		return 2;
	}
	if (rest->end == rest->first && !a->q.benchmark && !a->profile &&
	    !a->trace)
		return usage_error("give result sets (REF...), --history "
				   "BENCHMARK, --profile FILE or --trace FILE "
				   "(see 'yardstick report --help')");
	for (size_t i = 0; i < a->cfg.nt && !a->baseline; i++)
		if (a->cfg.t[i].kind != GATE_LIMIT || !a->q.benchmark)
			return usage_error("--max-increase and --max-decrease "
					   "need --baseline REF, --gate-limit "
					   "--baseline or --history");
	if (a->baseline && rest->end == rest->first)
		return usage_error("--baseline: give the result sets to "
				   "compare with it (REF...)");
	if (a->since && !date_ok(a->since)) {
		fprintf(stderr, "yardstick report: --since: '%s' is not a "
			"date (2026-11-01 or 2026-11-01T12:00:00Z)\n",
			a->since);
		return 2;
	}
	if ((a->since || a->q.branch || a->q.machine || a->q.limit ||
	     a->q.metric) && !a->q.benchmark)
		return usage_error("--metric, --branch, --machine, --since "
				   "and --limit select the --history: give "
				   "--history BENCHMARK");
	if (a->open && output_is_stdout(a->out))
		return usage_error("--open: needs a file, not stdout");
	return read_config(a);
}

/* What the command loaded: freed by report_data_free. */
struct report_data {
	struct result *res;
	struct report_set *sets;
	size_t nsets;
	struct result base;
	bool has_base;
	struct compare_report *cmp;
	size_t ncmp;
	struct gate_report *gate;
	size_t ngate;
	struct store_entry *hist;
	size_t nhist;
	struct report_point *points;
	struct report_history history;
	struct profile prof;
	bool has_prof;
	struct trace trace;
	struct trace_read_stats trace_st;
	bool has_trace;
	struct roofline_view roof;
	struct report_input in;
};

static void report_data_free(struct report_data *d)
{
	for (size_t i = 0; i < d->nsets; i++)
		result_free(&d->res[i]);
	for (size_t i = 0; i < d->ncmp; i++)
		compare_report_free(&d->cmp[i]);
	for (size_t i = 0; i < d->ngate; i++)
		gate_report_free(&d->gate[i]);
	free(d->gate);
	if (d->has_base)
		result_free(&d->base);
	store_entries_free(d->hist, d->nhist);
	if (d->has_prof)
		profile_free(&d->prof);
	if (d->has_trace)
		trace_free(&d->trace);
	roofline_view_free(&d->roof);
	free(d->res);
	free(d->sets);
	free(d->cmp);
	free(d->points);
}

static int load_ref(const char *ref, const char *store, struct result *r)
{
	struct error e;
	if (!ref_load(ref, store, r, &e))
		return 0;
	fprintf(stderr, "yardstick report: %s\n", e.msg);
	return error_exit_code(&e);
}

static int load_sets(struct report_data *d, const struct report_args *a,
		     char **refs, size_t n)
{
	d->res = xcalloc(n + 1, sizeof(*d->res));
	d->sets = xcalloc(n + 1, sizeof(*d->sets));
	for (size_t i = 0; i < n; i++) {
		int ret = load_ref(refs[i], a->store, &d->res[i]);

		if (ret)
			return ret;
		d->sets[i] = (struct report_set){ refs[i], &d->res[i] };
		d->nsets++;
	}
	return 0;
}

static int compare_sets(struct report_data *d, struct report_args *a)
{
	struct error e;
	int ret = load_ref(a->baseline, a->store, &d->base);

	if (ret)
		return ret;
	d->has_base = true;
	d->cmp = xcalloc(d->nsets + 1, sizeof(*d->cmp));
	if (a->cfg.nt)
		d->gate = xcalloc(d->nsets + 1, sizeof(*d->gate));
	for (size_t i = 0; i < d->nsets && !ret; i++) {
		char *bl = xasprintf("the baseline '%s'", a->baseline);
		char *cl = xasprintf("'%s'", d->sets[i].label);
		struct gate_opts g;

		gate_opts_init(&g);
		g.alpha = a->cfg.alpha;
		g.inconclusive_pass = a->cfg.inconclusive_pass > 0;
		g.missing_pass = a->cfg.missing_pass > 0;
		if (a->cfg.correction >= 0)
			g.correction = a->o.correction =
				(enum judge_correction)a->cfg.correction;
		g.base_label = a->o.base_label = bl;
		g.cand_label = a->o.cand_label = cl;
		ret = compare_results(&d->base, d->sets[i].r, &a->o,
				      &d->cmp[i], &e);
		if (!ret)
			d->ncmp++;
		if (!ret && a->cfg.nt) {
			ret = gate_evaluate(&d->base, d->sets[i].r, a->cfg.t,
					    a->cfg.nt, &g, &d->gate[i], &e);
			if (!ret)
				d->ngate++;
		}
		free(bl);
		free(cl);
	}
	if (ret) {
		fprintf(stderr, "yardstick report: %s\n", e.msg);
		return 2;
	}
	return 0;
}

/* The history's entries, oldest first, made at or after --since. */
static void history_points(struct report_data *d, const char *since)
{
	size_t k = 0;

	d->points = xcalloc(d->nhist + 1, sizeof(*d->points));
	for (size_t i = d->nhist; i-- > 0;) {
		const struct store_entry *v = &d->hist[i];

		if (!v->n || (since && (!v->created ||
					strcmp(v->created, since) < 0)))
			continue;
		d->points[k++] = (struct report_point){
			v->id, v->created, v->commit, v->branch, v->dirty,
			v->values, v->n, v->max_draws };
	}
	d->history.points = d->points;
	d->history.n = k;
}

static int load_history(struct report_data *d, struct report_args *a)
{
	const char *const *headline = metrics_headlines();
	bool chosen = a->q.metric != NULL;
	struct store *s;
	struct error e;
	char *path;
	int ret = ref_open_store(&s, a->store, STORE_READ, &path, &e);

	free(path);
	a->q.oldest_first = false;	/* --limit keeps the newest */
	for (size_t i = 0; !ret && headline[i]; i++) {
		if (!chosen)
			a->q.metric = headline[i];
		ret = store_history(s, &a->q, &d->hist, &d->nhist, &e);
		if (ret || d->nhist || chosen)
			break;
	}
	store_close(s);
	if (ret) {
		fprintf(stderr, "yardstick report: %s\n", e.msg);
		return error_exit_code(&e);
	}
	d->history.benchmark = a->q.benchmark;
	d->history.metric = a->q.metric;
	d->history.unit = d->nhist ? d->hist[0].unit : "";
	d->history.thresholds = a->cfg.t;
	d->history.nthresholds = a->cfg.nt;
	history_points(d, a->since);
	return 0;
}

static int load_profile(struct report_data *d, const char *path)
{
	struct error e;

	if (profile_read_folded(&d->prof, path, &e)) {
		fprintf(stderr, "yardstick report: %s\n", e.msg);
		return 2;
	}
	d->has_prof = true;
	return 0;
}

/* the events kept from a --trace file (the rest counted as dropped, and
 * said on the page); at most 20,000 are drawn */
#define TRACE_MAX_EVENTS 1000000

static int load_trace(struct report_data *d, const char *path)
{
	struct error e;

	if (trace_read_chrome(&d->trace, path, TRACE_MAX_EVENTS,
			      &d->trace_st, &e)) {
		fprintf(stderr, "yardstick report: %s\n", e.msg);
		return 2;
	}
	d->has_trace = true;
	return 0;
}

/*
 * The roofline of the sets' benchmarks that declared work: under
 * --ceilings, else this machine's stored ceilings; without them, a note
 * on stderr and no chart (an error with --ceilings).
 */
static int load_roofline(struct report_data *d, const struct report_args *a)
{
	struct roof_select dflt = { 1, "fp64", "triad" };
	struct error e;
	size_t work = 0;
	int ret;

	for (size_t i = 0; i < d->nsets; i++)
		/* a result of ceilings has no points: nothing to add */
		(void)roof_points_add(&d->roof.pts, d->sets[i].r, &e);
	for (size_t i = 0; i < d->roof.pts.n; i++)
		work += !d->roof.pts.p[i].unplaced;
	if (!work && !a->ceilings)
		return 0;
	ret = roofline_view_place(&d->roof, a->ceilings, a->store, &dflt, &e);
	if (!ret && roofline_view_chart(&d->roof, &e))
		ret = 2;
	if (ret && !a->ceilings) {
		if (!a->quiet)
			fprintf(stderr, "yardstick report: no roofline: %s\n",
				e.msg);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "yardstick report: %s\n", e.msg);
		return ret;
	}
	d->in.roofline = &d->roof.chart;
	return 0;
}

static int write_html(const char *path, void *in, struct error *e)
{
	return report_write_html(in, path, e);
}

/* xdg-open on the page written; 0, or 3 (the environment: no xdg-open,
 * no browser it could start), the page kept. */
static int open_page(const char *path)
{
	char *const argv[] = { "xdg-open", (char *)path, NULL };
	struct child c = { .argv = argv };
	struct error e;
	char *prog;

	if (spawn_resolve_program("xdg-open", &prog, &e)) {
		fprintf(stderr, "yardstick report: --open: %s (the page is "
			"written)\n", e.msg);
		return 3;
	}
	c.path = prog;
	c.io[0] = CHILD_IO_NULL;
	if (child_start(&c, &e) || child_wait(&c, &e)) {
		fprintf(stderr, "yardstick report: --open: %s (the page is "
			"written)\n", e.msg);
		free(prog);
		return 3;
	}
	free(prog);
	if (spawn_exit_code(c.status)) {
		fprintf(stderr, "yardstick report: --open: xdg-open exited "
			"with status %d (the page is written)\n",
			spawn_exit_code(c.status));
		return 3;
	}
	return 0;
}

static void free_args(struct report_args *a)
{
	gate_config_free(&a->cfg);
	free(a->charts);
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	struct report_data d = { 0 };
	struct opt_rest rest;
	struct output_set outs;
	int ret;

	ret = parse(&a, argc, argv, &rest);
	if (ret) {
		free_args(&a);
		return ret == 1 ? 0 : ret;
	}
	outputs_init(&outs);
	roofline_view_init(&d.roof);
	outputs_add(&outs, "-o", a.out, "html", write_html, &d.in);
	ret = check_output_set(&outs, "yardstick report");
	if (!ret)
		ret = load_sets(&d, &a, argv + rest.first,
				(size_t)(rest.end - rest.first));
	if (!ret && a.baseline)
		ret = compare_sets(&d, &a);
	if (!ret && a.q.benchmark)
		ret = load_history(&d, &a);
	if (!ret && a.profile)
		ret = load_profile(&d, a.profile);
	if (!ret && a.trace)
		ret = load_trace(&d, a.trace);
	if (!ret)
		ret = load_roofline(&d, &a);
	if (!ret) {
		d.in = (struct report_input){
			.sets = d.sets, .nsets = d.nsets, .cmp = d.cmp,
			.gate = d.gate,
			.baseline_label = a.baseline,
			.history = a.q.benchmark ? &d.history : NULL,
			.profile = d.has_prof ? &d.prof : NULL,
			.profile_label = a.profile,
			.charts = (const char *const *)a.charts,
			.trace = d.has_trace ? &d.trace : NULL,
			.trace_label = a.trace,
			.trace_lost = d.trace_st.lost,
			.roofline = d.in.roofline };
		ret = write_output_set(&outs, "yardstick report");
	}
	if (!ret && a.open)
		ret = open_page(a.out);
	report_data_free(&d);
	outputs_free(&outs);
	free_args(&a);
	return ret;
}
