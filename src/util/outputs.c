/* The output set (outputs.h). */
#include "util/outputs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/strutil.h"

bool output_is_stdout(const char *path)
{
	struct stat a, b;

	if (!path)
		return false;
	if (!strcmp(path, "-"))
		return true;
	if (fstat(STDOUT_FILENO, &a) || stat(path, &b) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return false;
	/* a device where nothing can mix (/dev/null, every output and the
	 * report may go there) is not stdout; a terminal is */
	return !S_ISCHR(b.st_mode) || isatty(STDOUT_FILENO);
}

bool output_ext_fits(const char *path, const char *const *exts)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t n = strlen(path);

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	/* "-", "out", ".hidden": no extension to contradict */
	if (!dot || dot == base)
		return true;
	for (; *exts; exts++) {
		size_t k = strlen(*exts);

		if (n > k && !strcasecmp(path + n - k, *exts))
			return true;
	}
	return false;
}

/* The formats a file's name may say, by extension (the longest that
 * matches wins: .speedscope.json before .json), and how a message names
 * each. */
static const struct {
	const char *ext, *format;
} name_exts[] = {
	{ ".speedscope.json", "speedscope" }, { ".json", "json" },
	{ ".csv", "csv" }, { ".md", "markdown" }, { ".markdown", "markdown" },
	{ ".xml", "junit" }, { ".svg", "svg" }, { ".html", "html" },
	{ ".htm", "html" }, { ".folded", "folded" }, { ".pb.gz", "pprof" },
	{ ".pprof", "pprof" }, { ".perfetto-trace", "perfetto" },
	{ ".pftrace", "perfetto" },
};

static const struct {
	const char *format, *label;
	bool json;	/* a JSON document: fits a name ending in .json */
} format_labels[] = {
	{ "json", "JSON", true }, { "bmf", "Bencher Metric Format", true },
	{ "speedscope", "a speedscope profile", true },
	{ "csv", "CSV", false }, { "markdown", "Markdown", false },
	{ "junit", "JUnit XML", false }, { "svg", "SVG", false },
	{ "html", "HTML", false }, { "folded", "folded stacks", false },
	{ "pprof", "a pprof profile", false },
	{ "perfetto", "a Perfetto trace", false },
};

static const char *format_label(const char *format, bool *json)
{
	for (size_t i = 0; i < sizeof(format_labels) /
			       sizeof(*format_labels); i++)
		if (!strcmp(format_labels[i].format, format)) {
			if (json)
				*json = format_labels[i].json;
			return format_labels[i].label;
		}
	if (json)
		*json = false;
	return format;
}

/* The format path's name says, NULL for none; *ext its extension. */
static const char *named_format(const char *path, const char **ext)
{
	const char *base = strrchr(path, '/'), *best = NULL;
	size_t n, k, bestk = 0;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (size_t i = 0; i < sizeof(name_exts) / sizeof(*name_exts); i++) {
		k = strlen(name_exts[i].ext);
		/* the name is more than its extension (".json" is hidden) */
		if (n > k && k > bestk &&
		    !strcasecmp(base + n - k, name_exts[i].ext)) {
			best = name_exts[i].format;
			*ext = base + n - k;
			bestk = k;
		}
	}
	return best;
}

bool outputs_name_mismatch(const struct output_set *s, size_t i,
			   struct error *w)
{
	const struct output *o = &s->v[i];
	const char *said, *ext = NULL;
	bool json;

	if (!o->write || !o->format || (int)i == s->on_stdout ||
	    !strcmp(o->path, "-"))
		return false;
	said = named_format(o->path, &ext);
	if (!said || !strcmp(said, o->format))
		return false;
	format_label(o->format, &json);
	if (json && !strcmp(said, "json"))
		return false;
	error_set(w, "%s '%s': its name says %s (%s); it is written as %s",
		  o->flag, o->path, format_label(said, NULL), ext,
		  format_label(o->format, NULL));
	return true;
}

void outputs_init(struct output_set *s)
{
	memset(s, 0, sizeof(*s));
	s->on_stdout = -1;
}

void outputs_free(struct output_set *s)
{
	free(s->v);
	outputs_init(s);
}

void outputs_add(struct output_set *s, const char *flag, const char *path,
		 const char *format, output_write_fn write, void *ctx)
{
	if (!path)
		return;
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = (struct output){ .flag = flag, .path = path,
					.format = format, .write = write,
					.ctx = ctx };
}

