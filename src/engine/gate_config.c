/*
 * The [gate] sections of yardstick.ini, and its top-level store key: see
 * cmd/gate_config.h.
 */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "engine/gate_config.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/suggest.h"

const struct opt_enum gate_pass_fail[] = {
	{ "fail", 0 }, { "pass", 1 }, { NULL, 0 },
};

const struct opt_enum gate_corrections[] = {
	{ "holm", JUDGE_HOLM }, { "none", JUDGE_NO_CORRECTION }, { NULL, 0 },
};

/* alpha, inconclusive and missing of [gate], checked as the options */
#define OPT_STRUCT struct gate_config
static const struct opt_entry setting_options[] = {
	GATE_SETTING_OPTS(),
	OPT_END_ENTRY,
};
#undef OPT_STRUCT

static const struct opt_cmd settings = {
	.name = "gate",
	.opts = setting_options,
	.args_size = sizeof(struct gate_config),
};

void gate_config_init(struct gate_config *c)
{
	c->alpha = JUDGE_ALPHA;
	c->inconclusive_pass = c->missing_pass = c->correction = -1;
}

/* The same check: a threshold given twice is one test, not two in
 * Holm's family (which made the gate less sensitive). */
static bool same_check(const struct gate_threshold *a,
		       const struct gate_threshold *b)
{
	return str_same(a->pattern, b->pattern) &&
	       !strcmp(a->metric, b->metric) && a->stat == b->stat &&
	       a->kind == b->kind && a->relative == b->relative &&
	       str_same(a->unit_class, b->unit_class) && a->value == b->value;
}

int gate_config_add(struct gate_config *c, const char *spec,
		    enum gate_kind kind, const char *pattern, struct error *e)
{
	c->t = xrealloc(c->t, (c->nt + 1) * sizeof(*c->t));
	if (gate_parse(spec, kind, pattern, &c->t[c->nt], e))
		return -1;
	for (size_t i = 0; i < c->nt; i++)
		if (same_check(&c->t[i], &c->t[c->nt])) {
			gate_threshold_free(&c->t[c->nt]);
			return 0;
		}
	c->nt++;
	return 0;
}

void gate_config_free(struct gate_config *c)
{
	for (size_t i = 0; i < c->nt; i++)
		gate_threshold_free(&c->t[i]);
	free(c->t);
	c->t = NULL;
	c->nt = 0;
}

struct reader {
	struct gate_config *c;
	struct error e;
	bool failed;
	char seen[4][16];	/* the [gate] settings given so far */
	size_t nseen;
};

/* [gate] or [gate "PATTERN"]; false when the section is not a gate one. */
static bool gate_section(const char *section, char *pattern, size_t n)
{
	size_t len;

	pattern[0] = '\0';
	if (!strcmp(section, "gate"))
		return true;
	if (strncmp(section, "gate \"", 6))
		return false;
	len = strlen(section + 6);
	/* [gate ""] is an empty pattern: on_ini_line reports it */
	if (len < 1 || section[6 + len - 1] != '"' || len - 1 >= n)
		return false;
	memcpy(pattern, section + 6, len - 1);
	pattern[len - 1] = '\0';
	return true;
}

static int fail(struct reader *r)
{
	r->failed = true;
	return 0;
}

static int setting(struct reader *r, const char *name, const char *value,
		   const char *where)
{
	/* checked as the option of that name is, into a copy: the command
	 * line wins */
	struct gate_config ini = *r->c;
	struct error e;

	/* given twice: the last one was taken without a word */
	for (size_t i = 0; i < r->nseen; i++)
		if (!strcmp(r->seen[i], name)) {
			error_set(&r->e, "%s: given twice in [gate]", where);
			return fail(r);
		}
	if (r->nseen < sizeof(r->seen) / sizeof(r->seen[0]))
		snprintf(r->seen[r->nseen++], sizeof(r->seen[0]), "%s", name);
	if (opt_set(opt_find(&settings, name), value, &ini, &e)) {
		error_set(&r->e, "%s: %.880s", where, e.msg);
		return fail(r);
	}
	if (!r->c->alpha_given)
		r->c->alpha = ini.alpha;
	if (r->c->inconclusive_pass < 0)
		r->c->inconclusive_pass = ini.inconclusive_pass;
	if (r->c->missing_pass < 0)
		r->c->missing_pass = ini.missing_pass;
	if (r->c->correction < 0)
		r->c->correction = ini.correction;
	return 1;
}

/* A key of [gate] that is none of them: named, with the one it most
 * likely meant. */
static int unknown_key(struct reader *r, const char *name, const char *where)
{
	static const char *const known[] = {
		"max-increase", "max-decrease", "limit", "alpha",
		"inconclusive", "missing", "correction",
	};
	const char *near = suggest_closest(name, known,
					   sizeof(known) / sizeof(known[0]));
	char hint[64] = "";

	if (near)
		snprintf(hint, sizeof(hint), "; did you mean '%s'?", near);
	error_set(&r->e, "%s: unknown key (max-increase, max-decrease, "
		  "limit, alpha, inconclusive, missing, correction)%s", where,
		  hint);
	return fail(r);
}

/*
 * A line outside the [gate] sections. yardstick.ini holds nothing but
 * them and the top-level store key, so anything else is a mistake that
 * would drop thresholds without a word: [gaet], [Gate], [gate sort*]
 * (the pattern unquoted), a threshold above the first section.
 */
