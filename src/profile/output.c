/*
 * The profilers' output files: see output.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/output.h"
#include "profile/pystacks.h"
#include "util/strutil.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

enum profile_fmt profile_fmt_of(const char *path, enum profile_fmt dflt)
{
	if (ends_with(path, ".folded"))
		return PROFILE_FMT_FOLDED;
	if (ends_with(path, ".svg"))
		return PROFILE_FMT_SVG;
	if (ends_with(path, ".speedscope.json"))
		return PROFILE_FMT_SPEEDSCOPE;
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof"))
		return PROFILE_FMT_PPROF;
	return dflt;
}

/*
 * The profile with every frame named "function (file:line)", for the
 * formats that have no place for lines of their own (folded, the flame
 * graph). speedscope and pprof carry file and line as fields.
 */
static void with_lines(const struct profile *src, struct profile *dst)
{
	uint32_t *map = xcalloc(src->nframes + 1, sizeof(*map));
	uint32_t *ids = NULL;
	size_t cap = 0;

	profile_init(dst, src->types, src->ntypes);
	for (size_t i = 0; i < src->nframes; i++) {
		struct frame f = src->frames[i];
		char *label = pystacks_label(&f, true);

		f.function = label;
		map[i] = profile_frame(dst, &f);
		free(label);
	}
	for (size_t i = 0; i < src->nstacks; i++) {
		const struct stack *st = &src->stacks[i];

		ids = xgrow(ids, &cap, st->depth + 1, sizeof(*ids));
		for (size_t d = 0; d < st->depth; d++)
			ids[d] = map[st->frames[d]];
		profile_add(dst, ids, st->depth, st->values);
	}
	free(ids);
	free(map);
}

static const char *const fmt_names[] = {
	[PROFILE_FMT_NONE] = "none", [PROFILE_FMT_FOLDED] = "folded",
	[PROFILE_FMT_SVG] = "svg", [PROFILE_FMT_SPEEDSCOPE] = "speedscope",
	[PROFILE_FMT_PPROF] = "pprof",
};

/* The output set's writer of one -o file (ctx: the profile_outputs). */
static int write_one(const char *path, void *ctx, struct error *e)
{
	struct profile_outputs *o = ctx;
	const struct profile *p = o->prof, *named = p;

	if (o->lines) {
		if (!o->lined) {
			o->lined = xcalloc(1, sizeof(*o->lined));
			with_lines(p, o->lined);
		}
		named = o->lined;
	}
	switch (profile_fmt_of(path, o->format)) {
	case PROFILE_FMT_FOLDED:
		return profile_write_folded(named, o->type, path, e);
	case PROFILE_FMT_SVG:
		return profile_write_flamegraph(named, o->type, &o->flame,
						path, e);
	case PROFILE_FMT_SPEEDSCOPE:
		return profile_write_speedscope(p, path, e);
	case PROFILE_FMT_PPROF:
		return profile_write_pprof(p, path, e);
	case PROFILE_FMT_NONE:
		break;
	}
	return error_set(e, "-o '%s': no format", path);
}

void profile_outputs_to_set(struct profile_outputs *o, struct output_set *s)
{
	for (size_t i = 0; i < o->n; i++)
		outputs_add(s, "-o", o->paths[i],
			    fmt_names[profile_fmt_of(o->paths[i], o->format)],
			    write_one, o);
}

void profile_outputs_free(struct profile_outputs *o)
{
	free(o->paths);
	if (o->lined) {
		profile_free(o->lined);
		free(o->lined);
	}
	o->paths = NULL;
	o->lined = NULL;
	o->n = 0;
}
