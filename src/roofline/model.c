/* The roofline model: see model.h. */
#include "roofline/model.h"

#include "util/term.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const roof_level_names[ROOF_NLEVELS] = { "L1", "L2", "L3",
						      "DRAM" };

static int level_index(const char *level)
{
	for (int i = 0; i < ROOF_NLEVELS; i++)
		if (!strcmp(level, roof_level_names[i]))
			return i;
	return -1;
}

static bool positive(double v)
{
	return isfinite(v) && v > 0;
}

/* v[0..n) by value, ascending (dir 1) or descending (-1); stable. A few
 * entries: an insertion sort. */
static void sort_by_value(const struct roof_ceiling **v, size_t n, int dir)
{
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && dir * v[k]->value <
		     dir * v[k - 1]->value; k--) {
			const struct roof_ceiling *t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
}

/* The compute ceilings of the selection, one per isa (the largest),
 * fastest first. */
static void select_compute(const struct roof_ceilings *c,
			   const struct roof_select *s, struct roof_model *m)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct roof_ceiling *x = &c->c[i];
		size_t k;

		if (x->type != ROOF_COMPUTE || x->threads != s->threads ||
		    strcmp(x->precision, s->precision) || !positive(x->value))
			continue;
		for (k = 0; k < m->ncompute; k++)
			if (!strcmp(m->compute[k]->isa, x->isa))
				break;
		if (k < m->ncompute) {
			if (x->value > m->compute[k]->value)
				m->compute[k] = x;
		} else if (m->ncompute < ROOF_NISAS) {
			m->compute[m->ncompute++] = x;
		}
	}
	sort_by_value(m->compute, m->ncompute, -1);	/* fastest first */
}

/* Leave out the compute ceilings within the tolerance of the fastest:
 * an avx512 peak measured 0.5% below the avx2_fma one is the same roof,
 * not a ceiling below it. */
static void fold_equal_peaks(struct roof_model *m)
{
	size_t k = 1;

	if (!m->ncompute)
		return;
	while (k < m->ncompute && m->compute[0]->value <=
	       m->compute[k]->value * (1 + ROOF_TOLERANCE))
		k++;
	memmove(&m->compute[1], &m->compute[k],
		(m->ncompute - k) * sizeof(m->compute[0]));
	m->ncompute -= k - 1;
}

int roof_model_select(const struct roof_ceilings *c,
		      const struct roof_select *s, struct roof_model *m,
		      struct error *e)
{
	const char *unit = s->threads == 1 ? "thread" : "threads";
	bool any_mem = false;

	memset(m, 0, sizeof(*m));
	if (s->threads < 1 || !s->precision || !s->pattern)
		return error_set(e, "no ceilings for %d threads", s->threads);
	select_compute(c, s, m);
	fold_equal_peaks(m);
	for (size_t i = 0; i < c->n; i++) {
		const struct roof_ceiling *x = &c->c[i];
		int l;

		if (x->type != ROOF_MEMORY || x->threads != s->threads ||
		    strcmp(x->pattern, s->pattern) || !positive(x->value))
			continue;
		l = level_index(x->level);
		if (l < 0)
			continue;
		if (!m->mem[l] || x->value > m->mem[l]->value)
			m->mem[l] = x;
		any_mem = true;
	}
	if (!m->ncompute)
		return error_set(e, "no %s compute ceiling for %d %s",
				 s->precision, s->threads, unit);
	if (!any_mem)
		return error_set(e, "no %s bandwidth for %d %s", s->pattern,
				 s->threads, unit);
	return 0;
}

double roof_peak(const struct roof_model *m)
{
	return m->compute[0]->value;
}

/* The roof of ceiling c at intensity ai, in FLOP/s: a compute ceiling's
 * value, or a memory ceiling's bandwidth x ai. */
static double roof_ceiling_at(const struct roof_ceiling *c, double ai)
{
	return c->type == ROOF_COMPUTE ? c->value : c->value * ai;
}

double roof_at(const struct roof_model *m, double ai)
{
	double roof = roof_peak(m);

	if (!positive(ai))
		return NAN;
	for (int l = 0; l < ROOF_NLEVELS; l++)
		if (m->mem[l] && m->mem[l]->value * ai < roof)
			roof = m->mem[l]->value * ai;
	return roof;
}

double roof_ridge(const struct roof_model *m, const struct roof_ceiling *c)
{
	return roof_peak(m) / c->value;
}

/* The memory levels whose line lies below the compute roof at ai, lowest
 * line first, into list[]; their number. */
