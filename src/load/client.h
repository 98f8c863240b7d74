/*
 * One blocking HTTP/1.1 exchange on a connection of its own, with the
 * engine's pieces (url.h, http.h, tls.h): for the Pushgateway pushes of
 * `export --push` and `load --push`, not for load. The request says
 * "Connection: close"; the response is read whole, up to a limit.
 */
#ifndef YS_LOAD_CLIENT_H
#define YS_LOAD_CLIENT_H

#include <stddef.h>

#include "util/error.h"

struct client_resp {
	int status;		/* 100..599 */
	char first_line[200];	/* the body's first line, for messages */
};

/*
 * Send method base + path (base an http:// or https:// URL whose path
 * ends in no "/" or one; path starting with "/") with the header
 * "Content-Type: type" and the body, and read the response, all within
 * timeout seconds. Returns 0 with *r filled (whatever the status), or -1
 * with a message naming the URL (cannot resolve, connect, TLS, timeout,
 * a malformed response).
 */
int client_request(const char *base, const char *method, const char *path,
		   const char *type, const char *body, size_t len,
		   double timeout, struct client_resp *r, struct error *e);

#endif
