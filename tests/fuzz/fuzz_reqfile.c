/*
 * libFuzzer target of load's requests file: any bytes either parse or fail
 * with a message "NAME:LINE: ..." or "NAME: no requests"; what parses
 * builds requests whose head is exactly the request line, Host, the
 * headers and Content-Length, each one line ending in CRLF — no byte of
 * the file can add a header or a request of its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/http.h"
#include "load/reqfile.h"

#define NAME "reqs.jsonl"

/* The head of r[0..len): its lines, each "...\r\n" with no other CR or
 * LF, up to the empty line. Returns how many, or -1. */
static long head_lines(const char *r, size_t len, size_t *head_len)
{
	long lines = 0;
	size_t i = 0;

	while (i < len) {
		const char *crlf = memmem(r + i, len - i, "\r\n", 2);
		size_t n;

		if (!crlf)
			return -1;
		n = (size_t)(crlf - (r + i));
		if (memchr(r + i, '\r', n) || memchr(r + i, '\n', n))
			return -1;
		i += n + 2;
		if (n == 0) {
			*head_len = i;
			return lines;
		}
		lines++;
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reqfile_entry *v;
	struct error e;
	size_t n;

	if (reqfile_parse(NAME, (const char *)data, size, &v, &n, &e)) {
		if (strncmp(e.msg, NAME ":", strlen(NAME ":")))
			abort();
		return 0;
	}
	if (n == 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct http_req_spec spec = {
			.method = v[i].method, .path = v[i].path,
			.headers = v[i].headers, .nheaders = v[i].nheaders,
			.body = v[i].body, .body_len = v[i].body_len,
		};
		bool host = false;
		size_t len, hl = 0;
		long want, got;
		char *r;

		if (http_method_check(v[i].method, &e) || v[i].path[0] != '/')
			abort();
		for (size_t k = 0; k < v[i].nheaders; k++) {
			if (http_header_check(v[i].headers[k], &e))
				abort();
			host |= !strncasecmp(v[i].headers[k], "Host:", 5);
		}
		http_request_build(&spec, "example.org:8080", &r, &len);
		want = 1 + !host + (long)v[i].nheaders +
		       (v[i].body || !strcmp(v[i].method, "POST") ||
			!strcmp(v[i].method, "PUT") ||
			!strcmp(v[i].method, "PATCH"));
		got = head_lines(r, len, &hl);
		if (got != want)
			abort();
		if (len - hl != (v[i].body ? v[i].body_len : 0))
			abort();
		free(r);
	}
	reqfile_free(v, n);
	return 0;
}
