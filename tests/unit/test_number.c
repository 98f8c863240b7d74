/* Unit tests of src/util/number.c, the parsers of the numbers a user
 * writes: a table of spellings each parser must take (with the value) or
 * refuse, and 200000 strings generated from the characters numbers are
 * made of, each checked against the truth: the grammar of number.h as a
 * POSIX regular expression, and glibc's strtod/strtol for the value and
 * the range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/number.h"

static void good_double(const char *s, double want)
{
	double v = NAN;

	if (parse_double(s, &v))
		fail_msg("'%s' refused", s);
	if (v != want)
		fail_msg("'%s' read as %.17g, not %.17g", s, v, want);
}

static void bad_double(const char *s)
{
	double v;

	if (!parse_double(s, &v))
		fail_msg("'%s' taken, as %.17g", s, v);
}

/* What every parser refuses, whatever its units. */
static const char *const never[] = {
	"", " 5", "5 ", "\t5", "5\n", "+5", "0x10", "0X10", "0x1p4", "0x",
	"inf", "-inf", "INF", "nan", "NaN", "infinity", "1e999", "-1e999",
	"1e-999", "5junk", "1,5", "0b1", "1e", "1e+", "-", ".", "-.", "e5",
	"5..0", "1_000", "\xd9\xa3", "\xef\xbc\x95", "--5", "5-", "1e5.5",
};

static void test_double_table(void **state)
{
	(void)state;
	good_double("0", 0);
	good_double("-0", 0);
	good_double("5", 5);
	good_double("007", 7);
	good_double("1.5", 1.5);
	good_double(".5", 0.5);
	good_double("5.", 5);
	good_double("-2.25", -2.25);
	good_double("1e3", 1000);
	good_double("1E+3", 1000);
	good_double("25e-2", 0.25);
	good_double("1.7976931348623157e308", 1.7976931348623157e308);
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		bad_double(never[i]);
}

static void test_long_table(void **state)
{
	long v = 0;

	(void)state;
	assert_int_equal(parse_long("42", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_long("-9223372036854775808", &v), 0);
	assert_true(v == (-9223372036854775807L - 1));
	assert_int_equal(parse_long("9223372036854775807", &v), 0);
	assert_int_equal(parse_long("9223372036854775808", &v), -1);
	assert_int_equal(parse_long("99999999999999999999999", &v), -1);
	assert_int_equal(parse_long("1.0", &v), -1);
	assert_int_equal(parse_long("1e3", &v), -1);
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		if (!parse_long(never[i], &v))
			fail_msg("'%s' taken as %ld", never[i], v);
}

static void test_units(void **state)
{
	static const char *const bad_dur[] = { "0x10ms", " 5ms", "+5ms",
		"infs", "5 ms", "-1ms", "5m", "5sec", "nanms", "1e999ns" };
	static const char *const bad_size[] = { "0x10k", "+4k", "infk",
		" 4k", "4 k", "0", "0k", "-4k", "4kk", "4t", "2e15" };
	double d = 0;
	uint64_t u = 0;
	long i = 0, n = 0;

	(void)state;
	assert_int_equal(parse_duration("15ms", &d), 0);
	assert_true(fabs(d - 0.015) < 1e-18);
	assert_int_equal(parse_duration("2", &d), 0);
	assert_true(d == 2);
	assert_int_equal(parse_duration("1.5e3us", &d), 0);
	assert_true(fabs(d - 1.5e-3) < 1e-18);
	assert_int_equal(parse_duration("5\xc2\xb5s", &d), 0);
	for (size_t k = 0; k < sizeof(bad_dur) / sizeof(*bad_dur); k++)
		if (!parse_duration(bad_dur[k], &d))
			fail_msg("duration '%s' taken as %g", bad_dur[k], d);
	assert_int_equal(parse_size("512k", &u), 0);
	assert_true(u == 524288);
	assert_int_equal(parse_size("1.5MiB", &u), 0);
	assert_true(u == 1572864);
	assert_int_equal(parse_size("4096", &u), 0);
	assert_true(u == 4096);
	for (size_t k = 0; k < sizeof(bad_size) / sizeof(*bad_size); k++)
		if (!parse_size(bad_size[k], &u))
			fail_msg("size '%s' taken as %llu", bad_size[k],
				 (unsigned long long)u);
	assert_int_equal(parse_index_of("3/4", &i, &n), 0);
	assert_true(i == 3 && n == 4);
	assert_int_equal(parse_index_of("4/4", &i, &n), -1);
	assert_int_equal(parse_index_of(" 1/4", &i, &n), -1);
	assert_int_equal(parse_index_of("1/ 4", &i, &n), -1);
	assert_int_equal(parse_index_of("1/+4", &i, &n), -1);
	assert_int_equal(parse_index_of("0x1/4", &i, &n), -1);
	assert_int_equal(parse_index_of("-1/4", &i, &n), -1);
}

/* The grammar of number.h, written apart from number.c's scanner. */
#define GRAMMAR "^-?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$"

/* The truth for s: whether it is a decimal number in range, and its
 * value. */
static int truth(const regex_t *re, const char *s, double *v)
{
	char *end;

	if (regexec(re, s, 0, NULL, 0))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return errno || *end ? -1 : 0;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* 200000 strings of up to 12 characters drawn from those of numbers and
 * of what must not pass (x, blanks, +, letters of inf and nan): each
 * parser agrees with the truth. */
static void test_generated(void **state)
{
	static const char alphabet[] = "0123456789012345.-+eExX infa\tp";
	regex_t re;
	char s[16];
	size_t taken = 0;

	(void)state;
	assert_int_equal(regcomp(&re, GRAMMAR, REG_EXTENDED | REG_NOSUB), 0);
	for (int k = 0; k < 200000; k++) {
		size_t len = next() % 13;
		double want = 0, v = 0;
		long l = 0;
		int ok;

		for (size_t i = 0; i < len; i++)
			s[i] = alphabet[next() % (sizeof(alphabet) - 1)];
		s[len] = '\0';
		ok = truth(&re, s, &want) == 0;
		if (ok != (parse_double(s, &v) == 0))
			fail_msg("'%s': parse_double %s it", s,
				 ok ? "refuses" : "takes");
		if (ok && v != want)
			fail_msg("'%s': %.17g, not %.17g", s, v, want);
		taken += ok;
		/* an integer is a number without '.' or exponent */
		ok = ok && !strpbrk(s, ".eE") && want == floor(want) &&
		     fabs(want) < 9e18;
		if (ok != (parse_long(s, &l) == 0))
			fail_msg("'%s': parse_long %s it", s,
				 ok ? "refuses" : "takes");
		if (ok && (double)l != want)
			fail_msg("'%s': %ld", s, l);
	}
	regfree(&re);
	/* the alphabet makes numbers often enough to test both sides */
	assert_true(taken > 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_double_table),
		cmocka_unit_test(test_long_table),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_generated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
