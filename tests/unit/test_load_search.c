/*
 * Unit tests of load --find-max's engine (src/engine/load_search.h)
 * without a server: the objectives' parser over generated good and bad
 * cases, the Wilson bounds against SciPy's (binomtest(k, n)
 * .proportion_ci(0.90, 'wilson'): a two-sided 90% interval is the pair of
 * one-sided 95% bounds), the requests a step needs against those bounds,
 * a step's verdict on designed latencies and errors (sure, unsure, ties,
 * not sustained), and the knee of designed steps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/load_search.h"
#include "util/strutil.h"

static void test_parse_good(void **state)
{
	static const struct {
		const char *s;
		enum load_slo_kind kind;
		double q, limit;
		bool inclusive;
		const char *text;
	} cases[] = {
		{ "p99<50ms", LOAD_SLO_LATENCY, 99, 0.050, false, "p99<50ms" },
		{ " p99.9 <= 1s ", LOAD_SLO_LATENCY, 99.9, 1, true, "p99.9<=1s" },
		{ "p50<250us", LOAD_SLO_LATENCY, 50, 250e-6, false, "p50<250us" },
		{ "p0.1<2", LOAD_SLO_LATENCY, 0.1, 2, false, "p0.1<2" },
		{ "p99.99<100ns", LOAD_SLO_LATENCY, 99.99, 100e-9, false,
		  "p99.99<100ns" },
		{ "errors<1%", LOAD_SLO_ERRORS, 0, 0.01, false, "errors<1%" },
		{ "errors <= 0%", LOAD_SLO_ERRORS, 0, 0, true, "errors<=0%" },
		{ "errors<99.5%", LOAD_SLO_ERRORS, 0, 0.995, false,
		  "errors<99.5%" },
	};
	struct load_slo o;
	struct error e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(load_slo_parse(cases[i].s, &o, &e), 0);
		assert_int_equal(o.kind, cases[i].kind);
		assert_true(fabs(o.q - cases[i].q) < 1e-12);
		assert_true(fabs(o.limit - cases[i].limit) <=
			    1e-12 * cases[i].limit);
		assert_int_equal(o.inclusive, cases[i].inclusive);
		assert_string_equal(o.text, cases[i].text);
	}
}

static void test_parse_bad(void **state)
{
	static const struct { const char *s, *msg; } cases[] = {
		{ "", "'': an empty objective" },
		{ "p99", "'p99': expected a percentile after 'p'" },
		{ "p99<", "'p99<': expected a duration" },
		{ "p99<50", NULL },	/* seconds: good */
		{ "p99<50xs", "'p99<50xs': expected a duration" },
		{ "p100<1s", "'p100<1s': the percentile must be above 0" },
		{ "p0<1s", "'p0<1s': the percentile must be above 0" },
		{ "p-1<1s", "'p-1<1s': expected a percentile" },
		{ "p99<0ms", "'p99<0ms': the latency limit must be above 0" },
		{ "p99<infs", "'p99<infs': expected a duration" },
		{ "p99>1s", "'p99>1s': an objective is a limit the latency "
		  "stays under: '<' or '<='" },
		{ "p99>=1s", "'p99>=1s': an objective is a limit" },
		{ "p99=1s", "'p99=1s': an objective is a limit" },
		{ "pnan<1s", "'pnan<1s': expected a percentile" },
		{ "latency<1s", "'latency<1s': expected 'pQ<DURATION'" },
		{ "errors", "'errors': expected '<' or '<='" },
		{ "errors<1", "'errors<1': expected a percentage" },
		{ "errors<1%%", "'errors<1%%': expected a percentage" },
		{ "errors<0%", "'errors<0%' can never hold" },
		{ "errors<100%", "'errors<100%': the share of errors must be "
		  "under 100%" },
		{ "p99<50ms, errors<1%", "expected a duration" },
	};
	struct load_slo o;
	struct error e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = load_slo_parse(cases[i].s, &o, &e);

		if (!cases[i].msg) {
			assert_int_equal(r, 0);
			continue;
		}
		assert_int_equal(r, -1);
		if (!strstr(e.msg, cases[i].msg))
			fail_msg("'%s': got \"%s\"", cases[i].s, e.msg);
	}
	/* too long: quoted, cut */
	assert_int_equal(load_slo_parse("p99<00000000000000000000000000000000"
					"000000050ms", &o, &e), -1);
	assert_non_null(strstr(e.msg, "at most 40 characters"));
}

