/*
 * Which of a command's outputs writes to stdout. Every command asks this
 * the same way: at most one output may be stdout, and when one is, the
 * terminal report goes to stderr so that stdout holds the output alone
 * (a JSON document stays one). Target (issue 11): the whole output set
 * (checked before any work, written atomically at the end) lives here.
 */
#ifndef YS_UTIL_OUTPUTS_H
#define YS_UTIL_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/* An output a command may write: the option that asks for it and its
 * path (NULL: not asked for). */
struct output_ref {
	const char *flag;
	const char *path;
};

/* Whether path is our stdout: "-", or the file stdout is open on
 * (/dev/stdout, the target of a redirection). */
bool output_is_stdout(const char *path);

/*
 * The output of v[0..n) that writes to stdout: returns its index, -1 for
 * none, or -2 with a message naming both when two want stdout.
 */
int outputs_on_stdout(const struct output_ref *v, size_t n, struct error *e);

#endif
