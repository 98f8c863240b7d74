/* Printing a jansson tree the way yardstick's files look. */
#ifndef YS_RESULT_JSON_EMIT_H
#define YS_RESULT_JSON_EMIT_H

#include <jansson.h>
#include <stdio.h>

#include "util/error.h"

/*
 * Write v to fp, indented by two spaces, with arrays of numbers on one line
 * and every real in the fewest significant digits that read back to the
 * same double (jansson itself prints 17 digits: 0.05 as
 * 0.050000000000000003). Returns 0, or -1 on a write error.
 */
int json_emit(json_t *v, FILE *fp);

/*
 * Write v, then a newline, to path atomically ("-" is stdout). Takes v
 * over (decref'd whatever happens). Returns 0, or -1 with a message
 * naming the file.
 */
int json_write_file(json_t *v, const char *path, struct error *e);

/* The element i of a streamed array (a new reference), NULL after the
 * last. */
typedef json_t *(*json_stream_fn)(void *arg, size_t i);

/*
 * json_write_file of the object v, except that its member key (present in
 * v, any value, for the order of the keys) is an array whose elements
 * next(arg, 0), next(arg, 1), ... are written one by one and released:
 * the memory of one element at a time, not of the whole tree.
 */
int json_write_file_streamed(json_t *v, const char *key, json_stream_fn next,
			     void *arg, const char *path, struct error *e);

/* Abort with a message: jansson ran out of memory. */
void json_oom(void) __attribute__((noreturn));
/* v, or abort with a message when jansson ran out of memory (NULL), as
 * the x* allocators do. */
json_t *json_must(json_t *v);
/* A copy of s with every byte that is not valid UTF-8 replaced by U+FFFD
 * (JSON cannot hold them). malloc'd. */
char *json_utf8_dup(const char *s);
/* A JSON string of outside text s (cleaned as above), null for NULL. */
json_t *json_text(const char *s);
/*
 * v as a jansson number, the rule of fmt_json_number (util/strutil.h) for
 * the writers that build a tree: null when v is NaN or infinite (jansson
 * refuses them); an integer when v is whole, within ±2^53 and not -0 (so
 * that 3 is written 3, and read back exactly); else a real, which
 * json_emit prints in the fewest digits that read back as v. Never NULL
 * (out of memory aborts, as json_must).
 */
json_t *json_number(double v);

#endif
