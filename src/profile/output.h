/*
 * The -o/--output files of the profilers (`record`, `mem`): the format
 * from the file's name or --format, --lines naming frames with file:line
 * where a format has no field for it, and the writer of each file, which
 * the command's output set (util/outputs.h) calls.
 */
#ifndef YS_PROFILE_OUTPUT_H
#define YS_PROFILE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/profile.h"
#include "util/outputs.h"

enum profile_fmt {
	PROFILE_FMT_NONE, PROFILE_FMT_FOLDED, PROFILE_FMT_SVG,
	PROFILE_FMT_SPEEDSCOPE, PROFILE_FMT_PPROF
};

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
	const struct profile *prof;	/* what is written: set before
					 * outputs_write */
	struct profile *lined;		/* prof with lines in frame names,
					 * made for the first file that needs
					 * it */
};


/* Add every -o file of o to the output set s, written from o->prof (o
 * must outlive s). */
void profile_outputs_to_set(struct profile_outputs *o, struct output_set *s);
/* Free o's paths and what its writers made. */
void profile_outputs_free(struct profile_outputs *o);

#endif
