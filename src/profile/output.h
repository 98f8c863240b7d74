/*
 * The -o/--output files of the profilers (`record`, `mem`): the format
 * from the file's name or --format, --lines naming frames with file:line
 * where a format has no field for it, and the write itself.
 */
#ifndef YS_PROFILE_OUTPUT_H
#define YS_PROFILE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/profile.h"

enum profile_fmt {
	PROFILE_FMT_NONE, PROFILE_FMT_FOLDED, PROFILE_FMT_SVG,
	PROFILE_FMT_SPEEDSCOPE, PROFILE_FMT_PPROF
};

/* "folded", "svg", "speedscope", "pprof", or PROFILE_FMT_NONE. */
enum profile_fmt profile_fmt_named(const char *name);
/* The format a file name says (.folded, .svg, .speedscope.json, .pb.gz,
 * .pprof), else dflt. */
enum profile_fmt profile_fmt_of(const char *path, enum profile_fmt dflt);

struct profile_outputs {
	char **paths;
	size_t n;
	enum profile_fmt format;	/* for names that say nothing */
	bool lines;			/* frames named "function (file:line)"
					 * in folded and SVG output */
	size_t type;			/* the sample type folded and SVG show */
	struct flame_opts flame;
};

/* Add path to o->paths (which is realloc'd). */
void profile_outputs_add(struct profile_outputs *o, const char *path);

/* Write every output; an error is printed as "yardstick CMD: message".
 * Returns 0, or 2 when any output failed. */
int profile_outputs_write(const struct profile_outputs *o,
			  const struct profile *p, const char *cmd);

#endif
