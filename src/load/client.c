/*
 * A blocking HTTP/1.1 client (client.h): a non-blocking socket driven by
 * poll() against one deadline, so that a gateway that does not answer
 * costs at most the timeout; TLS through tls.h with the system's CAs.
 */
#include "load/client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "load/http.h"
#include "load/tls.h"
#include "load/url.h"
#include "util/monoclock.h"
#include "util/strutil.h"

#define MAX_RESPONSE (1024 * 1024)

struct exchange {
	int fd;
	struct tls_ctx *ctx;
	struct tls_conn *tls;
	int64_t deadline;
	const char *url;	/* for messages */
};

/* Wait until fd is ready for events or the deadline; -1 on timeout. */
static int wait_fd(struct exchange *x, short events, struct error *e)
{
	struct pollfd p = { .fd = x->fd, .events = events };
	int64_t left = x->deadline - monoclock_ns();
	int n;

	do {
		if (left <= 0)
			return error_set(e, "'%s': no answer in time", x->url);
		n = poll(&p, 1, (int)((left + 999999) / 1000000));
		left = x->deadline - monoclock_ns();
	} while (n == 0 || (n < 0 && errno == EINTR));
	if (n < 0)
		return error_errno(e, errno, "'%s'", x->url);
	return 0;
}

/* Wait for what a TLS_WANT_* or EAGAIN asks; -1 with a message else. */
static int want(struct exchange *x, long rc, const char *what,
		struct error *e)
{
	char why[200];

	if (rc == TLS_WANT_READ || (rc == -1 && !x->tls && errno == EAGAIN &&
				    !strcmp(what, "read")))
		return wait_fd(x, POLLIN, e);
	if (rc == TLS_WANT_WRITE || (rc == -1 && !x->tls && errno == EAGAIN))
		return wait_fd(x, POLLOUT, e);
	if (x->tls && rc == TLS_FAIL && errno == 0) {
		tls_reason(x->tls, why, sizeof(why));
		return error_set(e, "'%s': cannot %s: %s", x->url, what, why);
	}
	return error_errno(e, errno, "'%s': cannot %s", x->url, what);
}

static int connect_to(struct exchange *x, const struct url *u,
		      struct error *e)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int err = 0;
	socklen_t elen = sizeof(err);

	if (url_resolve(u, &addr, &len, e))
		return -1;
	x->fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		       SOCK_CLOEXEC, 0);
	if (x->fd < 0)
		return error_errno(e, errno, "cannot open a socket");
	if (connect(x->fd, (struct sockaddr *)&addr, len) && errno !=
	    EINPROGRESS)
		return error_errno(e, errno, "cannot connect to '%s'", x->url);
	if (wait_fd(x, POLLOUT, e))
		return -1;
	getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &elen);
	if (err)
		return error_errno(e, err, "cannot connect to '%s'", x->url);
	if (!u->tls)
		return 0;
	x->ctx = tls_ctx_new(false, 1, e);
	if (!x->ctx)
		return -1;
	x->tls = tls_conn_new(x->ctx, x->fd, u->host, NULL);
	if (!x->tls)
		return error_set(e, "'%s': cannot start TLS", x->url);
	for (;;) {
		int rc = tls_handshake(x->tls);

		if (rc == 1)
			return 0;
		if (want(x, rc, "make the TLS handshake", e))
			return -1;
	}
}

static int send_all(struct exchange *x, const char *p, size_t n,
		    struct error *e)
{
	while (n) {
		long w = x->tls ? (long)tls_write(x->tls, p, n)
				: (long)send(x->fd, p, n, MSG_NOSIGNAL);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (want(x, w, "write", e)) {
			return -1;
		}
	}
	return 0;
}

/* Read the response into b until it is complete (or EOF ends it). */
static int read_response(struct exchange *x, struct strbuf *b,
			 struct http_resp *p, struct error *e)
{
	size_t fed = 0;
	char buf[8192];

	http_resp_start(p, false);
	while (p->state != HTTP_DONE) {
		long n = x->tls ? (long)tls_read(x->tls, buf, sizeof(buf))
				: (long)recv(x->fd, buf, sizeof(buf), 0);
		long used;

		if (n == 0) {
			if (http_resp_eof(p))
				break;
			return error_set(e, "'%s': the connection closed "
					 "before the response ended", x->url);
		}
		if (n < 0) {
			if (want(x, n, "read", e))
				return -1;
			continue;
		}
		if (b->len + (size_t)n > MAX_RESPONSE)
			return error_set(e, "'%s': a response of over %d bytes",
					 x->url, MAX_RESPONSE);
		strbuf_put(b, buf, (size_t)n);
		used = http_resp_feed(p, b->s + fed, b->len - fed, e);
		if (used < 0)
			return error_set(e, "'%s': %s", x->url, e->msg);
		fed += (size_t)used;
	}
	return 0;
}

/* The first line of the body in the response text s (a chunked body's
 * first chunk-size line skipped). */
static void first_line(const char *s, struct client_resp *r)
{
	const char *body = strstr(s, "\r\n\r\n"), *p;
	size_t n;

	r->first_line[0] = '\0';
	if (!body)
		return;
	body += 4;
	if (strcasestr(s, "transfer-encoding") && strstr(s, "chunked") &&
	    (p = strchr(body, '\n')))
		body = p + 1;
	n = strcspn(body, "\r\n");
	if (n >= sizeof(r->first_line))
		n = sizeof(r->first_line) - 1;
	memcpy(r->first_line, body, n);
	r->first_line[n] = '\0';
	/* It is printed: no control characters of the server's. */
	for (char *c = r->first_line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

int client_request(const char *base, const char *method, const char *path,
		   const char *type, const char *body, size_t len,
		   double timeout, struct client_resp *r, struct error *e)
{
	struct exchange x = { .fd = -1, .url = base };
	struct url u;
	struct strbuf b = { 0 };
	struct http_resp p;
	char *full, *ct = xasprintf("Content-Type: %s", type);
	char *hdrs[] = { ct, (char *)"Connection: close" };
	struct http_req_spec spec = {
		.method = method, .headers = hdrs, .nheaders = 2,
		.body = body, .body_len = len,
	};
	char *req;
	size_t reqlen;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (url_parse(base, &u, e)) {
		free(ct);
		return -1;
	}
	full = xasprintf("%.*s%s", (int)(strlen(u.path) -
		(u.path[strlen(u.path) - 1] == '/')), u.path, path);
	spec.path = full;
	x.deadline = monoclock_ns() + (int64_t)(timeout * 1e9);
	if (connect_to(&x, &u, e))
		goto out;
	http_request_build(&spec, u.authority, &req, &reqlen);
	ret = send_all(&x, req, reqlen, e);
	free(req);
	if (ret || (ret = read_response(&x, &b, &p, e)))
		goto out;
	r->status = p.status;
	first_line(b.s, r);
out:
	free(b.s);
	tls_conn_free(x.tls);
	tls_ctx_free(x.ctx);
	if (x.fd >= 0)
		close(x.fd);
	free(full);
	free(ct);
	url_free(&u);
	return ret;
}
