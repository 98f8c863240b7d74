/*
 * https for `load` through OpenSSL, on non-blocking sockets: the engine
 * calls these when epoll says the socket is ready and learns whether the
 * next step waits for readability or writability. The only file of the
 * engine that includes OpenSSL's headers.
 */
#ifndef YS_LOAD_TLS_H
#define YS_LOAD_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

struct tls_ctx;
struct tls_conn;
struct tls_session;	/* what resumes a connection's session */

/* A client context: certificates verified against the system's CAs and
 * the host name unless insecure; for that many connections (few keep
 * their buffers between requests, many free them). Returns NULL with a
 * message. */
struct tls_ctx *tls_ctx_new(bool insecure, unsigned connections,
			    struct error *e);
void tls_ctx_free(struct tls_ctx *t);

/* A TLS connection over the connected socket fd, sending host as SNI and
 * checking the certificate against it; offering to resume the session
 * resume unless NULL (a server that declines makes a full handshake).
 * NULL when OpenSSL cannot make the connection. */
struct tls_conn *tls_conn_new(struct tls_ctx *t, int fd, const char *host,
			      struct tls_session *resume);
void tls_conn_free(struct tls_conn *c);
/* c's session if it may be resumed (a handshake done, no fatal error),
 * a reference of the caller's; else NULL. For a connection about to be
 * freed (it is marked as shut down). */
struct tls_session *tls_conn_session(struct tls_conn *c);
void tls_session_free(struct tls_session *s);

/* Results of the calls below besides a byte count. */
#define TLS_WANT_READ (-2)
#define TLS_WANT_WRITE (-3)
#define TLS_FAIL (-1)	/* errno holds the socket error, or 0 for a TLS
			 * failure (tls_reason says which) */

/* 1 when the handshake is done, or TLS_WANT_READ / WANT_WRITE / FAIL. */
int tls_handshake(struct tls_conn *c);
/* Bytes read (0: the peer closed), or TLS_WANT_* / TLS_FAIL. */
ssize_t tls_read(struct tls_conn *c, void *buf, size_t n);
/* Bytes written (> 0), or TLS_WANT_* / TLS_FAIL. */
ssize_t tls_write(struct tls_conn *c, const void *buf, size_t n);
/* Bytes waiting inside OpenSSL, decrypted or read ahead (epoll cannot
 * see them). */
bool tls_pending(struct tls_conn *c);
/* What the last TLS_FAIL was, e.g. "certificate verify failed:
 * self-signed certificate", in buf. */
void tls_reason(struct tls_conn *c, char *buf, size_t n);

#endif
