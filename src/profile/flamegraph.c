/*
 * The flame graph renderer: a profile (or two, for a differential graph)
 * drawn as one self-contained SVG whose small embedded script
 * (flamegraph.js, beside this file) gives hover details, click-to-zoom and
 * search, offline, in any browser.
 *
 * The tree comes from flametree.c (merged by function and module, root at
 * the bottom, children by name); widths are proportional to values and
 * frames narrower than MIN_PX are dropped and counted in the subtitle, so
 * that huge profiles stay light.
 *
 * What to know before changing it: the script reads everything back from
 * the DOM, and no string from the profile is ever written inside it. A
 * frame's name is its <title> up to the last " — ", minus the
 * " (module)" whose text data-m indexes in <defs>; the title format, that
 * table and the script change together. Output is a pure function of the
 * input (no clock, no hash-order iteration): the same input gives a
 * byte-identical file.
 */
#include "profile/profile.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/flametree.h"
#include "util/fileio.h"
#include "util/strutil.h"

#define MIN_PX 0.1		/* narrower frames are dropped */
#define XPAD 10			/* left and right margins, pixels */
#define ROW 16			/* pixels per stack level */
#define FRAME_H 15
#define CHAR_W 7.08		/* 12px Verdana, as flamegraph.pl estimates */
#define NONE FTREE_NONE
#define GONE_SHOWN 5		/* frames only in BASE named in the note */
#define GONE_LISTED 100		/* ... and in its tooltip */

/* A frame only in BASE, for the note (it has no width in NEW). */
struct gone {
	int64_t value;
	const struct ftree_key *k;
};

struct flame_graph {
	const struct ftree_keys *keys;
	const struct ftree *t;	/* what is drawn */
	const char *title, *subtitle;
	char *unit, *unit1;		/* plural, singular; without "—" */
	int width, height, top;
	double px;			/* pixels per value unit */
	uint32_t maxdepth;		/* of the drawn frames */
	size_t dropped;
	char *main_module;		/* drawn in warm colours; may be NULL */
	uint32_t *modidx;		/* per key: index in mods */
	const char **mods;
	size_t nmods;
	/* differential graphs only */
	const struct ftree *base;	/* NULL for a plain graph */
	const uint32_t *match;		/* t node -> base node or NONE */
	double full;			/* |change| drawn fully saturated */
	struct gone *gone;		/* frames only in BASE */
	size_t ngone;
};

/* --- strings ------------------------------------------------------------ */

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* 1234567 as "1,234,567". */
static const char *fmt_count(char *buf, size_t n, int64_t v)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%lld",
			   (long long)(v < 0 ? -v : v));
	size_t o = 0;

	if (v < 0 && o + 1 < n)
		buf[o++] = '-';
	for (int i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* --- layout -------------------------------------------------------------- */

static bool drawn(const struct flame_graph *g, uint32_t n)
{
	return g->t->total > 0 && (double)g->t->v[n].value * g->px >= MIN_PX;
}

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The modules of drawn frames, sorted, and each key's index among them. */
static void collect_modules(struct flame_graph *g)
{
	const struct ftree_keys *ks = g->keys;
	bool *used = xcalloc(ks->n, sizeof(*used));
	size_t n = 0;

	for (size_t i = 0; i < g->t->n; i++)
		if (drawn(g, (uint32_t)i))
			used[g->t->v[i].key] = true;
	g->mods = xmalloc(ks->n * sizeof(*g->mods));
	g->modidx = xcalloc(ks->n, sizeof(*g->modidx));
	for (size_t i = 0; i < ks->n; i++)
		if (used[i] && ks->v[i].module)
			g->mods[n++] = ks->v[i].module;
	qsort(g->mods, n, sizeof(*g->mods), str_ptr_cmp);
	g->nmods = 0;
	for (size_t i = 0; i < n; i++)
		if (!g->nmods || strcmp(g->mods[g->nmods - 1], g->mods[i]))
			g->mods[g->nmods++] = g->mods[i];
	for (size_t i = 0; i < ks->n; i++) {
		const char **m;

		if (!used[i] || !ks->v[i].module)
			continue;
		m = bsearch(&ks->v[i].module, g->mods, g->nmods,
			    sizeof(*g->mods), str_ptr_cmp);
		assert(m);
		g->modidx[i] = (uint32_t)(m - g->mods);
	}
	free(used);
}

/* Pixel scale, what is dropped, the height. */
static void graph_layout(struct flame_graph *g)
{
	const struct ftree *t = g->t;

	g->px = t->total > 0 ? (double)(g->width - 2 * XPAD) / t->total : 0;
	g->maxdepth = 0;
	g->dropped = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!drawn(g, (uint32_t)i))
			g->dropped++;
		else if (t->v[i].depth > g->maxdepth)
			g->maxdepth = t->v[i].depth;
	}
	if (t->total <= 0)
		g->dropped = 0;
	/* The title, a line for the subtitle and notes, maybe one for the
	 * frames only in BASE. */
	g->top = 24 + 17 + (g->ngone ? 16 : 0) + 14;
	g->height = g->top + (int)(g->maxdepth + 1) * ROW + 30;
	collect_modules(g);
}

