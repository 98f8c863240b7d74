/*
 * The options layer of every command, in the spirit of git's
 * parse-options.h: a command declares a table of typed options (struct
 * opt_cmd), and from that one table come the parsing with one error
 * style, the `--help` text and the shell completions.
 *
 * A table's entries name fields of the command's own argument struct by
 * offset, so that the table is a constant the help and completion
 * generators read without an instance. Before its table a command
 * defines OPT_STRUCT, the struct its entries fill:
 *
 *	#define OPT_STRUCT struct foo_args
 *	static const struct opt_entry foo_opts[] = {
 *		{ OPT_COUNT('n', "limit", limit, 1, LONG_MAX), .metavar = "N",
 *		  .help = "at most N rows" },
 *		{ OPT_QUIET(quiet, "no terminal report") },
 *		OPT_HELP_ENTRY,
 *		OPT_END_ENTRY,
 *	};
 *
 * Strings (string, path, output file, repeatable) point into argv: they
 * are not copied, and a repeatable option's array (NULL-terminated) is
 * the only allocation, which the command frees with free().
 */
#ifndef YS_UTIL_OPTIONS_H
#define YS_UTIL_OPTIONS_H

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

enum opt_type {
	OPT_T_END,
	OPT_T_GROUP,	/* a heading in the help: .help */
	OPT_T_HELP,	/* -h, --help: print the help, parsing ends */
	OPT_T_FLAG,	/* bool, set to true */
	OPT_T_COUNT,	/* a whole number from .lmin to .lmax (.step) into
			 * an unsigned or non-negative integer of any size */
	OPT_T_NUMBER,	/* a double within .min/.max */
	OPT_T_DURATION,	/* seconds (a double): 1.5, 15ms, 2s, 10us, 5ns */
	OPT_T_SIZE,	/* bytes (uint64_t): 524288, 512k, 1MiB */
	OPT_T_PERCENT,	/* a number of percent, stored as a fraction */
	OPT_T_ENUM,	/* a name of .values, its value stored by size */
	OPT_T_STRING,	/* const char * */
	OPT_T_PATH,	/* const char *, a file read (completes as a file) */
	OPT_T_OUTPUT,	/* const char *, a file written (completes as a
			 * file; - is stdout where the command says so) */
	OPT_T_LIST,	/* repeatable: appended to a NULL-terminated char **
			 * (.off) counted by a size_t (.off2) */
	OPT_T_CALLBACK,	/* .cb with the value (or NULL with OPT_NOARG) */
};

enum {
	OPT_MIN_EXCL = 1,	/* .min itself is out of range */
	OPT_MAX_EXCL = 2,	/* .max itself is out of range */
	OPT_NONEMPTY = 4,	/* string, list: "" is refused */
	OPT_NOARG = 8,		/* callback: takes no value */
	OPT_FILES = 16,		/* callback, list: the value is a file */
};

struct opt_enum {
	const char *name;
	int value;
};

struct opt_entry;
/* A callback's value check: 0, or -1 with a message that does not name
 * the option (the layer puts "--name: " before it). */
typedef int (*opt_cb)(void *args, const struct opt_entry *o,
		      const char *arg, struct error *e);

struct opt_entry {
	enum opt_type type;
	char short_name;	/* 0: none */
	const char *long_name;	/* NULL: none */
	size_t off, size;	/* the field in the args struct */
	size_t off2;		/* a list's count */
	size_t given_at;	/* offset + 1 of a bool set when the option
				 * is given; 0: none */
	long lmin, lmax, step;	/* count */
	double min, max;	/* number, duration, percent; INFINITY:
				 * no bound */
	int flags;
	const struct opt_enum *values;	/* enum, ends with { NULL } */
	opt_cb cb;
	long data;		/* for the callback */
	const char *metavar;	/* the value's name in the help; default
				 * by type: N, T, BYTES, P, FILE, a|b */
	const char *help;	/* wrapped by the help generator */
	const char *defval;	/* shown as "default ...", instead of the
				 * value opt_cmd.init gives the field */
};

