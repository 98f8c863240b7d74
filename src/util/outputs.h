/*
 * The output set: every file a command writes (--json, --csv, -o ...),
 * in one list that every command uses the same way:
 *
 *   outputs_add       right after the options are parsed, one entry per
 *                     output asked for (the option, the path, a writer);
 *   outputs_check     before any work starts: at most one output on
 *                     stdout, every path writable; a failure is a usage
 *                     error (exit 2) naming the option and the path;
 *   outputs_stdout    the one stdout rule: when an output is stdout, the
 *                     terminal report (and a measured program's stdout)
 *                     goes to stderr, so that stdout holds that output
 *                     alone (a JSON document stays one);
 *   outputs_write     at the end: every writer, each writing atomically
 *                     through util/fileio.h (a temporary file renamed into
 *                     place; stdout written directly); one that fails does
 *                     not stop the others, and keeps its message.
 */
#ifndef YS_UTIL_OUTPUTS_H
#define YS_UTIL_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/error.h"

/*
 * Write the command's output to path, atomically: atomic_open ("-" is
 * stdout), write, atomic_commit (atomic_abort or atomic_fail on an
 * error). Returns 0, or -1 with a message naming the file.
 */
typedef int (*output_write_fn)(const char *path, void *ctx,
			       struct error *e);

struct output {
	const char *flag;	/* the option that asked: "--json", "-o" */
	const char *path;	/* "-", a file, /dev/stdout ... */
	const char *format;	/* "json", "csv", "svg" ...: what it holds */
	output_write_fn write;	/* NULL: a claim on stdout that is not a
				 * file (--show-output) */
	void *ctx;
	bool failed;		/* after outputs_write: err says why */
	struct error err;
};

struct output_set {
	struct output *v;
	size_t n;
	int on_stdout;		/* after outputs_check: the index of the
				 * output on stdout, -1 for none */
};

void outputs_init(struct output_set *s);
void outputs_free(struct output_set *s);

/* Add an output; a NULL path (the option was not given) adds nothing.
 * flag, path, format and ctx are borrowed: they must outlive the set. */
void outputs_add(struct output_set *s, const char *flag, const char *path,
		 const char *format, output_write_fn write, void *ctx);
/* Something other than an output that writes to stdout (the measured
 * command's output with --show-output): no output may then be stdout. */
void outputs_claim_stdout(struct output_set *s, const char *flag);

/*
 * Before any work: at most one entry is stdout (the message names both),
 * no two outputs are the same file, every path can be written (its
 * directory exists and takes a new file; it is not a directory, nor a
 * file we may not replace: atomic_check). Returns 0, or -1 with a message
 * naming the option and the path ("--json: cannot open 'x/r.json': ...").
 */
int outputs_check(struct output_set *s, struct error *e);

/* Whether an output is stdout (after outputs_check). */
bool outputs_stdout(const struct output_set *s);
/* Where the terminal report goes: stderr when an output is stdout, else
 * stdout. */
FILE *outputs_report_fp(const struct output_set *s);

/* Write every output, each atomically; a failure is kept in its entry
 * (failed, err) and the others are still written. Returns how many
 * failed. */
size_t outputs_write(struct output_set *s);

/*
 * After outputs_check: whether the name of output i says another known
 * format than the one it holds ("--json r.md", "--timeline t.json"),
 * with the message for a warning in w ("--json 'r.md': its name says
 * Markdown; it is written as JSON"). The extensions known: .json, .csv,
 * .md, .markdown, .xml, .svg, .html, .htm, .folded, .speedscope.json,
 * .pb.gz, .pprof, .perfetto-trace, .pftrace (compared without case); a
 * JSON format (bmf, speedscope, a Chrome trace) fits .json. Stdout, a
 * name without an extension or with another one, and an output of no
 * format (NULL: a claim, or a check of names checked again when written)
 * say nothing. Never a refusal: the option, not the name, says what the
 * file holds, as -o's --format does.
 */
bool outputs_name_mismatch(const struct output_set *s, size_t i,
			   struct error *w);

/* Whether path is our stdout: "-", or the file stdout is open on
 * (/dev/stdout, the target of a redirection), unless that is a device
 * other than a terminal (/dev/null). */
bool output_is_stdout(const char *path);

/* Whether the name path may hold what a command writes, whose names end
 * in one of exts (a NULL-terminated list, as ".html"; compared without
 * case): "-", a name without an extension, or one ending in one of
 * exts. A name whose extension says another format ("r.pdf" for an
 * HTML page) does not: the command refuses it (a usage error). */
bool output_ext_fits(const char *path, const char *const *exts);

#endif
