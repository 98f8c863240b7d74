/*
 * The engine of `yardstick roofline [REF...]` and `--machine`, and of the
 * report's roofline chart (roofline_place.h): the benchmarks of result
 * sets placed under this machine's ceilings (the newest stored result of
 * kind "roofline" measured on a machine equal to this one: hostname, cpu,
 * cores and memory), or under --ceilings REF|FILE; the table, the JSON
 * (schema yardstick/roofline/v1, docs/result-format.md) and the chart.
 * The model is src/roofline/.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/roofline_place.h"

#include "engine/refs.h"
#include "measure/machine.h"
#include "report/roofline_view.h"
#include "roofline/place.h"
#include "util/json_emit.h"
#include "util/strutil.h"
#include "util/term.h"

#define ROOF_JSON_SCHEMA "yardstick/roofline/v1"

/* A ceiling's benchmark name starts with its precision ("fp64 avx2_fma
 * 1 thread"): the only results worth loading to check their kind. */
static bool ceiling_name(const char *name)
{
	return name && (!strncmp(name, "fp64 ", 5) ||
			!strncmp(name, "fp32 ", 5));
}

static int roofline_machine_ceilings(const char *store_path, struct result *r,
			      char **label, struct error *e)
{
	struct result me;
	struct store_find_query q = { .kind = ROOF_KIND,
				      .metric = "flops_per_second",
				      .machine = &me.machine,
				      .candidate = ceiling_name };
	struct store *s;
	char *path;
	long long id = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	result_init(&me, "run");
	machine_detect(&me.machine);
	ret = ref_open_store(&s, store_path, STORE_READ, &path, e);
	free(path);
	if (ret == -STORE_ERR_NOTFOUND)
		ret = 1;	/* no store yet: nothing measured */
	else if (ret == 0)
		ret = store_find(s, &q, r, &id, e);
	store_close(s);
	if (ret) {
		result_free(r);
		result_init(r, ROOF_KIND);	/* empty, as promised */
	}
	if (ret == 1) {
		error_env(e, "no ceilings stored for this machine ('%s'): run "
			  "'yardstick roofline --measure'",
			  me.machine.hostname ? me.machine.hostname : "");
		ret = 3;
	} else if (ret < 0) {
		ret = error_exit_code(e);
	} else {
		*label = xasprintf("result %lld", id);
	}
	result_free(&me);
	return ret;
}

/* The ceilings: ceilings (a reference or a file) if given, else this
 * machine's. Returns 0 or the exit code, with e set. */
static int load_ceilings(struct roofline_view *p, const char *ceilings,
			 const char *store, struct error *e)
{
	int ret;

	if (ceilings) {
		if (ref_load_values(ceilings, store, &p->cres, e)) {
			error_prefix(e, "--ceilings: ");
			return error_exit_code(e);
		}
		p->clabel = xasprintf("'%s'", ceilings);
	} else {
		ret = roofline_machine_ceilings(store, &p->cres, &p->clabel, e);
		if (ret)
			return ret;
	}
	if (roof_ceilings_read(&p->cres, &p->ceil, e)) {
		error_prefix(e, "the ceilings of %s: ", p->clabel);
		return 2;
	}
	return 0;
}

int roofline_view_place(struct roofline_view *v, const char *ceilings,
			const char *store, const struct roof_select *dflt,
			struct error *e)
{
	int ret = load_ceilings(v, ceilings, store, e);

	if (ret)
		return ret;
	roof_place_points(&v->ceil, &v->pts, dflt, &v->pl);
	return 0;
}

void roofline_view_init(struct roofline_view *v)
{
	/* cres stays zeroed (result_free is safe on it) until the loading
	 * of the ceilings initializes it */
	memset(v, 0, sizeof(*v));
}

void roofline_view_free(struct roofline_view *v)
{
	roof_placement_free(&v->pl);
	roof_points_free(&v->pts);
	roof_ceilings_free(&v->ceil);
	result_free(&v->cres);
	free(v->clabel);
	free(v->chart_label);
	free(v->cp);
}

int roofline_view_chart(struct roofline_view *v, struct error *e)
{
	const struct roof_select *d = &v->pl.dflt;

	if (!v->pl.has_dm)
		return error_set(e, "no chart: %s", v->pl.dm_error);
	free(v->chart_label);
	free(v->cp);
	v->chart_label = xasprintf("%s: %d %s, %s, %s bandwidth", v->clabel,
				   d->threads, d->threads == 1 ? "thread" :
				   "threads", d->precision, d->pattern);
	v->cp = xcalloc(v->pl.n + 1, sizeof(*v->cp));
	v->chart = (struct roof_chart){ &v->pl.dm, v->chart_label, v->cp, 0 };
	for (size_t i = 0; i < v->pl.n; i++) {
		const struct roof_placed *x = &v->pl.p[i];

		if (x->why)
			continue;
		v->cp[v->chart.n++] = (struct roof_chart_point){
			x->pt->name, x->pt->flops, x->pt->ai, x->verdict,
			x->pt->flops_from };
	}
	return 0;
}

