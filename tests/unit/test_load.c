/*
 * Unit tests of src/load: URL parsing, request bytes, the response parser
 * (fed whole and byte by byte, Content-Length, chunked, 1xx, HEAD, bodies
 * up to EOF, malformed input), the requests file, the latency sample's
 * uniformity, and the per-second rates.
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

#include "load/http.h"
#include "load/load_internal.h"
#include "load/load.h"
#include "load/reqfile.h"
#include "load/sample.h"
#include "load/url.h"
#include "util/strutil.h"

static void test_url(void **state)
{
	struct url u;
	struct error e;

	assert_int_equal(url_parse("http://127.0.0.1:8080/a/b?x=1#frag", &u,
				   &e), 0);
	assert_false(u.tls);
	assert_string_equal(u.host, "127.0.0.1");
	assert_int_equal(u.port, 8080);
	assert_string_equal(u.path, "/a/b?x=1");
	assert_string_equal(u.authority, "127.0.0.1:8080");
	assert_string_equal(u.hostport, "127.0.0.1:8080");
	url_free(&u);

	assert_int_equal(url_parse("HTTPS://Example.org", &u, &e), 0);
	assert_true(u.tls);
	assert_int_equal(u.port, 443);
	assert_string_equal(u.path, "/");
	assert_string_equal(u.authority, "Example.org");
	assert_string_equal(u.hostport, "Example.org:443");
	url_free(&u);

	assert_int_equal(url_parse("http://[::1]:81?q", &u, &e), 0);
	assert_string_equal(u.host, "::1");
	assert_string_equal(u.path, "/?q");
	assert_string_equal(u.authority, "[::1]:81");
	url_free(&u);

	assert_int_equal(url_parse("http://h:80/", &u, &e), 0);
	assert_string_equal(u.authority, "h");	/* the default port */
	url_free(&u);
}

static void test_url_bad(void **state)
{
	static const struct { const char *url, *msg; } bad[] = {
		{ "ftp://h/", "must start with http:// or https://" },
		{ "127.0.0.1:80", "must start with http://" },
		{ "http://", "no host" },
		{ "http://h:0/", "'0' is not a port" },
		{ "http://h:65536/", "'65536' is not a port" },
		{ "http://h:/", "'' is not a port" },
		{ "http://h:8x/", "'8x' is not a port" },
		{ "http://u:p@h/", "credentials in the URL" },
		{ "http://h o/", "' ' cannot be in a host name" },
		{ "http://[::1/", "unterminated" },
		{ "http://[xyz]/", "is not an IPv6 address" },
		{ "http://h/a b", "a space or control character" },
	};
	struct url u;
	struct error e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(url_parse(bad[i].url, &u, &e), -1);
		if (!strstr(e.msg, bad[i].msg) || !strstr(e.msg, bad[i].url))
			fail_msg("'%s': got '%s'", bad[i].url, e.msg);
	}
}

static void test_header_check(void **state)
{
	struct error e;

	assert_int_equal(http_header_check("X-A: b", &e), 0);
	assert_int_equal(http_header_check("X-A:", &e), 0);
	assert_int_equal(http_header_check("no colon", &e), -1);
	assert_int_equal(http_header_check(": v", &e), -1);
	assert_int_equal(http_header_check("Bad Name: v", &e), -1);
	assert_int_equal(http_header_check("X: a\r\nY: b", &e), -1);
	assert_int_equal(http_header_check("content-length: 3", &e), -1);
	assert_int_equal(http_header_check("Transfer-Encoding: chunked", &e),
			 -1);
	assert_int_equal(http_method_check("GET", &e), 0);
	assert_int_equal(http_method_check("G T", &e), -1);
	assert_int_equal(http_method_check("", &e), -1);
}

