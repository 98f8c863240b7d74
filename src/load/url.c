/*
 * URL parsing for `load`: only what an HTTP/1.1 client needs — scheme,
 * host, port, origin-form path — with every rejection explained, since a
 * typo in a URL is the most common mistake on a load generator's command
 * line.
 */
#include "load/url.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/strutil.h"

void url_free(struct url *u)
{
	free(u->host);
	free(u->path);
	free(u->authority);
	free(u->hostport);
	memset(u, 0, sizeof(*u));
}

/* A registered name or IPv4 address: letters, digits, '-', '.', '_'. */
static bool host_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '.' || c == '_';
}

/* The path may hold anything printable but spaces (RFC 3986 characters,
 * percent-escapes, and the bytes some servers accept anyway). */
static bool path_char(unsigned char c)
{
	return c > 0x20 && c != 0x7f;
}

static int parse_port(const char *p, size_t len, int *port)
{
	long v = 0;

	if (len == 0 || len > 5)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

/* The host (and port) between the scheme and the path: [a, end). */
static int parse_authority(const char *s, const char *a, const char *end,
			   struct url *u, struct error *e)
{
	const char *h = a, *hend, *colon = NULL;

	if (memchr(a, '@', (size_t)(end - a)))
		return error_set(e, "URL '%s': credentials in the URL are not "
				 "supported (use --header 'Authorization: "
				 "...')", s);
	if (*a == '[') {
		const char *close = memchr(a, ']', (size_t)(end - a));

		if (!close || close == a + 1)
			return error_set(e, "URL '%s': unterminated or empty "
					 "[IPv6] address", s);
		for (const char *p = a + 1; p < close; p++)
			if (!isxdigit((unsigned char)*p) && *p != ':' &&
			    *p != '.')
				return error_set(e, "URL '%s': '%.*s' is not an "
						 "IPv6 address", s,
						 (int)(close - a + 1), a);
		h = a + 1;
		hend = close;
		if (close + 1 < end) {
			if (close[1] != ':')
				return error_set(e, "URL '%s': junk after the "
						 "[IPv6] address", s);
			colon = close + 1;
		}
	} else {
		colon = memchr(a, ':', (size_t)(end - a));
		hend = colon ? colon : end;
		for (const char *p = a; p < hend; p++)
			if (!host_char(*p))
				return error_set(e, "URL '%s': '%c' cannot be "
						 "in a host name", s, *p);
	}
	if (hend == h)
		return error_set(e, "URL '%s': no host", s);
	u->host = xstrndup(h, (size_t)(hend - h));
	if (colon && parse_port(colon + 1, (size_t)(end - colon - 1),
				&u->port))
		return error_set(e, "URL '%s': '%.*s' is not a port (1 to "
				 "65535)", s, (int)(end - colon - 1),
				 colon + 1);
	if (!colon)
		u->port = u->tls ? 443 : 80;
	u->default_port = u->port == (u->tls ? 443 : 80);
	return 0;
}

int url_parse(const char *s, struct url *u, struct error *e)
{
	const char *rest, *slash;
	size_t plen;
	bool v6;

	memset(u, 0, sizeof(*u));
	if (!strncasecmp(s, "http://", 7)) {
		rest = s + 7;
	} else if (!strncasecmp(s, "https://", 8)) {
		u->tls = true;
		rest = s + 8;
	} else {
		return error_set(e, "URL '%s': must start with http:// or "
				 "https://", s);
	}
	slash = rest + strcspn(rest, "/?#");
	if (parse_authority(s, rest, slash, u, e))
		goto out_fail;
	plen = strcspn(slash, "#");
	for (size_t i = 0; i < plen; i++)
		if (!path_char((unsigned char)slash[i])) {
			error_set(e, "URL '%s': a space or control character "
				  "in the path (percent-encode it)", s);
			goto out_fail;
		}
	if (plen == 0)
		u->path = xstrdup("/");
	else if (*slash == '?')
		u->path = xasprintf("/%.*s", (int)plen, slash);
	else
		u->path = xstrndup(slash, plen);
	v6 = strchr(u->host, ':') != NULL;
	u->hostport = xasprintf(v6 ? "[%s]:%d" : "%s:%d", u->host, u->port);
	if (u->default_port)
		u->authority = xasprintf(v6 ? "[%s]" : "%s", u->host);
	else
		u->authority = xstrdup(u->hostport);
	return 0;

out_fail:
	url_free(u);
	return -1;
}

/* Whether a TCP connection to ai is accepted within a second. */
static bool probe_connect(const struct addrinfo *ai)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
			SOCK_CLOEXEC, ai->ai_protocol);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int err = 0;
	socklen_t elen = sizeof(err);
	bool ok;

	if (fd < 0)
		return false;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		ok = true;
	else
		ok = errno == EINPROGRESS && poll(&p, 1, 1000) == 1 &&
		     !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) &&
		     err == 0;
	close(fd);
	return ok;
}

int url_resolve(const struct url *u, struct sockaddr_storage *addr,
		socklen_t *len, struct error *e)
{
	struct addrinfo hints, *res = NULL;
	char port[8];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	snprintf(port, sizeof(port), "%d", u->port);
	rc = getaddrinfo(u->host, port, &hints, &res);
	if (rc == EAI_ADDRFAMILY || rc == EAI_NONAME) {
		/* AI_ADDRCONFIG hides ::1 on a host without IPv6 routes. */
		hints.ai_flags = 0;
		rc = getaddrinfo(u->host, port, &hints, &res);
	}
	if (rc)
		return error_set(e, "cannot resolve '%s': %s", u->host,
				 gai_strerror(rc));
	/* The first address that accepts a connection, as wrk does:
	 * "localhost" is ::1 first on Debian, and a server listening on
	 * 127.0.0.1 only refuses it. None does: the first, whose failure
	 * the load then reports. */
	const struct addrinfo *pick = res;

	for (const struct addrinfo *ai = res; res->ai_next && ai;
	     ai = ai->ai_next) {
		if (probe_connect(ai)) {
			pick = ai;
			break;
		}
	}
	memcpy(addr, pick->ai_addr, pick->ai_addrlen);
	*len = pick->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}
