/*
 * The options layer (options.h): parsing a command line against a
 * command's table and the help text generated from the same table (the
 * shell completions: options_complete.c; the manual: options_doc.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "util/strutil.h"
#include "util/suggest.h"

/* ---- values --------------------------------------------------------- */

/* "--runs", or "-x" for an entry without a long name. */
static const char *name_of(const struct opt_entry *o, char buf[64])
{
	if (o->long_name)
		snprintf(buf, 64, "--%s", o->long_name);
	else
		snprintf(buf, 64, "-%c", o->short_name);
	return buf;
}

bool opt_takes_value(const struct opt_entry *o)
{
	switch (o->type) {
	case OPT_T_HELP:
	case OPT_T_FLAG:
		return false;
	case OPT_T_CALLBACK:
		return !(o->flags & OPT_NOARG);
	default:
		return true;
	}
}

static void store_uint(void *p, size_t size, unsigned long long v)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = (uint64_t)v; break;
	}
}

/* "from 1 to 64", ">= 1", "> 0 and < 1"; "" without bounds. In words
 * for the help: "at least 1", "above 0 and below 1". */
static void range_text(double lo, double hi, int flags, bool words,
		       char *buf, size_t n)
{
	bool has_lo = lo != -INFINITY, has_hi = hi != INFINITY;
	const char *gt = flags & OPT_MIN_EXCL ? (words ? "above" : ">")
					      : (words ? "at least" : ">=");
	const char *lt = flags & OPT_MAX_EXCL ? (words ? "below" : "<")
					      : (words ? "at most" : "<=");

	if (has_lo && has_hi && !(flags & (OPT_MIN_EXCL | OPT_MAX_EXCL)))
		snprintf(buf, n, "from %.15g to %.15g", lo, hi);
	else if (has_lo && has_hi)
		snprintf(buf, n, "%s %.15g and %s %.15g", gt, lo, lt, hi);
	else if (has_lo)
		snprintf(buf, n, "%s %.15g", gt, lo);
	else if (has_hi)
		snprintf(buf, n, "%s %.15g", lt, hi);
	else
		buf[0] = '\0';
}

static void count_range(const struct opt_entry *o, bool words, char *buf,
			size_t n)
{
	if (o->step > 1)
		snprintf(buf, n, "a multiple of %ld from %ld to %ld", o->step,
			 o->lmin, o->lmax);
	else if (o->lmax == LONG_MAX)
		snprintf(buf, n, "%s %ld", words ? "at least" : ">=", o->lmin);
	else
		snprintf(buf, n, "from %ld to %ld", o->lmin, o->lmax);
}

static bool in_range(double v, const struct opt_entry *o)
{
	if (o->flags & OPT_MIN_EXCL ? !(v > o->min) : !(v >= o->min))
		return false;
	return o->flags & OPT_MAX_EXCL ? v < o->max : v <= o->max;
}

/* "a, b or c" */
static void enum_names(const struct opt_enum *v, const char *sep,
		       const char *last, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; v[i].name && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					i == 0 ? "" : v[i + 1].name ? sep : last,
					v[i].name);
}

/* A number; a percentage may end in '%' ("20%" as "20"). */
static int parse_number(const char *arg, bool percent, double *d)
{
	size_t n = strlen(arg);
	char buf[64];

	if (!percent || !n || arg[n - 1] != '%')
		return parse_double(arg, d);
	if (n - 1 >= sizeof(buf))
		return -1;
	memcpy(buf, arg, n - 1);
	buf[n - 1] = '\0';
	return parse_double(buf, d);
}

static void list_add(void *args, const struct opt_entry *o, const char *v)
{
	char ***list = (char ***)((char *)args + o->off);
	size_t *n = (size_t *)((char *)args + o->off2);

	*list = xrealloc(*list, (*n + 2) * sizeof(char *));
	(*list)[(*n)++] = (char *)v;
	(*list)[*n] = NULL;
}