/* ---- the terminal ---------------------------------------------------- */

static void print_rate(FILE *fp, double v, const char *unit, size_t width)
{
	char buf[64];

	term_pad(fp, roof_rate_text(v, unit, buf, sizeof(buf)), width, true);
}

static void print_header(FILE *fp, const struct roofline_view *p)
{
	const struct machine *m = &p->cres.machine;
	const struct roof_select *d = &p->pl.dflt;

	fputs("ceilings: ", fp);
	term_puts(fp, p->clabel);
	if (m->hostname) {
		fputs(" of ", fp);
		term_puts(fp, m->hostname);
	}
	if (p->cres.created) {
		fputs(", ", fp);
		term_puts(fp, p->cres.created);
	}
	fprintf(fp, "; %s bandwidth; %d %s and %s unless a benchmark says\n",
		d->pattern, d->threads, d->threads == 1 ? "thread" : "threads",
		d->precision);
}

static void print_ceilings(FILE *fp, const struct roofline_view *p)
{
	char name[96];

	fprintf(fp, "%-28s %16s  %s\n", "ceiling", "value", "working set");
	for (size_t i = 0; i < p->ceil.n; i++) {
		const struct roof_ceiling *c = &p->ceil.c[i];
		char size[48];

		term_cell(fp, roof_ceiling_name(c, name, sizeof(name)), 28);
		fputc(' ', fp);
		print_rate(fp, c->value, c->type == ROOF_COMPUTE ? "FLOP/s" :
			   "B/s", 16);
		if (c->type == ROOF_MEMORY)
			fprintf(fp, "  %s", fmt_value((double)c->bytes, "bytes",
						      size, sizeof(size)));
		fputc('\n', fp);
	}
	if (p->pl.has_dm) {
		const struct roof_model *m = &p->pl.dm;

		const char *sep = "";

		fputs("ridge points under the compute roof:", fp);
		for (int l = 0; l < ROOF_NLEVELS; l++)
			if (m->mem[l]) {
				fprintf(fp, "%s %s %.3g FLOP/B", sep,
					m->mem[l]->level,
					roof_ridge(m, m->mem[l]));
				sep = ",";
			}
		fputc('\n', fp);
	} else {
		fprintf(fp, "no roof for the defaults: %s\n", p->pl.dm_error);
	}
}

static size_t name_width(const struct roofline_view *p)
{
	size_t w = 9;

	for (size_t i = 0; i < p->pl.n; i++) {
		size_t k = term_width(p->pl.p[i].pt->name);

		if (k > w)
			w = k;
	}
	return w > 40 ? 40 : w;
}

static void print_points(FILE *fp, const struct roofline_view *p)
{
	size_t w = name_width(p);
	bool any_unplaced = false;

	term_cell(fp, "benchmark", w);
	fprintf(fp, " %14s %10s  %-24s %14s  %s\n", "attained", "FLOP/B",
		"ceiling", "its roof", "verdict");
	for (size_t i = 0; i < p->pl.n; i++) {
		const struct roof_placed *x = &p->pl.p[i];
		char name[96];

		if (x->why) {
			any_unplaced = true;
			continue;
		}
		term_cell(fp, x->pt->name, w);
		fputc(' ', fp);
		print_rate(fp, x->pt->flops, "FLOP/s", 14);
		fprintf(fp, " %10.3g  ", x->pt->ai);
		term_cell(fp, roof_ceiling_name(x->v.ceiling, name,
						sizeof(name)), 24);
		fputc(' ', fp);
		print_rate(fp, x->v.roof, "FLOP/s", 14);
		fprintf(fp, "  %s\n", x->verdict);
	}
	if (!any_unplaced)
		return;
	fputs("not placed:\n", fp);
	for (size_t i = 0; i < p->pl.n; i++) {
		if (!p->pl.p[i].why)
			continue;
		fputs("  ", fp);
		term_puts(fp, p->pl.p[i].pt->name);
		fputs(": ", fp);
		term_puts(fp, p->pl.p[i].why);
		fputc('\n', fp);
	}
}

void roofline_view_print(FILE *fp, const struct roofline_view *v,
			 bool ceilings)
{
	print_header(fp, v);
	if (ceilings)
		print_ceilings(fp, v);
	else
		print_points(fp, v);
}