/* How options and operands mix on a command line. */
enum opt_mode {
	/* options anywhere among the operands, until "--" (compare, gate,
	 * history) */
	OPT_PERMUTE,
	/* options up to the first operand or "--" (load) */
	OPT_STOP_AT_OPERAND,
	/* everything after the first "--" is a program and its arguments;
	 * before it, options anywhere among the operands (run, record,
	 * mem) */
	OPT_PROGRAM,
};

struct opt_cmd {
	const char *name;		/* "run" */
	/* a program of its own, not a command of yardstick's (libyardstick's
	 * benchmark programs, lib/cli.c): the usage and the messages name
	 * it ("usage: ./bench [OPTIONS]", "./bench: ...") instead of
	 * "yardstick NAME"; NULL for yardstick's commands */
	const char *program;
	const char *summary;		/* one line, for `yardstick help` */
	const char *const *usage;	/* after "yardstick NAME ", NULL-ended */
	const char *description;	/* paragraphs before the options */
	const char *epilog;		/* paragraphs after them */
	/* the words the first operand may be (`store copy`), NULL-ended;
	 * NULL: any (completed as files) */
	const char *const *subcommands;
	enum opt_mode mode;
	const struct opt_entry *opts;	/* ends with OPT_END_ENTRY */
	/* The args struct, args_size bytes: opt_parse zeroes it and lets
	 * init (if any) set the defaults before parsing; the help shows
	 * each option's default from a struct made the same way, so the
	 * defaults are written once. init must not allocate. */
	size_t args_size;
	void (*init)(void *args);
};

/* Where the operands are after opt_parse: argv[first..end), moved there
 * (after the options, in their order) as getopt does; dashdash, in
 * OPT_PROGRAM mode, the index of the first "--" (argc when none: then
 * end == argc too). */
struct opt_rest {
	int first, end, dashdash;
};

/*
 * Parse argv (argv[0] is the command's name) into args. Returns 0; 1
 * after printing the help on stdout (-h, --help); -1 with a message that
 * names the option (a bad value, an unknown option, a missing value). A
 * long option may be abbreviated to any unambiguous prefix; short ones
 * may be bundled (-qr5); values follow as --opt=V, --opt V, -oV or -o V.
 */
int opt_parse(const struct opt_cmd *c, int argc, char **argv, void *args,
	      struct opt_rest *rest, struct error *e);
/* opt_parse, and what a command does with its result: 0 to go on, else
 * *exit_code is the exit code (0 after help, 2 after an error). */
bool opt_parse_or_exit(const struct opt_cmd *c, int argc, char **argv,
		       void *args, struct opt_rest *rest, int *exit_code);

/* The entry of c for --long_name; NULL if none. */
const struct opt_entry *opt_find(const struct opt_cmd *c,
				 const char *long_name);
/* Check arg as a value of o (one that takes a value) and store it into
 * args, as parsing does (a configuration file's value is checked so too):
 * 0, or -1 with a message that does not name the option. */
int opt_set(const struct opt_entry *o, const char *arg, void *args,
	    struct error *e);

/* The name among names[0..n) that word, a mistyped command or option,
 * most likely meant; NULL if none is near (util/suggest.h's rule). */
const char *opt_closest(const char *word, const char *const *names,
			size_t n);

/* The help text of a command, from its table. */
void opt_help(const struct opt_cmd *c, FILE *fp);

/* The defaults of c's options (its args struct made by its init), for
 * opt_describe; NULL when c has no args struct. free() it. */
char *opt_defaults(const struct opt_cmd *c);
/* What the help says of o, with the defaults d (may be NULL): *synopsis
 * ("-r, --runs N") and *text (the help, then its default and range in
 * parentheses), both allocated. The help, the manual pages and the
 * docs/cmd pages all take an option's words from here. */