const struct opt_entry *opt_find(const struct opt_cmd *c,
				 const char *long_name)
{
	for (const struct opt_entry *o = c->opts; o->type; o++)
		if (o->long_name && !strcmp(o->long_name, long_name))
			return o;
	return NULL;
}

int opt_set(const struct opt_entry *o, const char *arg, void *args,
	    struct error *e)
{
	void *field = (char *)args + o->off;
	char range[128];
	double d;
	long l;

	switch (o->type) {
	case OPT_T_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_T_COUNT:
		if (parse_long(arg, &l) || l < o->lmin || l > o->lmax ||
		    (o->step > 1 && l % o->step)) {
			count_range(o, false, range, sizeof(range));
			return error_set(e, "'%s' is not %s%s", arg,
					 o->step > 1 ? "" : "a whole number ",
					 range);
		}
		store_uint(field, o->size, (unsigned long long)l);
		return 0;
	case OPT_T_NUMBER:
	case OPT_T_PERCENT:
		if (parse_number(arg, o->type == OPT_T_PERCENT, &d) ||
		    !in_range(d, o)) {
			range_text(o->min, o->max, o->flags, false, range,
				   sizeof(range));
			return error_set(e, "'%s' is not a %s %s", arg,
					 o->type == OPT_T_PERCENT ? "percentage"
					 : "number", range);
		}
		*(double *)field = o->type == OPT_T_PERCENT ? d / 100 : d;
		return 0;
	case OPT_T_DURATION:
		if (parse_duration(arg, &d) || !in_range(d, o)) {
			range_text(o->min == 0 && !(o->flags & OPT_MIN_EXCL)
				   ? -INFINITY : o->min, o->max, o->flags,
				   false, range, sizeof(range));
			return error_set(e, "'%s' is not a duration%s%s (a "
					 "number of seconds, or with a unit s, "
					 "ms, us, ns)", arg, *range ? " " : "",
					 range);
		}
		*(double *)field = d;
		return 0;
	case OPT_T_SIZE:
		if (parse_size(arg, (uint64_t *)field))
			return error_set(e, "'%s' is not a size in bytes (e.g. "
					 "524288 or 512k)", arg);
		return 0;
	case OPT_T_ENUM:
		for (size_t i = 0; o->values[i].name; i++)
			if (!strcmp(arg, o->values[i].name)) {
				store_uint(field, o->size,
					   (unsigned)o->values[i].value);
				return 0;
			}
		enum_names(o->values, ", ", " or ", range, sizeof(range));
		return error_set(e, "'%s' is not %s", arg, range);
	case OPT_T_STRING:
	case OPT_T_PATH:
	case OPT_T_OUTPUT:
	case OPT_T_LIST:
		/* a file is never named "" */
		if (!*arg && ((o->flags & OPT_NONEMPTY) ||
			      o->type == OPT_T_PATH ||
			      o->type == OPT_T_OUTPUT))
			return error_set(e, "an empty value");
		if (o->type == OPT_T_LIST)
			list_add(args, o, arg);
		else
			*(const char **)field = arg;
		return 0;
	case OPT_T_CALLBACK:
		return o->cb(args, o, arg, e);
	default:
		return error_set(e, "not an option with a value");
	}
}

/* ---- parsing -------------------------------------------------------- */

struct parser {
	const struct opt_cmd *c;
	int argc, end;
	char **argv;
	void *args;
	struct error *e;
	bool unknown;	/* the error is an unknown option, nothing near it */
	/* the output options given so far, by index in c->opts: a second
	 * --json FILE would drop the first file unwritten */
	bool output_seen[256];
};

