/*
 * Text exporters of the profile model — Brendan Gregg's folded stacks and
 * speedscope's JSON — and the folded reader.
 *
 * Folded lines name frames by function only, so stacks that differ in
 * file, line, module or inlining can fold to the same line: their values
 * are summed, and the output is one line per distinct text, sorted, so
 * that two runs give comparable files. A ';' in a name (it separates
 * frames) becomes ':' and a line break becomes a space.
 */
#include "profile/profile.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/json_emit.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* A function name as one folded frame. */
static void put_frame_name(struct strbuf *b, const char *name)
{
	for (const char *s = name; *s; s++) {
		char c = *s;

		if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r')
			c = ' ';
		strbuf_putc(b, c);
	}
}

struct folded_line {
	char *text;
	int64_t value;
};

static int line_cmp(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	return strcmp(x->text, y->text);
}

/* The folded lines of sample type t: sorted, merged, zeros dropped. */
static struct folded_line *folded_lines(const struct profile *p, size_t t,
					size_t *n)
{
	struct folded_line *lines = xcalloc(p->nstacks, sizeof(*lines));
	size_t k = 0, out = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *s = &p->stacks[i];
		struct strbuf b = { 0 };

		if (!s->values[t])
			continue;
		for (size_t d = s->depth; d-- > 0;) {
			put_frame_name(&b, p->frames[s->frames[d]].function);
			if (d)
				strbuf_putc(&b, ';');
		}
		if (!b.s)
			b.s = xstrdup("");
		lines[k++] = (struct folded_line){ b.s, s->values[t] };
	}
	if (k > 1)
		qsort(lines, k, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < k; i++) {
		if (out && !strcmp(lines[out - 1].text, lines[i].text)) {
			lines[out - 1].value += lines[i].value;
			free(lines[i].text);
		} else {
			lines[out++] = lines[i];
		}
	}
	/* Merging may cancel negative (differential) values out. */
	k = out;
	out = 0;
	for (size_t i = 0; i < k; i++) {
		if (lines[i].value)
			lines[out++] = lines[i];
		else
			free(lines[i].text);
	}
	*n = out;
	return lines;
}

int profile_write_folded(const struct profile *p, size_t type,
			 const char *path, struct error *e)
{
	struct atomic_file af;
	struct folded_line *lines;
	size_t n;

	if (type >= p->ntypes)
		return error_set(e, "no sample type %zu in the profile", type);
	if (atomic_open(&af, path, e))
		return -1;
	lines = folded_lines(p, type, &n);
	for (size_t i = 0; i < n; i++) {
		fprintf(af.fp, "%s %lld\n", lines[i].text,
			(long long)lines[i].value);
		free(lines[i].text);
	}
	free(lines);
	return atomic_commit(&af, e);
}

/* speedscope knows these units; anything else (count, samples) is none. */
static const char *speedscope_unit(const char *unit)
{
	static const char *const known[] = {
		"nanoseconds", "microseconds", "milliseconds", "seconds",
		"bytes",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (unit && !strcmp(unit, known[i]))
			return known[i];
	return "none";
}

static json_t *speedscope_frames(const struct profile *p)
{
	json_t *frames = json_array();

	for (size_t i = 0; i < p->nframes; i++) {
		const struct frame *f = &p->frames[i];
		json_t *o = json_object();

		/* Outside text: JSON holds only UTF-8, so a bad byte is
		 * U+FFFD and the rest of the name and file are kept. */
		json_object_set_new(o, "name", json_text(f->function));
		if (f->file && *f->file)
			json_object_set_new(o, "file", json_text(f->file));
		if (f->file && *f->file && f->line > 0)
			json_object_set_new(o, "line", json_integer(f->line));
		json_array_append_new(frames, o);
	}
	return frames;
}

static json_t *speedscope_profile(const struct profile *p, size_t t)
{
	json_t *o = json_object(), *samples = json_array(),
	       *weights = json_array();
	int64_t total = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *s = &p->stacks[i];
		json_t *st;

		if (!s->values[t])
			continue;
		st = json_array();
		/* speedscope lists a sample's frames root first. */
		for (size_t d = s->depth; d-- > 0;)
			json_array_append_new(st, json_integer(s->frames[d]));
		json_array_append_new(samples, st);
		json_array_append_new(weights, json_integer(s->values[t]));
		total += s->values[t];
	}
	json_object_set_new(o, "type", json_string("sampled"));
	json_object_set_new(o, "name", json_string(p->types[t].name));
	json_object_set_new(o, "unit",
			    json_string(speedscope_unit(p->types[t].unit)));
	json_object_set_new(o, "startValue", json_integer(0));
	json_object_set_new(o, "endValue", json_integer(total));
	json_object_set_new(o, "samples", samples);
	json_object_set_new(o, "weights", weights);
	return o;
}

int profile_write_speedscope(const struct profile *p, const char *path,
			     struct error *e)
{
	json_t *root = json_object(), *shared = json_object(),
	       *profiles = json_array(), *name;
	char *n;

