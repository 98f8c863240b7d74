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
#include "util/hashmap.h"
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

/*
 * The folded lines are never made as text: a profile of a large program
 * has hundreds of thousands of stacks, each thousands of bytes of names
 * (an ML inference job's heap profile: 895 MB). Each frame's folded name
 * is made once, names of one text share one copy, and the stacks are
 * sorted by the text they would be, read a character at a time from the
 * names only past the frames they share, then written name by name.
 */
struct folded {
	const struct profile *p;
	const char **name;	/* by frame: its folded name, one pointer per
				 * distinct text */
	char **texts;		/* the distinct texts, owned */
	size_t ntexts;
};

/* A cursor over a stack's folded text (root first, ';' between frames):
 * frame k of s (counted from the root), at s in its name. */
struct text_at {
	const struct stack *st;
	size_t k;
	const char *s;		/* NULL: the end of the text */
};

static const char *root_name(const struct folded *f, const struct stack *st,
			     size_t k)
{
	return f->name[st->frames[st->depth - 1 - k]];
}

/* The cursor at the end of frame k - 1 (k > 0; its ';' next if frame k
 * is there) or at the text's start (k = 0). */
static struct text_at text_from(const struct folded *f,
				const struct stack *st, size_t k)
{
	if (k)
		return (struct text_at){ st, k - 1, "" };
	return (struct text_at){ st, 0, st->depth ? root_name(f, st, 0) : NULL };
}

/* The next character of the text (unsigned, as strcmp compares), or -1
 * at its end. */
static int text_next(const struct folded *f, struct text_at *c)
{
	if (!c->s)
		return -1;
	if (*c->s)
		return (unsigned char)*c->s++;
	if (++c->k >= c->st->depth) {
		c->s = NULL;
		return -1;
	}
	c->s = root_name(f, c->st, c->k);
	return ';';
}

/* strcmp of the two stacks' folded texts. */
static int text_cmp(const struct folded *f, const struct stack *a,
		    const struct stack *b)
{
	size_t k = 0, n = a->depth < b->depth ? a->depth : b->depth;
	struct text_at x, y;

	/* frames of one text: the same name pointer */
	while (k < n && root_name(f, a, k) == root_name(f, b, k))
		k++;
	x = text_from(f, a, k);
	y = text_from(f, b, k);
	for (;;) {
		int c = text_next(f, &x), d = text_next(f, &y);

		if (c != d)
			return c < d ? -1 : 1;
		if (c < 0)
			return 0;
	}
}

static int stack_text_cmp(const void *a, const void *b, void *ctx)
{
	return text_cmp(ctx, *(const struct stack *const *)a,
			*(const struct stack *const *)b);
}

/* Each frame's folded name, one copy per distinct text (f->texts). */
static void folded_names(struct folded *f)
{
	const struct profile *p = f->p;
	struct hashmap names;

	f->name = xcalloc(p->nframes ? p->nframes : 1, sizeof(*f->name));
	f->texts = xcalloc(p->nframes ? p->nframes : 1, sizeof(*f->texts));
	f->ntexts = 0;
	hashmap_init(&names);
	for (size_t i = 0; i < p->nframes; i++) {
		struct strbuf b = { 0 };
		void *had = NULL;

		put_frame_name(&b, p->frames[i].function);
		if (!b.s)
			b.s = xstrdup("");
		if (hashmap_put(&names, b.s, b.len, b.s, &had)) {
			free(b.s);
			f->name[i] = had;
		} else {
			f->texts[f->ntexts++] = b.s;
			f->name[i] = b.s;
		}
	}
	hashmap_free(&names);
}

static void folded_free(struct folded *f)
{
	for (size_t i = 0; i < f->ntexts; i++)
		free(f->texts[i]);
	free(f->texts);
	free(f->name);
}

/* One line: the stack's names, root first, and the value. */
static void put_line(FILE *fp, const struct folded *f, const struct stack *st,
		     int64_t value)
{
	for (size_t k = 0; k < st->depth; k++) {
		if (k)
			putc(';', fp);
		fputs(root_name(f, st, k), fp);
	}
	fprintf(fp, " %lld\n", (long long)value);
}

int profile_write_folded(const struct profile *p, size_t type,
			 const char *path, struct error *e)
{
	struct folded f = { .p = p };
	const struct stack **v;
	struct atomic_file af;
	size_t n = 0;

	if (type >= p->ntypes)
		return error_set(e, "no sample type %zu in the profile", type);
	if (atomic_open(&af, path, e))
		return -1;
	folded_names(&f);
	v = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*v));
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].values[type])
			v[n++] = &p->stacks[i];
	if (n > 1)
		qsort_r(v, n, sizeof(*v), stack_text_cmp, &f);
	/* one line per distinct text, its stacks' values summed; a sum of
	 * 0 (a differential profile's values cancelled out) left out */
	for (size_t i = 0; i < n;) {
		int64_t sum = 0;
		size_t j = i;

		while (j < n && (j == i || !text_cmp(&f, v[i], v[j])))
			sum += v[j++]->values[type];
		if (sum)
			put_line(af.fp, &f, v[i], sum);
		i = j;
	}
	free(v);
	folded_free(&f);
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
