/* Error messages filled by library code, printed by commands. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/term.h"

/*
 * A message quotes outside text (a benchmark name, a unit, a file's
 * bytes) and ends up on a terminal: its control characters are escaped
 * here, once for every message, as term_safe shows them. Cut to the
 * buffer at a character's start.
 */
static void make_safe(struct error *e)
{
	char *safe;
	size_t n;

	for (n = 0; e->msg[n]; n++)
		if ((unsigned char)e->msg[n] < 0x20 ||
		    (unsigned char)e->msg[n] >= 0x7f)
			break;
	if (!e->msg[n])
		return;		/* plain ASCII, nothing to escape */
	safe = term_safe(e->msg);
	n = strlen(safe);
	if (n >= sizeof(e->msg)) {
		n = sizeof(e->msg) - 1;
		while (n && ((unsigned char)safe[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(e->msg, safe, n);
	e->msg[n] = '\0';
	free(safe);
}

int error_set(struct error *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	make_safe(e);
	return -1;
}

int error_errno(struct error *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", strerror(errnum));
	make_safe(e);
	return -1;
}
