/*
 * Arithmetic expressions over parameters (expr.h): a recursive-descent
 * parser that emits postfix operations, and a stack evaluator.
 *
 * Grammar (spaces and tabs between tokens are ignored):
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative
 *   primary := NUMBER | '{' NAME '}' | '(' sum ')'
 *            | FUNCTION '(' sum (',' sum)* ')'
 * Because the exponent of '^' is a unary, 2^-1 is 0.5; because a unary
 * minus covers a power, -2^2 is -(2^2).
 */
#include "util/expr.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

enum op_kind {
	OP_NUM, OP_PARAM, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW,
	OP_CALL,
};

enum func { F_LOG2, F_LOG, F_SQRT, F_MIN, F_MAX };

static const struct {
	const char *name;
	int min_args, max_args;	/* max_args 0: any number from min_args */
} funcs[] = {
	[F_LOG2] = { "log2", 1, 1 }, [F_LOG] = { "log", 1, 1 },
	[F_SQRT] = { "sqrt", 1, 1 }, [F_MIN] = { "min", 1, 0 },
	[F_MAX] = { "max", 1, 0 },
};
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

struct op {
	enum op_kind kind;
	size_t at;		/* byte offset in the text: the column only
				 * for a message, counted then */
	double num;		/* OP_NUM */
	size_t index;		/* OP_PARAM: the parameter; OP_CALL: func */
	size_t nargs;		/* OP_CALL */
};

struct expr {
	char *text;
	struct op *ops;
	size_t nops, cap;
	char **params;
	size_t *param_at;	/* byte offsets */
	size_t nparams;
};

struct parser {
	const char *s;
	size_t pos;
	int depth;
	struct expr *x;
	struct error *e;
};