/* --- colours ------------------------------------------------------------- */

struct family {
	int r, g, b, dr, dg, db;
	bool mono;		/* one variation for all channels: grays */
};

static const struct family warm = { 205, 0, 0, 50, 230, 55, false };
static const struct family gray = { 160, 160, 160, 50, 50, 50, true };
static const struct family kernel = { 60, 170, 170, 50, 50, 50, false };
static const struct family jit = { 70, 180, 70, 50, 50, 50, false };
static const struct family libs[] = {
	{ 80, 130, 210, 40, 50, 40, false },	/* blue */
	{ 150, 110, 200, 40, 40, 40, false },	/* purple */
	{ 175, 175, 60, 50, 50, 40, false },	/* olive */
	{ 210, 140, 170, 40, 40, 40, false },	/* rose */
};

/*
 * The hue family comes from the module (warm for the main binary, or for
 * all frames when the profile names no modules, as flamegraph.pl draws
 * them), the shade from the function so that neighbours differ. Magenta is
 * left for search matches.
 */
static void frame_colour(const struct flame_graph *g,
			 const struct ftree_key *k, int rgb[3])
{
	uint32_t h = ftree_hash(k->function);
	int v[3] = { h & 0xff, h >> 8 & 0xff, h >> 16 & 0xff };
	const struct family *f;

	if (!k->module ||
	    (g->main_module && !strcmp(k->module, g->main_module)))
		f = &warm;
	else if (!strcmp(k->module, "[unknown]"))
		f = &gray;
	else if (!strcmp(k->module, "[kernel]"))
		f = &kernel;
	else if (!strcmp(k->module, "[jit]"))
		f = &jit;
	else
		f = &libs[ftree_hash(k->module) %
			  (sizeof(libs) / sizeof(libs[0]))];
	if (f->mono)
		v[1] = v[2] = v[0];
	rgb[0] = f->r + f->dr * v[0] / 255;
	rgb[1] = f->g + f->dg * v[1] / 255;
	rgb[2] = f->b + f->db * v[2] / 255;
}

static double share(const struct ftree *t, uint32_t n)
{
	return t->total > 0 ? (double)t->v[n].value / t->total : 0;
}

/* A frame's change against BASE, in points of the whole profile. */
struct change {
	double before, now;	/* shares, 0..1 */
	char points[40];	/* "+3.21", "-0.50", "+0.00" */
	bool zero;		/* rounds to no change */
	bool fresh;		/* not in BASE */
};

static void frame_change(const struct flame_graph *g, uint32_t n,
			 struct change *c)
{
	uint32_t m = g->match[n];
	double d;
	char mag[32];

	c->fresh = m == NONE;
	c->now = share(g->t, n);
	c->before = c->fresh ? 0 : share(g->base, m);
	d = 100 * (c->now - c->before);
	snprintf(mag, sizeof(mag), "%.2f", fabs(d));
	c->zero = !strcmp(mag, "0.00");
	snprintf(c->points, sizeof(c->points), "%s%s",
		 d < 0 && !c->zero ? "-" : "+", mag);
}

/*
 * Red grew, blue shrank: the other two channels go from PALE (a tint even
 * for the smallest visible change) down to FULL as |change| / full goes to
 * 1; new frames are full red; no change (to 0.01 point) is light gray.
 */
#define NEUTRAL 232
#define PALE 225
#define FULL 60

