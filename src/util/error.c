/* Error messages filled by library code, printed by commands. */
#include "util/error.h"
#include "util/strutil.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/term.h"

/*
 * A message quotes outside text (a benchmark name, a unit, a file's
 * bytes) and ends up on a terminal: its control characters are escaped
 * here, once for every message, as term_safe shows them.
 *
 * A message longer than the buffer loses the middle of its longest
 * quoted part ('...'), not its end: the reason usually follows the
 * quoted input ("invalid expression '<1 KB>': unknown name 'x'"). With
 * no quoted part long enough (QUOTED_CUT_MIN, and to take the cut), the
 * middle of the message goes.
 */

/* Cut the middle of s[a, b) so that s fits in max bytes (NUL included)
 * leaving "..." in its place; false when [a, b) is too short for it. */
static bool cut_middle(char *s, size_t a, size_t b, size_t max)
{
	size_t len = strlen(s), over = len + 1 + 3 - max, keep, from, to;

	if (len + 1 <= max)
		return true;
	if (b - a < over + 2)
		return false;
	keep = (b - a - over) / 2;
	from = a + keep;
	to = from + over;
	/* at characters' starts */
	while (from > a && ((unsigned char)s[from] & 0xc0) == 0x80)
		from--;
	while (to < b && ((unsigned char)s[to] & 0xc0) == 0x80)
		to++;
	memmove(s + from + 3, s + to, len - to + 1);
	memcpy(s + from, "...", 3);
	return strlen(s) + 1 <= max;
}

/*
 * Quotes that open or close a quoted part: an opening one at the start or
 * after a space or punctuation, a closing one at the end or before one. A
 * quote inside the quoted text itself ("don't", a file's bytes: "\x83'\x83")
 * has a letter, digit or escape beside it, and is neither: taken for one,
 * it would pair the rest wrongly, and the part cut could be the file's
 * name before it (fuzz_gate_config found that: the path lost its middle,
 * the bytes after the stray quote none).
 */
static bool opens(const char *s, const char *q)
{
	return q == s || strchr(" \t([{=,:;\"", q[-1]);
}

static bool closes(const char *q)
{
	return !q[1] || strchr(" \t)]},:;.\"\n", q[1]);
}

/* The longest quoted part of s: [*a, *b) inside the quotes. */
static bool longest_quoted(const char *s, size_t *a, size_t *b)
{
	size_t best = 0;

	for (const char *p = strchr(s, '\''); p; p = strchr(p + 1, '\'')) {
		const char *q;

		if (!opens(s, p))
			continue;
		for (q = strchr(p + 1, '\''); q && !closes(q);
		     q = strchr(q + 1, '\''))
			;
		if (!q)
			break;
		if ((size_t)(q - p - 1) > best) {
			best = (size_t)(q - p - 1);
			*a = (size_t)(p + 1 - s);
			*b = (size_t)(q - s);
		}
		p = q;
	}
	return best > 0;
}

/* A quoted part shorter than this is a name (a file's, a key's) rather
 * than the long input that made the message long: the middle of the
 * message goes instead. (A value with stray quotes in it is no quoted
 * part: fuzz_gate_config's '/proc/self/fd/3' [gate] max-decrease:
 * 'e = wlz\xf3\x83'}... lost its path's middle, the longest part by one
 * byte.) */
#define QUOTED_CUT_MIN 64

/* Take safe (malloc'd, already escaped, freed here) into e, fitted. */
static void fit_msg(struct error *e, char *safe)
{
	size_t a = 0, b = 0;

	if (strlen(safe) >= sizeof(e->msg) &&
	    !(longest_quoted(safe, &a, &b) && b - a >= QUOTED_CUT_MIN &&
	      cut_middle(safe, a, b, sizeof(e->msg))))
		cut_middle(safe, 0, strlen(safe), sizeof(e->msg));
	snprintf(e->msg, sizeof(e->msg), "%s", safe);
	free(safe);
}

/* Take full (malloc'd, freed here) into e: made safe, then fitted; the
 * class is error_set's default. */
static void set_msg(struct error *e, char *full)
{
	char *safe = term_safe(full);

	free(full);
	fit_msg(e, safe);
	e->cls = ERROR_INPUT;
}

/* The message of fmt and ap into e (if non-NULL), of class cls. */
static int set_class(struct error *e, enum error_class cls, const char *fmt,
		     va_list ap)
{
	if (!e)
		return -1;
	set_msg(e, xvasprintf(fmt, ap));
	e->cls = cls;
	return -1;
}

int error_set(struct error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_class(e, ERROR_INPUT, fmt, ap);
	va_end(ap);
	return -1;
}

int error_errno(struct error *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	char *head, *full;

	if (!e)
		return -1;
	va_start(ap, fmt);
	head = xvasprintf(fmt, ap);
	va_end(ap);
	full = xasprintf("%s: %s", head, strerror(errnum));
	free(head);
	set_msg(e, full);
	return -1;
}

int error_env(struct error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_class(e, ERROR_ENV, fmt, ap);
	va_end(ap);
	return -1;
}

int error_mark(struct error *e, enum error_class cls)
{
	if (e)
		e->cls = cls;
	return -1;
}

int error_exit_code(const struct error *e)
{
	return e->cls == ERROR_ENV ? 3 : 2;
}

int error_prefix(struct error *e, const char *fmt, ...)
{
	va_list ap;
	char *head, *safe;

	if (!e)
		return -1;
	va_start(ap, fmt);
	head = xvasprintf(fmt, ap);
	va_end(ap);
	safe = term_safe(head);
	free(head);
	/* e->msg is escaped already */
	head = xasprintf("%s%s", safe, e->msg);
	free(safe);
	fit_msg(e, head);
	return -1;
}