static void test_request_build(void **state)
{
	char *hdrs[] = { "Accept:  text/plain  ", "X-Y:z", NULL };
	struct http_req_spec r = { .method = "GET", .path = "/p?q=1",
				   .headers = hdrs, .nheaders = 2 };
	char *out, *hhost[] = { "host: other", NULL };
	size_t len;

	http_request_build(&r, "h:8080", &out, &len);
	assert_string_equal(out, "GET /p?q=1 HTTP/1.1\r\nHost: h:8080\r\n"
			    "Accept: text/plain\r\nX-Y: z\r\n\r\n");
	assert_int_equal(len, strlen(out));
	free(out);

	r = (struct http_req_spec){ .method = "POST", .path = "/",
				    .body = "a\0b", .body_len = 3 };
	http_request_build(&r, "h", &out, &len);
	assert_int_equal(len, strlen("POST / HTTP/1.1\r\nHost: h\r\n"
				     "Content-Length: 3\r\n\r\n") + 3);
	assert_memory_equal(out + len - 3, "a\0b", 3);
	free(out);

	r = (struct http_req_spec){ .method = "PUT", .path = "/",
				    .headers = hhost, .nheaders = 1 };
	http_request_build(&r, "h", &out, &len);
	assert_string_equal(out, "PUT / HTTP/1.1\r\nhost: other\r\n"
			    "Content-Length: 0\r\n\r\n");
	free(out);
}

/* A request that says "Connection: close" ends its connection: the token
 * in any Connection header, in any case, among others. */
static void test_request_closes(void **state)
{
	char *close1[] = { "Connection: close" };
	char *close2[] = { "X: close", "connection:Keep-Alive, CLOSE " };
	char *ka[] = { "Connection: keep-alive", "X-Connection: close",
		       "Connection: closed" };
	struct http_req_spec r = { .method = "GET", .path = "/" };

	(void)state;
	assert_false(http_request_closes(&r));
	r.headers = close1;
	r.nheaders = 1;
	assert_true(http_request_closes(&r));
	r.headers = close2;
	r.nheaders = 2;
	assert_true(http_request_closes(&r));
	r.headers = ka;
	r.nheaders = 3;
	assert_false(http_request_closes(&r));
}

/* Feed s to a fresh parser in pieces of at most step bytes, as a
 * connection would (unconsumed bytes kept and fed again). Returns the
 * bytes left after the response, or -1 when malformed; the parser in *p. */
static long feed(struct http_resp *p, const char *s, size_t step, bool head,
		 struct error *e)
{
	size_t len = strlen(s), off = 0, have = 0;
	char buf[4096];

	http_resp_start(p, head);
	while (p->state != HTTP_DONE) {
		size_t add = len - off < step ? len - off : step;
		long n;

		if (add == 0)
			break;
		memcpy(buf + have, s + off, add);
		off += add;
		have += add;
		n = http_resp_feed(p, buf, have, e);
		if (n < 0)
			return -1;
		memmove(buf, buf + n, have - (size_t)n);
		have -= (size_t)n;
	}
	return (long)(have + len - off);
}

static void check_all_steps(const char *s, int status, bool keep_alive,
			    long left, bool head)
{
	for (size_t step = 1; step <= strlen(s); step++) {
		struct http_resp p;
		struct error e;
		long l = feed(&p, s, step, head, &e);

		if (l < 0)
			fail_msg("step %zu: %s", step, e.msg);
		assert_int_equal(p.state, HTTP_DONE);
		assert_int_equal(p.status, status);
		assert_int_equal(p.keep_alive, keep_alive);
		assert_int_equal(l, left);
	}
}

static void test_parse_length(void **state)
{
	check_all_steps("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
			"Server: x\r\n\r\nhello", 200, true, 0, false);
	check_all_steps("HTTP/1.1 404 Not Found\r\ncontent-length:0\r\n\r\n",
			404, true, 0, false);
	/* Bare LFs end lines, too; Connection: close. */
	check_all_steps("HTTP/1.1 200 OK\nContent-Length: 2\nConnection: "
			"Close\n\nhi", 200, false, 0, false);
	/* HTTP/1.0 closes unless keep-alive. */
	check_all_steps("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", 200,
			false, 0, false);
	check_all_steps("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
			"Content-Length: 1\r\n\r\nx", 200, true, 0, false);
	/* Bytes after the response are not consumed. */
	check_all_steps("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA",
			200, true, 5, false);
	/* 204, 304 and HEAD have no body; a 100 Continue is skipped. */
	check_all_steps("HTTP/1.1 204 No Content\r\n\r\n", 204, true, 0, false);
	check_all_steps("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", 200,
			true, 0, true);
	check_all_steps("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n"
			"Content-Length: 2\r\n\r\nok", 201, true, 0, false);
	/* Any number of 1xx, with headers. */
	check_all_steps("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
			"HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 200 OK\r\n"
			"Content-Length: 2\r\n\r\nok", 200, true, 0, false);
}

