/* The ceilings in a result of kind "roofline": see ceilings.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/ceilings.h"
#include "util/strutil.h"

char *roof_ceiling_name(const struct roof_ceiling *c, char *buf, size_t n)
{
	const char *unit = c->threads == 1 ? "thread" : "threads";

	if (c->type == ROOF_COMPUTE)
		snprintf(buf, n, "%s %s %d %s", c->precision, c->isa,
			 c->threads, unit);
	else
		snprintf(buf, n, "%s %s %d %s", c->level, c->pattern,
			 c->threads, unit);
	return buf;
}

void roof_ceiling_add(struct result *r, const struct roof_ceiling *c,
		      const double *values, size_t n)
{
	char name[96], num[32];
	struct benchmark *b;
	struct metric *m;

	b = result_add_benchmark(r, roof_ceiling_name(c, name, sizeof(name)),
				 NULL);
	if (c->type == ROOF_COMPUTE) {
		benchmark_add_param(b, "ceiling", "compute");
		benchmark_add_param(b, "isa", c->isa);
		benchmark_add_param(b, "precision", c->precision);
	} else {
		benchmark_add_param(b, "ceiling", "memory");
		benchmark_add_param(b, "level", c->level);
		benchmark_add_param(b, "pattern", c->pattern);
	}
	snprintf(num, sizeof(num), "%d", c->threads);
	benchmark_add_param(b, "threads", num);
	if (c->type == ROOF_MEMORY) {
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)c->bytes);
		benchmark_add_param(b, "bytes", num);
	}
	m = c->type == ROOF_COMPUTE ?
		benchmark_metric(b, "flops_per_second", "flop/s") :
		benchmark_metric(b, "bytes_per_second", "bytes/s");
	for (size_t i = 0; i < n; i++)
		metric_push(m, values[i]);
}

static const char *param(const struct benchmark *b, const char *name)
{
	for (size_t i = 0; i < b->nparams; i++)
		if (!strcmp(b->params[i].name, name))
			return b->params[i].value;
	return NULL;
}

/* param name of b into dst (size n), one of the allowed names. */
static int copy_param(const struct benchmark *b, const char *name,
		      const char *const *allowed, char *dst, size_t n,
		      struct error *e)
{
	const char *v = param(b, name);

	if (!v)
		return error_set(e, "ceiling '%s': no parameter '%s'",
				 b->name, name);
	for (size_t i = 0; allowed[i]; i++)
		if (!strcmp(v, allowed[i])) {
			snprintf(dst, n, "%s", v);
			return 0;
		}
	return error_set(e, "ceiling '%s': unknown %s '%s'", b->name, name, v);
}

static int number_param(const struct benchmark *b, const char *name,
			unsigned long long max, unsigned long long *out,
			struct error *e)
{
	const char *v = param(b, name);
	char *end;

	if (!v)
		return error_set(e, "ceiling '%s': no parameter '%s'",
				 b->name, name);
	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || *out == 0 || *out > max)
		return error_set(e, "ceiling '%s': %s '%s' is not a whole "
				 "number from 1 to %llu", b->name, name, v,
				 max);
	return 0;
}

static int read_one(const struct benchmark *b, struct roof_ceiling *c,
		    struct error *e)
{
	static const char *const types[] = { "compute", "memory", NULL };
	static const char *const isas[] = { "scalar", "sse2", "avx2_fma",
					    "avx512", NULL };
	static const char *const precisions[] = { "fp64", "fp32", NULL };
	static const char *const levels[] = { "L1", "L2", "L3", "DRAM",
					      NULL };
	static const char *const patterns[] = { "load", "copy", "triad",
						NULL };
	char type[16];
	unsigned long long num;
	const struct metric *m;

	memset(c, 0, sizeof(*c));
	if (copy_param(b, "ceiling", types, type, sizeof(type), e) < 0)
		return -1;
	c->type = strcmp(type, "compute") ? ROOF_MEMORY : ROOF_COMPUTE;
	if (c->type == ROOF_COMPUTE) {
		if (copy_param(b, "isa", isas, c->isa, sizeof(c->isa), e) < 0 ||
		    copy_param(b, "precision", precisions, c->precision,
			       sizeof(c->precision), e) < 0)
			return -1;
		m = benchmark_find_metric(b, "flops_per_second");
	} else {
		if (copy_param(b, "level", levels, c->level,
			       sizeof(c->level), e) < 0 ||
		    copy_param(b, "pattern", patterns, c->pattern,
			       sizeof(c->pattern), e) < 0 ||
		    number_param(b, "bytes", 1ull << 50, &num, e) < 0)
			return -1;
		c->bytes = num;
		m = benchmark_find_metric(b, "bytes_per_second");
	}
	if (number_param(b, "threads", 1 << 20, &num, e) < 0)
		return -1;
	c->threads = (int)num;
	if (!m)
		return error_set(e, "ceiling '%s': no metric '%s'", b->name,
				 c->type == ROOF_COMPUTE ? "flops_per_second" :
				 "bytes_per_second");
	c->value = NAN;
	for (size_t i = 0; i < m->n; i++)
		if (isfinite(m->values[i]) && m->values[i] > 0 &&
		    !(m->values[i] <= c->value))
			c->value = m->values[i];
	if (!isfinite(c->value))
		return error_set(e, "ceiling '%s': no positive value",
				 b->name);
	return 0;
}

int roof_ceilings_read(const struct result *r, struct roof_ceilings *out,
		       struct error *e)
{
	out->c = NULL;
	out->n = 0;
	if (!r->kind || strcmp(r->kind, ROOF_KIND))
		return error_set(e, "a result of kind '%s', not '%s'",
				 r->kind ? r->kind : "", ROOF_KIND);
	if (r->nbenchmarks == 0)
		return error_set(e, "no ceilings");
	out->c = xcalloc(r->nbenchmarks, sizeof(*out->c));
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		if (read_one(&r->benchmarks[i], &out->c[i], e) < 0) {
			roof_ceilings_free(out);
			return -1;
		}
		out->n++;
	}
	return 0;
}

void roof_ceilings_free(struct roof_ceilings *c)
{
	free(c->c);
	c->c = NULL;
	c->n = 0;
}
