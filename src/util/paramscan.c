/*
 * Parameter scans (paramscan.h): the syntax of `run --param` and of
 * libyardstick's benchmark specs.
 */
#include "util/paramscan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

/* Format a scan value of a range of reals: whole numbers without a
 * decimal point, others in 15 significant digits (what a double holds
 * of a decimal: 0 + 3 x 0.1 is 0.3, not 0.30000000000000004). */
static char *fmt_num(double v)
{
	if (fabs(v) < 1e15 && v == floor(v))
		return xasprintf("%.0f", v);
	return xasprintf("%.15g", v);
}

static void push_value(struct scan *s, size_t *cap, char *v)
{
	/* doubling: a value at a time would copy the list 100,000 times */
	s->values = xgrow(s->values, cap, s->n + 1, sizeof(char *));
	s->values[s->n++] = v;
}

/*
 * A range whose START, END and STEP (or FACTOR) are all integers, in
 * integers: exact whatever their size (a double holds integers exactly
 * only up to 2^53). 1 when they are not all integers (the caller takes
 * the range as reals), 2 when END < START, 0 done, -1 too many values.
 */
static int int_range(struct scan *s, const char *start_s, const char *end_s,
		     const char *step_s, bool geometric, struct error *e)
{
	long start, end, step = 1;
	size_t cap = 0;

	if (parse_long(start_s, &start) || parse_long(end_s, &end) ||
	    (step_s && parse_long(step_s, &step)))
		return 1;
	if (geometric ? (step <= 1 || start <= 0) : step <= 0)
		return 1;	/* the caller says what is wrong */
	if (end < start)
		return 2;
	for (long v = start; v <= end;) {
		if (s->n >= SCAN_MAX_VALUES)
			return error_set(e, "%s: more than %d values",
					 s->name, SCAN_MAX_VALUES);
		push_value(s, &cap, xasprintf("%ld", v));
		/* the next value beyond a long is beyond END too */
		if (geometric ? __builtin_mul_overflow(v, step, &v)
			      : __builtin_add_overflow(v, step, &v))
			break;
	}
	return 0;
}

static int parse_range(struct scan *s, const char *spec, struct error *e)
{
	char *copy = xstrdup(spec), *c1 = strchr(copy, ':'), *c2;
	double start, end, step = 1;
	bool geometric = false;
	size_t cap = 0;
	int ret = -1;

	*c1 = '\0';
	c2 = strchr(c1 + 1, ':');
	if (c2) {
		*c2 = '\0';
		if (c2[1] == '*') {
			geometric = true;
			c2++;
		}
	}
	if (parse_double(copy, &start) || parse_double(c1 + 1, &end) ||
	    (c2 && parse_double(c2 + 1, &step)))
		goto bad;
	if (geometric ? (step <= 1 || start <= 0) : step <= 0)
		goto bad;
	if (end < start)
		goto bad;
	ret = int_range(s, copy, c1 + 1, c2 ? c2 + 1 : NULL, geometric, e);
	if (ret <= 0) {
		s->numeric = ret == 0;
		goto out_free;
	}
	if (ret == 2) {
		ret = -1;
		goto bad;
	}
	ret = -1;
	/* Values from the index, not by accumulation, so that 0.1 steps do
	 * not drift; the tolerance lets END itself in despite rounding. */
	for (size_t i = 0;; i++) {
		double v = geometric ? start * pow(step, (double)i)
				     : start + step * (double)i;

		if (v > end + fabs(geometric ? end : step) * 1e-9)
			break;
		if (s->n >= SCAN_MAX_VALUES) {
			error_set(e, "%s: more than %d values", s->name,
				  SCAN_MAX_VALUES);
			goto out_free;
		}
		push_value(s, &cap, fmt_num(v));
	}
	s->numeric = true;
	ret = 0;
	goto out_free;
bad:
	error_set(e, "%s: '%s' is not START:END[:STEP] with START <= "
		  "END, STEP > 0 (or *FACTOR > 1 with START > 0)", s->name,
		  spec);
out_free:
	free(copy);
	return ret;
}

int scan_parse(struct scan *s, const char *arg, struct error *e)
{
	const char *eq = strchr(arg, '=');
	const char *v;

	memset(s, 0, sizeof(*s));
	if (!eq || eq == arg || !eq[1])
		return error_set(e, "'%s' is not NAME=VALUES", arg);
	s->name = xstrndup(arg, eq - arg);
	v = eq + 1;
	if (strchr(v, ':') && !strchr(v, ','))
		return parse_range(s, v, e);
	s->numeric = true;
	for (const char *p = v;; ) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		double d;

		if (len == 0)
			return error_set(e, "%s: empty value in '%s'",
					 s->name, v);
		s->values = xrealloc(s->values, (s->n + 1) * sizeof(char *));
		s->values[s->n] = xstrndup(p, len);
		if (parse_double(s->values[s->n], &d))
			s->numeric = false;
		s->n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

void scan_free(struct scan *s)
{
	free(s->name);
	for (size_t j = 0; j < s->n; j++)
		free(s->values[j]);
	free(s->values);
	memset(s, 0, sizeof(*s));
}
