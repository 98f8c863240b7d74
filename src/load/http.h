/*
 * HTTP/1.1 for `load`: the bytes of a request, built once before the run,
 * and an incremental response parser that works in place on the
 * connection's read buffer, without allocating — the engine calls it
 * once or twice per response at 100,000 responses a second.
 */
#ifndef YS_LOAD_HTTP_H
#define YS_LOAD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* A response head (status line and headers) may not exceed this. */
#define HTTP_MAX_HEAD (64 * 1024)

/*
 * Check a header "Name: value" given by the user: Name an RFC 9110 token,
 * the value without CR, LF or NUL. Content-Length and Transfer-Encoding
 * are refused (the body sets them). Returns 0, or -1 with a message that
 * says what is wrong (the caller names the argument).
 */
int http_header_check(const char *h, struct error *e);
/* Check a method: a non-empty token. */
int http_method_check(const char *m, struct error *e);
/* Is the method idempotent (RFC 9110 9.2.2: GET, HEAD, PUT, DELETE,
 * OPTIONS, TRACE), so that a client may send it again? */
bool http_method_idempotent(const char *m);

struct http_req_spec;
/* Does the request say "Connection: close" (the token among those of any
 * Connection header)? Its client must then read its response and close
 * the connection, and send nothing more on it (RFC 9112 9.6): a server
 * that honours it closes without echoing the header. */
bool http_request_closes(const struct http_req_spec *r);

struct http_req_spec {
	const char *method;
	const char *path;		/* origin-form, "/..." */
	char *const *headers;		/* "Name: value", checked */
	size_t nheaders;
	const char *body;		/* NULL: none */
	size_t body_len;
};

/*
 * The bytes of one request: request line, Host: authority (unless a Host
 * header is given), the headers in order, Content-Length when there is a
 * body (and "Content-Length: 0" for POST, PUT and PATCH without one), an
 * empty line, the body. *out is malloc'd. Never fails.
 */
void http_request_build(const struct http_req_spec *r, const char *authority,
			char **out, size_t *len);

enum http_state {
	HTTP_HEAD,		/* reading the status line and headers */
	HTTP_BODY,		/* Content-Length bytes to go */
	HTTP_CHUNK_SIZE,	/* a chunk-size line */
	HTTP_CHUNK_DATA,	/* the data of a chunk */
	HTTP_CHUNK_END,		/* the CRLF after a chunk's data */
	HTTP_TRAILER,		/* trailer lines up to an empty one */
	HTTP_UNTIL_CLOSE,	/* no length: the body ends at EOF */
	HTTP_DONE,
};

struct http_resp {
	enum http_state state;
	int status;		/* 100..599 once the head is parsed */
	bool keep_alive;	/* the connection may be reused */
	bool head_request;	/* a HEAD request: no body follows */
	uint64_t remaining;	/* bytes of body or chunk to go */
	size_t scanned;		/* head bytes searched for its end */
};

/* Get ready for the response to a request (head: it was a HEAD). */
void http_resp_start(struct http_resp *p, bool head);

/*
 * Feed the bytes buf[0..len) that follow what was consumed so far.
 * Returns how many bytes were consumed (what is left — part of a head or
 * of a chunk-size line — must be fed again with more data after it), or
 * -1 for a malformed response (message in e). The response is complete
 * when p->state is HTTP_DONE; bytes after it are not consumed.
 */
long http_resp_feed(struct http_resp *p, const char *buf, size_t len,
		    struct error *e);

/* The connection reached EOF: true when that completes the response (a
 * body delimited by the end of the connection). */
bool http_resp_eof(struct http_resp *p);

#endif
