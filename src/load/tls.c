/*
 * OpenSSL on non-blocking sockets (see tls.h). The context is shared by
 * every client thread (OpenSSL's SSL_CTX is thread-safe once set up);
 * each connection has its own SSL. The reason of a failure is captured
 * when it happens, since OpenSSL's error queue belongs to the thread and
 * is overwritten by the next call.
 */
#include "load/tls.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

struct tls_ctx {
	SSL_CTX *ctx;
	bool insecure;
};

struct tls_conn {
	SSL *ssl;
	char reason[160];
};

struct tls_ctx *tls_ctx_new(bool insecure, struct error *e)
{
	struct tls_ctx *t = xcalloc(1, sizeof(*t));

	t->ctx = SSL_CTX_new(TLS_client_method());
	if (!t->ctx) {
		free(t);
		error_set(e, "cannot set up TLS: %s",
			  ERR_reason_error_string(ERR_get_error()));
		return NULL;
	}
	t->insecure = insecure;
	SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
	/* A server that closes without close_notify ends a body delimited
	 * by the end of the connection; that is EOF, not an error. */
	SSL_CTX_set_options(t->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
			 SSL_MODE_RELEASE_BUFFERS);
	if (!insecure) {
		SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
		if (SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
			SSL_CTX_free(t->ctx);
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
	SSL_CTX_free(t->ctx);
	free(t);
}

struct tls_conn *tls_conn_new(struct tls_ctx *t, int fd, const char *host)
{
	struct tls_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ssl = SSL_new(t->ctx);
	if (!c->ssl || SSL_set_fd(c->ssl, fd) != 1) {
		SSL_free(c->ssl);
		free(c);
		return NULL;
	}
	/* SNI is for names only, never for addresses (RFC 6066). */
	if (!strchr(host, ':') && strspn(host, "0123456789.") != strlen(host))
		SSL_set_tlsext_host_name(c->ssl, host);
	if (!t->insecure)
		SSL_set1_host(c->ssl, host);
	SSL_set_connect_state(c->ssl);
	return c;
}

void tls_conn_free(struct tls_conn *c)
{
	if (!c)
		return;
	SSL_free(c->ssl);
	free(c);
}

/* Map an OpenSSL result r of a call on c to TLS_WANT_* or TLS_FAIL. */
static int fail_or_want(struct tls_conn *c, int r)
{
	int err = SSL_get_error(c->ssl, r);
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
		ERR_clear_error();
		return TLS_FAIL;
	}
	code = ERR_get_error();
	v = SSL_get_verify_result(c->ssl);
	if (v != X509_V_OK)
		snprintf(c->reason, sizeof(c->reason), "TLS: certificate "
			 "verify failed: %s", X509_verify_cert_error_string(v));
	else
		snprintf(c->reason, sizeof(c->reason), "TLS: %s",
			 code ? ERR_reason_error_string(code) : "protocol error");
	ERR_clear_error();
	errno = 0;
	return TLS_FAIL;
}

int tls_handshake(struct tls_conn *c)
{
	int r;

	errno = 0;
	r = SSL_do_handshake(c->ssl);
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
	r = SSL_read(c->ssl, buf, n > 0x7fffffff ? 0x7fffffff : (int)n);
	return r > 0 ? r : fail_or_want(c, r);
}

ssize_t tls_write(struct tls_conn *c, const void *buf, size_t n)
{
	int r;

	errno = 0;
	r = SSL_write(c->ssl, buf, n > 0x7fffffff ? 0x7fffffff : (int)n);
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
	return SSL_pending(c->ssl) > 0;
}

void tls_reason(struct tls_conn *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s", c->reason[0] ? c->reason : "TLS error");
}
