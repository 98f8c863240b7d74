/*
 * Grouping a result's warnings: a warning is cut into its text and its
 * numbers; warnings whose texts agree are one group, and each number
 * slot keeps the smallest and largest value seen (as written, so that
 * "12.1" stays "12.1").
 */
#include "result/warnings.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

struct slot {
	double lo, hi;
	char *lo_text, *hi_text;
};

struct group {
	char *shape;		/* the text, each number as \x01 */
	struct slot *slots;
	size_t nslots;
	const char **names;
	size_t nnames, capnames;
};

/* The length of the number at s (digits, one '.', digits), 0 if none. */
static size_t number_len(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (n && s[n] == '.' && isdigit((unsigned char)s[n + 1]))
		n += 1 + strspn(s + n + 1, "0123456789");
	return n;
}

/* The shape of w: its text with every number as \x01. */
static char *shape_of(const char *w)
{
	struct strbuf b = { 0 };

	strbuf_puts(&b, "");
	for (const char *p = w; *p;) {
		size_t n = number_len(p);

		if (n && (p == w || !isalpha((unsigned char)p[-1]))) {
			strbuf_puts(&b, "\x01");
			p += n;
		} else {
			strbuf_putc(&b, *p++);
		}
	}
	return b.s;
}

/* Fold w's numbers into g's slots (made on the first warning). */
static void fold_numbers(struct group *g, const char *w)
{
	size_t k = 0;

	for (const char *p = w; *p;) {
		size_t n = number_len(p);
		struct slot *s;
		double v;

		if (!n || (p != w && isalpha((unsigned char)p[-1]))) {
			p++;
			continue;
		}
		if (k == g->nslots) {
			g->slots = xrealloc(g->slots, (k + 1) * sizeof(*s));
			g->nslots++;
			s = &g->slots[k];
			s->lo = s->hi = strtod(p, NULL);
			s->lo_text = xstrndup(p, n);
			s->hi_text = xstrndup(p, n);
		}
		s = &g->slots[k++];
		v = strtod(p, NULL);
		if (v < s->lo) {
			s->lo = v;
			free(s->lo_text);
			s->lo_text = xstrndup(p, n);
		}
		if (v > s->hi) {
			s->hi = v;
			free(s->hi_text);
			s->hi_text = xstrndup(p, n);
		}
		p += n;
	}
}

/* The group's text: its shape with each slot as "lo" or "lo-hi". */
static char *group_text(const struct group *g)
{
	struct strbuf b = { 0 };
	size_t k = 0;

	strbuf_puts(&b, "");
	for (const char *p = g->shape; *p; p++) {
		if (*p != '\x01') {
			strbuf_putc(&b, *p);
			continue;
		}
		strbuf_puts(&b, g->slots[k].lo_text);
		if (g->slots[k].hi > g->slots[k].lo) {
			strbuf_puts(&b, "-");
			strbuf_puts(&b, g->slots[k].hi_text);
		}
		k++;
	}
	return b.s;
}

static struct group *find_or_add(struct group **gs, size_t *n,
				 const char *shape)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*gs)[i].shape, shape))
			return &(*gs)[i];
	*gs = xrealloc(*gs, (*n + 1) * sizeof(**gs));
	memset(&(*gs)[*n], 0, sizeof(**gs));
	(*gs)[*n].shape = xstrdup(shape);
	return &(*gs)[(*n)++];
}

size_t warnings_group(const struct result *r, bool (*skip)(const char *w),
		      struct warning_group **out)
{
	struct group *gs = NULL;
	size_t n = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t k = 0; k < b->nwarnings; k++) {
			char *shape;
			struct group *g;

			if (skip && skip(b->warnings[k]))
				continue;
			shape = shape_of(b->warnings[k]);
			g = find_or_add(&gs, &n, shape);

			free(shape);
			fold_numbers(g, b->warnings[k]);
			if (g->nnames && g->names[g->nnames - 1] == b->name)
				continue;
			g->names = xgrow(g->names, &g->capnames, g->nnames + 1,
					 sizeof(*g->names));
			g->names[g->nnames++] = b->name;
		}
	}
	*out = n ? xcalloc(n, sizeof(**out)) : NULL;
	for (size_t i = 0; i < n; i++) {
		(*out)[i].text = group_text(&gs[i]);
		(*out)[i].names = gs[i].names;
		(*out)[i].nnames = gs[i].nnames;
		for (size_t k = 0; k < gs[i].nslots; k++) {
			free(gs[i].slots[k].lo_text);
			free(gs[i].slots[k].hi_text);
		}
		free(gs[i].slots);
		free(gs[i].shape);
	}
	free(gs);
	return n;
}

void warnings_free(struct warning_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].text);
		free(g[i].names);
	}
	free(g);
}