/* The column of byte offset pos: characters before it, plus 1. */
static int column_of(const char *s, size_t pos)
{
	int col = 1;

	for (size_t i = 0; i < pos && s[i]; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			col++;
	return col;
}

static int col(const struct parser *p)
{
	return column_of(p->s, p->pos);
}

static void skip_space(struct parser *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
		p->pos++;
}

/*
 * The operator at the cursor, as one of "+-*\/^(),{" or 0 for anything
 * else; *len its length in bytes (the signs − × ÷ are UTF-8).
 */
static char peek_op(const struct parser *p, size_t *len)
{
	static const struct { const char *utf8; char op; } signs[] = {
		{ "\xe2\x88\x92", '-' }, { "\xc3\x97", '*' }, { "\xc3\xb7", '/' },
	};
	const char *c = p->s + p->pos;

	*len = 1;
	if (*c && strchr("+-*/^(),{}", *c))
		return *c;
	for (size_t i = 0; i < sizeof(signs) / sizeof(signs[0]); i++) {
		size_t n = strlen(signs[i].utf8);

		if (!strncmp(c, signs[i].utf8, n)) {
			*len = n;
			return signs[i].op;
		}
	}
	return 0;
}

/* Whether the cursor is on operator op; if so, step over it. */
static bool accept(struct parser *p, char op)
{
	size_t len;

	skip_space(p);
	if (peek_op(p, &len) != op)
		return false;
	p->pos += len;
	return true;
}

static struct op *emit(struct parser *p, enum op_kind kind, size_t at)
{
	struct expr *x = p->x;
	struct op *o;

	x->ops = xgrow(x->ops, &x->cap, x->nops + 1, sizeof(*x->ops));
	o = &x->ops[x->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->at = at;
	return o;
}

/* What is at the cursor, quoted for a message: one character (UTF-8
 * whole), or "the end". */
static const char *describe_here(const struct parser *p, char *buf,
				 size_t len)
{
	const unsigned char *c = (const unsigned char *)p->s + p->pos;
	size_t n = 1;

	if (!*c)
		return "the end";
	while (c[n] && (c[n] & 0xC0) == 0x80 && n < 4)
		n++;
	snprintf(buf, len, "'%.*s'", (int)n, (const char *)c);
	return buf;
}

static int expected(struct parser *p, const char *what)
{
	char buf[16];

	return error_set(p->e, "column %d: expected %s, not %s", col(p), what,
			 describe_here(p, buf, sizeof(buf)));
}

static int parse_sum(struct parser *p);
static int parse_unary(struct parser *p);

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ident(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && is_digit(c));
}

/* NUMBER: digits [. digits] [e [+-] digits], or . digits [...]. */
static int parse_number(struct parser *p)
{
	const char *s = p->s + p->pos;
	size_t n = 0, digits = 0;
	char *text;
	double v;

	while (is_digit(s[n]))
		n++, digits++;
	if (s[n] == '.')
		for (n++; is_digit(s[n]); n++)
			digits++;
	if (!digits)
		return expected(p, "a number, a {parameter} or '('");
	if (s[n] == 'e' || s[n] == 'E') {
		size_t k = n + 1;

		if (s[k] == '+' || s[k] == '-')
			k++;
		if (is_digit(s[k])) {
			while (is_digit(s[k]))
				k++;
			n = k;
		}
	}
	text = xstrndup(s, n);
	/* the decimal scanned above, read by the one family (number.h),
	 * which refuses one that rounds to infinity or to zero */
	if (parse_double(text, &v)) {
		error_set(p->e, "column %d: %s is out of range", col(p),
			  text);
		free(text);
		return -1;
	}
	free(text);
	emit(p, OP_NUM, p->pos)->num = v;
	p->pos += n;
	return 0;
}

/* {NAME}: the cursor is after the '{' at byte at. */
static int parse_param(struct parser *p, size_t at)
{
	const char *s = p->s + p->pos, *close = strchr(s, '}');
	struct expr *x = p->x;
	size_t len, i;

	/* columns only for a message: counting them is linear */
	if (!close || memchr(s, '{', (size_t)(close - s)))
		return error_set(p->e, "column %d: '{' without '}'",
				 column_of(p->s, at));
	len = (size_t)(close - s);
	if (len == 0)
		return error_set(p->e, "column %d: '{}' names no parameter",
				 column_of(p->s, at));
	for (i = 0; i < x->nparams; i++)
		if (strlen(x->params[i]) == len && !memcmp(x->params[i], s, len))
			break;
	if (i == x->nparams) {
		x->params = xrealloc(x->params, (i + 1) * sizeof(char *));
		x->param_at = xrealloc(x->param_at, (i + 1) * sizeof(size_t));
		x->params[i] = xstrndup(s, len);
		x->param_at[i] = at;
		x->nparams++;
	}
	emit(p, OP_PARAM, at)->index = i;
	p->pos += len + 1;
	return 0;
}

/* FUNCTION(args): the cursor is after the name, of n bytes at start. */
static int parse_call(struct parser *p, size_t start, size_t n)
{
	size_t f, nargs = 0, open_at;

	for (f = 0; f < NFUNCS; f++)
		if (strlen(funcs[f].name) == n &&
		    !strncmp(funcs[f].name, p->s + start, n))
			break;
	skip_space(p);
	if (p->s[p->pos] != '(') {
		if (f < NFUNCS)
			return expected(p, "'(' after the function name");
		return error_set(p->e, "column %d: '%.*s' is not a number; a "
				 "parameter is written {%.*s}",
				 column_of(p->s, start), (int)n,
				 p->s + start, (int)n, p->s + start);
	}
	if (f == NFUNCS)
		return error_set(p->e, "column %d: unknown function '%.*s' "
				 "(log2, log, sqrt, min, max)",
				 column_of(p->s, start), (int)n,
				 p->s + start);
	open_at = p->pos;
	p->pos++;
	do {
		if (parse_sum(p))
			return -1;
		nargs++;
	} while (accept(p, ','));
	if (!accept(p, ')')) {
		if (p->s[p->pos])
			return expected(p, "',' or ')'");
		return error_set(p->e, "column %d: '(' without ')'",
				 column_of(p->s, open_at));
	}
	if (nargs < (size_t)funcs[f].min_args ||
	    (funcs[f].max_args && nargs > (size_t)funcs[f].max_args))
		return error_set(p->e, "column %d: %s takes %s%d argument%s, "
				 "not %zu", column_of(p->s, start), funcs[f].name,
				 funcs[f].max_args ? "" : "at least ",
				 funcs[f].min_args,
				 plural_s(funcs[f].min_args), nargs);
	emit(p, OP_CALL, start)->index = f;
	p->x->ops[p->x->nops - 1].nargs = nargs;
	return 0;
}

static int parse_primary(struct parser *p)
{
	const char *s;
	size_t len, n = 0, at;
	char op;

	skip_space(p);
	at = p->pos;
	s = p->s + p->pos;
	op = peek_op(p, &len);
	if (op == '(') {
		p->pos += len;
		if (parse_sum(p))
			return -1;
		if (accept(p, ')'))
			return 0;
		if (p->s[p->pos])
			return expected(p, "an operator or ')'");
		return error_set(p->e, "column %d: '(' without ')'",
				 column_of(p->s, at));
	}
	if (op == '{') {
		p->pos += len;
		return parse_param(p, at);
	}
	if (is_ident(*s, true)) {
		while (is_ident(s[n], false))
			n++;
		p->pos += n;
		return parse_call(p, at, n);
	}
	return parse_number(p);
}

/* The nesting limit: parentheses, calls and signs recurse. */
static int enter(struct parser *p)
{
	if (++p->depth > EXPR_MAX_DEPTH)
		return error_set(p->e, "column %d: nested more than %d deep",
				 col(p), EXPR_MAX_DEPTH);
	return 0;
}

static int parse_power(struct parser *p)
{
	size_t len;
	size_t at;

	if (parse_primary(p))
		return -1;
	skip_space(p);
	if (peek_op(p, &len) != '^')
		return 0;
	at = p->pos;
	p->pos += len;
	/* the exponent is a unary: right-associative, and 2^-1 works */
	if (enter(p) || parse_unary(p))
		return -1;
	p->depth--;
	emit(p, OP_POW, at);
	return 0;
}

static int parse_unary(struct parser *p)
{
	size_t len;
	size_t at;
	char op;

	skip_space(p);
	op = peek_op(p, &len);
	if (op != '-' && op != '+')
		return parse_power(p);
	at = p->pos;
	p->pos += len;
	if (enter(p) || parse_unary(p))
		return -1;
	p->depth--;
	if (op == '-')
		emit(p, OP_NEG, at);
	return 0;
}

/*
 * A left-associative level: operand (op operand)*, where op is ops[0]
 * (making kinds[0]) or ops[1] (kinds[1]).
 */
static int parse_left(struct parser *p, int (*operand)(struct parser *),
		      const char *ops, const enum op_kind *kinds)
{
	if (operand(p))
		return -1;
	for (;;) {
		size_t len, at;
		char op;

		skip_space(p);
		op = peek_op(p, &len);
		if (!op || (op != ops[0] && op != ops[1]))
			return 0;
		at = p->pos;
		p->pos += len;
		if (operand(p))
			return -1;
		emit(p, op == ops[0] ? kinds[0] : kinds[1], at);
	}
}

static int parse_product(struct parser *p)
{
	static const enum op_kind kinds[] = { OP_MUL, OP_DIV };

	return parse_left(p, parse_unary, "*/", kinds);
}

static int parse_sum(struct parser *p)
{
	static const enum op_kind kinds[] = { OP_ADD, OP_SUB };

	if (enter(p) || parse_left(p, parse_product, "+-", kinds))
		return -1;
	p->depth--;
	return 0;
}

int expr_parse(const char *text, struct expr **out, struct error *e)
{
	struct parser p = { .s = text, .e = e };

	*out = NULL;
	p.x = xcalloc(1, sizeof(*p.x));
	skip_space(&p);
	if (!text[p.pos]) {
		error_set(e, "column %d: empty expression", col(&p));
		goto out_free;
	}
	if (parse_sum(&p))
		goto out_free;
	skip_space(&p);
	if (text[p.pos]) {
		if (text[p.pos] == ')')
			error_set(e, "column %d: ')' without '('", col(&p));
		else
			expected(&p, "an operator or the end");
		goto out_free;
	}
	p.x->text = xstrdup(text);
	*out = p.x;
	return 0;
out_free:
	expr_free(p.x);
	return -1;
}

void expr_free(struct expr *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nparams; i++)
		free(x->params[i]);
	free(x->params);
	free(x->param_at);
	free(x->text);
	free(x->ops);
	free(x);
}