static void diff_colour(const struct flame_graph *g, uint32_t n, int rgb[3])
{
	struct change c;
	double s;
	bool red;
	int v;

	frame_change(g, n, &c);
	if (c.zero && !c.fresh) {
		rgb[0] = rgb[1] = rgb[2] = NEUTRAL;
		return;
	}
	s = c.fresh ? 1 : fmin(1, fabs(c.now - c.before) / g->full);
	v = (int)lround(PALE - (PALE - FULL) * s);
	red = c.fresh || c.now > c.before;
	rgb[0] = red ? 255 : v;
	rgb[1] = v;
	rgb[2] = red ? v : 255;
}

/* --- the SVG ------------------------------------------------------------- */

static const char style[] =
	"<style>\n"
	"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
	"#title{font-size:17px;text-anchor:middle}\n"
	".sub{fill:#555;text-anchor:middle}\n"
	"#search,#matched{text-anchor:end}\n"
	".btn{fill:#1a4d8f;cursor:pointer}\n"
	".off,.h{display:none}\n"
	".p{opacity:.5}\n"
	"#frames g{cursor:pointer}\n"
	"#frames rect{stroke:#fff;stroke-width:.5}\n"
	"#frames g:hover rect{stroke:#000;stroke-width:1}\n"
	"#frames g:focus{outline:none}\n"
	"#frames g:focus rect{stroke:#000;stroke-width:2}\n"
	".btn:focus{text-decoration:underline}\n"
	"#frames text{pointer-events:none}\n"
	"</style>\n";

/*
 * The script: src/profile/flamegraph.js, compiled in at build time as this
 * NUL-terminated array by tools/embed.c (src/profile/meson.build), and
 * written out byte for byte after a line that defines XP (the left
 * padding), CW (the frames' width) and CH (CHAR_W). It sits in a CDATA
 * section, so it must never hold "]]>"; tests/unit/test_flamegraph.c
 * checks that, its syntax (node --check) and its behaviour on a DOM.
 *
 * Hover, zoom and search. It reads names back from the DOM (see the top of
 * the file) and fits labels exactly as write_label does. Zoom: frames in
 * lower rows spanning the clicked one (its ancestors) get the full width,
 * dimmed; its subtree is stretched; the rest is hidden (0.011 px of
 * tolerance, as attributes are rounded to 0.01). The matched share is the
 * union of the matches' spans, so a match nested in another one is not
 * counted twice. The keyboard: one frame at a time in the tab order (the
 * root at first), the arrows move the focus (Left/Right in the row, Up to
 * the leftmost callee, Down to the caller), Enter or Space zooms as a
 * click does; the two buttons take the focus and Enter too. Strict ES5,
 * no library.
 */
extern const char flamegraph_script[];

/* The label: as many characters as fit, cut with "..", none if < 3 fit. */
static void write_label(FILE *fp, const char *name, double x, double w,
			int y)
{
	double fit = floor((w - 3) / CHAR_W);
	size_t n, off = 0;
	char *cut;

	if (fit < 3)
		return;
	n = (size_t)fit;
	fprintf(fp, "<text x=\"%.2f\" y=\"%d\">", x + 3, y + 11);
	if (utf8_chars(name) <= n) {
		fputs_xml(name, fp);
	} else {
		for (size_t c = 0; name[off]; off++)
			if (((unsigned char)name[off] & 0xc0) != 0x80 &&
			    c++ == n - 2)
				break;
		cut = xstrndup(name, off);
		fputs_xml(cut, fp);
		fputs("..", fp);
		free(cut);
	}
	fputs("</text>", fp);
}

/* "function (module) — 1,234 samples, 12.34%[, +3.21 points (...)]" */
static void write_title(const struct flame_graph *g, FILE *fp, uint32_t n)
{
	const struct ftree_node *nd = &g->t->v[n];
	const struct ftree_key *k = &g->keys->v[nd->key];
	char count[32];
	struct change c;

	fputs_xml(k->function, fp);
	if (k->module) {
		fputs(" (", fp);
		fputs_xml(k->module, fp);
		fputc(')', fp);
	}
	fprintf(fp, " \u2014 %s ", fmt_count(count, sizeof(count),
					     nd->value));
	fputs_xml(nd->value == 1 ? g->unit1 : g->unit, fp);
	fprintf(fp, ", %.2f%%", 100 * share(g->t, n));
	if (!g->base)
		return;
	frame_change(g, n, &c);
	fprintf(fp, ", %s points (%s%.1f%% \u2192 %.1f%%)", c.points,
		c.fresh ? "new, " : "", 100 * c.before, 100 * c.now);
}

