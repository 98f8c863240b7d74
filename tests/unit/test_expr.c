/* Unit tests of src/util/expr.c: precedence, associativity, signs,
 * functions, every error with its column, and 1500 random expressions
 * against Python's own parse and arithmetic (expr_cases.h, from
 * gen_expr_cases.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/expr.h"
#include "expr_cases.h"

static const char *const names[] = { "n", "m", "k", "s" };
static const char *const values[] = { "100", "0.5", "1e3", "fast" };
#define NPARAMS 4

/* The value of text with the parameters above; fails the test on error. */
static double value(const char *text)
{
	struct expr *x;
	struct error e;
	double v = NAN;

	if (expr_parse(text, &x, &e))
		fail_msg("'%s': %s", text, e.msg);
	if (expr_eval(x, names, values, NPARAMS, &v, &e))
		fail_msg("'%s': %s", text, e.msg);
	expr_free(x);
	return v;
}

static void expect_val(const char *text, double want)
{
	double v = value(text);

	if (v != want)
		fail_msg("'%s' = %.17g, want %.17g", text, v, want);
}

/* The parse error of text, which must fail to parse. */
static void expect_parse_error(const char *text, const char *want)
{
	struct expr *x = (struct expr *)1;
	struct error e;

	if (expr_parse(text, &x, &e) == 0)
		fail_msg("'%s' parsed", text);
	assert_null(x);
	assert_string_equal(e.msg, want);
}

/* The evaluation error of text, which must parse. */
static void expect_eval_error(const char *text, const char *want)
{
	struct expr *x;
	struct error e;
	double v = 42;

	if (expr_parse(text, &x, &e))
		fail_msg("'%s': %s", text, e.msg);
	assert_int_equal(expr_eval(x, names, values, NPARAMS, &v, &e), -1);
	assert_true(v == 42);	/* *out untouched */
	assert_string_equal(e.msg, want);
	expr_free(x);
}

static void test_numbers(void **state)
{
	(void)state;
	expect_val("42", 42);
	expect_val("1.5", 1.5);
	expect_val(".25", 0.25);
	expect_val("3.", 3);
	expect_val("1e9", 1e9);
	expect_val("2.5E-3", 2.5e-3);
	expect_val("1e+2", 100);
	expect_val("  7 \t", 7);
	expect_val("{n}", 100);
	expect_val("{k}", 1000);
}

static void test_precedence(void **state)
{
	(void)state;
	expect_val("1+2*3", 7);
	expect_val("(1+2)*3", 9);
	expect_val("2*3^2", 18);
	expect_val("10-4-3", 3);		/* left-associative */
	expect_val("64/4/2", 8);
	expect_val("2^3^2", 512);		/* right-associative */
	expect_val("(2^3)^2", 64);
	expect_val("-2^2", -4);		/* ^ above unary minus */
	expect_val("(-2)^2", 4);
	expect_val("2^-1", 0.5);		/* a signed exponent */
	expect_val("2^-2^2", 1.0 / 16);	/* 2^(-(2^2)) */
	expect_val("-2^-2", -0.25);
	expect_val("--3", 3);
	expect_val("+3", 3);
	expect_val("2--3", 5);
	expect_val("2*-3", -6);
	expect_val("-3*2", -6);
	expect_val("2 * {n} ^ 3", 2e6);
	expect_val("24*{n}^2", 240000);
	expect_val("{n}*{m}+{k}", 1050);
	/* the signs − × ÷ as - * / */
	expect_val("6\xc3\x97" "7\xe2\x88\x92" "2\xc3\xb7" "2", 41);
	expect_val("\xe2\x88\x92" "2^2", -4);
}

static void test_functions(void **state)
{
	(void)state;
	expect_val("log2({n}*0+1024)", 10);
	expect_val("{n}*log2({n})", 100 * log2(100));
	expect_val("log(1)", 0);
	expect_val("sqrt(16)+1", 5);
	expect_val("min(3, 1, 2)", 1);
	expect_val("max(3,1,2)*2", 6);
	expect_val("min(4)", 4);
	expect_val("-log2(8)^2", -9);		/* a call is a primary */
	expect_val("2^log2(8)", 8);
}

