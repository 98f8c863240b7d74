/*
 * libFuzzer target of load's URL parser (src/load/url.c): any string
 * either parses into a URL whose parts hold what url.h promises (a
 * non-empty host, a port from 1 to 65535, a path that starts with '/'
 * and holds no space or control byte, an authority and a host:port that
 * name the host), which parses again from its parts to the same URL, or
 * fails with a message that quotes the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/url.h"
#include "util/strutil.h"

static void check(const struct url *u)
{
	struct url again;
	struct error e;
	char *s;

	if (!u->host || !u->host[0] || u->port < 1 || u->port > 65535 ||
	    !u->path || u->path[0] != '/' || !u->authority ||
	    !strstr(u->authority, u->host) || !u->hostport ||
	    !strstr(u->hostport, u->host))
		abort();
	for (const char *p = u->path; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			abort();
	s = xasprintf("%s://%s%s", u->tls ? "https" : "http", u->authority,
		      u->path);
	if (url_parse(s, &again, &e))
		abort();
	if (again.tls != u->tls || again.port != u->port ||
	    strcmp(again.host, u->host) || strcmp(again.path, u->path))
		abort();
	url_free(&again);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct url u;
	struct error e;

	if (url_parse(s, &u, &e)) {
		if (!strchr(e.msg, '\''))
			abort();
	} else {
		check(&u);
		url_free(&u);
	}
	free(s);
	return 0;
}