void opt_describe(const struct opt_entry *o, const char *d, char **synopsis,
		  char **text);

/* Whether o takes a value (everything but flags, help and a callback
 * with OPT_NOARG). */
bool opt_takes_value(const struct opt_entry *o);
/* The name of o's value in the help ("N", "FILE", "a|b", its .metavar);
 * buf (n bytes) may hold it. */
const char *opt_metavar(const struct opt_entry *o, char *buf, size_t n);

/* The manual page yardstick-NAME(1) of c, in roff (cmd/options_doc.c). */
void opt_man(const struct opt_cmd *c, const char *version, FILE *fp);
/* The "Options" section of docs/cmd/NAME.md, in Markdown. */
void opt_markdown(const struct opt_cmd *c, FILE *fp);
/* Every option of c that takes a number, one a line: "NAME --OPTION TYPE
 * LOW HIGH X", TYPE count (X the step), number, duration, size or
 * percent (X the OPT_MIN_EXCL and OPT_MAX_EXCL flags): the list the
 * test of the number parsers is generated from (tests/cli/numbers.sh). */
void opt_numbers(const struct opt_cmd *c, FILE *fp);

/* The completion script of shell ("bash", "zsh", "fish") for the
 * commands cmds[0..n); -1 with e for an unknown shell. */
int opt_completion(const char *shell, const struct opt_cmd *const *cmds,
		   size_t n, FILE *fp, struct error *e);

/* ---- building tables: designated-initializer fragments --------------- */

/* A field of OPT_STRUCT, and that it has type T (a compile error if not). */
#define OPT_TYPED(f, T) \
	.off = offsetof(OPT_STRUCT, f) + 0 * sizeof(char[ \
		__builtin_types_compatible_p(__typeof__(((OPT_STRUCT *)0)->f), \
					     T) ? 1 : -1]), \
	.size = sizeof(((OPT_STRUCT *)0)->f)
#define OPT_FIELD(f) \
	.off = offsetof(OPT_STRUCT, f), .size = sizeof(((OPT_STRUCT *)0)->f)
/* Also set the bool field f when the option is given. */
#define OPT_SETS(f) .given_at = offsetof(OPT_STRUCT, f) + 1 + 0 * sizeof( \
	char[__builtin_types_compatible_p(__typeof__(((OPT_STRUCT *)0)->f), \
					  bool) ? 1 : -1])

#define OPT_NAMES(s, l) .short_name = (s), .long_name = (l)

#define OPT_FLAG(s, l, f) .type = OPT_T_FLAG, OPT_NAMES(s, l), \
	OPT_TYPED(f, bool)
#define OPT_COUNT(s, l, f, lo, hi) .type = OPT_T_COUNT, OPT_NAMES(s, l), \
	OPT_FIELD(f), .lmin = (lo), .lmax = (hi)
#define OPT_NUMBER(s, l, f, lo, hi) .type = OPT_T_NUMBER, OPT_NAMES(s, l), \
	OPT_TYPED(f, double), .min = (lo), .max = (hi)
#define OPT_DURATION(s, l, f) .type = OPT_T_DURATION, OPT_NAMES(s, l), \
	OPT_TYPED(f, double), .min = 0, .max = INFINITY
#define OPT_SIZE(s, l, f) .type = OPT_T_SIZE, OPT_NAMES(s, l), \
	OPT_TYPED(f, uint64_t)
#define OPT_PERCENT(s, l, f, lo, hi) .type = OPT_T_PERCENT, \
	OPT_NAMES(s, l), OPT_TYPED(f, double), .min = (lo), .max = (hi)
#define OPT_ENUM(s, l, f, table) .type = OPT_T_ENUM, OPT_NAMES(s, l), \
	OPT_FIELD(f), .values = (table)
#define OPT_STRING(s, l, f) .type = OPT_T_STRING, OPT_NAMES(s, l), \
	OPT_TYPED(f, const char *)
