/*
 * `yardstick roofline [REF...]` and `--machine`: the command's side of
 * placing (the outputs asked for, the messages, the exit code); the
 * placing itself, the table and the writers are the engine's
 * (engine/roofline_place.h).
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/roofline.h"
#include "engine/roofline_place.h"

#define WHO "yardstick roofline"

static const char *const precisions[] = { "fp64", "fp32" };
static const char *const patterns[] = { "triad", "copy", "load" };

/* ---- the mode -------------------------------------------------------- */

static bool svg_name(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".svg");
}

/* The outputs asked for, checked: 0 or 2 (printed). */
static int add_outputs(struct output_set *outs, struct roofline_view *p,
		       const struct roofline_args *a)
{
	outputs_add(outs, "--json", a->json, "json",
		    roofline_view_write_json, p);
	for (size_t i = 0; i < a->nouts; i++) {
		if (!svg_name(a->outs[i])) {
			fprintf(stderr, WHO ": -o '%s': the chart is written "
				"as SVG only: name the file FILE.svg\n",
				a->outs[i]);
			return 2;
		}
		outputs_add(outs, "-o", a->outs[i], "svg",
			    roofline_view_write_svg, p);
	}
	return check_output_set(outs, WHO);
}

/* Load the ceilings, place the points gathered, print and write. */
static int finish(struct roofline_view *p, const struct roofline_args *a,
		  struct output_set *outs)
{
	struct roof_select dflt = { (int)a->point_threads,
				    precisions[a->precision],
				    patterns[a->pattern] };
	FILE *fp = outputs_report_fp(outs);
	struct error e;
	int ret = roofline_view_place(p, a->ceilings, a->store, &dflt, &e);

	if (ret) {
		fprintf(stderr, WHO ": %s\n", e.msg);
		return ret;
	}
	if (!a->quiet)
		roofline_view_print(fp, p, a->machine);
	return write_output_set(outs, WHO);
}

int roofline_place(const struct roofline_args *a)
{
	struct roofline_view p;
	struct output_set outs;
	int ret;

	roofline_view_init(&p);
	outputs_init(&outs);
	if (a->machine && a->nrefs) {
		fprintf(stderr, WHO ": --machine shows the ceilings: it takes "
			"no REF\n");
		ret = 2;
	} else if (!a->machine && !a->nrefs) {
		fprintf(stderr, WHO ": give the results to place (REF...), "
			"--machine to show the ceilings or --measure to "
			"measure them (see 'yardstick roofline --help')\n");
		ret = 2;
	} else {
		ret = add_outputs(&outs, &p, a);
	}
	for (size_t i = 0; !ret && i < a->nrefs; i++) {
		struct error e;

		ret = roofline_view_add_ref(&p, a->refs[i], a->store, &e);
		if (ret)
			fprintf(stderr, WHO ": %s\n", e.msg);
	}
	if (!ret)
		ret = finish(&p, a, &outs);
	roofline_view_free(&p);
	outputs_free(&outs);
	return ret;
}

int roofline_place_result(const struct result *r,
			  const struct roofline_args *a)
{
	struct roofline_view p;
	struct output_set outs;
	struct error e;
	int ret;

	roofline_view_init(&p);
	outputs_init(&outs);
	ret = add_outputs(&outs, &p, a);
	if (!ret && roof_points_add(&p.pts, r, &e)) {
		fprintf(stderr, WHO ": %s\n", e.msg);
		ret = 2;
	}
	if (!ret)
		ret = finish(&p, a, &outs);
	roofline_view_free(&p);
	outputs_free(&outs);
	return ret;
}
