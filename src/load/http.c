/*
 * HTTP/1.1 requests and responses for `load` (RFC 9112). The parser is a
 * state machine over the connection's buffer: it never copies a body and
 * never allocates; a head or a chunk-size line that arrives in pieces is
 * left unconsumed until its end is there. Lenient where RFC 9112 allows a
 * recipient to be (a bare LF ends a line), strict where a mistake would
 * desynchronize the connection (Content-Length, chunk sizes).
 */
#include "load/http.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/strutil.h"

/* RFC 9110 tchar. */
static bool tchar(unsigned char c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

int http_method_check(const char *m, struct error *e)
{
	if (!*m)
		return error_set(e, "empty method");
	for (const char *p = m; *p; p++)
		if (!tchar((unsigned char)*p))
			return error_set(e, "'%s' is not a method (letters, "
					 "digits, !#$%%&'*+-.^_`|~)", m);
	return 0;
}

bool http_method_idempotent(const char *m)
{
	static const char *const idem[] = {
		"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE",
	};

	for (size_t i = 0; i < sizeof(idem) / sizeof(idem[0]); i++)
		if (!strcmp(m, idem[i]))
			return true;
	return false;
}

int http_header_check(const char *h, struct error *e)
{
	const char *colon = strchr(h, ':');

	if (!colon || colon == h)
		return error_set(e, "expected 'Name: value'");
	for (const char *p = h; p < colon; p++)
		if (!tchar((unsigned char)*p))
			return error_set(e, "'%.*s' is not a header name",
					 (int)(colon - h), h);
	for (const unsigned char *p = (const unsigned char *)colon; *p; p++)
		if (*p == '\r' || *p == '\n')
			return error_set(e, "a line break in the value");
	if ((colon - h == 14 && !strncasecmp(h, "Content-Length", 14)) ||
	    (colon - h == 17 && !strncasecmp(h, "Transfer-Encoding", 17)))
		return error_set(e, "%.*s is set from the body", (int)(colon - h),
				 h);
	return 0;
}

static bool is_host_header(const char *h)
{
	return !strncasecmp(h, "Host", 4) && (h[4] == ':');
}

/* A header as the user wrote it, with the space after the colon
 * normalized: "Name: value". */
static void put_header(struct strbuf *b, const char *h)
{
	const char *colon = strchr(h, ':'), *v = colon + 1;
	size_t vlen;

	while (*v == ' ' || *v == '\t')
		v++;
	vlen = strlen(v);
	while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	strbuf_put(b, h, (size_t)(colon - h));
	strbuf_puts(b, ": ");
	strbuf_put(b, v, vlen);
	strbuf_puts(b, "\r\n");
}

void http_request_build(const struct http_req_spec *r, const char *authority,
			char **out, size_t *len)
{
	struct strbuf b = { 0 };
	char num[32];
	bool host = false;

	strbuf_puts(&b, r->method);
	strbuf_puts(&b, " ");
	strbuf_puts(&b, r->path);
	strbuf_puts(&b, " HTTP/1.1\r\n");
	for (size_t i = 0; i < r->nheaders; i++)
		host |= is_host_header(r->headers[i]);
	if (!host) {
		strbuf_puts(&b, "Host: ");
		strbuf_puts(&b, authority);
		strbuf_puts(&b, "\r\n");
	}
	for (size_t i = 0; i < r->nheaders; i++)
		put_header(&b, r->headers[i]);
	if (r->body || !strcmp(r->method, "POST") ||
	    !strcmp(r->method, "PUT") || !strcmp(r->method, "PATCH")) {
		snprintf(num, sizeof(num), "%zu", r->body ? r->body_len : 0);
		strbuf_puts(&b, "Content-Length: ");
		strbuf_puts(&b, num);
		strbuf_puts(&b, "\r\n");
	}
	strbuf_puts(&b, "\r\n");
	if (r->body)
		strbuf_put(&b, r->body, r->body_len);
	*out = b.s;
	*len = b.len;
}

void http_resp_start(struct http_resp *p, bool head)
{
	memset(p, 0, sizeof(*p));
	p->state = HTTP_HEAD;
	p->head_request = head;
}

/* The end of the head in buf[0..len): the offset just past the empty
 * line, or 0 if it is not there yet. Starts looking at p->scanned. */
static size_t head_end(struct http_resp *p, const char *buf, size_t len)
{
	size_t i = p->scanned > 2 ? p->scanned - 2 : 0;

	while (i < len) {
		const char *nl = memchr(buf + i, '\n', len - i);

		if (!nl)
			break;
		i = (size_t)(nl - buf) + 1;
		if (i < len && buf[i] == '\n')
			return i + 1;
		if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n')
			return i + 2;
	}
	p->scanned = len;
	return 0;
}

static bool token_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !strncasecmp(s, word, n);
}