size_t expr_param_count(const struct expr *x)
{
	return x->nparams;
}

const char *expr_param_name(const struct expr *x, size_t i)
{
	return i < x->nparams ? x->params[i] : NULL;
}

int expr_param_column(const struct expr *x, size_t i)
{
	return i < x->nparams ? column_of(x->text, x->param_at[i]) : 0;
}

/*
 * The values of x's parameters among names/values, into pv (one per
 * parameter, in x's order), or -1 naming the first appearance of the
 * one that is missing or not a number.
 */
static int param_values(const struct expr *x, const char *const *names,
			const char *const *values, size_t n, double *pv,
			struct error *e)
{
	for (size_t i = 0; i < x->nparams; i++) {
		size_t k = 0;

		while (k < n && strcmp(names[k], x->params[i]))
			k++;
		if (k == n)
			return error_set(e, "column %d: unknown parameter {%s}",
					 column_of(x->text, x->param_at[i]),
					 x->params[i]);
		if (parse_double(values[k], &pv[i]) || !isfinite(pv[i]))
			return error_set(e, "column %d: {%s} is '%s', not a "
					 "number",
					 column_of(x->text, x->param_at[i]),
					 x->params[i], values[k]);
	}
	return 0;
}

static double binary(enum op_kind kind, double a, double b)
{
	switch (kind) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	case OP_DIV: return a / b;
	default: return pow(a, b);
	}
}

