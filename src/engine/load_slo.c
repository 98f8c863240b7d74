/*
 * The objectives of `load --find-max` (load_search.h): their syntax, and
 * how many requests a step needs to judge one. A step's verdict is a
 * one-sided 95% Wilson interval of the share of requests over the limit
 * (load_search.c); this file knows only the parser and that bound.
 */
#include "engine/load_search.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

/* The longest objective taken, spaces included. */
#define SLO_MAX_LEN 40

/* The most requests a step may need to judge an objective: 10^6 is a
 * step of 100 s at 10,000/s (p99.9999 or errors<0.0001% need 2.7 M). */
#define SLO_MAX_REQUESTS 1000000

/* z of a one-sided 95% bound. */
#define SLO_Z 1.6448536269514722

/* s without spaces into buf (n bytes); -1 when it does not fit. */
static int squeeze(const char *s, char *buf, size_t n)
{
	size_t k = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s))
			continue;
		if (k + 1 >= n)
			return -1;
		buf[k++] = *s;
	}
	buf[k] = '\0';
	return 0;
}

/* "<" or "<=" at *p: moves *p past it; -1 when neither. */
static int comparison(const char **p, bool *inclusive)
{
	if (**p != '<')
		return -1;
	(*p)++;
	*inclusive = **p == '=';
	*p += *inclusive;
	return 0;
}

/* A plain decimal number, all of s up to end (no sign, no exponent, no
 * "inf" or "nan", which strtod would take). */
static int plain_number(const char *s, const char *end, double *out)
{
	char buf[SLO_MAX_LEN + 1], *stop;
	size_t n = (size_t)(end - s);

	if (!n || n > SLO_MAX_LEN || strspn(s, "0123456789.") < n ||
	    !isdigit((unsigned char)s[0]))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, &stop);
	return *stop ? -1 : 0;
}

static int parse_errors(const char *s, const char *p, struct load_slo *o,
			struct error *e)
{
	const char *pct;
	double v;

	if (comparison(&p, &o->inclusive))
		return error_set(e, "'%s': expected '<' or '<=' after 'errors'",
				 s);
	pct = strchr(p, '%');
	if (!pct || pct[1] || plain_number(p, pct, &v))
		return error_set(e, "'%s': expected a percentage after the "
				 "comparison, as in 'errors<1%%'", s);
	if (v >= 100)
		return error_set(e, "'%s': the share of errors must be under "
				 "100%%", s);
	if (v == 0 && !o->inclusive)
		return error_set(e, "'%s' can never hold: say 'errors<=0%%' "
				 "(no error at all)", s);
	o->kind = LOAD_SLO_ERRORS;
	o->limit = v / 100;
	return 0;
}

static int parse_latency(const char *s, const char *p, struct load_slo *o,
			 struct error *e)
{
	const char *cmp = strchr(p, '<');
	double q, t;

	if (!cmp && strpbrk(p, ">="))
		return error_set(e, "'%s': an objective is a limit the "
				 "latency stays under: '<' or '<=', as in "
				 "'p99<50ms'", s);
	if (!cmp || plain_number(p, cmp, &q))
		return error_set(e, "'%s': expected a percentile after 'p', "
				 "as in 'p99<50ms'", s);
	if (!(q > 0 && q < 100))
		return error_set(e, "'%s': the percentile must be above 0 and "
				 "below 100", s);
	p = cmp;
	comparison(&p, &o->inclusive);
	if (!*p || parse_duration(p, &t) || !isfinite(t))
		return error_set(e, "'%s': expected a duration after the "
				 "comparison (a number with a unit s, ms, us "
				 "or ns), as in 'p99<50ms'", s);
	if (!(t > 0))
		return error_set(e, "'%s': the latency limit must be above 0",
				 s);
	o->kind = LOAD_SLO_LATENCY;
	o->q = q;
	o->limit = t;
	return 0;
}

int load_slo_parse(const char *s, struct load_slo *out, struct error *e)
{
	char buf[SLO_MAX_LEN + 1];
	int r;

	memset(out, 0, sizeof(*out));
	if (strlen(s) > SLO_MAX_LEN || squeeze(s, buf, sizeof(buf)))
		return error_set(e, "'%.*s...': an objective is at most %d "
				 "characters", 20, s, SLO_MAX_LEN);
	if (!buf[0])
		return error_set(e, "'%s': an empty objective (expected one "
				 "like 'p99<50ms' or 'errors<1%%')", s);
	snprintf(out->text, sizeof(out->text), "%s", buf);
	if (!strncmp(buf, "errors", 6))
		r = parse_errors(s, buf + 6, out, e);
	else if (buf[0] == 'p')
		r = parse_latency(s, buf + 1, out, e);
	else
		return error_set(e, "'%s': expected 'pQ<DURATION' (as in "
				 "'p99<50ms') or 'errors<P%%' (as in "
				 "'errors<1%%')", s);
	if (!r && load_slo_min_requests(out) > SLO_MAX_REQUESTS)
		return error_set(e, "'%s': judging it needs %ld requests a "
				 "step, more than %d: allow a larger share "
				 "over the limit (a lower percentile)", s,
				 load_slo_min_requests(out), SLO_MAX_REQUESTS);
	return r;
}

/* The share of requests a slo allows over its limit. */
static double allowed_share(const struct load_slo *slo)
{
	return slo->kind == LOAD_SLO_LATENCY ? (100 - slo->q) / 100 : slo->limit;
}

long load_slo_min_requests(const struct load_slo *slo)
{
	double a = allowed_share(slo);

	/* with none over the limit, the upper bound is z^2 / (n + z^2):
	 * under a once n > z^2 (1 - a) / a */
	if (a <= 0)
		return 1;
	return (long)floor(SLO_Z * SLO_Z * (1 - a) / a) + 1;
}

/* The one-sided 95% Wilson bounds of the share k of n. */
void load_slo_wilson(double k, double n, double *lo, double *hi)
{
	double z2 = SLO_Z * SLO_Z, c, h;

	c = (k + z2 / 2) / (n + z2);
	h = SLO_Z / (n + z2) * sqrt(k * (n - k) / n + z2 / 4);
	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

double load_slo_allowed(const struct load_slo *slo)
{
	return allowed_share(slo);
}
