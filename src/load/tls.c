/*
 * OpenSSL on non-blocking sockets (see tls.h). The context is shared by
 * every client thread (OpenSSL's SSL_CTX is thread-safe once set up);
 * each connection has its own SSL. The reason of a failure is captured
 * when it happens, since OpenSSL's error queue belongs to the thread and
 * is overwritten by the next call.
 *
 * libssl is loaded with dlopen on the first https URL, not linked: its
 * relocations cost some 2 MB of resident memory at every start of
 * yardstick, and a spawned command's peak RSS inherits the spawning
 * process's until its exec (`run` measures that peak). The function
 * table is filled once, from the main thread, before any client thread
 * starts: the one static state of this file.
 *
 * What a request costs here, besides the cipher (bench/load_tls_vs_wrk.sh):
 *  - read-ahead into a TLS_READ_AHEAD buffer: OpenSSL reads as much as
 *    the socket holds instead of a record's 5-byte header and then its
 *    body, two read() a record; a 1 KB response takes one read(), a
 *    100 KB one three instead of fourteen. What it holds that the engine
 *    has not read yet is invisible to epoll: tls_pending tells.
 *  - buffers kept: a connection keeps its read and write buffers (some
 *    80 KB) between requests, no malloc and free of each a request,
 *    unless there are more than TLS_KEEP_BUFFERS connections: then
 *    SSL_MODE_RELEASE_BUFFERS frees them when empty (100000 connections
 *    would hold 8 GB).
 *  - session resumption: a connection the server closed (nginx does
 *    after 1000 requests by default) connects again with the session of
 *    the last one (tls_conn_session), as browsers and wrk do: no
 *    certificate to send, sign or verify.
 */
#include "load/tls.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dynlib.h"
#include "util/strutil.h"

/* libcrypto's functions are found through libssl, which needs it. */
#define OSSL_FUNCTIONS(X)						\
	X(TLS_client_method) X(SSL_CTX_new) X(SSL_CTX_free)		\
	X(SSL_CTX_ctrl) X(SSL_CTX_set_options) X(SSL_CTX_set_verify)	\
	X(SSL_CTX_set_default_verify_paths) X(SSL_new) X(SSL_free)	\
	X(SSL_set_fd) X(SSL_ctrl) X(SSL_set1_host)			\
	X(SSL_set_connect_state) X(SSL_do_handshake) X(SSL_get_error)	\
	X(SSL_read) X(SSL_write) X(SSL_has_pending)		\
	X(SSL_CTX_set_default_read_buffer_len) X(SSL_set_session)	\
	X(SSL_get1_session) X(SSL_SESSION_is_resumable)		\
	X(SSL_SESSION_free) X(SSL_set_shutdown)				\
	X(SSL_get_verify_result) X(ERR_get_error)			\
	X(ERR_reason_error_string) X(ERR_clear_error)			\
	X(X509_verify_cert_error_string)
static DYNLIB_TABLE(ossl_fns, OSSL_FUNCTIONS) ossl;
static struct dynlib ossl_lib = DYNLIB(ossl, OSSL_FUNCTIONS, "libssl.so.3",
	"libssl3", "OpenSSL 3, for https");

/* OpenSSL's words for an error code, never NULL. */
static const char *err_text(unsigned long code)
{
	const char *s = code ? ossl.ERR_reason_error_string(code) : NULL;

	return s ? s : "protocol error";
}

/* Read-ahead buffer of a connection, while it holds data. */
#define TLS_READ_AHEAD 65536
/* Up to this many connections keep their buffers between requests. */
#define TLS_KEEP_BUFFERS 1024

struct tls_ctx {
	SSL_CTX *ctx;
	bool insecure;
};

struct tls_conn {
	SSL *ssl;
	char reason[160];
};

struct tls_ctx *tls_ctx_new(bool insecure, unsigned connections,
			    struct error *e)
{
	struct tls_ctx *t;

	if (dynlib_load(&ossl_lib, e))
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->ctx = ossl.SSL_CTX_new(ossl.TLS_client_method());
	if (!t->ctx) {
		free(t);
		error_set(e, "cannot set up TLS: %s",
			  err_text(ossl.ERR_get_error()));
		return NULL;
	}
	t->insecure = insecure;
	ossl.SSL_CTX_ctrl(t->ctx, SSL_CTRL_SET_MIN_PROTO_VERSION,
			  TLS1_2_VERSION, NULL);
	/* A server that closes without close_notify ends a body delimited
	 * by the end of the connection; that is EOF, not an error. */
	ossl.SSL_CTX_set_options(t->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	ossl.SSL_CTX_ctrl(t->ctx, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE |
			  SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
			  (connections > TLS_KEEP_BUFFERS ?
			   SSL_MODE_RELEASE_BUFFERS : 0), NULL);
	ossl.SSL_CTX_ctrl(t->ctx, SSL_CTRL_SET_READ_AHEAD, 1, NULL);
	ossl.SSL_CTX_set_default_read_buffer_len(t->ctx, TLS_READ_AHEAD);
	if (!insecure) {
		ossl.SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
		if (ossl.SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
			ossl.SSL_CTX_free(t->ctx);
			free(t);
			error_set(e, "cannot load the system's CA certificates");
			return NULL;
		}
	}
	return t;
}

void tls_ctx_free(struct tls_ctx *t)
{
	if (!t)
		return;
	ossl.SSL_CTX_free(t->ctx);
	free(t);
}

struct tls_conn *tls_conn_new(struct tls_ctx *t, int fd, const char *host,
			      struct tls_session *resume)
{
	struct tls_conn *c = xcalloc(1, sizeof(*c));