static size_t memory_roofs(const struct roof_model *m, double ai,
			   const struct roof_ceiling **list)
{
	size_t n = 0;

	for (int l = 0; l < ROOF_NLEVELS; l++)
		if (m->mem[l] && m->mem[l]->value * ai < roof_peak(m))
			list[n++] = m->mem[l];
	sort_by_value(list, n, 1);
	return n;
}

/* Whether flops is under roof, within the tolerance. */
static bool under(double flops, double roof)
{
	return flops <= roof * (1 + ROOF_TOLERANCE);
}

/* The compute ceilings, lowest first (m keeps them fastest first). */
static size_t compute_roofs(const struct roof_model *m,
			    const struct roof_ceiling **list)
{
	for (size_t k = 0; k < m->ncompute; k++)
		list[k] = m->compute[m->ncompute - 1 - k];
	return m->ncompute;
}

int roof_place(const struct roof_model *m, double flops, double ai,
	       struct roof_verdict *v, struct error *e)
{
	const struct roof_ceiling *list[ROOF_NLEVELS + ROOF_NISAS];
	size_t n, b, nmem;

	memset(v, 0, sizeof(*v));
	v->next_roof = v->next_factor = NAN;
	if (!positive(flops))
		return error_set(e, "attained rate %g FLOP/s is not a "
				 "positive number", flops);
	if (!positive(ai))
		return error_set(e, "arithmetic intensity %g FLOP/B is not "
				 "a positive number", ai);
	/* the memory lines below the compute roof, then (when some level's
	 * line reaches it, so that the compute roof is the top) the
	 * compute ceilings */
	nmem = memory_roofs(m, ai, list);
	n = nmem;
	for (b = 0; b < nmem && !under(flops, roof_ceiling_at(list[b], ai));
	     b++)
		;
	if (b == nmem) {
		bool reachable = false;

		for (int l = 0; l < ROOF_NLEVELS; l++)
			reachable |= m->mem[l] && m->mem[l]->value * ai >=
				     roof_peak(m);
		if (reachable) {
			n = nmem + compute_roofs(m, list + nmem);
			while (b + 1 < n && !under(flops, list[b]->value))
				b++;
		} else {
			b = nmem - 1;	/* above every line: the top one */
		}
	} else {
		/* a memory-bound point's next roof may be the compute one */
		list[n++] = m->compute[0];
	}
	v->ceiling = list[b];
	v->memory_bound = list[b]->type == ROOF_MEMORY;
	v->top = list[b] == m->compute[0];
	v->roof = roof_ceiling_at(list[b], ai);
	v->fraction = flops / v->roof;
	/* the next roof above both the binding one and the point (one of
	 * the same height, or below a point above its roof, is no way up) */
	while (++b < n && !(roof_ceiling_at(list[b], ai) > v->roof &&
			    roof_ceiling_at(list[b], ai) > flops))
		;
	if (b < n) {
		v->next = list[b];
		v->next_top = v->next == m->compute[0];
		v->next_roof = roof_ceiling_at(v->next, ai);
		v->next_factor = v->next_roof / flops;
	}
	return 0;
}

/* "L3", "compute" for the compute roof, "sse2" for a lower one. */
static const char *roof_word(const struct roof_ceiling *c, bool top)
{
	if (c->type == ROOF_MEMORY)
		return c->level;
	return top ? "compute" : c->isa;
}

char *roof_verdict_text(const struct roof_verdict *v, char *buf, size_t n)
{
	const struct roof_ceiling *c = v->ceiling;
	double pct = v->fraction * 100;
	int len;

	if (c->type == ROOF_MEMORY)
		len = snprintf(buf, n, "memory-bound (%s): ", c->level);
	else
		len = snprintf(buf, n, "compute-bound (%s %s): ", c->precision,
			       c->isa);
	if (len < 0 || (size_t)len >= n)
		return buf;
	len += snprintf(buf + len, n - (size_t)len,
			pct < 10 || pct >= 1e5 ? "%.2g%% of the %s roof" :
			"%.0f%% of the %s roof", pct, roof_word(c, v->top));
	if (v->next && len > 0 && (size_t)len < n)
		snprintf(buf + len, n - (size_t)len, v->next_factor < 100 ?
			 "; %s roof %.1f× away" : v->next_factor < 1e6 ?
			 "; %s roof %.0f× away" : "; %s roof %.3g× away",
			 roof_word(v->next, v->next_top), v->next_factor);
	return buf;
}

char *roof_rate_text(double v, const char *unit, char *buf, size_t n)
{
	char num[48];

	if (v >= 1e-3 && v < 1e15) {
		fmt_value(v, "count", num, sizeof(num));
		snprintf(buf, n, "%s%s%s", num, strchr(num, ' ') ? "" : " ",
			 unit);
	} else {
		snprintf(buf, n, "%.3g %s", v, unit);
	}
	return buf;
}
