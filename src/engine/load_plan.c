/*
 * `load`'s plan into the load engine's input (load_plan.h): the bytes of
 * every request, built once before the first is sent, and the engine's
 * configuration with a segment's share of the test.
 */
#include "engine/load_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "load/http.h"
#include "load/reqfile.h"
#include "util/stop.h"
#include "util/strutil.h"

void load_plan_defaults(struct load_plan *p)
{
	p->connections = 10;
	p->threads = 1;
	p->duration = 10;
	p->timeout = 2;
	p->sample = 100000;
	p->seed = 1;
	p->segments = 1;
}

void load_plan_free(struct load_plan *p)
{
	url_free(&p->url);
	free(p->body);
}

void load_reqs_free(struct load_req *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].bytes);
	free(r);
}

static bool has_header(char *const *h, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (!strncasecmp(h[i], name, len) && h[i][len] == ':')
			return true;
	return false;
}

/* The entries of the requests file, with the plan's headers added to each. */
static int reqs_from_file(const struct load_plan *p, struct load_req **out,
			  size_t *n, struct error *e)
{
	struct reqfile_entry *v;
	struct error fe;
	size_t nv;

	if (reqfile_read(p->requests_file, &v, &nv, &fe))
		return error_set(e, "--requests-file: %s", fe.msg);
	*out = xcalloc(nv, sizeof(**out));
	for (size_t i = 0; i < nv; i++) {
		char **h = xcalloc(v[i].nheaders + p->nheaders + 1,
				   sizeof(char *));
		size_t nh = 0;
		struct http_req_spec spec = {
			.method = v[i].method, .path = v[i].path,
			.body = v[i].body, .body_len = v[i].body_len,
		};

		for (size_t k = 0; k < v[i].nheaders; k++)
			h[nh++] = v[i].headers[k];
		for (size_t k = 0; k < p->nheaders; k++) {
			char name[256];

			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(p->headers[k], ":"),
				 p->headers[k]);
			if (!has_header(v[i].headers, v[i].nheaders, name))
				h[nh++] = p->headers[k];
		}
		spec.headers = h;
		spec.nheaders = nh;
		http_request_build(&spec, p->url.authority, &(*out)[i].bytes,
				   &(*out)[i].len);
		(*out)[i].head = !strcmp(v[i].method, "HEAD");
		(*out)[i].idempotent = http_method_idempotent(v[i].method);
		(*out)[i].close = http_request_closes(&spec);
		free(h);
	}
	*n = nv;
	reqfile_free(v, nv);
	return 0;
}

static const char *method_of(const struct load_plan *p)
{
	return p->method ? p->method : p->body_given ? "POST" : "GET";
}

int load_plan_requests(const struct load_plan *p, struct load_req **out,
		      size_t *n, struct error *e)
{
	struct http_req_spec spec = {
		.method = method_of(p), .path = p->url.path,
		.headers = p->headers, .nheaders = p->nheaders,
		.body = p->body_given ? p->body : NULL,
		.body_len = p->body_len,
	};

	if (p->requests_file)
		return reqs_from_file(p, out, n, e);
	*out = xcalloc(1, sizeof(**out));
	http_request_build(&spec, p->url.authority, &(*out)->bytes,
			   &(*out)->len);
	(*out)->head = !strcmp(spec.method, "HEAD");
	(*out)->idempotent = http_method_idempotent(spec.method);
	(*out)->close = http_request_closes(&spec);
	*n = 1;
	return 0;
}

char *load_bench_name(const struct load_plan *p)
{
	if (p->name)
		return xstrdup(p->name);
	if (p->requests_file)
		return xasprintf("%s [requests %s]", p->url_arg,
				 p->requests_file);
	if (!strcmp(method_of(p), "GET"))
		return xstrdup(p->url_arg);
	return xasprintf("%s %s", method_of(p), p->url_arg);
}

int load_plan_config(const struct load_plan *p, struct load_config *c,
		       struct error *e)
{
	memset(c, 0, sizeof(*c));
	if (url_resolve(&p->url, &c->addr, &c->addrlen, e))
		return -1;
	c->hostport = p->url.hostport;
	c->tls = p->url.tls;
	c->tls_host = p->url.host;
	c->insecure = p->insecure;
	c->threads = (unsigned)p->threads;
	c->connections = (unsigned)p->connections;
	c->duration = p->duration;
	c->requests = (uint64_t)p->requests;
	if (p->segments > 1) {
		c->segment = (unsigned)p->segment;
		c->segments = (unsigned)p->segments;
		c->connections = (unsigned)load_segment_share(p->connections,
							      p->segment,
							      p->segments);
		if (c->threads > c->connections)
			c->threads = c->connections;
		if (p->requests)
			c->requests = (uint64_t)load_segment_share(
				p->requests, p->segment, p->segments);
	}
	c->start_at = p->start_at_given ? p->start_at : 0;
	c->warmup = p->warmup;
	c->rate = p->rate;
	c->timeout = p->timeout;
	c->sample_cap = (size_t)p->sample;
	c->held_in_latency = true;
	c->seed = p->seed;
	c->stop = stop_flag();
	return 0;
}
