/*
 * libFuzzer target of the parsers of the numbers a user writes
 * (util/number.c): whatever the bytes, a parser either refuses them or
 * takes a text of the grammar of number.h — checked apart, as a POSIX
 * regular expression — whose value is strtod's (strtol's) of the same
 * text, finite and in range; a duration is not negative, a size is from
 * 1 to 1e15 bytes, an index is below its count.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/number.h"

#define GRAMMAR "^-?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?"

static regex_t re_whole, re_prefix;

/* The number at s per the regex: its length, or 0. */
static size_t span(const char *s)
{
	regmatch_t m;

	return regexec(&re_prefix, s, 1, &m, 0) ? 0 : (size_t)m.rm_eo;
}

static void check_double(const char *s)
{
	const char *end;
	char *stop;
	double v, w;

	if (parse_double(s, &v) == 0) {
		errno = 0;
		w = strtod(s, &stop);
		if (regexec(&re_whole, s, 0, NULL, 0) || *stop || errno ||
		    v != w || !isfinite(v))
			abort();
	}
	if (parse_decimal_prefix(s, &end, &v) == 0 &&
	    (end < s || (size_t)(end - s) != span(s) || !isfinite(v)))
		abort();
}

static void check_units(const char *s)
{
	double d;
	uint64_t u;
	long l, i, n;

	if (parse_duration(s, &d) == 0 && !(d >= 0 && isfinite(d)))
		abort();
	if (parse_size(s, &u) == 0 && (u < 1 || u > 1000000000000000ULL))
		abort();
	if (parse_long(s, &l) == 0 && (strpbrk(s, ".eE") ||
				       regexec(&re_whole, s, 0, NULL, 0) ||
				       strtol(s, NULL, 10) != l))
		abort();
	if (parse_index_of(s, &i, &n) == 0 && !(i >= 0 && i < n))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char *s = malloc(size + 1);

	if (!ready) {
		char whole[sizeof(GRAMMAR) + 1];

		memcpy(whole, GRAMMAR, sizeof(GRAMMAR) - 1);
		memcpy(whole + sizeof(GRAMMAR) - 1, "$", 2);
		if (regcomp(&re_whole, whole, REG_EXTENDED | REG_NOSUB) ||
		    regcomp(&re_prefix, GRAMMAR, REG_EXTENDED))
			abort();
		ready = 1;
	}
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	check_double(s);
	check_units(s);
	free(s);
	return 0;
}
