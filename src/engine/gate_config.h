/*
 * The gate's thresholds and settings: the [gate] sections of
 * yardstick.ini (or --config FILE), shared by `yardstick gate`, which
 * judges by them, and `yardstick report`, which draws them. A command
 * embeds a struct gate_config in its args and names its fields in its
 * option table (GATE_CONFIG_OPT for --config, GATE_SETTING_OPTS for
 * --alpha, --inconclusive, --missing, --correction), so that a value on the command line
 * and one in the file are checked alike and the command line wins.
 */
#ifndef YS_CMD_GATE_CONFIG_H
#define YS_CMD_GATE_CONFIG_H

#include <stdbool.h>

#include "util/options.h"
#include "result/gate.h"
#include "stats/shift.h"
#include "util/error.h"

struct gate_config {
	const char *path;	/* --config; NULL: yardstick.ini if present */
	struct gate_threshold *t;	/* the command line's, then the file's */
	size_t nt;
	double alpha;		/* default 0.01 */
	bool alpha_given;
	int inconclusive_pass, missing_pass;	/* -1: not given */
	int correction;		/* enum judge_correction; -1: not given */
};

extern const struct opt_enum gate_pass_fail[];
extern const struct opt_enum gate_corrections[];

/* The option entries of the fields of struct gate_config c, a field of
 * OPT_STRUCT named by P ("cfg." or empty), with their help. */
#define GATE_CONFIG_OPT(P) OPT_PATH(0, "config", P path), \
	.help = "thresholds from the [gate] sections of FILE (default: " \
	"yardstick.ini, if present)"
#define GATE_SETTING_OPTS(P) \
	{ OPT_ALPHA(P alpha, SHIFT_ALPHA_MIN, 0, "significance level"), \
	  OPT_SETS(P alpha_given) }, \
	{ OPT_ENUM(0, "inconclusive", P inconclusive_pass, gate_pass_fail), \
	  .defval = "fail", .help = "a check too few runs could decide " \
	  "fails the gate or passes" }, \
	{ OPT_ENUM(0, "missing", P missing_pass, gate_pass_fail), \
	  .defval = "fail", .help = "a check that cannot be made (a " \
	  "benchmark or metric on one side only, no measured value: every " \
	  "run timed out) fails the gate or passes" }, \
	{ OPT_ENUM(0, "correction", P correction, gate_corrections), \
	  .defval = "holm", .help = "holm: a false alarm among all the " \
	  "checks of the gate has probability at most alpha (Holm-" \
	  "Bonferroni); none: each check on its own" }

void gate_config_init(struct gate_config *c);

/* A threshold (of the command line: pattern NULL): 0, or -1 with a
 * message quoting spec. */
int gate_config_add(struct gate_config *c, const char *spec,
		    enum gate_kind kind, const char *pattern, struct error *e);

/*
 * Read the [gate] sections of c->path (NULL: ./yardstick.ini when there is
 * one, else nothing): thresholds appended, alpha, inconclusive and missing
 * set where the command line left them. 0, or -1 with a message naming
 * the file and the section or line.
 */
int gate_config_read(struct gate_config *c, struct error *e);

/*
 * The store named by the top-level key `store = PATH-OR-URL` of
 * ./yardstick.ini (before any section), malloc'd in *store; NULL when
 * there is no such file or key. 0, or -1 with a message naming the file
 * (unreadable, a syntax error, an empty value).
 */
int config_store(char **store, struct error *e);

void gate_config_free(struct gate_config *c);

#endif