static void write_frame(const struct flame_graph *g, FILE *fp, uint32_t n)
{
	const struct ftree_node *nd = &g->t->v[n];
	const struct ftree_key *k = &g->keys->v[nd->key];
	int y = g->top + (int)(g->maxdepth - nd->depth) * ROW, rgb[3];
	char xs[32], ws[32];

	/* The label is fitted to the rounded numbers, as the script does. */
	snprintf(xs, sizeof(xs), "%.2f", XPAD + (double)nd->off * g->px);
	snprintf(ws, sizeof(ws), "%.2f", (double)nd->value * g->px);
	if (g->base)
		diff_colour(g, n, rgb);
	else
		frame_colour(g, k, rgb);
	fputs(n ? "<g" : "<g id=\"root\"", fp);
	if (k->module)
		fprintf(fp, " data-m=\"%u\"", g->modidx[nd->key]);
	fputs("><title>", fp);
	write_title(g, fp, n);
	fprintf(fp, "</title><rect x=\"%s\" y=\"%d\" width=\"%s\" "
		"height=\"%d\" fill=\"#%02x%02x%02x\"/>", xs, y, ws, FRAME_H,
		rgb[0], rgb[1], rgb[2]);
	write_label(fp, k->function, atof(xs), atof(ws), y);
	fputs("</g>\n", fp);
}

/* The subtitle line: the caller's subtitle, then our notes. */
static void write_subtitle(const struct flame_graph *g, FILE *fp)
{
	const char *sep = "";
	char count[32];

	fprintf(fp, "<text class=\"sub\" x=\"%d\" y=\"41\">", g->width / 2);
	if (g->subtitle && *g->subtitle) {
		ftree_put_text(fp, g->subtitle);
		sep = "; ";
	}
	if (g->t->total <= 0) {
		fprintf(fp, "%sno samples", sep);
		sep = "; ";
	}
	if (g->base && g->t->total > 0) {
		fprintf(fp, "%sred grew, blue shrank against BASE (full colour "
			"at \u00b1%.2f points)", sep, 100 * g->full);
		sep = "; ";
	}
	if (g->dropped)
		fprintf(fp, "%s%s frame%s narrower than %.1f px not shown", sep,
			fmt_count(count, sizeof(count), (int64_t)g->dropped),
			plural_s(g->dropped), MIN_PX);
	fputs("</text>\n", fp);
}

/* The note on frames only in BASE: a few in the line, up to GONE_LISTED
 * in its tooltip. */
static void write_gone(const struct flame_graph *g, FILE *fp)
{
	size_t n = g->ngone;

	fprintf(fp, "<text class=\"sub\" x=\"%d\" y=\"57\"><title>",
		g->width / 2);
	for (size_t i = 0; i < n && i < GONE_LISTED; i++) {
		const struct ftree_key *k = g->gone[i].k;

		fputs(i ? "\n" : "", fp);
		fputs_xml(k->function, fp);
		if (k->module) {
			fputs(" (", fp);
			fputs_xml(k->module, fp);
			fputc(')', fp);
		}
		fprintf(fp, " \u2014 %.2f%% in BASE", 100.0 *
			g->gone[i].value / g->base->total);
	}
	if (n > GONE_LISTED)
		fprintf(fp, "\n... and %zu more", n - GONE_LISTED);
	fputs("</title>only in BASE, not drawn: ", fp);
	for (size_t i = 0; i < n && i < GONE_SHOWN; i++) {
		fputs(i ? ", " : "", fp);
		fputs_xml(g->gone[i].k->function, fp);
		fprintf(fp, " (%.2f%%)", 100.0 * g->gone[i].value /
			g->base->total);
	}
	if (n > GONE_SHOWN)
		fprintf(fp, " and %zu more", n - GONE_SHOWN);
	fputs("</text>\n", fp);
}

/* The document, or with inline the <svg> element alone (for an HTML
 * page: the HTML parser takes the script's CDATA section in SVG). */