#define OPT_PATH(s, l, f) .type = OPT_T_PATH, OPT_NAMES(s, l), \
	OPT_TYPED(f, const char *)
#define OPT_OUTPUT(s, l, f) .type = OPT_T_OUTPUT, OPT_NAMES(s, l), \
	OPT_TYPED(f, const char *)
#define OPT_LIST(s, l, f, nf) .type = OPT_T_LIST, OPT_NAMES(s, l), \
	OPT_TYPED(f, char **), .off2 = offsetof(OPT_STRUCT, nf) + 0 * \
	sizeof(char[__builtin_types_compatible_p( \
		__typeof__(((OPT_STRUCT *)0)->nf), size_t) ? 1 : -1])
#define OPT_CALLBACK(s, l, fn) .type = OPT_T_CALLBACK, OPT_NAMES(s, l), \
	.cb = (fn)

/* ---- the options several commands share: validated here, once ------- */

#define OPT_HELP_ENTRY { .type = OPT_T_HELP, OPT_NAMES('h', "help"), \
	.help = "show this help" }
#define OPT_END_ENTRY { .type = OPT_T_END }
#define OPT_GROUP(title) { .type = OPT_T_GROUP, .help = (title) }
#define OPT_QUIET(f, text) OPT_FLAG('q', "quiet", f), .help = (text)
/* The bootstrap's (or a sample's) seed. */
#define OPT_SEED(f, text) OPT_COUNT(0, "seed", f, 0, LONG_MAX), \
	.help = (text)
/* Bootstrap resamples: a result with more than a reader takes
 * (RESULT_READ_MAX_RESAMPLES, result/result.h) could not be read back. */
#define OPT_RESAMPLES(f, text) OPT_COUNT(0, "resamples", f, 100, \
	RESULT_READ_MAX_RESAMPLES), .help = (text)
/* A significance level: above lo (or from lo, with lo_flags 0), below 1. */
#define OPT_ALPHA(f, lo, lo_flags, text) OPT_NUMBER(0, "alpha", f, \
	lo, 1), .flags = (lo_flags) | OPT_MAX_EXCL, .metavar = "A", \
	.help = (text)
/* The store: where a command that measures saves its result, where one
 * that reads results finds them (util/gitdir's rule, ref_open_store). */
#define OPT_STORE_SAVE(f) OPT_PATH(0, "store", f), .metavar = "PATH", \
	.help = "save the result in this store, a file or a postgresql:// " \
	"URL (default $YARDSTICK_STORE, else store = in yardstick.ini, " \
	"else .yardstick/results.db at the top of the git checkout, else " \
	"here)"
#define OPT_STORE_READ(f) OPT_PATH(0, "store", f), .metavar = "PATH", \
	.help = "the store results are read from, read-only, a file or a " \
	"postgresql:// URL (default $YARDSTICK_STORE, else store = in " \
	"yardstick.ini, else .yardstick/results.db at the top of the git " \
	"checkout, else here)"
#define OPT_NO_STORE(f) OPT_FLAG(0, "no-store", f), \
	.help = "do not save the result"
/* The outputs of a command that writes a result (run, bench): the fields
 * of --json, --csv, --markdown and --bmf, and what one value of a metric
 * is ("run", "epoch"). Four entries. */
#define OPT_RESULT_OUTPUTS(json, csv, markdown, bmf, one) \
	{ OPT_OUTPUT(0, "json", json), .help = "the result with every " \
	  "per-" one " value (- for stdout)" }, \
	{ OPT_OUTPUT(0, "csv", csv), \
	  .help = "one row per " one " with every metric" }, \
	{ OPT_OUTPUT(0, "markdown", markdown), \
	  .help = "a summary table for a pull-request comment" }, \
	{ OPT_OUTPUT(0, "bmf", bmf), \
	  .help = "Bencher Metric Format, for Bencher dashboards" }
#endif
