/*
 * The requests file of `load --requests-file`: a list of requests to
 * replay, one JSON object a line (JSON Lines), e.g. a sample of
 * production traffic:
 *
 *   {"method": "GET", "path": "/items?id=7"}
 *   {"method": "POST", "path": "/items", "headers": {"Content-Type":
 *    "application/json"}, "body": "{\"name\": \"x\"}"}
 *
 * (each object on one line). "path" is required (origin-form, starting
 * with "/"); "method" defaults to GET; "headers" is an object of strings
 * or an array of "Name: value" strings; "body" a string. Empty lines and
 * lines starting with '#' are skipped; any other key is an error, so that
 * a misspelt one is not silently ignored.
 */
#ifndef YS_LOAD_REQFILE_H
#define YS_LOAD_REQFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct reqfile_entry {
	char *method;
	char *path;
	char **headers;		/* "Name: value", checked */
	size_t nheaders;
	char *body;		/* NULL: none; may hold NUL bytes */
	size_t body_len;
	size_t line;		/* where it was in the file */
};

/*
 * Parse the text data[0..len) of the file called name. On success *out
 * (malloc'd, free with reqfile_free) holds at least one entry. On failure
 * -1 with a message "NAME:LINE: what" (or "NAME: no requests").
 */
int reqfile_parse(const char *name, const char *data, size_t len,
		  struct reqfile_entry **out, size_t *n, struct error *e);
/* Read the file path and parse it; an unreadable file names it. */
int reqfile_read(const char *path, struct reqfile_entry **out, size_t *n,
		 struct error *e);
void reqfile_free(struct reqfile_entry *v, size_t n);

#endif