static int apply(struct parser *p, const struct opt_entry *o,
		 const char *arg)
{
	char name[64];
	struct error ve;

	if (o->type == OPT_T_HELP) {
		opt_help(p->c, stdout);
		return 1;
	}
	if (o->type == OPT_T_OUTPUT && (size_t)(o - p->c->opts) < 256) {
		size_t k = (size_t)(o - p->c->opts);
		const char *before = *(const char **)((char *)p->args + o->off);

		if (p->output_seen[k] && arg && before && strcmp(before, arg))
			return error_set(p->e, "%s: given twice ('%s', then "
					 "'%s'): it writes one file",
					 name_of(o, name), before, arg);
		p->output_seen[k] = true;
	}
	if (opt_set(o, arg, p->args, &ve))
		return error_set(p->e, "%s: %s", name_of(o, name), ve.msg);
	if (o->given_at)
		*(bool *)((char *)p->args + o->given_at - 1) = true;
	return 0;
}

const char *opt_closest(const char *word, const char *const *names,
			size_t n)
{
	return suggest_closest(word, names, n);
}

/* "unknown option '--rnus'; did you mean '--runs'?" */
static void unknown_long(struct parser *p, const char *s, size_t len)
{
	const char *names[256];
	char word[128];
	const char *near;
	size_t n = 0;

	for (const struct opt_entry *o = p->c->opts; o->type && n < 256; o++)
		if (o->long_name)
			names[n++] = o->long_name;
	snprintf(word, sizeof(word), "%.*s", (int)len, s);
	near = len < sizeof(word) ? suggest_closest(word, names, n) : NULL;
	if (near)
		error_set(p->e, "unknown option '--%.*s'; did you mean "
			  "'--%s'?", (int)len, s, near);
	else {
		error_set(p->e, "unknown option '--%.*s'", (int)len, s);
		p->unknown = true;
	}
}

/* The entry a long option names: exactly, else by an unambiguous
 * prefix. */
static const struct opt_entry *find_long(struct parser *p, const char *s,
					 size_t len)
{
	const struct opt_entry *found = NULL;
	char names[512];
	size_t n = 0, k = 0;

	for (const struct opt_entry *o = p->c->opts; o->type; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    !strncmp(o->long_name, s, len))
			return o;
	names[0] = '\0';
	for (const struct opt_entry *o = p->c->opts; o->type; o++)
		if (o->long_name && !strncmp(o->long_name, s, len)) {
			found = o;
			n++;
			if (k < sizeof(names))
				k += (size_t)snprintf(names + k,
						      sizeof(names) - k,
						      "%s--%s", n > 1 ? ", " : "",
						      o->long_name);
		}
	if (n == 1)
		return found;
	if (n > 1)
		error_set(p->e, "ambiguous option '--%.*s' (%s)", (int)len, s,
			  names);
	else
		unknown_long(p, s, len);
	return NULL;
}

static int missing(struct parser *p, const struct opt_entry *o)
{
	char name[64];

	return error_set(p->e, "%s: needs a value", name_of(o, name));
}

/* argv[*i] is "--name" or "--name=value". */
static int long_opt(struct parser *p, int *i)
{
	const char *s = p->argv[*i] + 2, *eq = strchr(s, '=');
	size_t len = eq ? (size_t)(eq - s) : strlen(s);
	const struct opt_entry *o = find_long(p, s, len);
	char name[64];

	if (!o)
		return -1;
	if (!opt_takes_value(o)) {
		if (eq)
			return error_set(p->e, "%s: takes no value",
					 name_of(o, name));
		return apply(p, o, NULL);
	}
	if (eq)
		return apply(p, o, eq + 1);
	if (*i + 1 >= p->end)
		return missing(p, o);
	return apply(p, o, p->argv[++*i]);
}

/* argv[*i] is "-abc": flags, the last may take a value ("-r5", "-r 5"). */
static int short_opts(struct parser *p, int *i)
{
	const char *s = p->argv[*i];

	for (size_t j = 1; s[j]; j++) {
		const struct opt_entry *o = p->c->opts;
		int r;

		while (o->type && o->short_name != s[j])
			o++;
		if (!o->type) {
			p->unknown = true;
			return error_set(p->e, "unknown option '-%c'", s[j]);
		}
		if (!opt_takes_value(o)) {
			r = apply(p, o, NULL);
			if (r)
				return r;
			continue;
		}
		if (s[j + 1])
			return apply(p, o, s + j + 1);
		if (*i + 1 >= p->end)
			return missing(p, o);
		return apply(p, o, p->argv[++*i]);
	}
	return 0;
}