static void test_params(void **state)
{
	struct expr *x;
	struct error e;

	(void)state;
	assert_int_equal(expr_parse("{n}*{m}+{n}^{size}", &x, &e), 0);
	assert_int_equal(expr_param_count(x), 3);
	assert_string_equal(expr_param_name(x, 0), "n");
	assert_int_equal(expr_param_column(x, 0), 1);
	assert_string_equal(expr_param_name(x, 1), "m");
	assert_int_equal(expr_param_column(x, 1), 5);
	assert_string_equal(expr_param_name(x, 2), "size");
	assert_int_equal(expr_param_column(x, 2), 13);
	assert_null(expr_param_name(x, 3));
	expr_free(x);
	assert_int_equal(expr_parse("3", &x, &e), 0);
	assert_int_equal(expr_param_count(x), 0);
	expr_free(x);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_parse_error("2*{n}^^3", "column 7: expected a number, a "
			   "{parameter} or '(', not '^'");
	expect_parse_error("", "column 1: empty expression");
	expect_parse_error("   ", "column 4: empty expression");
	expect_parse_error("2*", "column 3: expected a number, a {parameter} "
			   "or '(', not the end");
	expect_parse_error("2 3", "column 3: expected an operator or the end, "
			   "not '3'");
	expect_parse_error("2{n}", "column 2: expected an operator or the "
			   "end, not '{'");
	expect_parse_error("(1+2", "column 1: '(' without ')'");
	expect_parse_error("(1+2 3)", "column 6: expected an operator or "
			   "')', not '3'");
	expect_parse_error("1+2)", "column 4: ')' without '('");
	expect_parse_error("()", "column 2: expected a number, a {parameter} "
			   "or '(', not ')'");
	expect_parse_error("{n", "column 1: '{' without '}'");
	expect_parse_error("2+{}", "column 3: '{}' names no parameter");
	expect_parse_error("{a{b}", "column 1: '{' without '}'");
	expect_parse_error("n*2", "column 1: 'n' is not a number; a parameter "
			   "is written {n}");
	expect_parse_error("2*foo(3)", "column 3: unknown function 'foo' "
			   "(log2, log, sqrt, min, max)");
	expect_parse_error("log2 3", "column 6: expected '(' after the "
			   "function name, not '3'");
	expect_parse_error("log2(8, 2)", "column 1: log2 takes 1 argument, "
			   "not 2");
	expect_parse_error("log2(8", "column 5: '(' without ')'");
	expect_parse_error("max(1 2)", "column 7: expected ',' or ')', not "
			   "'2'");
	expect_parse_error("max()", "column 5: expected a number, a "
			   "{parameter} or '(', not ')'");
	expect_parse_error("1e999", "column 1: 1e999 is out of range");
	expect_parse_error("2e", "column 2: expected an operator or the end, "
			   "not 'e'");
	expect_parse_error("3 $", "column 3: expected an operator or the end, "
			   "not '$'");
	/* columns count characters: − is one, three bytes */
	expect_parse_error("\xe2\x88\x92\xe2\x88\x92*", "column 3: expected a "
			   "number, a {parameter} or '(', not '*'");
	expect_parse_error("2\xc3\x97\xc3\xa9", "column 3: expected a number, "
			   "a {parameter} or '(', not '\xc3\xa9'");
	expect_parse_error("1,2", "column 2: expected an operator or the end, "
			   "not ','");
}

static void test_depth(void **state)
{
	char deep[EXPR_MAX_DEPTH * 2 + 8], ok[64];
	struct expr *x;
	struct error e;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < EXPR_MAX_DEPTH + 1; i++)
		deep[n++] = '(';
	deep[n++] = '1';
	deep[n] = '\0';
	assert_int_equal(expr_parse(deep, &x, &e), -1);
	assert_non_null(strstr(e.msg, "nested more than 100 deep"));
	/* and the same with signs, and with powers */
	memset(deep, '-', EXPR_MAX_DEPTH + 1);
	strcpy(deep + EXPR_MAX_DEPTH + 1, "1");
	assert_int_equal(expr_parse(deep, &x, &e), -1);
	n = 0;
	for (int i = 0; i < EXPR_MAX_DEPTH + 1; i++) {
		deep[n++] = '1';
		deep[n++] = '^';
	}
	deep[n++] = '1';
	deep[n] = '\0';
	assert_int_equal(expr_parse(deep, &x, &e), -1);
	/* ten levels are fine */
	snprintf(ok, sizeof(ok), "((((((((((-1))))))))))^2^2");
	expect_val(ok, 1);
}

