/*
 * The parsers of the numbers a user writes (number.h). The one thing to
 * know: the grammar is checked here, character by character, before
 * strtod or strtol sees the text, and they see only the span that
 * matched — so neither their hexadecimal, nor their "inf" and "nan", nor
 * their leading blanks can get through.
 */
#include "util/number.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The longest number read (a digit string longer than this is not a
 * number anyone types). */
#define NUMBER_MAX 128

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static size_t digits(const char *s)
{
	size_t n = 0;

	while (is_digit(s[n]))
		n++;
	return n;
}

/* The length of the decimal number at the start of s; 0 when none. */
static size_t decimal_span(const char *s)
{
	size_t at = *s == '-', whole, frac = 0, exp;

	whole = digits(s + at);
	at += whole;
	if (s[at] == '.') {
		frac = digits(s + at + 1);
		if (!whole && !frac)
			return 0;
		at += 1 + frac;
	}
	if (!whole && !frac)
		return 0;
	if (s[at] == 'e' || s[at] == 'E') {
		size_t sign = s[at + 1] == '+' || s[at + 1] == '-';

		exp = digits(s + at + 1 + sign);
		if (exp)
			at += 1 + sign + exp;
	}
	return at;
}

int parse_decimal_prefix(const char *s, const char **end, double *out)
{
	char buf[NUMBER_MAX + 1], *stop;
	size_t n = s ? decimal_span(s) : 0;
	double v;

	if (!n || n > NUMBER_MAX)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &stop);
	if (errno || *stop)
		return -1;	/* out of range: to infinity, or to zero */
	*out = v;
	*end = s + n;
	return 0;
}

int parse_double(const char *s, double *out)
{
	const char *end;
	double v;

	if (parse_decimal_prefix(s, &end, &v) || *end)
		return -1;
	*out = v;
	return 0;
}

/* The integer of the n characters at s ([-] digits, checked), within
 * long's range. */
static int integer_of(const char *s, size_t n, long *out)
{
	char buf[NUMBER_MAX + 1], *stop;
	long v;

	if (n > NUMBER_MAX)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &stop, 10);
	if (errno || *stop)
		return -1;
	*out = v;
	return 0;
}

int parse_long(const char *s, long *out)
{
	size_t sign, n;

	if (!s)
		return -1;
	sign = *s == '-';
	n = digits(s + sign);
	if (!n || s[sign + n])
		return -1;
	return integer_of(s, sign + n, out);
}

int parse_ulong_prefix(const char *s, const char **end, long *out)
{
	size_t n = s ? digits(s) : 0;

	if (!n || integer_of(s, n, out))
		return -1;
	*end = s + n;
	return 0;
}

int parse_index_of(const char *s, long *i, long *n)
{
	const char *p;
	long a, b;

	if (parse_ulong_prefix(s, &p, &a) || *p != '/' ||
	    parse_ulong_prefix(p + 1, &p, &b) || *p || a >= b)
		return -1;
	*i = a;
	*n = b;
	return 0;
}

int parse_duration(const char *s, double *out)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 },
		{ "\xc2\xb5s", 1e-6 }, { "ns", 1e-9 },
	};
	const char *end;
	double v;

	if (parse_decimal_prefix(s, &end, &v) || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			*out = v * units[i].scale;
			return 0;
		}
	}
	return -1;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *end;
	double v, mult = 1;

	if (parse_decimal_prefix(s, &end, &v) || !(v > 0))
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1024; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	}
	if (mult > 1 && *end == 'i')
		end++;
	if (*end == 'B' || (*end == 'b' && mult > 1))
		end++;
	if (*end || v * mult < 1 || v * mult > 1e15)
		return -1;
	*out = (uint64_t)(v * mult);
	return 0;
}
