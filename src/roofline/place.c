/* Points placed under a machine's ceilings: see place.h. */
#include "roofline/place.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/strutil.h"

static void place_one(const struct roof_ceilings *c,
		      const struct roof_select *dflt, struct roof_placed *p)
{
	const struct roof_point *pt = p->pt;
	struct error e;

	p->sel = *dflt;
	if (pt->threads)
		p->sel.threads = pt->threads;
	if (pt->precision[0])
		p->sel.precision = pt->precision;
	if (pt->unplaced) {
		p->why = xstrdup(pt->unplaced);
		return;
	}
	if (roof_model_select(c, &p->sel, &p->m, &e) ||
	    roof_place(&p->m, pt->flops, pt->ai, &p->v, &e)) {
		p->why = xstrdup(e.msg);
		return;
	}
	roof_verdict_text(&p->v, p->verdict, sizeof(p->verdict));
}

void roof_place_points(const struct roof_ceilings *c,
		       const struct roof_points *pts,
		       const struct roof_select *dflt,
		       struct roof_placement *out)
{
	struct error e;

	out->dflt = *dflt;
	out->has_dm = !roof_model_select(c, dflt, &out->dm, &e);
	snprintf(out->dm_error, sizeof(out->dm_error), "%s",
		 out->has_dm ? "" : e.msg);
	out->p = xcalloc(pts->n + 1, sizeof(*out->p));
	out->n = pts->n;
	out->nplaced = 0;
	for (size_t i = 0; i < pts->n; i++) {
		out->p[i].pt = &pts->p[i];
		place_one(c, dflt, &out->p[i]);
		out->nplaced += !out->p[i].why;
	}
}

void roof_placement_free(struct roof_placement *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->p[i].why);
	free(pl->p);
	pl->p = NULL;
	pl->n = pl->nplaced = 0;
}