/* SciPy 1.10: binomtest(k, n).proportion_ci(0.90, method='wilson'). */
static void test_wilson(void **state)
{
	static const struct { double k, n, lo, hi; } ref[] = {
		{ 0, 268, 0, 0.00999441466759 },
		{ 0, 267, 0, 0.0100314714316 },
		{ 5, 1000, 0.00243592930064, 0.0102353315067 },
		{ 10, 1000, 0.0059872858526, 0.0166569925224 },
		{ 20, 1000, 0.0139084796592, 0.028681833851 },
		{ 3, 10, 0.126876583903, 0.55830020413 },
		{ 50, 100, 0.418847796113, 0.581152203887 },
		{ 100, 100, 0.973657279217, 1 },
	};
	double lo, hi;

	for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
		load_slo_wilson(ref[i].k, ref[i].n, &lo, &hi);
		assert_true(fabs(lo - ref[i].lo) < 1e-9);
		assert_true(fabs(hi - ref[i].hi) < 1e-9);
	}
}

/* For percentiles from 1 to 99.99: the least n with no request over the
 * limit that passes, by the bounds themselves. */
static void test_min_requests(void **state)
{
	static const double qs[] = { 1, 10, 50, 75, 90, 95, 99, 99.5, 99.9,
				     99.99 };
	struct load_slo o = { .kind = LOAD_SLO_LATENCY, .limit = 1 };
	double lo, hi;

	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		long n;

		o.q = qs[i];
		n = load_slo_min_requests(&o);
		load_slo_wilson(0, (double)n, &lo, &hi);
		assert_true(hi < load_slo_allowed(&o));
		if (n > 1) {
			load_slo_wilson(0, (double)n - 1, &lo, &hi);
			assert_true(hi >= load_slo_allowed(&o));
		}
	}
	o.q = 99;
	assert_int_equal(load_slo_min_requests(&o), 268);
	o.q = 99.9;
	assert_int_equal(load_slo_min_requests(&o), 2703);
}

/* A step of 1000 responses at 10 ms, over of them at 200 ms, offered
 * 100/s and answered in 10 s. */
static void step_init(struct load_step *s, int over)
{
	memset(s, 0, sizeof(*s));
	load_stats_init(&s->st, 10, 1);
	for (int i = 0; i < 1000; i++)
		hdr_record(s->st.latency, i < over ? 200000000 : 10000000);
	s->st.requests = s->st.responses = s->st.ok = 1000;
	s->st.elapsed = 10;
	s->offered = 100;
}

static void judge(const char *slo, int over, enum load_verdict want,
		  bool unsure, const char *why)
{
	struct load_search_plan sp;
	struct load_slo o;
	struct load_step s;
	struct error e;
	bool again;

	load_search_plan_defaults(&sp);
	assert_int_equal(load_slo_parse(slo, &o, &e), 0);
	sp.slos = &o;
	sp.nslos = 1;
	step_init(&s, over);
	again = load_search_judge(&sp, &s);
	if (s.verdict != want || s.unsure != unsure)
		fail_msg("%s with %d over: verdict %d unsure %d (%s)", slo,
			 over, s.verdict, s.unsure, s.why);
	assert_int_equal(again, unsure);
	if (why)
		assert_non_null(strstr(s.why, why));
	assert_true(fabs(s.achieved - 100) < 1e-9);
	load_stats_free(&s.st);
}

static void test_judge_latency(void **state)
{
	judge("p99<50ms", 0, LOAD_STEP_PASS, false, NULL);
	/* 5 of 1000: the interval holds 1%, the point is under it */
	judge("p99<50ms", 5, LOAD_STEP_PASS, true, NULL);
	/* 10 of 1000: exactly 1%: a tie fails "<", passes "<=" */
	judge("p99<50ms", 10, LOAD_STEP_FAIL, true, "p99<50ms: p99 ");
	judge("p99<=50ms", 10, LOAD_STEP_PASS, true, NULL);
	/* 20 of 1000: the whole interval is above 1% */
	judge("p99<50ms", 20, LOAD_STEP_FAIL, false, "p99<50ms: p99 200");
	/* the limit between the two latencies passes */
	judge("p50<10.5ms", 20, LOAD_STEP_PASS, false, NULL);
}

