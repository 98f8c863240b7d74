/*
 * The profile model: weighted call stacks with one or more sample types,
 * plus the mappings and symbols needed to read them — the same idea as
 * pprof's model. `record` (CPU samples) and `mem` (allocated bytes,
 * allocation counts, leaked bytes, bytes live at the peak) both produce
 * it, so every exporter and every viewer works for both.
 *
 * Layout: a profile interns frames (function, file, line, module) and
 * stacks (arrays of frame ids, leaf first); a sample is a stack id and one
 * value per sample type. Adding the same stack twice adds to its values.
 * Nothing here knows where the data came from.
 */
#ifndef YS_PROFILE_PROFILE_H
#define YS_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct sample_type {
	char *name;		/* "cpu", "samples", "alloc_space", ... */
	char *unit;		/* "nanoseconds", "count", "bytes" */
};

/* One frame of a stack, after symbolization. */
struct frame {
	char *function;		/* demangled; "[unknown]" when not found;
				 * "0x1234" style when only the address is */
	char *file;		/* source file, NULL if unknown */
	int line;		/* 0 if unknown */
	char *module;		/* basename of the binary or library, or
				 * "[kernel]", "[jit]", "[unknown]" */
	uint64_t address;	/* a representative address (0 if none) */
	bool inlined;		/* an inlined call inside its caller */
};

struct stack {
	uint32_t *frames;	/* frame ids, leaf first */
	size_t depth;
	int64_t *values;	/* one per sample type */
};

struct profile {
	struct sample_type *types;
	size_t ntypes;
	size_t period_type;	/* index of the type a sample's period is in */
	int64_t period;		/* e.g. 1001001 ns at 999 Hz; 0 if none */
	struct frame *frames;
	size_t nframes, capframes;
	struct stack *stacks;
	size_t nstacks, capstacks;
	void *index;		/* private: hash tables of frames, stacks */
	/* about the collection */
	char *command;		/* the profiled command line */
	int64_t duration_ns;
	int64_t lost;		/* samples the kernel dropped */
	int64_t unknown_frames;	/* frames left unsymbolized */
	int64_t total_frames;
	double rate_hz;		/* effective sampling rate */
	/* NULL, or the signal that stopped the program ("SIGINT": util/
	 * stop.h): the profile ends there, and the files say "partial" */
	const char *partial;
};

/* Initialize with n sample types ({name, unit} pairs copied in). */
void profile_init(struct profile *p, const struct sample_type *types,
		  size_t n);
void profile_free(struct profile *p);

/*
 * Intern a frame (equal function, file, line, module and inlined flag give
 * the same id; address does not count). Returns its id. A frame whose
 * function is unknown (NULL or "[unknown]") in a known module is named
 * "[unknown in MODULE]" ("[unknown in kernel]" for "[kernel]"): the
 * formats that know frames by name alone (folded, pprof's functions,
 * speedscope, the reports' lines) must not merge the unknown code of two
 * modules into one.
 */
uint32_t profile_frame(struct profile *p, const struct frame *f);

/*
 * Whether a frame's function name names one function: false for the
 * buckets of code nothing names ("[unknown]", "[unknown in MODULE]"),
 * which may hold many functions, so that no bound (Amdahl's "at most N×
 * faster") is claimed for them. A name from an unwind table
 * ("libx.so+0x1a2b0", symtab_internal.h, note 6) is one function.
 */
bool profile_names_function(const char *function);

/*
 * Add values[0..ntypes-1] to the stack frames[0..depth-1] (leaf first),
 * creating it if new. Returns its index. depth must be at least 1 and
 * every id one profile_frame returned (asserted).
 */
size_t profile_add(struct profile *p, const uint32_t *frames, size_t depth,
		   const int64_t *values);

/* Sum of sample type t over all stacks. */
int64_t profile_total(const struct profile *p, size_t t);
/* The same over the stacks with a frame of module (a Python profile's
 * samples that have Python frames: module "[python]"). */
int64_t profile_total_in(const struct profile *p, size_t t,
			 const char *module);

/* Per function: self and total (the function anywhere on the stack, each
 * stack counted once) of sample type t, sorted by self descending, then
 * total descending, then name. A function is a (function, module) pair:
 * its frames at all lines, inlined or not, are one entry; self goes to
 * the leaf frame, so to an inlined callee when that is the leaf. Entries
 * with self and total both 0 are left out. *out is malloc'd (free it);
 * its strings belong to p. Returns 0. */
struct profile_top {
	const char *function, *module;
	int64_t self, total;
	const char *file;	/* profile_top_lines only: the line's file */
	int line;		/* ... and line, 0 if unknown */
};
int profile_top(const struct profile *p, size_t t, struct profile_top **out,
		size_t *n);
/* The same per line: a (function, module, file, line), for --lines (a
 * frame's line is the line executing in it). */
int profile_top_lines(const struct profile *p, size_t t,
		      struct profile_top **out, size_t *n);

/*
 * Exporters; path "-" is stdout; files are written atomically; every
 * string from the program is escaped for the format. type is the sample
 * type shown where a format shows one.
 *
 * folded: frames by function name only (';' in a name becomes ':', a
 * line break a space); stacks with the same text are merged, lines
 * sorted, zero lines left out. speedscope: one "sampled" profile per
 * sample type (units speedscope lacks, such as "count", become "none").
 * pprof: gzip'd perftools.profiles.Profile; inlined frames and the frame
 * they are inlined into share one Location; one Mapping per module.
 */
int profile_write_folded(const struct profile *p, size_t type,
			 const char *path, struct error *e);
int profile_write_speedscope(const struct profile *p, const char *path,
			     struct error *e);
int profile_write_pprof(const struct profile *p, const char *path,
			struct error *e);

struct flame_opts {
	const char *title;
	const char *subtitle;	/* e.g. "12,345 samples at 999 Hz" */
	const char *unit;	/* how to print values: "samples", "bytes" */
	int width;		/* pixels, default 1200 */
};
int profile_write_flamegraph(const struct profile *p, size_t type,
			     const struct flame_opts *o, const char *path,
			     struct error *e);
/* The same graph as an <svg> element (no XML prolog) written to fp, to
 * put inline in an HTML page; at most one such graph a page (its script
 * finds its elements by id). Returns 0, or -1 for a type out of range. */
int profile_fput_flamegraph(const struct profile *p, size_t type,
			    const struct flame_opts *o, FILE *fp,
			    struct error *e);

/*
 * Read Brendan Gregg's folded format ("a;b;c 123" per line, root first)
 * into a profile with one sample type "samples"/"count". Errors name the
 * file and line.
 *
 * p is initialized here (not beforehand); on failure it is left zeroed,
 * so profile_free is harmless. Frames have only a function name: file
 * and module are NULL, line 0. Blank lines and lines of count 0 are
 * skipped, repeated stacks are summed, and the last blank-separated word
 * of a line is its count, so names may hold spaces. A count is a whole
 * number of samples: negative ones, and counts whose total passes
 * INT64_MAX, are errors (every sum of the profile then fits).
 */
int profile_read_folded(struct profile *p, const char *path,
			struct error *e);

/*
 * A differential flame graph of two folded profiles: the shape of NEW,
 * each frame coloured by how its total changed against BASE (red grew,
 * blue shrank, saturation by the change relative to the whole profile).
 */
int profile_write_diff_flamegraph(const struct profile *base,
				  const struct profile *cand,
				  const struct flame_opts *o,
				  const char *path, struct error *e);

#endif
