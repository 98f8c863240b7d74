/*
 * `yardstick load`: an HTTP load generator. Parses the options into the
 * plan of engine/load_plan.h, which builds every request's bytes once and
 * the configuration of the engine (src/load); runs it, then reports,
 * writes --json, pushes and keeps the result in the store, as `run` does.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ctype.h>

#include "cmd/commands.h"
#include "engine/load_plan.h"
#include "engine/load_push.h"
#include "engine/push.h"
#include "engine/load_search.h"
#include "util/options.h"
#include "config.h"
#include "load/http.h"
#include "measure/machine.h"
#include "util/fileio.h"
#include "util/outputs.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

/* The prefix of every message of the command, as every command's. */
#define LOAD_PREFIX "yardstick load"

/* A message of the command on stderr: "yardstick load: " and fmt's. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	fputs(LOAD_PREFIX ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The options: the engine's plan, and what the command does with the
 * result (print, write, store, push). */
struct load_opts {
	struct load_plan plan;
	bool duration_given;
	bool histogram, quiet, no_store;
	const char *json, *store;
	const char *push;		/* --push URL: a Pushgateway */
	double push_interval;
	bool push_interval_given;
	/* --find-max: the search's plan, its objectives owned */
	bool find_max, connections_given, rate_given;
	struct load_search_plan search;
	bool search_given;		/* an option of the search */
};

static const char *const load_usage[] = { "[OPTIONS] URL", NULL };

static const char load_description[] =
"HTTP/1.1 load generator with keep-alive (https through OpenSSL): the\n"
"latency percentiles of a service under a given load, its throughput and\n"
"its errors.\n"
"\n"
"Closed model (the default): each connection sends its next request as\n"
"soon as the previous response arrived — the most the server can take.\n"
"Open model (--rate R): requests fall due at R per second in total,\n"
"dealt in turn to the connections; latency counts from when a request was\n"
"due, so a server that stalls is charged for every request it held up\n"
"(corrected for coordinated omission). Latency from the actual send is\n"
"reported too, and how many sends went out late.\n"
"Capacity search (--find-max --slo 'p99<50ms'): open-model steps of rising\n"
"rate, then bisection, to the highest throughput that meets every\n"
"objective; each step's verdict a 95% interval test, the step held again\n"
"while unsure (docs/cmd/load.md).\n"
"The report goes to stdout; to stderr when an output is stdout (- as a\n"
"FILE), so that stdout holds that output alone.\n";

static const char load_epilog[] =
"Latency is recorded for every response in HDR histograms (1 us to 1 h, 3\n"
"significant digits). Responses with a status other than 2xx/3xx are\n"
"errors; so are failed connects, reads, writes and timeouts. Throughput\n"
"counts 2xx/3xx responses. A server may close a kept-alive connection\n"
"without notice: a request sent on a reused connection that it closes\n"
"before any byte of the response (or answers 408) is sent again once on\n"
"a new connection if its method is idempotent (GET, HEAD, PUT, DELETE,\n"
"OPTIONS, TRACE), counted as resent; otherwise it is a read error (or a\n"
"408). A body without length ends at the close, a success. An https\n"
"connection opened again resumes the TLS session of the one before.\n"
"\n"
"Exit status: 0 ok (even if some requests failed); 1 no request succeeded\n"
"(the reason is given; the summary and --json are still written), or with\n"
"--find-max no step met the objectives (the first step's failure is\n"
"given; the steps are still written and stored); 2 bad\n"
"usage or input (the message names the argument); 3 the store is locked,\n"
"read-only or another user's, or SQLite cannot be loaded, or the last\n"
"--push failed (the result is still written); 130\n"
"interrupted by SIGINT, 143 by SIGTERM (what was measured is still\n"
"written, marked partial: the result's setting partial, the summary's\n"
"first line; a second signal exits at once).\n";


static int opt_method(void *args, const struct opt_entry *opt,
		      const char *arg, struct error *e)
{
	if (http_method_check(arg, e))
		return -1;
	((struct load_opts *)args)->plan.method = arg;
	return 0;
}