/* An option unknown to a command that runs a program, after an operand
 * and with no "--": most likely the program's own (`record ls -l`), so the
 * message says where those go, with the usage line that has the "--". */
static void program_hint(const struct opt_cmd *c, char **argv,
			 const bool *operand, struct error *e)
{
	const char *usage = NULL;
	char msg[sizeof(e->msg)];
	int i = 1;

	for (size_t k = 0; c->usage[k] && !usage; k++)
		if (strstr(c->usage[k], "-- PROGRAM"))
			usage = c->usage[k];
	if (!usage)
		return;
	while (!operand[i])
		i++;
	snprintf(msg, sizeof(msg), "%s", e->msg);
	error_set(e, "%s; if it is an option of '%s', put the program after "
		  "'--': yardstick %s %s", msg, argv[i], c->name, usage);
}

int opt_parse(const struct opt_cmd *c, int argc, char **argv, void *args,
	      struct opt_rest *rest, struct error *e)
{
	struct parser p = { .c = c, .argc = argc, .end = argc, .argv = argv,
			    .args = args, .e = e };
	bool *operand;
	char **copy;
	int i, nops = 0, k = 1, r = 0;

	if (c->args_size) {
		memset(args, 0, c->args_size);
		if (c->init)
			c->init(args);
	}
	rest->dashdash = argc;
	if (c->mode == OPT_PROGRAM)
		for (i = 1; i < argc; i++)
			if (!strcmp(argv[i], "--")) {
				rest->dashdash = p.end = i;
				break;
			}
	operand = xcalloc((size_t)argc + 1, sizeof(*operand));
	for (i = 1; i < p.end && !r; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			/* (in OPT_PROGRAM mode, p.end is there already) */
			if (c->mode == OPT_STOP_AT_OPERAND) {
				i++;
				break;
			}
			for (i++; i < p.end; i++, nops++)
				operand[i] = true;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (c->mode == OPT_STOP_AT_OPERAND)
				break;
			operand[i] = true;
			nops++;
			continue;
		}
		r = a[1] == '-' ? long_opt(&p, &i) : short_opts(&p, &i);
	}
	if (r) {
		if (r < 0 && p.unknown && nops && c->mode == OPT_PROGRAM &&
		    rest->dashdash == argc)
			program_hint(c, argv, operand, e);
		free(operand);
		return r > 0 ? 1 : -1;
	}
	if (c->mode == OPT_STOP_AT_OPERAND) {
		/* the operands stay where they are */
		rest->first = i;
		rest->end = argc;
		free(operand);
		return 0;
	}
	/* The options first, then the operands, each in their order. */
	copy = xmalloc((size_t)p.end * sizeof(*copy));
	memcpy(copy, argv, (size_t)p.end * sizeof(*copy));
	for (i = 1; i < p.end; i++)
		if (!operand[i])
			argv[k++] = copy[i];
	rest->first = k;
	for (i = 1; i < p.end; i++)
		if (operand[i])
			argv[k++] = copy[i];
	rest->end = p.end;
	free(copy);
	free(operand);
	return 0;
}

/* "yardstick NAME: message" (or "PROGRAM: message") on stderr; returns
 * 2, the usage exit code. */
static int opt_error(const struct opt_cmd *c, const struct error *e)
{
	if (c->program)
		fprintf(stderr, "%s: %s\n", c->program, e->msg);
	else
		fprintf(stderr, "yardstick %s: %s\n", c->name, e->msg);
	return 2;
}

