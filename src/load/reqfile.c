/*
 * The requests file (format in reqfile.h): JSON Lines, each line parsed
 * on its own so that every message names the line.
 */
#include "load/reqfile.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "load/http.h"
#include "util/fileio.h"
#include "util/strutil.h"

void reqfile_free(struct reqfile_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].method);
		free(v[i].path);
		argv_free(v[i].headers);
		free(v[i].body);
	}
	free(v);
}

struct ctx {
	const char *name;
	size_t line;
	struct error *e;
};

#define BAD(c, ...) bad(c, xasprintf(__VA_ARGS__))

/* "NAME:LINE: what"; takes msg over. Returns -1. */
static int bad(struct ctx *c, char *msg)
{
	error_set(c->e, "%s:%zu: %s", c->name, c->line, msg);
	free(msg);
	return -1;
}

/* A string without NUL bytes (JSON may hold \u0000). */
static const char *plain_string(json_t *v)
{
	const char *s;

	if (!json_is_string(v))
		return NULL;
	s = json_string_value(v);
	return strlen(s) == json_string_length(v) ? s : NULL;
}

static int add_header(struct ctx *c, struct reqfile_entry *r, char *h)
{
	struct error he;

	if (http_header_check(h, &he)) {
		int ret = BAD(c, "header '%s': %s", h, he.msg);

		free(h);
		return ret;
	}
	r->headers = xrealloc(r->headers, (r->nheaders + 2) * sizeof(char *));
	r->headers[r->nheaders++] = h;
	r->headers[r->nheaders] = NULL;
	return 0;
}

static int read_headers(struct ctx *c, json_t *v, struct reqfile_entry *r)
{
	const char *key;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, x) {
			const char *s = plain_string(x);

			if (!s)
				return BAD(c, "headers.%s: expected a string",
					   key);
			if (add_header(c, r, xasprintf("%s: %s", key, s)))
				return -1;
		}
		return 0;
	}
	if (!json_is_array(v))
		return BAD(c, "\"headers\": expected an object or an array of "
			   "\"Name: value\" strings");
	json_array_foreach(v, i, x) {
		const char *s = plain_string(x);

		if (!s)
			return BAD(c, "headers[%zu]: expected a string", i);
		if (add_header(c, r, xstrdup(s)))
			return -1;
	}
	return 0;
}

static int read_entry(struct ctx *c, json_t *o, struct reqfile_entry *r)
{
	const char *key, *s;
	json_t *v;
	struct error me;

	if (!json_is_object(o))
		return BAD(c, "expected an object such as {\"path\": \"/\"}");
	json_object_foreach(o, key, v) {
		if (!strcmp(key, "method")) {
			if (!(s = plain_string(v)))
				return BAD(c, "\"method\": expected a string");
			if (http_method_check(s, &me))
				return BAD(c, "\"method\": %s", me.msg);
			r->method = xstrdup(s);
		} else if (!strcmp(key, "path")) {
			if (!(s = plain_string(v)) || s[0] != '/')
				return BAD(c, "\"path\": expected a string "
					   "starting with '/'");
			for (const char *p = s; *p; p++)
				if ((unsigned char)*p <= 0x20 || *p == 0x7f)
					return BAD(c, "\"path\": a space or "
						   "control character (percent-"
						   "encode it)");
			r->path = xstrdup(s);
		} else if (!strcmp(key, "headers")) {
			if (read_headers(c, v, r))
				return -1;
		} else if (!strcmp(key, "body")) {
			if (!json_is_string(v))
				return BAD(c, "\"body\": expected a string");
			r->body_len = json_string_length(v);
			r->body = xmalloc(r->body_len + 1);
			memcpy(r->body, json_string_value(v), r->body_len + 1);
		} else {
			return BAD(c, "unknown key \"%s\" (method, path, "
				   "headers, body)", key);
		}
	}
	if (!r->path)
		return BAD(c, "no \"path\"");
	if (!r->method)
		r->method = xstrdup("GET");
	return 0;
}

static bool skip_line(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '\r')) {
		s++;
		n--;
	}
	return n == 0 || *s == '#';
}

int reqfile_parse(const char *name, const char *data, size_t len,
		  struct reqfile_entry **out, size_t *n, struct error *e)
{
	struct ctx c = { .name = name, .e = e };
	struct reqfile_entry *v = NULL;
	size_t nv = 0, cap = 0, off = 0;

	while (off < len) {
		const char *nl = memchr(data + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - (data + off)) : len - off;
		json_error_t je;
		json_t *o;
		int rc;

		c.line++;
		if (!skip_line(data + off, ll)) {
			o = json_loadb(data + off, ll, JSON_REJECT_DUPLICATES |
				       JSON_ALLOW_NUL, &je);
			if (!o) {
				BAD(&c, "column %d: %s", je.column, je.text);
				goto out_fail;
			}
			v = xgrow(v, &cap, nv + 1, sizeof(*v));
			memset(&v[nv], 0, sizeof(*v));
			v[nv].line = c.line;
			rc = read_entry(&c, o, &v[nv++]);
			json_decref(o);
			if (rc)
				goto out_fail;
		}
		off += ll + 1;
	}
	if (nv == 0) {
		error_set(e, "%s: no requests (one JSON object a line, such "
			  "as {\"path\": \"/\"})", name);
		goto out_fail;
	}
	*out = v;
	*n = nv;
	return 0;

out_fail:
	reqfile_free(v, nv);
	return -1;
}

int reqfile_read(const char *path, struct reqfile_entry **out, size_t *n,
		 struct error *e)
{
	char *data;
	size_t len;
	int rc;

	if (file_read_all(path, &data, &len, e))
		return -1;
	rc = reqfile_parse(path, data, len, out, n, e);
	free(data);
	return rc;
}