static int opt_header(void *args, const struct opt_entry *opt,
		      const char *arg, struct error *e)
{
	struct load_plan *p = &((struct load_opts *)args)->plan;
	struct error he;

	if (http_header_check(arg, &he))
		return error_set(e, "'%s': %s", arg, he.msg);
	p->headers = xrealloc(p->headers, (p->nheaders + 2) * sizeof(char *));
	p->headers[p->nheaders++] = (char *)arg;
	p->headers[p->nheaders] = NULL;
	return 0;
}

/* --body and --body-file: the body, owned by the plan. */
static void set_body(struct load_opts *o, char *data, size_t len)
{
	free(o->plan.body);
	o->plan.body = data;
	o->plan.body_len = len;
	o->plan.body_given = true;
}

static int opt_body(void *args, const struct opt_entry *opt,
		    const char *arg, struct error *e)
{
	set_body(args, xstrdup(arg), strlen(arg));
	return 0;
}

static int opt_body_file(void *args, const struct opt_entry *opt,
			 const char *arg, struct error *e)
{
	struct load_opts *o = args;
	struct error fe;
	char *data;
	size_t len;

	if (file_read_all(arg, &data, &len, &fe))
		return error_set(e, "%s", fe.msg);	/* names the file */
	set_body(o, data, len);
	return 0;
}

/* --slo OBJECTIVE, repeatable: parsed at once, so that a bad one is
 * named before anything is sent. */
static int opt_slo(void *args, const struct opt_entry *opt, const char *arg,
		   struct error *e)
{
	struct load_search_plan *sp = &((struct load_opts *)args)->search;
	struct load_slo slo;

	if (load_slo_parse(arg, &slo, e))
		return -1;
	sp->slos = xrealloc(sp->slos, (sp->nslos + 1) * sizeof(*sp->slos));
	sp->slos[sp->nslos++] = slo;
	return 0;
}

/* --segment I/N: 0 <= I < N. */
static int opt_segment(void *args, const struct opt_entry *opt,
		       const char *arg, struct error *e)
{
	struct load_opts *o = args;
	long i, n;

	if (parse_index_of(arg, &i, &n) || n > 100000)
		return error_set(e, "'%s': expected I/N, 0 <= I < N <= 100000 "
				 "(the first segment is 0/N)", arg);
	o->plan.segment = i;
	o->plan.segments = n;
	o->plan.segment_given = true;
	return 0;
}

/* A fraction ".123" (digits after the point) in ns; -1 if bad. */
static int64_t fraction_ns(const char *p, const char **end)
{
	int64_t ns = 0, scale = 100000000;

	if (*p != '.') {
		*end = p;
		return 0;
	}
	if (!isdigit((unsigned char)*++p))
		return -1;
	for (; isdigit((unsigned char)*p); p++, scale /= 10)
		ns += (*p - '0') * scale;
	*end = p;
	return ns;
}

/* Whether s matches pat: 'd' a digit, '?' any character, any other
 * itself. */
static bool digits_at(const char *s, const char *pat)
{
	for (; *pat; s++, pat++)
		if (!*s || (*pat == 'd' && !isdigit((unsigned char)*s)) ||
		    (*pat != 'd' && *pat != '?' && *s != *pat))
			return false;
	return true;
}

/* secs + frac ns as unix ns, saturated: a time before 1970 is 0, one
 * past 2262 (twelve digits of seconds, the year 9999) INT64_MAX, which
 * the bounds of --start-at then refuse (secs * 10^9 overflowed). */
static int64_t time_ns(int64_t secs, int64_t frac)
{
	if (secs < 0)
		return 0;
	if (secs >= INT64_MAX / 1000000000 - 1)
		return INT64_MAX;
	return secs * 1000000000 + frac;
}

/* RFC 3339 ("2026-11-24T18:30:00Z", "...00.5+01:00") or unix seconds
 * ("1795545000", "1795545000.25") into unix ns, saturated (time_ns); -1
 * if neither. */
