/*
 * Unit tests of load's engine (src/engine/load_plan.h) driven by a plan
 * alone, with no command line: a segment's share of the connections and
 * requests over every split (the shares add up to the whole, differ by at
 * most one, the threads never more than the connections), the requests
 * built from the plan (the headers, the method, the body), the benchmark
 * name, and the settings of the result a plan makes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/load_plan.h"
#include "util/strutil.h"

/* A plan as load's options default it, to the URL u. */
static void plan_init(struct load_plan *p, const char *u)
{
	struct error e;

	memset(p, 0, sizeof(*p));
	load_plan_defaults(p);
	p->url_arg = (char *)u;
	assert_int_equal(url_parse(u, &p->url, &e), 0);
}

/* Every split of every total up to 60 connections and 7 requests over 1
 * to 12 segments: the configuration of each segment takes its share. */
static void test_segment_shares(void **state)
{
	for (long total = 1; total <= 60; total++) {
		for (long n = 1; n <= 12 && n <= total; n++) {
			long sum = 0, rsum = 0, lo = total, hi = 0;

			for (long i = 0; i < n; i++) {
				struct load_plan p;
				struct load_config c;
				struct error e;

				plan_init(&p, "http://127.0.0.1:9/");
				p.connections = total;
				/* more threads than a segment's connections:
				 * the command allows it with --segment only */
				p.threads = n > 1 ? 4 : 1;
				p.requests = total * 7;
				p.segment = i;
				p.segments = n;
				p.segment_given = true;
				assert_int_equal(load_plan_config(&p, &c, &e),
						 0);
				sum += c.connections;
				rsum += (long)c.requests;
				lo = (long)c.connections < lo ?
				     (long)c.connections : lo;
				hi = (long)c.connections > hi ?
				     (long)c.connections : hi;
				assert_true(c.threads <= c.connections);
				if (n > 1) {
					assert_int_equal(c.segment, i);
					assert_int_equal(c.segments, n);
				}
				load_plan_free(&p);
			}
			assert_int_equal(sum, total);
			assert_int_equal(rsum, total * 7);
			assert_true(hi - lo <= 1);
		}
	}
}

/* The request's bytes from the plan: method, path, the plan's headers,
 * Host from the URL, Content-Length from the body. */
static void test_requests(void **state)
{
	char *headers[] = { "X-Test: 1", NULL };
	struct load_plan p;
	struct load_req *r;
	struct error e;
	size_t n;

	plan_init(&p, "http://127.0.0.1:9/a?b=1");
	p.headers = headers;
	p.nheaders = 1;
	p.body = xstrdup("hello");
	p.body_len = 5;
	p.body_given = true;
	assert_int_equal(load_plan_requests(&p, &r, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_non_null(strstr(r[0].bytes, "POST /a?b=1 HTTP/1.1\r\n"));
	assert_non_null(strstr(r[0].bytes, "\r\nX-Test: 1\r\n"));
	assert_non_null(strstr(r[0].bytes, "\r\nContent-Length: 5\r\n"));
	assert_memory_equal(r[0].bytes + r[0].len - 5, "hello", 5);
	assert_false(r[0].idempotent);
	load_reqs_free(r, n);
	load_plan_free(&p);
}

static void test_bench_name(void **state)
{
	struct load_plan p;
	char *s;

	plan_init(&p, "http://127.0.0.1:9/x");
	s = load_bench_name(&p);
	assert_string_equal(s, "http://127.0.0.1:9/x");
	free(s);
	p.method = "DELETE";
	s = load_bench_name(&p);
	assert_string_equal(s, "DELETE http://127.0.0.1:9/x");
	free(s);
	p.name = "mine";
	s = load_bench_name(&p);
	assert_string_equal(s, "mine");
	free(s);
	load_plan_free(&p);
}

static const struct setting *setting(const struct result *r, const char *k)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, k))
			return &r->settings[i];
	return NULL;
}

/* The settings the plan of segment 2/3 of an open-model test writes:
 * its share of the connections, the whole test's rate, the model. */
static void test_result_settings(void **state)
{
	struct load_plan p;
	struct load_stats s;
	struct result r;

	plan_init(&p, "http://127.0.0.1:9/");
	p.connections = 10;
	p.rate = 300;
	p.segment = 2;
	p.segments = 3;
	p.segment_given = true;
	load_stats_init(&s, 16, 1);
	result_init(&r, "load");
	load_fill_result(&r, &p, &s);
	assert_string_equal(setting(&r, "segment")->str, "2/3");
	assert_true(setting(&r, "segment_connections")->num == 3);
	assert_true(setting(&r, "rate")->num == 300);
	assert_string_equal(setting(&r, "model")->str, "open");
	assert_string_equal(setting(&r, "method")->str, "GET");
	assert_int_equal(r.nbenchmarks, 1);
	result_free(&r);
	load_stats_free(&s);
	load_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segment_shares),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_bench_name),
		cmocka_unit_test(test_result_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