bool opt_parse_or_exit(const struct opt_cmd *c, int argc, char **argv,
		       void *args, struct opt_rest *rest, int *exit_code)
{
	struct error e;
	int r = opt_parse(c, argc, argv, args, rest, &e);

	if (r == 0)
		return true;
	*exit_code = r > 0 ? 0 : opt_error(c, &e);
	return false;
}

/* ---- help ----------------------------------------------------------- */

#define HELP_WIDTH 79
#define HELP_COLUMN 26

const char *opt_metavar(const struct opt_entry *o, char *buf, size_t n)
{
	if (o->metavar)
		return o->metavar;
	switch (o->type) {
	case OPT_T_ENUM:
		enum_names(o->values, "|", "|", buf, n);
		return buf;
	case OPT_T_COUNT: return "N";
	case OPT_T_DURATION: return "T";
	case OPT_T_SIZE: return "BYTES";
	case OPT_T_PERCENT: return "P";
	case OPT_T_PATH:
	case OPT_T_OUTPUT: return "FILE";
	default: return "VALUE";
	}
}

static unsigned long long load_uint(const void *p, size_t size)
{
	switch (size) {
	case 1: return *(const uint8_t *)p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

/* A duration in the largest unit that keeps it whole: 3s, 250ms, 10us. */
static void duration_text(double v, char *buf, size_t n)
{
	static const struct { const char *unit; double scale; } u[] = {
		{ "s", 1 }, { "ms", 1e3 }, { "us", 1e6 }, { "ns", 1e9 },
	};
	size_t i = 0;

	while (i + 1 < sizeof(u) / sizeof(u[0]) &&
	       fabs(v * u[i].scale - round(v * u[i].scale)) > 1e-9)
		i++;
	snprintf(buf, n, "%.15g%s", v * u[i].scale, u[i].unit);
}

/* The text of o's value in the defaults d ("" when there is nothing to
 * say: no value, zero, NULL). */
static void default_text(const struct opt_entry *o, const char *d,
			 char *buf, size_t n)
{
	const void *f = d + o->off;
	double v;

	buf[0] = '\0';
	switch (o->type) {
	case OPT_T_COUNT:
	case OPT_T_SIZE:
		if (load_uint(f, o->size))
			snprintf(buf, n, "%llu", load_uint(f, o->size));
		break;
	case OPT_T_NUMBER:
	case OPT_T_PERCENT:
		memcpy(&v, f, sizeof(v));
		if (v != 0)
			snprintf(buf, n, "%g", o->type == OPT_T_PERCENT ?
				 v * 100 : v);
		break;
	case OPT_T_DURATION:
		memcpy(&v, f, sizeof(v));
		if (v != 0)
			duration_text(v, buf, n);
		break;
	case OPT_T_ENUM: {
		int k = (int)load_uint(f, o->size);

		for (size_t i = 0; o->values[i].name; i++)
			if (o->values[i].value == k) {
				snprintf(buf, n, "%s", o->values[i].name);
				break;
			}
		break;
	}
	case OPT_T_STRING:
	case OPT_T_PATH:
	case OPT_T_OUTPUT: {
		const char *str;

		memcpy(&str, f, sizeof(str));
		if (str)
			snprintf(buf, n, "%s", str);
		break;
	}
	default:
		break;
	}
}

/* The parenthesis after the help: default (o->defval, else the value in
 * the defaults d, if any; none when the help states it, with a word on
 * it: "(default 1; 0 with --runs 1 ...)"), range, the names of an enum
 * whose metavar does not list them. */
static void help_suffix(const struct opt_entry *o, const char *d, char *buf,
			size_t n)
{
	char range[256] = "", dflt[128] = "";
	bool said = o->help && strstr(o->help, "(default ");
	size_t len = 0;

	buf[0] = '\0';
	if (o->defval && !said)
		snprintf(dflt, sizeof(dflt), "%s", o->defval);
	else if (d && !said)
		default_text(o, d, dflt, sizeof(dflt));
	if (*dflt)
		len += (size_t)snprintf(buf, n, "default %s", dflt);
	if (o->type == OPT_T_COUNT && (o->lmin > 0 || o->lmax != LONG_MAX ||
				       o->step > 1))
		count_range(o, true, range, sizeof(range));
	else if (o->type == OPT_T_NUMBER || o->type == OPT_T_PERCENT ||
		 (o->type == OPT_T_DURATION && (o->min != 0 ||
		  (o->flags & OPT_MIN_EXCL) || o->max != INFINITY)))
		range_text(o->type == OPT_T_DURATION && !(o->flags &
			   OPT_MIN_EXCL) && o->min == 0 ? -INFINITY : o->min,
			   o->max, o->flags, true, range, sizeof(range));
	else if (o->type == OPT_T_ENUM && o->metavar) {
		strcpy(range, "one of ");
		enum_names(o->values, ", ", ", ", range + 7,
			   sizeof(range) - 7);
	}
	if (*range && len < n)
		snprintf(buf + len, n - len, "%s%s", len ? "; " : "", range);
}

/* Words of text from column col, wrapped at HELP_WIDTH to indent. */
static void wrap(FILE *fp, const char *text, size_t col, size_t indent)
{
	const char *p = text;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > indent && col + 1 + w > HELP_WIDTH) {
			fprintf(fp, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', fp);
			col++;
		}
		fwrite(p, 1, w, fp);
		col += w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', fp);
}

void opt_describe(const struct opt_entry *o, const char *d, char **synopsis,
		  char **text)
{
	char mv[256], suffix[512];

	char shortopt[3] = { '-', o->short_name, '\0' };

	*synopsis = xasprintf("%s%s%s%s%s%s", o->short_name ? shortopt : "",
			      o->short_name && o->long_name ? ", " : "",
			      o->long_name ? "--" : "",
			      o->long_name ? o->long_name : "",
			      opt_takes_value(o) ? " " : "",
			      opt_takes_value(o) ? opt_metavar(o, mv, sizeof(mv)) : "");
	help_suffix(o, d, suffix, sizeof(suffix));
	*text = *suffix ? xasprintf("%s (%s)", o->help ? o->help : "", suffix)
			: xstrdup(o->help ? o->help : "");
}

char *opt_defaults(const struct opt_cmd *c)
{
	char *d = c->args_size ? xcalloc(1, c->args_size) : NULL;

	if (d && c->init)
		c->init(d);
	return d;
}

static void help_option(const struct opt_entry *o, const char *d, FILE *fp)
{
	char *synopsis, *text;
	int len;

	opt_describe(o, d, &synopsis, &text);
	/* a long option alone lines up with those after a short one */
	len = fprintf(fp, "  %s%s", o->short_name ? "" : "    ", synopsis);
	if (len + 2 > HELP_COLUMN)
		fprintf(fp, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(fp, "%*s", HELP_COLUMN - len, "");
	wrap(fp, text, HELP_COLUMN, HELP_COLUMN);
	free(synopsis);
	free(text);
}

void opt_help(const struct opt_cmd *c, FILE *fp)
{
	char *d = opt_defaults(c);
	bool first = true;

	for (size_t i = 0; c->usage[i]; i++)
		if (c->program)
			fprintf(fp, "%s %s %s\n", i ? "      " : "usage:",
				c->program, c->usage[i]);
		else
			fprintf(fp, "%s yardstick %s %s\n",
				i ? "      " : "usage:", c->name, c->usage[i]);
	if (c->description)
		fprintf(fp, "\n%s", c->description);
	for (const struct opt_entry *o = c->opts; o->type; o++) {
		if (o->type == OPT_T_GROUP) {
			fprintf(fp, "\n%s\n", o->help);
			first = false;
			continue;
		}
		if (first) {
			fputs("\nOptions\n", fp);
			first = false;
		}
		help_option(o, d, fp);
	}
	if (c->epilog)
		fprintf(fp, "\n%s", c->epilog);
	free(d);
}
