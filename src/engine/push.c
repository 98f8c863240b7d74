/* Pushgateway pushes (push.h) over load/client.h. */
#include "engine/push.h"

#include <stdlib.h>
#include <string.h>

#include "load/client.h"
#include "load/url.h"
#include "util/strutil.h"

/* RFC 4648 section 5, padded ("=" alone for an empty value, which the
 * gateway takes for an empty label value). */
static void put_base64url(struct strbuf *b, const char *s)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789-_";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	if (!n) {
		strbuf_putc(b, '=');
		return;
	}
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (unsigned)p[i + 1] << 8;
		if (left > 2)
			v |= p[i + 2];
		strbuf_putc(b, abc[(v >> 18) & 63]);
		strbuf_putc(b, abc[(v >> 12) & 63]);
		strbuf_putc(b, left > 1 ? abc[(v >> 6) & 63] : '=');
		strbuf_putc(b, left > 2 ? abc[v & 63] : '=');
	}
}

/* The path of that group: /metrics/job/yardstick/benchmark@base64/.../
 * machine@base64/...[/segment@base64/...] (malloc'd). */
static char *push_path(const char *benchmark, const char *machine,
		const char *segment)
{
	struct strbuf b = { 0 };

	strbuf_puts(&b, "/metrics/job/yardstick/benchmark@base64/");
	put_base64url(&b, benchmark);
	strbuf_puts(&b, "/machine@base64/");
	put_base64url(&b, machine);
	if (segment) {
		strbuf_puts(&b, "/segment@base64/");
		put_base64url(&b, segment);
	}
	return b.s;
}

int push_group(const char *url, const char *benchmark, const char *machine,
	       const char *segment, const char *body, size_t len,
	       struct error *e)
{
	char *path = push_path(benchmark, machine, segment);
	struct client_resp r;
	struct error ce;
	int ret;

	ret = client_request(url, "PUT", path,
			     "text/plain; version=0.0.4; charset=utf-8",
			     body, len, PUSH_TIMEOUT, &r, &ce);
	free(path);
	if (ret)
		return error_env(e, "cannot push to the Pushgateway: %s",
				 ce.msg);
	if (r.status < 200 || r.status > 299)
		return error_env(e, "cannot push to the Pushgateway '%s': it "
				 "answered %d%s%s", url, r.status,
				 r.first_line[0] ? ": " : "", r.first_line);
	return 0;
}

int push_check_url(const char *url, struct error *e)
{
	struct url u;

	if (url_parse(url, &u, e))
		return -1;
	url_free(&u);
	return 0;
}