static int other_line(struct reader *r, const char *section,
		      const char *name)
{
	static const char *const sections[] = { "gate" };

	if (!*section) {
		if (!strcmp(name, "store"))
			return 1;
		error_set(&r->e, "'%s': unknown key '%s' before any section "
			  "(only store = goes there; thresholds go in "
			  "[gate])", r->c->path, name);
		return fail(r);
	}
	if (!strncmp(section, "gate ", 5)) {
		/* the pattern as it was meant: without stray quotes */
		const char *p = section + 5 + strspn(section + 5, " '\"");
		size_t len = strlen(p);

		while (len && strchr("'\"", p[len - 1]))
			len--;
		error_set(&r->e, "'%s' [%s]: a pattern goes in double quotes: "
			  "[gate \"%.*s\"]", r->c->path, section, (int)len, p);
	} else if (suggest_closest(section, sections, 1) ||
		 !strcasecmp(section, "gate"))
		error_set(&r->e, "'%s' [%s]: unknown section; did you mean "
			  "[gate]?", r->c->path, section);
	else
		error_set(&r->e, "'%s' [%s]: unknown section (yardstick.ini "
			  "has [gate] and [gate \"PATTERN\"])", r->c->path,
			  section);
	return fail(r);
}

static int on_ini_line(void *user, const char *section, const char *name,
		       const char *value)
{
	static const struct { const char *key; enum gate_kind kind; } keys[] = {
		{ "max-increase", GATE_INCREASE },
		{ "max-decrease", GATE_DECREASE },
		{ "limit", GATE_LIMIT },
	};
	struct reader *r = user;
	char pattern[256], where[300];
	bool scalar = !strcmp(name, "alpha") ||
		      !strcmp(name, "inconclusive") ||
		      !strcmp(name, "missing") ||
		      !strcmp(name, "correction");

	if (r->failed)		/* the first error is the one told */
		return 0;
	if (!gate_section(section, pattern, sizeof(pattern)))
		return other_line(r, section, name);
	/* (inih never passes NULL; said so for GCC, whose
	 * -Wformat-truncation with the sanitizers at -O2 thinks it may) */
	snprintf(where, sizeof(where), "'%s' [%s] %s", r->c->path,
		 section ? section : "", name ? name : "");
	if (!*pattern && strcmp(section, "gate")) {
		error_set(&r->e, "'%s' [%s]: an empty pattern (write [gate] "
			  "for every benchmark)", r->c->path, section);
		return fail(r);
	}
	if (scalar && *pattern) {
		error_set(&r->e, "%s: %s belongs in [gate], for every check",
			  where, name);
		return fail(r);
	}
	if (scalar)
		return setting(r, name, value, where);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct error e;

		if (strcmp(name, keys[i].key))
			continue;
		if (gate_config_add(r->c, value, keys[i].kind,
				    *pattern ? pattern : NULL, &e)) {
			error_set(&r->e, "%s: %s", where, e.msg);
			return fail(r);
		}
		return 1;
	}
	return unknown_key(r, name, where);
}

/*
 * The INI file at path through inih, read whole first (file_read_all), so
 * that a directory, a missing or unreadable file is an error with its
 * reason (inih's own fopen read a directory as an empty file: no
 * thresholds, without a word) and an endless one is refused. Returns
 * inih's answer (0, or the first bad line) or -1 with e set.
 */
static int parse_file(const char *path, ini_handler fn, void *user,
		      struct error *e)
{
	char *data;
	size_t len;
	int line;

	if (file_read_all(path, &data, &len, e))
		return -1;
	if (memchr(data, '\0', len)) {
		free(data);
		return error_set(e, "cannot read '%s': a NUL byte: not a text "
				 "file", path);
	}
	line = ini_parse_string(data, fn, user);
	free(data);
	return line;
}

int gate_config_read(struct gate_config *c, struct error *e)
{
	struct reader r = { .c = c };
	int line;

	if (!c->path) {
		if (access("yardstick.ini", F_OK))
			return 0;
		c->path = "yardstick.ini";
	}
	line = parse_file(c->path, on_ini_line, &r, e);
	if (line < 0)
		return -1;
	if (r.failed) {
		*e = r.e;
		return -1;
	}
	if (line > 0)
		return error_set(e, "'%s' line %d: syntax error", c->path,
				 line);
	return 0;
}

struct store_key {
	char *value;
	int line;
};

static int on_store_line(void *user, const char *section, const char *name,
			 const char *value)
{
	struct store_key *k = user;

	if (!*section && !strcmp(name, "store")) {
		free(k->value);
		k->value = xstrdup(value);
	}
	return 1;
}

int config_store(char **store, struct error *e)
{
	struct store_key k = { 0 };
	int line;

	*store = NULL;
	if (access("yardstick.ini", F_OK))
		return 0;
	line = parse_file("yardstick.ini", on_store_line, &k, e);
	if (line < 0) {
		free(k.value);
		return -1;
	}
	if (line > 0) {
		free(k.value);
		return error_set(e, "'yardstick.ini' line %d: syntax error",
				 line);
	}
	if (k.value && !*k.value) {
		free(k.value);
		return error_set(e, "'yardstick.ini': store: an empty value");
	}
	*store = k.value;
	return 0;
}