	json_object_set_new(root, "$schema", json_string(
		"https://www.speedscope.app/file-format-schema.json"));
	json_object_set_new(shared, "frames", speedscope_frames(p));
	json_object_set_new(root, "shared", shared);
	for (size_t t = 0; t < p->ntypes; t++)
		json_array_append_new(profiles, speedscope_profile(p, t));
	json_object_set_new(root, "profiles", profiles);
	/* the command (outside text: cleaned to UTF-8, or json_string
	 * would refuse it), and a partial profile says so in any case */
	n = xasprintf("%s%s%s%s", p->command ? p->command
		      : "yardstick profile", p->partial
		      ? " (partial: stopped by " : "",
		      p->partial ? p->partial : "", p->partial ? ")" : "");
	name = json_text(n);
	free(n);
	json_object_set_new(root, "name", name);
	json_object_set_new(root, "activeProfileIndex", json_integer(0));
	json_object_set_new(root, "exporter",
			    json_string("yardstick " YS_VERSION));
	return json_write_file(root, path, e);
}

/*
 * Parse one folded line (NUL-terminated, no newline) into p. Returns 0,
 * or -1 with e naming path and lineno.
 */
static int read_folded_line(struct profile *p, char *s, const char *path,
			    size_t lineno, uint32_t **ids, size_t *capids,
			    int64_t *total, struct error *e)
{
	size_t len = strlen(s), depth = 0;
	char *num, *end, *frame;
	long long v;

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
		       s[len - 1] == '\r'))
		s[--len] = '\0';
	num = s + len;
	while (num > s && num[-1] != ' ' && num[-1] != '\t')
		num--;
	if (num == s)
		return error_set(e, "cannot read '%s': line %zu: no count "
				 "at the end", path, lineno);
	errno = 0;
	v = strtoll(num, &end, 10);
	if (end == num || *end || (errno && errno != ERANGE) ||
	    !(*num >= '0' && *num <= '9'))
		return error_set(e, "cannot read '%s': line %zu: bad count "
				 "'%s' (%s)", path, lineno, num,
				 *num == '-' && end > num + 1 ? "negative" :
				 "expected a whole number of samples");
	if (errno == ERANGE)
		return error_set(e, "cannot read '%s': line %zu: bad count "
				 "'%s' (beyond %lld)", path, lineno, num,
				 (long long)INT64_MAX);
	/* Every sum the profile makes (a stack's, a function's, a flame
	 * graph node's) is at most the file's total: bounding it keeps
	 * them all within int64. */
	if (v > INT64_MAX - *total)
		return error_set(e, "cannot read '%s': line %zu: the counts "
				 "add up beyond %lld", path, lineno,
				 (long long)INT64_MAX);
	*total += v;
	if (v == 0)		/* a stack that was never sampled */
		return 0;
	/* Blanks before the count separate it; a CR counts as one (the
	 * writer turns a CR in a name into a space). */
	end = num;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r'))
		end--;
	*end = '\0';
	if (end == s)
		return error_set(e, "cannot read '%s': line %zu: empty stack",
				 path, lineno);
	/* Frames come root first; the model wants the leaf first, so the
	 * ids are reversed once the line is read. */
	for (frame = s;; ) {
		char *semi = strchr(frame, ';');
		struct frame f = { 0 };

		if (semi)
			*semi = '\0';
		f.function = frame;
		*ids = xgrow(*ids, capids, depth + 1, sizeof(**ids));
		(*ids)[depth++] = profile_frame(p, &f);
		if (!semi)
			break;
		frame = semi + 1;
	}
	for (size_t i = 0; i < depth / 2; i++) {
		uint32_t tmp = (*ids)[i];

		(*ids)[i] = (*ids)[depth - 1 - i];
		(*ids)[depth - 1 - i] = tmp;
	}
	profile_add(p, *ids, depth, (int64_t[]){ v });
	return 0;
}

static bool blank(const char *s)
{
	return s[strspn(s, " \t\r")] == '\0';
}

int profile_read_folded(struct profile *p, const char *path,
			struct error *e)
{
	static const struct sample_type type = { "samples", "count" };
	uint32_t *ids = NULL;
	size_t capids = 0, lineno = 0, len;
	int64_t total = 0;
	char *data, *line;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (file_read_all(path, &data, &len, e))
		return -1;
	if (memchr(data, '\0', len)) {
		free(data);
		return error_set(e, "'%s' is not a folded stack file (NUL byte)",
				 path);
	}
	profile_init(p, &type, 1);
	for (line = data; *line && !ret;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		lineno++;
		if (!blank(line))
			ret = read_folded_line(p, line, path, lineno, &ids,
					       &capids, &total, e);
		line = nl ? nl + 1 : line + strlen(line);
	}
	free(ids);
	free(data);
	if (ret)
		profile_free(p);
	return ret;
}