static int64_t parse_time(const char *s)
{
	struct tm tm;
	const char *p;
	int used = 0, oh, om;
	int64_t frac, secs, off = 0;
	char t, sign;

	if (isdigit((unsigned char)s[0]) && strspn(s, "0123456789") <= 12 &&
	    (s[strspn(s, "0123456789")] == '\0' ||
	     s[strspn(s, "0123456789")] == '.')) {
		secs = strtoll(s, (char **)&p, 10);
		frac = fraction_ns(p, &p);
		return frac < 0 || *p ? -1 : time_ns(secs, frac);
	}
	/* digits where the format has them, and nothing sscanf would skip
	 * or take (blanks, a sign) */
	if (!digits_at(s, "dddd-dd-dd?dd:dd:dd"))
		return -1;
	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &t, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
		   &used) != 7 || used != 19 || (t != 'T' && t != 't' &&
		   t != ' '))
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60)
		return -1;
	frac = fraction_ns(s + used, &p);
	if (frac < 0)
		return -1;
	if ((*p == 'Z' || *p == 'z') && !p[1]) {
		off = 0;
	} else if ((*p == '+' || *p == '-') && digits_at(p, "?dd:dd") &&
		   sscanf(p, "%c%2d:%2d%n", &sign, &oh, &om, &used) == 3 &&
		   used == 6 && !p[6] && oh < 24 && om < 60) {
		off = (sign == '+' ? 1 : -1) * (int64_t)(oh * 3600 + om * 60);
	} else {
		return -1;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	secs = (int64_t)timegm(&tm) - off;
	return time_ns(secs, frac);
}

/* How far --start-at may be: a little in the past (clocks of machines
 * differ, a command line takes time to start), a day ahead. */
#define START_AT_PAST_NS 2000000000LL
#define START_AT_AHEAD_NS (24LL * 3600 * 1000000000)

static int opt_start_at(void *args, const struct opt_entry *opt,
			const char *arg, struct error *e)
{
	struct load_opts *o = args;
	int64_t t = parse_time(arg), now;
	struct timespec ts;

	if (t < 0)
		return error_set(e, "'%s': expected a time: RFC 3339 "
				 "(2026-11-24T18:30:00Z) or unix seconds", arg);
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (t < now - START_AT_PAST_NS)
		return error_set(e, "'%s' was %.1f s ago (more than 2 s in the "
				 "past)", arg, (double)(now - t) / 1e9);
	if (t > now + START_AT_AHEAD_NS)
		return error_set(e, "'%s' is more than a day ahead", arg);
	o->plan.start_at = t;
	o->plan.start_at_given = true;
	return 0;
}