/* ---- --json ---------------------------------------------------------- */

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ceiling_json(const struct roof_ceiling *c)
{
	char name[96];
	json_t *o = json_must(json_object());

	json_object_set_new(o, "name", json_text(roof_ceiling_name(c, name,
								   sizeof(name))));
	if (c->type == ROOF_COMPUTE) {
		json_object_set_new(o, "type", json_string("compute"));
		json_object_set_new(o, "isa", json_text(c->isa));
		json_object_set_new(o, "precision", json_text(c->precision));
	} else {
		json_object_set_new(o, "type", json_string("memory"));
		json_object_set_new(o, "level", json_text(c->level));
		json_object_set_new(o, "pattern", json_text(c->pattern));
		json_object_set_new(o, "bytes", json_integer((json_int_t)
							      c->bytes));
	}
	json_object_set_new(o, "threads", json_integer(c->threads));
	json_object_set_new(o, c->type == ROOF_COMPUTE ? "flops_per_second" :
			    "bytes_per_second", num(c->value));
	return o;
}

static json_t *ceiling_name_json(const struct roof_ceiling *c)
{
	char name[96];

	return c ? json_text(roof_ceiling_name(c, name, sizeof(name))) :
		   json_null();
}

static json_t *point_json(const struct roof_placed *x)
{
	const struct roof_point *pt = x->pt;
	json_t *o = json_must(json_object());

	json_object_set_new(o, "name", json_text(pt->name));
	json_object_set_new(o, "placed", json_boolean(!x->why));
	json_object_set_new(o, "flops_per_second", num(pt->flops));
	json_object_set_new(o, "arithmetic_intensity", num(pt->ai));
	json_object_set_new(o, "threads", json_integer(x->sel.threads));
	json_object_set_new(o, "precision", json_text(x->sel.precision));
	json_object_set_new(o, "flops_from", json_text(pt->flops_from));
	json_object_set_new(o, "bytes_from", json_text(pt->bytes_from));
	if (x->why) {
		json_object_set_new(o, "reason", json_text(x->why));
		return o;
	}
	json_object_set_new(o, "bound", json_string(x->v.memory_bound ?
						     "memory" : "compute"));
	json_object_set_new(o, "ceiling", ceiling_name_json(x->v.ceiling));
	json_object_set_new(o, "roof", num(x->v.roof));
	json_object_set_new(o, "fraction", num(x->v.fraction));
	json_object_set_new(o, "next", ceiling_name_json(x->v.next));
	json_object_set_new(o, "next_roof", num(x->v.next_roof));
	json_object_set_new(o, "next_factor", num(x->v.next_factor));
	json_object_set_new(o, "verdict", json_text(x->verdict));
	return o;
}

int roofline_view_write_json(const char *path, void *ctx, struct error *e)
{
	const struct roofline_view *p = ctx;
	const struct machine *m = &p->cres.machine;
	json_t *root = json_must(json_object()), *arr;

	json_object_set_new(root, "schema", json_string(ROOF_JSON_SCHEMA));
	json_object_set_new(root, "ceilings_from", json_text(p->clabel));
	json_object_set_new(root, "machine", json_pack("{s:o,s:o,s:i,s:I}",
		"hostname", json_text(m->hostname), "cpu", json_text(m->cpu),
		"cores", m->cores, "memory_bytes",
		(json_int_t)m->memory_bytes));
	json_object_set_new(root, "defaults", json_pack("{s:i,s:s,s:s}",
		"threads", p->pl.dflt.threads, "precision",
		p->pl.dflt.precision, "pattern", p->pl.dflt.pattern));
	arr = json_must(json_array());
	for (size_t i = 0; i < p->ceil.n; i++)
		json_array_append_new(arr, ceiling_json(&p->ceil.c[i]));
	json_object_set_new(root, "ceilings", arr);
	arr = json_must(json_array());
	for (size_t i = 0; i < p->pl.n; i++)
		json_array_append_new(arr, point_json(&p->pl.p[i]));
	json_object_set_new(root, "points", arr);
	return json_write_file(root, path, e);
}

/* ---- -o roofline.svg ------------------------------------------------- */

int roofline_view_write_svg(const char *path, void *ctx, struct error *e)
{
	struct roofline_view *v = ctx;
	char msg[sizeof(e->msg)];

	if (roofline_view_chart(v, e)) {
		snprintf(msg, sizeof(msg), "%s", e->msg);
		return error_set(e, "cannot draw '%s': %s", path, msg);
	}
	return roof_chart_write_svg(&v->chart, path, e);
}

/* ---- the points --------------------------------------------------- */

int roofline_view_add_ref(struct roofline_view *v, const char *ref,
			  const char *store, struct error *e)
{
	struct result r;
	char msg[sizeof(e->msg)];
	int ret = 0;

	if (ref_load(ref, store, &r, e))
		return error_exit_code(e);
	if (roof_points_add(&v->pts, &r, e)) {
		snprintf(msg, sizeof(msg), "%s", e->msg);
		error_set(e, "'%s': %s", ref, msg);
		ret = 2;
	}
	result_free(&r);
	return ret;
}
