/*
 * The target of `yardstick load`: an http:// or https:// URL, parsed and
 * checked before anything is sent, and resolved to one socket address.
 */
#ifndef YS_LOAD_URL_H
#define YS_LOAD_URL_H

#include <stdbool.h>
#include <sys/socket.h>

#include "util/error.h"

struct url {
	bool tls;		/* https */
	char *host;		/* as written, without [] around IPv6 */
	int port;		/* explicit, or 80 / 443 */
	bool default_port;	/* no port was written, or the scheme's */
	char *path;		/* origin-form: "/" at least, query kept,
				 * fragment dropped */
	char *authority;	/* what the Host header says: host[:port] */
	char *hostport;		/* host:port for messages ("[::1]:80") */
};

/*
 * Parse s into u (strings malloc'd; free with url_free). The scheme must
 * be http or https (any case); credentials (user@) are refused; the host
 * is a name, an IPv4 address or [IPv6]; the port 1..65535; the path must
 * not hold spaces or control bytes. Returns 0, or -1 with a message that
 * quotes s and says what is wrong.
 */
int url_parse(const char *s, struct url *u, struct error *e);
void url_free(struct url *u);

/* Resolve u's host and port (getaddrinfo): of several TCP addresses the
 * first that accepts a connection (each is tried for up to a second), else
 * the first. Returns 0, or -1 with a message naming the host. */
int url_resolve(const struct url *u, struct sockaddr_storage *addr,
		socklen_t *len, struct error *e);

#endif
