/*
 * A caller-owned error message. Library code fills one and returns a
 * negative value; only commands print it and choose the exit code.
 * Messages follow git's rule: lowercase, no final full stop, the
 * offending thing quoted.
 */
#ifndef YS_UTIL_ERROR_H
#define YS_UTIL_ERROR_H

#include <stddef.h>

struct error {
	char msg[1024];
};

/* Format a message into e (if non-NULL); always returns -1. Control
 * characters and bytes that are not UTF-8 in it are escaped as term_safe
 * does: messages are for the terminal. */
int error_set(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like error_set, appending ": strerror(errnum)". Returns -1. */
int error_errno(struct error *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
