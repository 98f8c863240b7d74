/*
 * A caller-owned error message and its class. Library code fills one and
 * returns a negative value; only commands print it, and take the exit
 * code from its class (error_exit_code), never from a module's own codes.
 * Messages follow git's rule: lowercase, no final full stop, the
 * offending thing quoted.
 */
#ifndef YS_UTIL_ERROR_H
#define YS_UTIL_ERROR_H

#include <stddef.h>

/*
 * What kind of failure an error is, and so the exit code of the command
 * that reports it (each page of docs/cmd/, "Exit status"). error_set and
 * error_errno make an error ERROR_INPUT; the module that knows better
 * says so (error_env, error_mark): the store for a store locked,
 * read-only, another user's, unreachable or without its library;
 * util/dynlib for any library that cannot be loaded.
 */
enum error_class {
	ERROR_INPUT,	/* bad usage or bad input: exit 2 */
	ERROR_ENV,	/* the environment refused (a store locked, read-only
			 * or another user's, a library missing, perf events
			 * not permitted): exit 3; a program to measure that
			 * does not exist is bad input (exit 2) */
};

/* The size of a message's buffer: a copy of one kept elsewhere (a
 * stats struct's "why not") takes this much to hold it whole. */
#define ERROR_MSG_MAX 1024

struct error {
	char msg[ERROR_MSG_MAX];
	enum error_class cls;
};

/* Format a message into e (if non-NULL), class ERROR_INPUT; always
 * returns -1. Control characters and bytes that are not UTF-8 in it are
 * escaped as term_safe does: messages are for the terminal. */
int error_set(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like error_set, appending ": strerror(errnum)". Returns -1. */
int error_errno(struct error *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like error_set, class ERROR_ENV. Returns -1. */
int error_env(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Put the formatted text before the message e holds ("--ceilings: "),
 * keeping its class (e may be NULL). Returns -1. */
int error_prefix(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Set the class of the message e holds (e may be NULL). Returns -1, so
 * that `return error_mark(e, ERROR_ENV);` ends a failure. */
int error_mark(struct error *e, enum error_class cls);

/* The exit code of a command that fails with e: 2 for ERROR_INPUT, 3 for
 * ERROR_ENV. */
int error_exit_code(const struct error *e);

#endif
