/*
 * Strings for the unit tests: how often a needle occurs in a text.
 */
#ifndef YS_TESTS_TESTSTRINGS_H
#define YS_TESTS_TESTSTRINGS_H

#include <string.h>

/* Occurrences of needle in s, overlapping ones included. memmem with the
 * lengths known: a loop of strstr measures the rest of the text at every
 * match, quadratic on a 7 MB SVG (a minute under ASan's interceptor). */
static inline size_t count(const char *s, const char *needle)
{
	const char *end = s + strlen(s), *p = s;
	size_t n = 0, len = strlen(needle);

	while ((p = memmem(p, (size_t)(end - p), needle, len))) {
		n++;
		p++;
	}
	return n;
}

#endif