	c->ssl = ossl.SSL_new(t->ctx);
	if (!c->ssl || ossl.SSL_set_fd(c->ssl, fd) != 1 ||
	    (resume && ossl.SSL_set_session(c->ssl, (SSL_SESSION *)resume) != 1)) {
		ossl.SSL_free(c->ssl);
		free(c);
		return NULL;
	}
	/* SNI is for names only, never for addresses (RFC 6066). */
	if (!strchr(host, ':') && strspn(host, "0123456789.") != strlen(host))
		ossl.SSL_ctrl(c->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME,
			      TLSEXT_NAMETYPE_host_name, (void *)host);
	if (!t->insecure)
		ossl.SSL_set1_host(c->ssl, host);
	ossl.SSL_set_connect_state(c->ssl);
	return c;
}

struct tls_session *tls_conn_session(struct tls_conn *c)
{
	SSL_SESSION *s = ossl.SSL_get1_session(c->ssl);

	if (s && ossl.SSL_SESSION_is_resumable(s) != 1) {
		ossl.SSL_SESSION_free(s);
		return NULL;
	}
	/* SSL_free would mark the session not resumable, the connection
	 * not being shut down: say it was (c is closed, without sending a
	 * close_notify to a socket that may be gone). */
	if (s)
		ossl.SSL_set_shutdown(c->ssl, SSL_SENT_SHUTDOWN |
				      SSL_RECEIVED_SHUTDOWN);
	return (struct tls_session *)s;
}

void tls_session_free(struct tls_session *s)
{
	if (s)
		ossl.SSL_SESSION_free((SSL_SESSION *)s);
}

void tls_conn_free(struct tls_conn *c)
{
	if (!c)
		return;
	ossl.SSL_free(c->ssl);
	free(c);
}

/* Map an OpenSSL result r of a call on c to TLS_WANT_* or TLS_FAIL. */
static int fail_or_want(struct tls_conn *c, int r)
{
	int err = ossl.SSL_get_error(c->ssl, r);
	unsigned long code;
	long v;

	switch (err) {
	case SSL_ERROR_WANT_READ:
		return TLS_WANT_READ;
	case SSL_ERROR_WANT_WRITE:
		return TLS_WANT_WRITE;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		if (!errno)
			errno = ECONNRESET;	/* EOF in the middle of TLS */
		ossl.ERR_clear_error();
		return TLS_FAIL;
	}
	code = ossl.ERR_get_error();
	v = ossl.SSL_get_verify_result(c->ssl);
	if (v != X509_V_OK)
		snprintf(c->reason, sizeof(c->reason), "TLS: certificate "
			 "verify failed: %s", ossl.X509_verify_cert_error_string(v));
	else
		snprintf(c->reason, sizeof(c->reason), "TLS: %s",
			 err_text(code));
	ossl.ERR_clear_error();
	errno = 0;
	return TLS_FAIL;
}

int tls_handshake(struct tls_conn *c)
{
	int r;

	errno = 0;
	r = ossl.SSL_do_handshake(c->ssl);
	if (r == 1)
		return 1;
	r = fail_or_want(c, r);
	if (r == 0) {		/* closed during the handshake */
		errno = ECONNRESET;
		return TLS_FAIL;
	}
	return r;
}

ssize_t tls_read(struct tls_conn *c, void *buf, size_t n)
{
	int r;

	errno = 0;
	r = ossl.SSL_read(c->ssl, buf, n > 0x7fffffff ? 0x7fffffff : (int)n);
	return r > 0 ? r : fail_or_want(c, r);
}

ssize_t tls_write(struct tls_conn *c, const void *buf, size_t n)
{
	int r;

	errno = 0;
	r = ossl.SSL_write(c->ssl, buf, n > 0x7fffffff ? 0x7fffffff : (int)n);
	if (r > 0)
		return r;
	r = fail_or_want(c, r);
	if (r == 0) {
		errno = EPIPE;
		return TLS_FAIL;
	}
	return r;
}

bool tls_pending(struct tls_conn *c)
{
	return ossl.SSL_has_pending(c->ssl) == 1;
}

void tls_reason(struct tls_conn *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s", c->reason[0] ? c->reason : "TLS error");
}