static void write_head(const struct flame_graph *g, FILE *fp, bool inline_)
{
	int w = g->width, h = g->height;

	if (!inline_)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" "
		      "standalone=\"no\"?>\n", fp);
	fprintf(fp, "<svg version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", w, h, w, h);
	fputs(style, fp);
	fputs("<rect id=\"bg\" width=\"100%\" height=\"100%\" "
	      "fill=\"#f8f8f8\"/>\n", fp);
	fprintf(fp, "<text id=\"title\" x=\"%d\" y=\"24\">", w / 2);
	ftree_put_text(fp, g->title);
	fputs("</text>\n", fp);
	write_subtitle(g, fp);
	if (g->ngone)
		write_gone(g, fp);
	fprintf(fp, "<text id=\"unzoom\" class=\"btn off\" x=\"%d\" "
		"y=\"24\">Reset Zoom</text>\n", XPAD);
	fprintf(fp, "<text id=\"search\" class=\"btn\" x=\"%d\" "
		"y=\"24\">Search</text>\n", w - XPAD);
	fputs("<defs id=\"mods\">", fp);
	for (size_t i = 0; i < g->nmods; i++) {
		fputs("<text>", fp);
		fputs_xml(g->mods[i], fp);
		fputs("</text>", fp);
	}
	fputs("</defs>\n", fp);
}

static void write_svg(const struct flame_graph *g, FILE *fp, bool inline_)
{
	uint32_t n = 0;

	write_head(g, fp, inline_);
	fputs("<g id=\"frames\">\n", fp);
	while (n != NONE) {
		bool d = drawn(g, n);

		if (d)
			write_frame(g, fp, n);
		n = ftree_next(g->t, n, d);
	}
	fputs("</g>\n", fp);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		XPAD, g->height - 10);
	fprintf(fp, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		g->width - XPAD, g->height - 10);
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var XP = %d, CW = %d, CH = %.2f;\n", XPAD,
		g->width - 2 * XPAD, CHAR_W);
	fputs(flamegraph_script, fp);
	fputs("]]></script>\n</svg>\n", fp);
}

/* Write atomically; atomic_commit reports any failed write (ferror). */
static int render(const struct flame_graph *g, const char *path,
		  struct error *e)
{
	struct atomic_file af;

	if (atomic_open(&af, path, e))
		return -1;
	write_svg(g, af.fp, false);
	return atomic_commit(&af, e);
}

/* --- the entry points ---------------------------------------------------- */

static int graph_init(struct flame_graph *g, const struct flame_opts *o,
		      struct error *e)
{
	char *unit;
	size_t n;

	memset(g, 0, sizeof(*g));
	g->width = o && o->width > 0 ? o->width : 1200;
	if (g->width < 200 || g->width > 100000)
		return error_set(e, "flame graph width %d out of range "
				 "(200 to 100000 pixels)", g->width);
	g->title = o && o->title ? o->title : "Flame Graph";
	g->subtitle = o ? o->subtitle : NULL;
	/* The script finds the end of a name at the last " — ". */
	unit = ftree_clean(o && o->unit ? o->unit : "samples");
	g->unit = str_replace(unit, "—", "-");
	free(unit);
	/* "1 sample", "1 byte" */
	g->unit1 = xstrdup(g->unit);
	n = strlen(g->unit1);
	if (n > 1 && g->unit1[n - 1] == 's')
		g->unit1[n - 1] = '\0';
	return 0;
}

static void graph_free(struct flame_graph *g)
{
	free(g->unit);
	free(g->unit1);
	free(g->main_module);
	free(g->mods);
	free(g->modidx);
	free(g->gone);
}

/* The main binary: the module of the heaviest "main", else the command's
 * basename. NULL if neither is known. */
static char *find_main_module(const struct profile *p,
			      const struct ftree *t,
			      const struct ftree_keys *ks)
{
	const struct ftree_key *best = NULL;
	int64_t bv = 0;
	char **argv, *m = NULL;
	size_t argc;
	struct error e;

	for (size_t i = 1; i < t->n; i++) {
		const struct ftree_key *k = &ks->v[t->v[i].key];
		int64_t v = t->v[i].value;

		if (!k->module || strcmp(k->function, "main"))
			continue;
		if (!best || v > bv ||
		    (v == bv && strcmp(k->module, best->module) < 0)) {
			best = k;
			bv = v;
		}
	}
	if (best)
		return xstrdup(best->module);
	if (!p->command || split_words(p->command, &argv, &argc, &e))
		return NULL;
	if (argc) {
		const char *slash = strrchr(argv[0], '/');

		m = ftree_clean(slash ? slash + 1 : argv[0]);
	}
	argv_free(argv);
	return m;
}

