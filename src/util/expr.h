/*
 * Arithmetic expressions over named parameters: `run --work
 * flops='2*{n}^3'`. Numbers (3, 1.5, 1e9), parameters {NAME} (the syntax
 * of run's --param scans, paramscan.h), + - * / ^ (also the signs − × ÷),
 * parentheses and the functions log2, log (natural), sqrt, min, max.
 *
 * Precedence, from loosest: + -, then * /, then unary minus (and plus),
 * then ^, which is right-associative and binds tighter than a unary minus
 * on its left, as in mathematics: -2^2 = -4, 2^3^2 = 2^9, 2^-1 = 0.5.
 *
 * Every message of expr_parse and expr_eval starts with "column N: ",
 * N counting characters (UTF-8 code points) from 1.
 *
 * The one thing to know before changing it: a parsed expression is a
 * list of operations in postfix order, each with the column it came
 * from; evaluation is a loop over that list with a stack, no recursion,
 * so only the parser limits the nesting (EXPR_MAX_DEPTH).
 */
#ifndef YS_UTIL_EXPR_H
#define YS_UTIL_EXPR_H

#include <stddef.h>

#include "util/error.h"

struct expr;

/* Parentheses, function calls and signs nested deeper are refused. */
#define EXPR_MAX_DEPTH 100

/*
 * Parse text into *out (the caller's, expr_free). Returns 0, or -1 with
 * e saying what is wrong and where ("column 6: expected a number, a
 * {parameter} or '('"); *out is then NULL.
 */
int expr_parse(const char *text, struct expr **out, struct error *e);
void expr_free(struct expr *x);

/* The parameters it names, each once, in order of first appearance, and
 * the column of that appearance. */
size_t expr_param_count(const struct expr *x);
const char *expr_param_name(const struct expr *x, size_t i);
int expr_param_column(const struct expr *x, size_t i);

/*
 * Evaluate x with the parameters names[i] = values[i] (i < n; strings,
 * as a scan holds them). Returns 0 with *out finite, or -1 with e naming
 * the column: a parameter not among names, or whose value is not a
 * finite number; a division by zero; an operation whose result is not a
 * finite number ("column 2: 10^400 is not a finite number",
 * "column 1: log2(-1) is not a finite number").
 */
int expr_eval(const struct expr *x, const char *const *names,
	      const char *const *values, size_t n, double *out,
	      struct error *e);

#endif