static void test_eval_errors(void **state)
{
	(void)state;
	expect_eval_error("1/({n}-100)", "column 2: division by zero (1/0)");
	expect_eval_error("{x}+1", "column 1: unknown parameter {x}");
	expect_eval_error("2*{s}", "column 3: {s} is 'fast', not a number");
	expect_eval_error("10^400", "column 3: 10^400 is not a finite number");
	expect_eval_error("(-8)^0.5", "column 5: (-8)^0.5 is not a finite "
			  "number");
	expect_eval_error("log2(0)", "column 1: log2(0) is not a finite "
			  "number");
	expect_eval_error("2*log(-1)", "column 3: log(-1) is not a finite "
			  "number");
	expect_eval_error("sqrt(-4)", "column 1: sqrt(-4) is not a finite "
			  "number");
	expect_eval_error("1e300*1e300", "column 6: 1e+300*1e+300 is not a "
			  "finite number");
	expect_eval_error("1e308+1e308", "column 6: 1e+308+1e+308 is not a "
			  "finite number");
	expect_eval_error("-1e308-1e308", "column 7: (-1e+308)-1e+308 is not "
			  "a finite number");
	expect_eval_error("1e-300/1e-300/1e-300/1e-100", "column 21: "
			  "1e+300/1e-100 is not a finite number");
	expect_eval_error("0^-1", "column 2: 0^(-1) is not a finite number");
}

/* A parameter whose value is "inf" or a non-number from a scan. */
static void test_param_values(void **state)
{
	const char *const n1[] = { "n" };
	const char *const v1[] = { "inf" }, *const v2[] = { "" };
	const char *const v3[] = { "1e2" };
	struct expr *x;
	struct error e;
	double v;

	(void)state;
	assert_int_equal(expr_parse("{n}", &x, &e), 0);
	assert_int_equal(expr_eval(x, n1, v1, 1, &v, &e), -1);
	assert_string_equal(e.msg, "column 1: {n} is 'inf', not a number");
	assert_int_equal(expr_eval(x, n1, v2, 1, &v, &e), -1);
	assert_int_equal(expr_eval(x, n1, v3, 1, &v, &e), 0);
	assert_true(v == 100);
	assert_int_equal(expr_eval(x, NULL, NULL, 0, &v, &e), -1);
	assert_string_equal(e.msg, "column 1: unknown parameter {n}");
	expr_free(x);
}

/* Python's parse and arithmetic of the same random expressions. */
static void test_differential(void **state)
{
	size_t n = sizeof(expr_cases) / sizeof(expr_cases[0]);
	size_t errors = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct expr_case *c = &expr_cases[i];
		struct expr *x;
		struct error e;
		double v;
		int r;

		if (expr_parse(c->text, &x, &e))
			fail_msg("case %zu '%s': %s", i, c->text, e.msg);
		r = expr_eval(x, expr_case_names, expr_case_values, 3, &v, &e);
		expr_free(x);
		if (!c->ok) {
			if (r == 0)
				fail_msg("case %zu '%s' = %.17g, want an error",
					 i, c->text, v);
			errors++;
			continue;
		}
		if (r)
			fail_msg("case %zu '%s': %s, want %.17g", i, c->text,
				 e.msg, c->want);
		if (fabs(v - c->want) > 1e-12 * fabs(c->want) &&
		    fabs(v - c->want) > 1e-300)
			fail_msg("case %zu '%s' = %.17g, want %.17g", i,
				 c->text, v, c->want);
	}
	/* both kinds are there */
	assert_true(errors > 50 && errors < n - 500);
}

/* 12,000 terms, 96 kB: parsed and evaluated whole (columns are counted
 * only for a message, so this is linear: 0.25 s for 100 benchmarks in
 * `run`, against 71 s when every parameter's column was counted). */
static void test_long(void **state)
{
	const char *const n1[] = { "n" }, *const v1[] = { "3" };
	size_t len = 12000 * 8;
	char *text = malloc(len + 1);
	struct expr *x;
	struct error e;
	double v;

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < 12000; i++)
		memcpy(text + i * 8, i ? "+2*{n}^2" : " 2*{n}^2", 8);
	text[len] = '\0';
	assert_int_equal(expr_parse(text, &x, &e), 0);
	assert_int_equal(expr_eval(x, n1, v1, 1, &v, &e), 0);
	assert_true(v == 12000 * 18);
	expr_free(x);
	/* an error at its end names the right column */
	text[len - 1] = '^';
	assert_int_equal(expr_parse(text, &x, &e), -1);
	assert_string_equal(e.msg, "column 96000: expected a number, a "
			    "{parameter} or '(', not '^'");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_eval_errors),
		cmocka_unit_test(test_param_values),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