static void test_judge_errors(void **state)
{
	struct load_search_plan sp;
	struct load_slo o[2];
	struct load_step s;
	struct error e;

	load_search_plan_defaults(&sp);
	assert_int_equal(load_slo_parse("p99<50ms", &o[0], &e), 0);
	sp.slos = o;
	sp.nslos = 1;
	step_init(&s, 0);
	s.st.errors[LOAD_ERR_READ] = 3;
	s.st.requests += 3;
	snprintf(s.st.reason[LOAD_ERR_READ], sizeof(s.st.reason[0]),
		 "connection reset by peer");
	/* no errors objective: any error fails, named with its reason */
	assert_false(load_search_judge(&sp, &s));
	assert_int_equal(s.verdict, LOAD_STEP_FAIL);
	assert_false(s.unsure);
	assert_non_null(strstr(s.why, "errors<=0%: "));
	assert_non_null(strstr(s.why, "read 3: connection reset by peer"));
	/* a latency unsure beside a sure failure: not held again */
	for (int i = 0; i < 5; i++)
		hdr_record(s.st.latency, 200000000);
	assert_false(load_search_judge(&sp, &s));
	assert_int_equal(s.verdict, LOAD_STEP_FAIL);
	assert_false(s.unsure);
	assert_non_null(strstr(s.why, "errors<=0%: "));
	/* 3 of 1003 under 1%, sure; the latency still unsure: held again */
	assert_int_equal(load_slo_parse("errors<1%", &o[1], &e), 0);
	sp.nslos = 2;
	assert_true(load_search_judge(&sp, &s));
	assert_int_equal(s.verdict, LOAD_STEP_PASS);
	hdr_reset(s.st.latency);
	for (int i = 0; i < 1000; i++)
		hdr_record(s.st.latency, 10000000);
	/* 3 of 1003 under 1%, sure */
	assert_int_equal(load_slo_parse("errors<1%", &o[1], &e), 0);
	sp.nslos = 2;
	load_search_judge(&sp, &s);
	assert_int_equal(s.verdict, LOAD_STEP_PASS);
	assert_false(s.unsure);
	/* not sustained: 1000 answered in 10 s of 200/s offered */
	s.offered = 200;
	load_search_judge(&sp, &s);
	assert_int_equal(s.verdict, LOAD_STEP_FAIL);
	assert_non_null(strstr(s.why, "not sustained: 100/s of 200/s"));
	/* nothing answered */
	hdr_reset(s.st.latency);
	s.offered = 100;
	load_search_judge(&sp, &s);
	assert_int_equal(s.verdict, LOAD_STEP_FAIL);
	assert_non_null(strstr(s.why, "p99<50ms: no response"));
	assert_null(strstr(s.why, "unanswered"));
	load_stats_free(&s.st);
}

/* A server that never answers: no request ended, those sent and due
 * still unanswered when the step ended. The step fails, saying how many
 * (before, only "no response"). */
static void test_judge_never_answered(void **state)
{
	struct load_search_plan sp;
	struct load_slo o;
	struct load_step s;
	struct error e;

	(void)state;
	load_search_plan_defaults(&sp);
	assert_int_equal(load_slo_parse("p99<50ms", &o, &e), 0);
	sp.slos = &o;
	sp.nslos = 1;
	memset(&s, 0, sizeof(s));
	load_stats_init(&s.st, 10, 1);
	s.st.elapsed = 1;
	s.offered = 50;
	for (int i = 0; i < 50; i++)
		hdr_record(s.st.unanswered, 20000000LL * (50 - i));
	assert_false(load_search_judge(&sp, &s));
	assert_int_equal(s.verdict, LOAD_STEP_FAIL);
	assert_string_equal(s.why, "errors<=0%: no response, 50 requests "
			    "unanswered");
	load_stats_free(&s.st);
}

/* Steps measured out of order: the knee is the last offered rate before
 * the median rose 1.5x (and 1 ms), or throughput fell short. */
static void test_knee(void **state)
{
	static const struct { double offered, achieved, p50; }
	cases[][6] = {
		/* a server of capacity 200/s: the knee at 200 */
		{ { 50, 50, 0.010 }, { 100, 100, 0.010 }, { 200, 199, 0.0104 },
		  { 400, 200, 0.5 }, { 300, 200, 0.2 }, { 250, 200, 0.1 } },
		/* a fast server: 0.2 ms to 0.5 ms is noise (under 1 ms) */
		{ { 50, 50, 0.0002 }, { 100, 100, 0.0005 },
		  { 200, 150, 0.0003 }, { 0, 0, 0 }, { 0, 0, 0 },
		  { 0, 0, 0 } },
	};
	static const int want[] = { 2, 1 };

	for (size_t c = 0; c < 2; c++) {
		struct load_step steps[6];
		struct load_search s = { .steps = steps };

		memset(steps, 0, sizeof(steps));
		for (size_t i = 0; i < 6 && cases[c][i].offered > 0; i++) {
			steps[i].offered = cases[c][i].offered;
			steps[i].achieved = cases[c][i].achieved;
			steps[i].p50 = cases[c][i].p50;
			s.nsteps++;
		}
		assert_int_equal(load_search_knee(&s), want[c]);
	}
	/* a step a stop cut short (its few requests fast) is no knee:
	 * the knee stays at the last step measured whole */
	{
		struct load_step steps[3];
		struct load_search s = { .steps = steps, .nsteps = 3 };

		memset(steps, 0, sizeof(steps));
		for (int i = 0; i < 3; i++) {
			steps[i].offered = 100.0 * (i + 1);
			steps[i].achieved = steps[i].offered;
			steps[i].p50 = 0.010;
		}
		steps[2].st.interrupted = true;
		assert_int_equal(load_search_knee(&s), 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_wilson),
		cmocka_unit_test(test_min_requests),
		cmocka_unit_test(test_judge_latency),
		cmocka_unit_test(test_judge_errors),
		cmocka_unit_test(test_judge_never_answered),
		cmocka_unit_test(test_knee),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