/* Folded header lines (obs-fold) are accepted as RFC 9112 5.2 asks of a
 * client, unless they fold the body's length. */
static void test_parse_folded(void **state)
{
	struct http_resp p;
	struct error e;

	check_all_steps("HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\tc\r\n"
			"Content-Length: 2\r\n\r\nok", 200, true, 0, false);
	/* Before any header: ignored. */
	check_all_steps("HTTP/1.1 200 OK\r\n x\r\nContent-Length: 2\r\n\r\n"
			"ok", 200, true, 0, false);
	/* A folded Connection list still counts. */
	check_all_steps("HTTP/1.1 200 OK\r\nConnection: upgrade,\r\n close\r\n"
			"Content-Length: 2\r\n\r\nok", 200, false, 0, false);
	assert_int_equal(feed(&p, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
			      " 0\r\n\r\n0123456789", 1000, false, &e), -1);
	assert_non_null(strstr(e.msg, "folded Content-Length"));
	assert_int_equal(feed(&p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
			      "gzip,\r\n chunked\r\n\r\n0\r\n\r\n", 1000,
			      false, &e), -1);
}

static void test_idempotent(void **state)
{
	static const char *const yes[] = {
		"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE",
	};
	static const char *const no[] = {
		"POST", "PATCH", "CONNECT", "get", "PROPFIND", "",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(http_method_idempotent(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(http_method_idempotent(no[i]));
}

static void test_parse_chunked(void **state)
{
	check_all_steps("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\n\r\n", 200,
			true, 0, false);
	check_all_steps("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked"
			"\r\n\r\n1\r\nx\r\n0\r\nTrailer: y\r\n\r\n", 200, true,
			0, false);
	/* Chunked wins over Content-Length (RFC 9112 6.3). */
	check_all_steps("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n"
			"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 200, true,
			0, false);
}

/* A Transfer-Encoding whose last coding is not chunked overrides a
 * Content-Length too: the body runs to the close (RFC 9112 6.3, rules 3
 * and 4), so a response longer than the length it claims is read whole,
 * not cut at the length with the rest taken for the next response. */
static void test_parse_coded_length(void **state)
{
	const char *heads[] = {
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n"
		"Content-Length: 3\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
		"Transfer-Encoding: chunked, gzip\r\n\r\n",
	};

	for (size_t i = 0; i < 2; i++) {
		struct http_resp p;
		struct error e;
		char *s = xasprintf("%s0123456789", heads[i]);

		/* every byte is the body's, none left for a next one */
		assert_int_equal(feed(&p, s, 7, false, &e), 0);
		assert_int_equal(p.state, HTTP_UNTIL_CLOSE);
		assert_false(p.keep_alive);
		assert_true(http_resp_eof(&p));
		assert_int_equal(p.status, 200);
		free(s);
	}
}

static void test_parse_until_close(void **state)
{
	struct http_resp p;
	struct error e;
	const char *s = "HTTP/1.1 200 OK\r\n\r\nbody until the end";

	assert_int_equal(feed(&p, s, 7, false, &e), 0);
	assert_int_equal(p.state, HTTP_UNTIL_CLOSE);
	assert_false(p.keep_alive);
	assert_true(http_resp_eof(&p));
	assert_int_equal(p.state, HTTP_DONE);

	/* EOF in the middle of a Content-Length body is not an end. */
	feed(&p, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 100, false,
	     &e);
	assert_int_equal(p.state, HTTP_BODY);
	assert_int_equal(p.remaining, 6);
	assert_false(http_resp_eof(&p));
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"HTTX/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 600 Odd\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2"
		"\r\n\r\n",
		"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"1\r\nxy\r\n",
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct http_resp p;
		struct error e;

		if (feed(&p, bad[i], 1000, false, &e) != -1)
			fail_msg("accepted: %s", bad[i]);
	}
}

static void test_parse_head_limit(void **state)
{
	size_t n = HTTP_MAX_HEAD + 10;
	char *s = malloc(n);
	struct http_resp p;
	struct error e;

	memset(s, 'a', n);
	memcpy(s, "HTTP/1.1 200 OK\r\nX: ", 20);
	http_resp_start(&p, false);
	assert_int_equal(http_resp_feed(&p, s, HTTP_MAX_HEAD - 1, &e), 0);
	assert_int_equal(http_resp_feed(&p, s, n, &e), -1);
	assert_non_null(strstr(e.msg, "over"));
	free(s);
}

static void test_reqfile(void **state)
{
	const char *text =
		"# comment\n"
		"{\"path\": \"/a?x=1\"}\n"
		"\n"
		"  \r\n"
		"{\"method\": \"POST\", \"path\": \"/b\", \"headers\": {\"A\": "
		"\"1\", \"B\": \"2\"}, \"body\": \"x\\u0000y\"}\n"
		"{\"method\": \"HEAD\", \"path\": \"/c\", \"headers\": "
		"[\"C: 3\"]}";
	struct reqfile_entry *v;
	struct error e;
	size_t n;

	assert_int_equal(reqfile_parse("f", text, strlen(text), &v, &n, &e),
			 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].method, "GET");
	assert_string_equal(v[0].path, "/a?x=1");
	assert_null(v[0].body);
	assert_int_equal(v[0].line, 2);
	assert_string_equal(v[1].method, "POST");
	assert_int_equal(v[1].nheaders, 2);
	assert_string_equal(v[1].headers[0], "A: 1");
	assert_int_equal(v[1].body_len, 3);
	assert_memory_equal(v[1].body, "x\0y", 3);
	assert_int_equal(v[1].line, 5);
	assert_string_equal(v[2].headers[0], "C: 3");
	reqfile_free(v, n);
}

static void test_reqfile_bad(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "{\"path\": \"/\"}\n{\"path\": 1}", "f:2: \"path\": expected" },
		{ "{\"path\": \"x\"}", "f:1: \"path\": expected a string "
		  "starting with '/'" },
		{ "{\"method\": \"GET\"}", "f:1: no \"path\"" },
		{ "\n\n{\"path\": \"/\", \"body\": 3}", "f:3: \"body\"" },
		{ "{\"path\": \"/\", \"header\": {}}", "f:1: unknown key "
		  "\"header\"" },
		{ "{\"path\": \"/\", \"headers\": {\"A B\": \"1\"}}",
		  "f:1: header 'A B: 1'" },
		{ "{\"path\": \"/\", \"headers\": [\"Content-Length: 3\"]}",
		  "f:1: header 'Content-Length: 3': Content-Length is set" },
		{ "{\"path\": \"/\", \"method\": \"G T\"}", "f:1: \"method\"" },
		{ "{\"path\": \"/a b\"}", "f:1: \"path\": a space" },
		{ "{\"path\": \"/\"", "f:1: column" },
		{ "[1]", "f:1: expected an object" },
		{ "{\"path\": \"/\", \"path\": \"/\"}", "f:1: column" },
		{ "# nothing\n\n", "f: no requests" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct reqfile_entry *v;
		struct error e;
		size_t n;

		assert_int_equal(reqfile_parse("f", bad[i].text,
					       strlen(bad[i].text), &v, &n,
					       &e), -1);
		if (strncmp(e.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("'%s': got '%s', expected '%s...'",
				 bad[i].text, e.msg, bad[i].msg);
	}
}

/* Fewer pairs than the capacity: every pair, each once. */
static void test_sample_all(void **state)
{
	struct sample a, b, *in[] = { &a, &b }, out;
	int seen[30] = { 0 };

	sample_init(&a, 100, 1);
	sample_init(&b, 100, 2);
	for (int i = 0; i < 10; i++)
		sample_add(&a, i, -i);
	for (int i = 10; i < 30; i++)
		sample_add(&b, i, -i);
	sample_merge(&out, in, 2, 100, 3);
	assert_int_equal(out.n, 30);
	assert_int_equal(out.seen, 30);
	for (size_t i = 0; i < out.n; i++) {
		assert_int_equal(out.b[i], -out.a[i]);	/* pairs kept */
		seen[out.a[i]]++;
	}
	for (int i = 0; i < 30; i++)
		assert_int_equal(seen[i], 1);
	sample_free(&a);
	sample_free(&b);
	sample_free(&out);
}

/*
 * Three threads offered 6000, 3000 and 1000 of the values 0..9999 (in
 * order, so that any bias to early or late values would show); merged
 * to 500 over 400 seeds, each value is drawn with probability 0.05 and
 * each thread's share is proportional to its count. The bounds are
 * about 5 standard deviations wide.
 */
static void test_sample_uniform(void **state)
{
	enum { N = 10000, CAP = 500, ROUNDS = 400 };
	static const int split[] = { 6000, 3000, 1000 };
	static int count[N];
	double share[3] = { 0 }, quarter[4] = { 0 };

	memset(count, 0, sizeof(count));
	for (int r = 0; r < ROUNDS; r++) {
		struct sample s[3], *in[] = { &s[0], &s[1], &s[2] }, out;
		int v = 0;

		for (int t = 0; t < 3; t++) {
			sample_init(&s[t], CAP, (uint64_t)r * 3 + (uint64_t)t);
			for (int k = 0; k < split[t]; k++, v++)
				sample_add(&s[t], v, 0);
		}
		sample_merge(&out, in, 3, CAP, (uint64_t)r + 1000);
		assert_int_equal(out.n, CAP);
		for (size_t i = 0; i < out.n; i++) {
			int x = (int)out.a[i];

			count[x]++;
			share[x < 6000 ? 0 : x < 9000 ? 1 : 2]++;
			quarter[x / 2500]++;
		}
		for (int t = 0; t < 3; t++)
			sample_free(&s[t]);
		sample_free(&out);
	}
	for (int t = 0; t < 3; t++) {
		double want = (double)split[t] / N * CAP * ROUNDS;

		if (fabs(share[t] - want) > 5 * sqrt(want))
			fail_msg("thread %d: %g drawn, expected %g", t,
				 share[t], want);
	}
	for (int q = 0; q < 4; q++) {
		double want = 0.25 * CAP * ROUNDS;

		if (fabs(quarter[q] - want) > 5 * sqrt(want))
			fail_msg("quarter %d: %g drawn, expected %g", q,
				 quarter[q], want);
	}
	/* Each value: Binomial(400, 0.05), mean 20, sd 4.4. */
	for (int i = 0; i < N; i++)
		if (count[i] > 48)
			fail_msg("value %d drawn %d times of 400", i, count[i]);
}

static void test_rates(void **state)
{
	uint64_t ps[] = { 100, 200, 300, 40 }, es[] = { 0, 7, 1, 2 };
	struct load_stats s = { .per_second = ps, .errors_per_second = es,
				.nseconds = 4, .ok = 640 };
	double *v;
	size_t n;

	/* the errors of each second, likewise: 0 7 1 and 2 in half a
	 * second; 10 errors in all over half a second */
	static const struct { double elapsed; size_t n; double v[4]; }
	errs[] = { { 3.5, 4, { 0, 7, 1, 4 } }, { 0.5, 1, { 20 } } };

	s.errors[LOAD_ERR_READ] = 6;
	s.errors[LOAD_ERR_STATUS] = 4;
	for (size_t k = 0; k < sizeof(errs) / sizeof(errs[0]); k++) {
		s.elapsed = errs[k].elapsed;
		load_error_rates(&s, &v, &n);
		assert_int_equal(n, errs[k].n);
		for (size_t i = 0; i < n; i++)
			assert_float_equal(v[i], errs[k].v[i], 1e-9);
		free(v);
	}

	s.elapsed = 3.5;	/* a last half second counts, scaled */
	load_rates(&s, &v, &n);
	assert_int_equal(n, 4);
	assert_float_equal(v[0], 100, 0);
	assert_float_equal(v[2], 300, 0);
	assert_float_equal(v[3], 80, 1e-9);
	free(v);
	s.elapsed = 3.2;	/* a shorter one does not */
	load_rates(&s, &v, &n);
	assert_int_equal(n, 3);
	free(v);
	s.elapsed = 0.5;	/* under a second: one value, ok / elapsed */
	load_rates(&s, &v, &n);
	assert_int_equal(n, 1);
	assert_float_equal(v[0], 1280, 1e-9);
	free(v);
	s.elapsed = 0;
	load_rates(&s, &v, &n);
	assert_int_equal(n, 0);
	assert_null(v);
}

/* The counts of a, compared with b's: the fields load_stats_add sums. */
static bool stats_equal(const struct load_stats *a, const struct load_stats *b)
{
	if (a->requests != b->requests || a->responses != b->responses ||
	    a->ok != b->ok || a->sends != b->sends || a->late != b->late ||
	    a->resent != b->resent || a->bytes_read != b->bytes_read ||
	    a->bytes_written != b->bytes_written ||
	    a->nseconds != b->nseconds ||
	    memcmp(a->errors, b->errors, sizeof(a->errors)) ||
	    memcmp(a->status, b->status, sizeof(a->status)) ||
	    hdr_count(a->latency) != hdr_count(b->latency))
		return false;
	for (size_t i = 0; i < a->nseconds; i++)
		if (a->per_second[i] != b->per_second[i] ||
		    a->errors_per_second[i] != b->errors_per_second[i])
			return false;
	return true;
}

/* stats with every count c and two seconds of c each */
static void stats_of_count(struct load_stats *s, uint64_t c)
{
	load_stats_init(s, 1, 0);
	s->requests = s->responses = s->ok = s->sends = s->late = c;
	s->resent = s->bytes_read = s->bytes_written = c;
	for (int k = 0; k < LOAD_ERR_KINDS; k++)
		s->errors[k] = c;
	for (int i = 100; i < 600; i++)
		s->status[i] = c;
	s->nseconds = 2;
	s->per_second = xcalloc(2, sizeof(uint64_t));
	s->errors_per_second = xcalloc(2, sizeof(uint64_t));
	s->per_second[0] = s->per_second[1] = c;
	s->errors_per_second[0] = s->errors_per_second[1] = c;
}

/* Issue 25 case 3: load_stats_add summed counts unchecked (merge of
 * segments of 2^63: wrapped). Every count, raised alone so that the sum
 * passes 2^53 (just, and past 2^64), is refused by its name with dst as
 * it was; sums of exactly 2^53 are taken. */
static void test_stats_add_overflow(void **state)
{
	const uint64_t lim = LOAD_COUNT_MAX;
	const uint64_t raise[] = { lim - 2, UINT64_MAX - 1 };
	struct load_stats dst, src, before;
	struct error e;

	(void)state;
	for (int field = 0; field < 8 + LOAD_ERR_KINDS + 3; field++) {
		for (size_t r = 0; r < 2; r++) {
			uint64_t *p[8] = { &src.requests, &src.responses,
					   &src.ok, &src.sends, &src.late,
					   &src.resent, &src.bytes_read,
					   &src.bytes_written };
			char want[64];

			stats_of_count(&dst, 3);
			stats_of_count(&src, 1);
			stats_of_count(&before, 3);
			if (field < 8) {
				*p[field] = raise[r];
				snprintf(want, sizeof(want), "counts.%s ",
					 (const char *[]){ "requests",
					 "responses", "ok", "sends", "late",
					 "resent", "bytes_read",
					 "bytes_written" }[field]);
			} else if (field < 8 + LOAD_ERR_KINDS) {
				src.errors[field - 8] = raise[r];
				snprintf(want, sizeof(want), "counts.%s ",
					 load_err_name(field - 8));
			} else if (field == 8 + LOAD_ERR_KINDS) {
				src.status[503] = raise[r];
				snprintf(want, sizeof(want),
					 "counts.status_503 ");
			} else {
				(field == 9 + LOAD_ERR_KINDS ?
				 src.per_second :
				 src.errors_per_second)[1] = raise[r];
				snprintf(want, sizeof(want),
					 "per_second second 1: ");
			}
			assert_int_equal(load_stats_add(&dst, &src, 0, &e), -1);
			if (strncmp(e.msg, want, strlen(want)) ||
			    !strstr(e.msg, "more than 2^53"))
				fail_msg("field %d: '%s', not '%s...'", field,
					 e.msg, want);
			assert_true(stats_equal(&dst, &before));
			load_stats_free(&dst);
			load_stats_free(&src);
			load_stats_free(&before);
		}
	}
	/* exactly 2^53 in all, and an offset that grows the seconds */
	stats_of_count(&dst, lim - 1);
	stats_of_count(&src, 1);
	assert_int_equal(load_stats_add(&dst, &src, 1, &e), 0);
	assert_true(dst.requests == lim && dst.status[404] == lim);
	assert_int_equal(dst.nseconds, 3);
	assert_true(dst.per_second[0] == lim - 1 && dst.per_second[1] == lim &&
		    dst.per_second[2] == 1);
	load_stats_free(&dst);
	load_stats_free(&src);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The due times of the first per requests of a process's open-model
 * schedule (its m-th request: connection m % conns, slot m / conns). */
static void dues(unsigned conns, unsigned seg, unsigned nseg, double rate,
		 size_t per, int64_t *out)
{
	struct load_config c = { .connections = conns, .rate = rate,
				 .segment = seg, .segments = nseg };
	struct shared sh = { .c = &c, .start = 123456789,
			     .ns_per_req = 1e9 / rate };

	for (size_t m = 0; m < per; m++)
		out[m] = conn_due(&sh, m % conns, m / conns);
}

/* --segment I/N: the segments' due times together are exactly those of
 * one process with all connections, and segment I has request k of that
 * schedule for k % N == I: for N dividing the connections and not, and a
 * rate whose period is no whole number of nanoseconds. */
static void test_segment_schedule(void **state)
{
	const unsigned conns[] = { 6, 7, 1000, 5 }, nseg[] = { 3, 3, 7, 5 };
	const double rates[] = { 300, 7000, 123457.3, 1e6 / 3 };
	enum { PER = 2000 };

	for (size_t t = 0; t < sizeof(conns) / sizeof(conns[0]); t++) {
		unsigned n = nseg[t];
		int64_t *one = malloc(sizeof(int64_t) * PER * n);
		int64_t *all = malloc(sizeof(int64_t) * PER * n);

		dues(conns[t], 0, 1, rates[t], PER * n, one);
		for (unsigned i = 0; i < n; i++) {
			unsigned share = conns[t] / n + (i < conns[t] % n);

			dues(share, i, n, rates[t], PER, all + i * PER);
			/* its m-th is the whole schedule's k = i + m n */
			for (size_t m = 0; m < PER; m++)
				assert_int_equal(all[i * PER + m],
						 one[i + m * n]);
		}
		qsort(one, PER * n, sizeof(int64_t), cmp_i64);
		qsort(all, PER * n, sizeof(int64_t), cmp_i64);
		assert_memory_equal(one, all, sizeof(int64_t) * PER * n);
		free(one);
		free(all);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_url_bad),
		cmocka_unit_test(test_header_check),
		cmocka_unit_test(test_request_build),
		cmocka_unit_test(test_request_closes),
		cmocka_unit_test(test_parse_length),
		cmocka_unit_test(test_parse_chunked),
		cmocka_unit_test(test_parse_coded_length),
		cmocka_unit_test(test_parse_until_close),
		cmocka_unit_test(test_parse_folded),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_head_limit),
		cmocka_unit_test(test_reqfile),
		cmocka_unit_test(test_reqfile_bad),
		cmocka_unit_test(test_sample_all),
		cmocka_unit_test(test_sample_uniform),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_stats_add_overflow),
		cmocka_unit_test(test_segment_schedule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