/* The graph of p's sample type to path (a file), or to fp as an <svg>
 * element to put inline in a page. */
static int flamegraph(const struct profile *p, size_t type,
		      const struct flame_opts *o, const char *path, FILE *fp,
		      struct error *e)
{
	struct ftree_keys ks = { 0 };
	struct ftree t = { 0 };
	struct flame_graph g;
	uint32_t *map;
	int ret;

	if (type >= p->ntypes)
		return error_set(e, "sample type %zu out of range: the "
				 "profile has %zu", type, p->ntypes);
	if (graph_init(&g, o, e))
		return -1;
	map = ftree_keys_of(&ks, p);
	ftree_build(&t, &ks, p, type, map);
	g.keys = &ks;
	g.t = &t;
	g.main_module = find_main_module(p, &t, &ks);
	graph_layout(&g);
	if (fp) {
		write_svg(&g, fp, true);
		ret = 0;
	} else {
		ret = render(&g, path, e);
	}
	graph_free(&g);
	free(map);
	ftree_free(&t);
	ftree_keys_free(&ks);
	return ret;
}

int profile_write_flamegraph(const struct profile *p, size_t type,
			     const struct flame_opts *o, const char *path,
			     struct error *e)
{
	return flamegraph(p, type, o, path, NULL, e);
}

int profile_fput_flamegraph(const struct profile *p, size_t type,
			    const struct flame_opts *o, FILE *fp,
			    struct error *e)
{
	return flamegraph(p, type, o, NULL, fp, e);
}

static int gone_cmp(const void *a, const void *b)
{
	const struct gone *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return ftree_key_cmp(x->k, y->k);
}

/* The top of each subtree only in BASE (its parent is in NEW), largest
 * first. */
static void find_gone(struct flame_graph *g, const struct ftree *bt,
		      const uint32_t *back)
{
	g->gone = xmalloc(bt->n * sizeof(*g->gone));
	for (size_t i = 1; i < bt->n; i++)
		if (back[i] == NONE && back[bt->v[i].parent] != NONE)
			g->gone[g->ngone++] = (struct gone){
				bt->v[i].value, &g->keys->v[bt->v[i].key] };
	qsort(g->gone, g->ngone, sizeof(*g->gone), gone_cmp);
}

int profile_write_diff_flamegraph(const struct profile *base,
				  const struct profile *cand,
				  const struct flame_opts *o,
				  const char *path, struct error *e)
{
	struct ftree_keys ks = { 0 };
	struct ftree bt = { 0 }, ct = { 0 };
	struct flame_graph g;
	uint32_t *bmap, *cmap, *match, *back;
	int ret;

	if (!base->ntypes || !cand->ntypes)
		return error_set(e, "cannot compare a profile without "
				 "sample types");
	if (graph_init(&g, o, e))
		return -1;
	bmap = ftree_keys_of(&ks, base);
	cmap = ftree_keys_of(&ks, cand);
	ftree_build(&bt, &ks, base, 0, bmap);
	ftree_build(&ct, &ks, cand, 0, cmap);
	match = ftree_match(&ct, &bt);
	back = ftree_match(&bt, &ct);
	g.keys = &ks;
	g.t = &ct;
	g.base = &bt;
	g.match = match;
	find_gone(&g, &bt, back);
	graph_layout(&g);
	/* Full colour at the largest change drawn, but never for less than
	 * one point, so that noise stays pale. */
	g.full = 0.01;
	for (size_t i = 0; i < ct.n; i++)
		if (match[i] != NONE && drawn(&g, (uint32_t)i))
			g.full = fmax(g.full, fabs(share(&ct, (uint32_t)i) -
						   share(&bt, match[i])));
	ret = render(&g, path, e);
	graph_free(&g);
	free(back);
	free(match);
	free(cmap);
	free(bmap);
	ftree_free(&ct);
	ftree_free(&bt);
	ftree_keys_free(&ks);
	return ret;
}