/* A function of args[0..n). */
static double call(size_t f, const double *args, size_t n)
{
	double v = args[0];

	for (size_t i = 1; i < n; i++)
		v = f == F_MIN ? fmin(v, args[i]) : fmax(v, args[i]);
	switch (f) {
	case F_LOG2: return log2(v);
	case F_LOG: return log(v);
	case F_SQRT: return sqrt(v);
	default: return v;
	}
}

/*
 * The message of operation o, whose operands are args, coming to a
 * number that is not finite: "column 3: 10^400 is not a finite number",
 * "column 1: log2(-1) is ...". Only then are the operands formatted:
 * evaluation itself formats nothing.
 */
static int not_finite(const struct expr *x, const struct op *o,
		      const double *args, struct error *e)
{
	static const char sym[] = { [OP_ADD] = '+', [OP_SUB] = '-',
				    [OP_MUL] = '*', [OP_DIV] = '/',
				    [OP_POW] = '^' };
	char what[160];
	size_t at = 0;

	if (o->kind == OP_CALL) {
		at = (size_t)snprintf(what, sizeof(what), "%s(",
				      funcs[o->index].name);
		for (size_t i = 0; i < o->nargs && at < sizeof(what); i++)
			at += (size_t)snprintf(what + at, sizeof(what) - at,
					       "%s%g", i ? ", " : "", args[i]);
		if (at < sizeof(what))
			snprintf(what + at, sizeof(what) - at, ")");
	} else {
		/* negative operands in parentheses: (-8)^0.5 */
		double a = args[0], b = args[1];

		snprintf(what, sizeof(what), "%s%g%s%c%s%g%s",
			 a < 0 ? "(" : "", a, a < 0 ? ")" : "", sym[o->kind],
			 b < 0 ? "(" : "", b, b < 0 ? ")" : "");
	}
	return error_set(e, "column %d: %s is not a finite number",
			 column_of(x->text, o->at), what);
}

int expr_eval(const struct expr *x, const char *const *names,
	      const char *const *values, size_t n, double *out,
	      struct error *e)
{
	double *st = xcalloc(x->nops + 1, sizeof(double));
	double *pv = xcalloc(x->nparams + 1, sizeof(double));
	size_t sp = 0;
	int ret = -1;

	if (param_values(x, names, values, n, pv, e))
		goto out_free;
	for (size_t i = 0; i < x->nops; i++) {
		const struct op *o = &x->ops[i];
		double v;

		switch (o->kind) {
		case OP_NUM:
			v = o->num;
			break;
		case OP_PARAM:
			v = pv[o->index];
			break;
		case OP_NEG:
			v = -st[--sp];
			break;
		case OP_CALL:
			sp -= o->nargs;
			v = call(o->index, &st[sp], o->nargs);
			break;
		default:
			sp -= 2;
			if (o->kind == OP_DIV && st[sp + 1] == 0) {
				error_set(e, "column %d: division by zero "
					  "(%g/0)", column_of(x->text, o->at),
					  st[sp]);
				goto out_free;
			}
			v = binary(o->kind, st[sp], st[sp + 1]);
			break;
		}
		if (!isfinite(v)) {
			not_finite(x, o, &st[sp], e);
			goto out_free;
		}
		st[sp++] = v;
	}
	*out = st[0];
	ret = 0;
out_free:
	free(pv);
	free(st);
	return ret;
}