/* Does the comma-separated list v[0..n) hold word (case-insensitive)?
 * With last, only its last element counts. */
static bool list_has(const char *v, size_t n, const char *word, bool last)
{
	bool found = false;
	size_t i = 0;

	while (i <= n) {
		size_t a = i, b;

		while (i < n && v[i] != ',')
			i++;
		b = i;
		while (a < b && (v[a] == ' ' || v[a] == '\t'))
			a++;
		while (b > a && (v[b - 1] == ' ' || v[b - 1] == '\t'))
			b--;
		found = last ? token_eq(v + a, b - a, word)
			     : found || token_eq(v + a, b - a, word);
		i++;
	}
	return found;
}

bool http_request_closes(const struct http_req_spec *r)
{
	for (size_t i = 0; i < r->nheaders; i++) {
		const char *h = r->headers[i], *v = strchr(h, ':');

		if (v && v - h == 10 && !strncasecmp(h, "Connection", 10) &&
		    list_has(v + 1, strlen(v + 1), "close", false))
			return true;
	}
	return false;
}

struct head_info {
	bool chunked, coded, have_length, close, keep_alive;
	uint64_t length;
	enum { H_NONE, H_OTHER, H_FRAMING, H_CONNECTION } last;
};

static int parse_length(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;

	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)v[i]))
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
}

/* One header line [s, s + n). */
static int header_line(const char *s, size_t n, struct head_info *h,
		       struct error *e)
{
	const char *colon = memchr(s, ':', n), *v;
	size_t nlen, vlen;
	uint64_t len;

	if (!colon || colon == s)
		return error_set(e, "malformed header line");
	nlen = (size_t)(colon - s);
	for (size_t i = 0; i < nlen; i++)
		if (!tchar((unsigned char)s[i]))
			return error_set(e, "malformed header name");
	v = colon + 1;
	vlen = n - nlen - 1;
	while (vlen && (*v == ' ' || *v == '\t')) {
		v++;
		vlen--;
	}
	while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	h->last = H_OTHER;
	if (token_eq(s, nlen, "content-length")) {
		h->last = H_FRAMING;
		if (parse_length(v, vlen, &len))
			return error_set(e, "bad Content-Length");
		if (h->have_length && h->length != len)
			return error_set(e, "conflicting Content-Length");
		h->have_length = true;
		h->length = len;
	} else if (token_eq(s, nlen, "transfer-encoding")) {
		h->last = H_FRAMING;
		h->chunked = list_has(v, vlen, "chunked", true);
		if (!h->chunked) {
			/* a coding other than chunked last: the body ends
			 * at EOF, whatever Content-Length says (RFC 9112
			 * 6.3, 3 and 4) */
			h->coded = true;
			h->close = true;
		}
	} else if (token_eq(s, nlen, "connection")) {
		h->last = H_CONNECTION;
		h->close |= list_has(v, vlen, "close", false);
		h->keep_alive |= list_has(v, vlen, "keep-alive", false);
	}
	return 0;
}

/*
 * A line that starts with a space or a tab continues the header before it
 * (obs-fold, RFC 9112 5.2: a client must accept it as a space). Folded
 * into Content-Length or Transfer-Encoding it would make the body's
 * length ambiguous: refused. Before any header (RFC 9112 2.2), ignored.
 */
static int folded_line(const char *s, size_t n, struct head_info *h,
		       struct error *e)
{
	if (h->last == H_FRAMING)
		return error_set(e, "a folded Content-Length or "
				 "Transfer-Encoding");
	if (h->last == H_CONNECTION) {
		h->close |= list_has(s, n, "close", false);
		h->keep_alive |= list_has(s, n, "keep-alive", false);
	}
	return 0;
}

/* "HTTP/1.x SSS reason": the status and the minor version. */
static int status_line(const char *s, size_t n, int *status, int *minor,
		       struct error *e)
{
	if (n < 12 || memcmp(s, "HTTP/1.", 7) || !isdigit((unsigned char)s[7])
	    || s[8] != ' ' || !isdigit((unsigned char)s[9]) ||
	    !isdigit((unsigned char)s[10]) || !isdigit((unsigned char)s[11]) ||
	    (n > 12 && s[12] != ' '))
		return error_set(e, "malformed status line");
	*minor = s[7] - '0';
	*status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	if (*status < 100 || *status > 599)
		return error_set(e, "status %d out of range", *status);
	return 0;
}

/* Parse the head buf[0..end) and choose how the body is delimited. */
static int parse_head(struct http_resp *p, const char *buf, size_t end,
		      struct error *e)
{
	struct head_info h = { 0 };
	size_t i = 0, first = 1;
	int minor = 1;