void outputs_claim_stdout(struct output_set *s, const char *flag)
{
	outputs_add(s, flag, "-", NULL, NULL, NULL);
}

/* "--json -", "--json '/dev/stdout'", or a claim's "--show-output". */
static void name_output(const struct output *o, char *buf, size_t len)
{
	if (!o->write)
		snprintf(buf, len, "%s", o->flag);
	else if (!strcmp(o->path, "-"))
		snprintf(buf, len, "%s -", o->flag);
	else
		snprintf(buf, len, "%s '%s'", o->flag, o->path);
}

static int check_stdout(struct output_set *s, struct error *e)
{
	char a[320], b[320];

	s->on_stdout = -1;
	for (size_t i = 0; i < s->n; i++) {
		if (!output_is_stdout(s->v[i].path))
			continue;
		if (s->on_stdout >= 0) {
			name_output(&s->v[s->on_stdout], a, sizeof(a));
			name_output(&s->v[i], b, sizeof(b));
			s->on_stdout = -1;
			return error_set(e, "%s and %s both want stdout", a, b);
		}
		s->on_stdout = (int)i;
	}
	/* a claim is not an output: the report stays on stdout */
	if (s->on_stdout >= 0 && !s->v[s->on_stdout].write)
		s->on_stdout = -1;
	return 0;
}

/*
 * What names the file path would write: a regular file that exists by
 * its device and inode, a new one by its directory's real path and its
 * name. Devices and FIFOs (/dev/null twice is fine) have no key.
 */
struct file_key {
	bool have;
	dev_t dev;
	ino_t ino;
	char *name;		/* a file still to be made, else NULL */
};

static void file_key(const char *path, struct file_key *k)
{
	const char *slash = strrchr(path, '/');
	char *dir, real[PATH_MAX];
	struct stat st;

	memset(k, 0, sizeof(*k));
	if (!stat(path, &st)) {
		k->have = S_ISREG(st.st_mode);
		k->dev = st.st_dev;
		k->ino = st.st_ino;
		return;
	}
	dir = slash ? xstrndup(path, (size_t)(slash - path) + 1)
		    : xstrdup(".");
	if (realpath(dir, real)) {
		k->have = true;
		k->name = xasprintf("%s/%s", real, slash ? slash + 1 : path);
	}
	free(dir);
}

static bool same_key(const struct file_key *a, const struct file_key *b)
{
	if (!a->have || !b->have || !a->name != !b->name)
		return false;
	if (a->name)
		return !strcmp(a->name, b->name);
	return a->dev == b->dev && a->ino == b->ino;
}

/* No two outputs write the same file: the second would replace the
 * first. */
static int check_distinct(const struct output_set *s, struct error *e)
{
	struct file_key *k = xcalloc(s->n + 1, sizeof(*k));
	int ret = 0;

	for (size_t i = 0; i < s->n; i++)
		if ((int)i != s->on_stdout && s->v[i].write)
			file_key(s->v[i].path, &k[i]);
	for (size_t i = 0; i < s->n && !ret; i++)
		for (size_t j = i + 1; j < s->n && !ret; j++)
			if (same_key(&k[i], &k[j]))
				ret = error_set(e, "%s '%s' and %s '%s' are "
						"the same file", s->v[i].flag,
						s->v[i].path, s->v[j].flag,
						s->v[j].path);
	for (size_t i = 0; i < s->n; i++)
		free(k[i].name);
	free(k);
	return ret;
}

int outputs_check(struct output_set *s, struct error *e)
{
	struct error why;

	if (check_stdout(s, e))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->v[i].write || !strcmp(s->v[i].path, "-"))
			continue;
		if (atomic_check(s->v[i].path, &why))
			return error_set(e, "%s: %s", s->v[i].flag, why.msg);
	}
	return check_distinct(s, e);
}

bool outputs_stdout(const struct output_set *s)
{
	return s->on_stdout >= 0;
}

FILE *outputs_report_fp(const struct output_set *s)
{
	return outputs_stdout(s) ? stderr : stdout;
}

size_t outputs_write(struct output_set *s)
{
	size_t failed = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct output *o = &s->v[i];

		if (!o->write)
			continue;
		o->failed = o->write(o->path, o->ctx, &o->err) != 0;
		failed += o->failed;
	}
	return failed;
}