#define OPT_STRUCT struct load_opts
static const struct opt_entry load_options[] = {
	OPT_GROUP("Load"),
	{ OPT_COUNT('c', "connections", plan.connections, 1, 100000),
	  OPT_SETS(connections_given),
	  .help = "connections kept open (with --find-max, 64 by default): "
	  "at most one request in flight on each" },
	{ OPT_COUNT('t', "threads", plan.threads, 1, 1024),
	  .help = "client threads, each an epoll loop over its share of the "
	  "connections; at most --connections" },
	{ OPT_DURATION('d', "duration", plan.duration), .flags = OPT_MIN_EXCL,
	  OPT_SETS(duration_given),
	  .help = "measure for T; units s, ms, us, ns" },
	{ OPT_COUNT('n', "requests", plan.requests, 1, 1L << 50),
	  .help = "measure N requests (stop at N, or at --duration when both "
	  "are given)" },
	{ OPT_NUMBER('R', "rate", plan.rate, 0, 1e9), .flags = OPT_MIN_EXCL,
	  .metavar = "R", OPT_SETS(rate_given),
	  .help = "open model: R requests per second in total" },
	{ OPT_CALLBACK(0, "segment", opt_segment), .metavar = "I/N",
	  .help = "send segment I (0 .. N-1) of a test split over N "
	  "processes or machines: its share of --connections and --requests "
	  "and, with --rate (the whole test's), the requests the whole "
	  "test's schedule deals to it (every N-th, at their due times); "
	  "merge the results with 'yardstick merge'" },
	{ OPT_CALLBACK(0, "start-at", opt_start_at), .metavar = "TIME",
	  .help = "connect, then start the schedule at TIME (RFC 3339 or "
	  "unix seconds; at most 2 s past, a day ahead): the one origin of "
	  "all segments' due times" },
	{ OPT_DURATION('w', "warmup", plan.warmup), .defval = "0",
	  .help = "send for T first, not recorded" },
	{ OPT_DURATION(0, "timeout", plan.timeout), .flags = OPT_MIN_EXCL,
	  .help = "per request and per connect: the request "
	  "counts as a timeout, the connection is opened again" },
	OPT_GROUP("Capacity search"),
	{ OPT_FLAG(0, "find-max", find_max),
	  .help = "find the highest throughput the service sustains under "
	  "the --slo objectives: open-model steps from --start-rate, "
	  "--rate-factor times more each, then bisection between the last "
	  "rate that passed and the first that failed, to --tolerance; "
	  "one benchmark per step and max_throughput in the result" },
	{ OPT_CALLBACK(0, "slo", opt_slo), .metavar = "OBJECTIVE",
	  .help = "an objective every step must meet (repeatable, all must "
	  "hold): 'pQ<DURATION' (latency's Q-th percentile, as p99<50ms, "
	  "p99.9<=1s) or 'errors<P%' (the share of failed requests); "
	  "without an errors objective any error fails a step" },
	{ OPT_NUMBER(0, "start-rate", search.start_rate, 0, 1e9),
	  .flags = OPT_MIN_EXCL, .metavar = "R", OPT_SETS(search_given),
	  .help = "the first step's rate, requests/s (default 10)" },
	{ OPT_NUMBER(0, "max-rate", search.max_rate, 0, 1e9),
	  .flags = OPT_MIN_EXCL, .metavar = "R", OPT_SETS(search_given),
	  .help = "never offer more than R requests/s: the search ends "
	  "when a step at R passes" },
	{ OPT_NUMBER(0, "rate-factor", search.factor, 1, 100),
	  .flags = OPT_MIN_EXCL, .metavar = "F", OPT_SETS(search_given),
	  .help = "each step of the first phase offers F times the last "
	  "(default 2)" },
	{ OPT_PERCENT(0, "tolerance", search.tolerance, 0.1, 100),
	  .metavar = "P", OPT_SETS(search_given),
	  .help = "bisect until the rate that failed is within P% above "
	  "the one that passed (default 5)" },
	{ OPT_DURATION(0, "step-duration", search.min_duration),
	  .flags = OPT_MIN_EXCL, OPT_SETS(search_given),
	  .help = "hold each step at least T (default 2s)" },
	{ OPT_COUNT(0, "step-requests", search.min_requests, 1, 100000000),
	  OPT_SETS(search_given),
	  .help = "hold each step for at least N requests (default 200; "
	  "more when an objective needs them to be judged: 268 for p99, "
	  "2703 for p99.9)" },
	OPT_GROUP("Requests"),
	{ OPT_CALLBACK('m', "method", opt_method), .metavar = "M",
	  .help = "the method (default GET, POST with a body)" },
	{ OPT_CALLBACK('H', "header", opt_header), .metavar = "'K: V'",
	  .help = "a request header (repeatable); Host is set from the URL "
	  "unless given; Content-Length from the body" },
	{ OPT_CALLBACK('b', "body", opt_body), .metavar = "STRING",
	  .help = "the request body" },
	{ OPT_CALLBACK(0, "body-file", opt_body_file), .flags = OPT_FILES,
	  .metavar = "FILE", .help = "the request body, from FILE" },
	{ OPT_PATH(0, "requests-file", plan.requests_file), .help = "replay these "
	  "requests in turn instead: one JSON object a line, {\"method\": "
	  "\"POST\", \"path\": \"/a?b=1\", \"headers\": {\"K\": \"V\"}, "
	  "\"body\": \"...\"} (path required; method GET by default; lines "
	  "that are empty or start with # are skipped). The URL gives "
	  "scheme, host and port; --header adds to each request's headers" },
	{ OPT_FLAG('k', "insecure", plan.insecure),
	  .help = "https: do not verify the server's certificate" },
	OPT_GROUP("Output"),
	{ OPT_STRING(0, "name", plan.name), .flags = OPT_NONEMPTY,
	  .metavar = "NAME", .help = "the benchmark's name in the result "
	  "(default: the method and URL)" },
	{ OPT_FLAG(0, "histogram", histogram),
	  .help = "print the full percentile spectrum of the latency" },
	{ OPT_OUTPUT(0, "json", json), .help = "the result (- for stdout): "
	  "metrics latency, latency_uncorrected (seconds), throughput "
	  "(requests/s, one value a second), error_rate (errors/s, one "
	  "value a second) and errors" },
	{ OPT_COUNT(0, "sample", plan.sample, 1, 100000000),
	  .help = "latencies kept as the values of latency and "
	  "latency_uncorrected in the result: a uniform sample of all "
	  "requests; their percentiles come from every request" },
	{ OPT_SEED(plan.seed, "seed of that sample and of the statistics") },
	{ OPT_STRING(0, "push", push), .flags = OPT_NONEMPTY,
	  .metavar = "URL", .help = "push live metrics to the Prometheus "
	  "Pushgateway at URL while the test runs, and the final ones at "
	  "the end (docs/export.md)" },
	{ OPT_DURATION(0, "push-interval", push_interval),
	  .flags = OPT_MIN_EXCL, OPT_SETS(push_interval_given),
	  .help = "how often --push pushes, at least 50ms" },
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no summary") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void load_init(void *args)
{
	struct load_opts *o = args;

	load_plan_defaults(&o->plan);
	load_search_plan_defaults(&o->search);
	o->push_interval = 1;
}

const struct opt_cmd load_cmd = {
	.name = "load",
	.summary = "HTTP load generator: closed or fixed-rate, latency "
		   "corrected for coordinated omission; capacity search",
	.usage = load_usage,
	.description = load_description,
	.epilog = load_epilog,
	.mode = OPT_STOP_AT_OPERAND,
	.opts = load_options,
	.args_size = sizeof(struct load_opts),
	.init = load_init,
};

/* The connections of a search: open-model steps need many in flight. */
#define FIND_MAX_CONNECTIONS 64

/* --find-max and its options. */
static int check_find_max(struct load_opts *o, struct error *e)
{
	struct load_plan *p = &o->plan;
	const struct load_search_plan *sp = &o->search;

	if (!o->find_max)
		return o->search_given || sp->nslos ? error_set(e, "--slo, "
			"--start-rate, --max-rate, --rate-factor, --tolerance, "
			"--step-duration and --step-requests go with "
			"--find-max") : 0;
	if (!sp->nslos)
		return error_set(e, "--find-max needs an objective, as in "
				 "--slo 'p99<50ms'");
	if (o->rate_given || o->duration_given || p->requests)
		return error_set(e, "--find-max chooses each step's rate and "
				 "length: drop --rate, --duration and "
				 "--requests (see --start-rate, "
				 "--step-duration, --step-requests)");
	if (p->segment_given || p->start_at_given || o->push)
		return error_set(e, "--find-max runs alone: drop --segment, "
				 "--start-at and --push");
	if (sp->max_rate > 0 && sp->max_rate < sp->start_rate)
		return error_set(e, "--max-rate %g is below --start-rate %g",
				 sp->max_rate, sp->start_rate);
	if (!o->connections_given)
		p->connections = FIND_MAX_CONNECTIONS;
	return 0;
}

/* Options that go together, and the URL. */
static int check_opts(struct load_opts *o, struct error *e)
{
	struct load_plan *p = &o->plan;

	if (check_find_max(o, e))
		return -1;

	if (p->threads > p->connections && !p->segment_given)
		return error_set(e, "--threads %ld: more threads than "
				 "--connections %ld", p->threads,
				 p->connections);
	if (o->push_interval_given && !o->push)
		return error_set(e, "--push-interval without --push");
	if (o->push && push_check_url(o->push, e))
		return error_prefix(e, "--push: ");
	if (o->push_interval < 0.05)
		return error_set(e, "--push-interval %gs: at least 50ms",
				 o->push_interval);
	if (p->segments > 1 && p->connections < p->segments)
		return error_set(e, "--connections %ld for --segment %ld/%ld: "
				 "every segment needs a connection", 
				 p->connections, p->segment, p->segments);
	if (p->segments > 1 && p->requests && p->requests < p->segments)
		return error_set(e, "--requests %ld for --segment %ld/%ld: "
				 "every segment needs a request", p->requests,
				 p->segment, p->segments);
	if (p->requests_file && (p->method || p->body_given))
		return error_set(e, "--requests-file gives the method and body "
				 "of every request: drop --method, --body and "
				 "--body-file");
	return url_parse(p->url_arg, &p->url, e);
}

static void load_opts_free(struct load_opts *o)
{
	free(o->plan.headers);	/* the array; the headers are argv's */
	free(o->search.slos);
	load_plan_free(&o->plan);
}

/* Returns 0, 1 when help was printed, -1 with a message. */
static int parse_opts(struct load_opts *o, int argc, char **argv,
		      struct error *e)
{
	struct opt_rest rest;
	int r;

	r = opt_parse(&load_cmd, argc, argv, o, &rest, e);
	if (r)
		return r;
	if (rest.first != argc - 1)
		return error_set(e, rest.first >= argc ? "no URL given" :
				 "one URL only (options go before it)");
	if (o->plan.requests && !o->duration_given)
		o->plan.duration = 0;
	o->plan.url_arg = argv[rest.first];
	return check_opts(o, e);
}

static void install_handlers(void)
{
	struct error e;

	/* the policy of the commands that run a program (util/stop.h): a
	 * second signal exits at once */
	if (stop_install(&e))
		say("warning: %s", e.msg);
	/* A write to a socket the server closed fails with EPIPE, counted;
	 * OpenSSL writes without MSG_NOSIGNAL. */
	signal(SIGPIPE, SIG_IGN);
}

static void show_progress(void *arg, double fraction)
{
	progress_update(arg, fraction, "load");
}

/* Report, write, store; the exit code. */
static int finish(const struct load_opts *o, const struct load_stats *st,
		  struct git_probe *gp, struct result *res,
		  struct output_set *outs, struct load_push *lp)
{
	char *name = load_bench_name(&o->plan);
	int ret = 0, rs;

	load_fill_result(res, &o->plan, st);
	if (st->interrupted)
		result_mark_partial(res);
	if (!o->quiet)
		load_report(&o->plan, st, name, o->histogram,
			    outputs_report_fp(outs));
	free(name);
	fflush(stdout);
	for (size_t i = 0; i < res->benchmarks[0].nwarnings; i++)
		/* as run prints a result's warnings */
		fprintf(stderr, "warning: %s\n",
			res->benchmarks[0].warnings[i]);
	if (st->interrupted)
		say("interrupted: what was measured so far is kept");
	if (!st->interrupted && st->ok == 0) {
		char why[400];

		load_failure_reason(&o->plan, st, why, sizeof(why));
		say("no request succeeded: %s", why);
		ret = 1;
	}
	git_detect_finish(gp);
	if (git_detect_warning(gp))
		say("warning: %s", git_detect_warning(gp));
	if (write_output_set(outs, LOAD_PREFIX))
		ret = ret ? ret : 2;
	if (lp) {
		struct error e;

		if (load_push_final(lp, st, &e)) {
			say("%s", e.msg);
			ret = ret ? ret : 3;
		} else if (!o->quiet) {
			say("%u push%s to '%s'",
				lp->pushes, plural_es(lp->pushes),
				o->push);
		}
	}
	rs = o->no_store ? 0 : save_result(res, o->store, o->quiet);
	if (st->interrupted)
		return stop_exit_code() ? stop_exit_code() : 130;
	return ret ? ret : rs;
}

/* The report's stream, for the steps printed as the search goes. */
struct step_printer {
	FILE *fp;
};

static void print_step(void *arg, const struct load_step *s)
{
	struct step_printer *sp = arg;

	load_search_step_line(s, sp->fp);
	fflush(sp->fp);
}

/* --find-max: search, report, write, store; the exit code (1 when no
 * step met the objectives). */
static int find_max(const struct load_opts *o, const struct load_config *cfg,
		    struct result *res, struct output_set *outs)
{
	struct step_printer pr = { outputs_report_fp(outs) };
	struct load_search s;
	struct git_probe gp = { .fd = -1 };
	struct error e;
	char why[400];
	int r, ret = 0, rs;

	if (!o->quiet)
		load_search_report_head(&o->plan, &o->search, pr.fp);
	r = load_search_run(cfg, &o->search, o->quiet ? NULL : print_step,
			    &pr, &s, &e);
	if (r) {
		say("%s", e.msg);
		ret = error_exit_code(&e);
	}
	git_detect_start(&res->git, &gp, o->json || !o->no_store);
	load_search_fill_result(res, &o->plan, &o->search, &s);
	if (s.end == LOAD_SEARCH_INTERRUPTED)
		result_mark_partial(res);
	if (!o->quiet)
		load_search_report_tail(&o->search, &s, pr.fp);
	fflush(stdout);
	if (s.end == LOAD_SEARCH_INTERRUPTED)
		say("interrupted: what was measured so far is kept");
	else if (!r && load_search_failure(&s, why, sizeof(why))) {
		say("no rate met the objectives: %s", why);
		ret = 1;
	}
	git_detect_finish(&gp);
	if (git_detect_warning(&gp))
		say("warning: %s", git_detect_warning(&gp));
	/* nothing measured (the first step could not start): nothing kept */
	if (s.nsteps && write_output_set(outs, LOAD_PREFIX))
		ret = ret ? ret : 2;
	rs = o->no_store || !s.nsteps ? 0 : save_result(res, o->store,
							 o->quiet);
	if (s.end == LOAD_SEARCH_INTERRUPTED)
		ret = stop_exit_code() ? stop_exit_code() : 130;
	load_search_free(&s);
	return ret ? ret : rs;
}

int cmd_load(int argc, char **argv)
{
	struct load_opts o;
	struct load_config cfg;
	struct load_stats st;
	struct load_req *reqs = NULL;
	struct load_push lp = { 0 };
	struct result res;
	struct git_probe gp = { .fd = -1 };
	struct progress progress;
	struct output_set outs;
	struct error e;
	size_t nreqs = 0;
	int r, ret = 2;

	r = parse_opts(&o, argc, argv, &e);
	result_init(&res, "load");
	outputs_init(&outs);
	if (r) {
		if (r < 0)
			say("%s", e.msg);
		ret = r < 0 ? 2 : 0;
		goto out_free;
	}
	/* checked before the first request */
	outputs_add(&outs, "--json", o.json, "json", output_result_json, &res);
	if (check_output_set(&outs, LOAD_PREFIX))
		goto out_free;
	if (!o.no_store && (r = save_check(o.store))) {
		ret = r;
		goto out_free;
	}
	if (load_plan_requests(&o.plan, &reqs, &nreqs, &e) ||
	    load_plan_config(&o.plan, &cfg, &e)) {
		say("%s", e.msg);
		goto out_free;
	}
	cfg.reqs = reqs;
	cfg.nreqs = nreqs;
	res.created = utc_timestamp();
	res.tool_version = xstrdup(YS_VERSION);
	machine_detect(&res.machine);
	install_handlers();
	if (o.find_max) {
		ret = find_max(&o, &cfg, &res, &outs);
		goto out_free;
	}
	progress_init(&progress);
	if (!o.quiet && progress.enabled) {
		cfg.progress = show_progress;
		cfg.progress_arg = &progress;
	}
	if (o.push) {
		char *name = load_bench_name(&o.plan), seg[48];

		snprintf(seg, sizeof(seg), "%ld/%ld", o.plan.segment,
			 o.plan.segments);
		load_push_init(&lp, o.push, name, res.machine.hostname,
			       o.plan.segment_given ? seg : NULL);
		free(name);
		cfg.live = load_push_live;
		cfg.live_arg = &lp;
		cfg.live_interval = o.push_interval;
	}
	r = load_run(&cfg, &st, &e);
	progress_clear(&progress);
	if (r) {
		say("%s", e.msg);
		ret = error_exit_code(&e);
		goto out_free;
	}
	git_detect_start(&res.git, &gp, o.json || !o.no_store);
	ret = finish(&o, &st, &gp, &res, &outs, o.push ? &lp : NULL);
	load_stats_free(&st);

out_free:
	if (o.push)
		load_push_free(&lp);
	load_reqs_free(reqs, nreqs);
	result_free(&res);
	outputs_free(&outs);
	load_opts_free(&o);
	return ret;
}
