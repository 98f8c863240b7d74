/*
 * libFuzzer target of load --find-max's objectives (engine/load_slo.c):
 * any string either parses into an objective within its bounds (a
 * percentile above 0 and below 100 with a finite limit above 0, or a
 * share of errors from 0 to under 1), whose text parses again to the
 * same objective, or fails with a message that quotes the input.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/load_search.h"
#include "util/strutil.h"

static void check(const struct load_slo *o)
{
	struct load_slo again;
	struct error e;

	if (o->kind == LOAD_SLO_LATENCY) {
		if (!(o->q > 0 && o->q < 100) || !(o->limit > 0) ||
		    !isfinite(o->limit))
			abort();
	} else if (o->kind != LOAD_SLO_ERRORS || !(o->limit >= 0) ||
		   !(o->limit < 1)) {
		abort();
	}
	if (!o->text[0] || load_slo_parse(o->text, &again, &e) ||
	    again.kind != o->kind || again.q != o->q ||
	    again.limit != o->limit || again.inclusive != o->inclusive)
		abort();
	if (load_slo_min_requests(o) < 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct load_slo o;
	struct error e;

	if (load_slo_parse(s, &o, &e)) {
		if (e.msg[0] != '\'' || !strchr(e.msg + 1, '\''))
			abort();
	} else {
		check(&o);
	}
	free(s);
	return 0;
}