	while (i < end) {
		const char *nl = memchr(buf + i, '\n', end - i);
		size_t n = (size_t)(nl - (buf + i));

		if (n && buf[i + n - 1] == '\r')
			n--;
		if (n == 0)
			break;
		if (first ? status_line(buf + i, n, &p->status, &minor, e)
			  : buf[i] == ' ' || buf[i] == '\t'
			  ? folded_line(buf + i, n, &h, e)
			  : header_line(buf + i, n, &h, e))
			return -1;
		first = 0;
		i = (size_t)(nl - buf) + 1;
	}
	p->keep_alive = minor >= 1 ? !h.close : h.keep_alive && !h.close;
	p->scanned = 0;
	if (p->status < 200 && p->status != 101)
		return 0;	/* 1xx: the real response follows */
	if (p->status == 101)
		return error_set(e, "unexpected 101 Switching Protocols");
	if (p->head_request || p->status == 204 || p->status == 304) {
		p->state = HTTP_DONE;
	} else if (h.chunked) {
		p->state = HTTP_CHUNK_SIZE;
	} else if (h.have_length && !h.coded) {
		p->remaining = h.length;
		p->state = h.length ? HTTP_BODY : HTTP_DONE;
	} else {
		p->state = HTTP_UNTIL_CLOSE;
		p->keep_alive = false;
	}
	return 0;
}

/* A line in buf[0..len): its length without the line end, and the bytes
 * up to and including the LF in *used; -1 when the LF is not there. */
static long line(const char *buf, size_t len, size_t *used)
{
	const char *nl = memchr(buf, '\n', len);
	size_t n;

	if (!nl)
		return -1;
	n = (size_t)(nl - buf);
	*used = n + 1;
	if (n && buf[n - 1] == '\r')
		n--;
	return (long)n;
}

static int chunk_size(struct http_resp *p, const char *s, size_t n,
		      struct error *e)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; i < n && isxdigit((unsigned char)s[i]); i++) {
		if (v >> 56)
			return error_set(e, "chunk size too large");
		v = v * 16 + (uint64_t)(isdigit((unsigned char)s[i]) ? s[i] - '0'
				: (tolower((unsigned char)s[i]) - 'a' + 10));
	}
	if (i == 0 || (i < n && s[i] != ';' && s[i] != ' ' && s[i] != '\t'))
		return error_set(e, "malformed chunk size");
	p->remaining = v;
	p->state = v ? HTTP_CHUNK_DATA : HTTP_TRAILER;
	return 0;
}

/* One step: how many bytes it consumed, 0 when it needs more data. */
static long step(struct http_resp *p, const char *buf, size_t len,
		 struct error *e)
{
	size_t used, take;
	long n;

	switch (p->state) {
	case HTTP_HEAD:
		used = head_end(p, buf, len);
		if (!used) {
			if (len >= HTTP_MAX_HEAD)
				return error_set(e, "response head over %d "
						 "bytes", HTTP_MAX_HEAD);
			return 0;
		}
		return parse_head(p, buf, used, e) ? -1 : (long)used;
	case HTTP_BODY:
	case HTTP_CHUNK_DATA:
		take = len < p->remaining ? len : (size_t)p->remaining;
		p->remaining -= take;
		if (!p->remaining)
			p->state = p->state == HTTP_BODY ? HTTP_DONE
							 : HTTP_CHUNK_END;
		return (long)take;
	case HTTP_CHUNK_END:
		n = line(buf, len, &used);
		if (n < 0)
			return len > 2 ? error_set(e, "no CRLF after a chunk") : 0;
		if (n)
			return error_set(e, "no CRLF after a chunk");
		p->state = HTTP_CHUNK_SIZE;
		return (long)used;
	case HTTP_CHUNK_SIZE:
	case HTTP_TRAILER:
		n = line(buf, len, &used);
		if (n < 0)
			return len >= 4096 ? error_set(e, "chunk line over 4096 "
						       "bytes") : 0;
		if (p->state == HTTP_TRAILER) {
			if (n == 0)
				p->state = HTTP_DONE;
		} else if (chunk_size(p, buf, (size_t)n, e)) {
			return -1;
		}
		return (long)used;
	case HTTP_UNTIL_CLOSE:
		return (long)len;
	case HTTP_DONE:
		return 0;
	}
	return 0;
}

long http_resp_feed(struct http_resp *p, const char *buf, size_t len,
		    struct error *e)
{
	size_t off = 0;

	while (off < len && p->state != HTTP_DONE) {
		long n = step(p, buf + off, len - off, e);

		if (n < 0)
			return -1;
		if (n == 0)
			break;
		off += (size_t)n;
	}
	return (long)off;
}

bool http_resp_eof(struct http_resp *p)
{
	if (p->state != HTTP_UNTIL_CLOSE)
		return false;
	p->state = HTTP_DONE;
	return true;
}
