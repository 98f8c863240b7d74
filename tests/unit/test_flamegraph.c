/*
 * Unit tests of the flame graph (src/profile/flamegraph.c, flametree.c):
 * every SVG written here is checked for well-formedness (by a small checker
 * below, and by python3's XML parser when there is one), widths and colours
 * are read back from the file and compared with values computed by hand,
 * and the embedded script (src/profile/flamegraph.js) is checked to be
 * the file's bytes, parsed by node and run against a minimal DOM to check
 * hover, zoom and search.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile/profile.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "teststrings.h"

static char tmpdir[] = "/tmp/ys-flame-XXXXXX";

static const struct sample_type samples = { "samples", "count" };

/* --- building profiles ---------------------------------------------------- */

/* Add v to a stack given root first as "main@app;a;b@libc.so.6" (a frame's
 * module after '@', none without). */
static void add(struct profile *p, int64_t v, const char *stack)
{
	char *s = xstrdup(stack), *tok = s, *semi, *at;
	uint32_t ids[64];
	size_t n = 0;

	do {
		struct frame f = { 0 };

		if ((semi = strchr(tok, ';')))
			*semi = '\0';
		if ((at = strchr(tok, '@')))
			*at = '\0';
		f.function = tok;
		f.module = at ? at + 1 : NULL;
		assert_true(n < 64);
		ids[n++] = profile_frame(p, &f);
		tok = semi + 1;
	} while (semi);
	/* Leaf first, as the model wants. */
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = ids[i];

		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = t;
	}
	profile_add(p, ids, n, &v);
	free(s);
}

/* Add v to the stack fn[0..n-1] (root first) with modules mod[]. */
static void add_frames(struct profile *p, int64_t v, const char *const *fn,
		       const char *const *mod, size_t n)
{
	uint32_t ids[64];

	for (size_t i = 0; i < n; i++) {
		struct frame f = { 0 };

		f.function = (char *)fn[i];
		f.module = (char *)mod[i];
		ids[n - 1 - i] = profile_frame(p, &f);
	}
	profile_add(p, ids, n, &v);
}

/* --- reading SVGs ---------------------------------------------------------- */

/* Length of a valid UTF-8 sequence XML allows at s, 0 if none. */
static size_t utf8_ok(const unsigned char *s)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
		     : (s[0] & 0xf0) == 0xe0 ? 3
		     : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	if (s[0] < 0x20 && s[0] != '\t' && s[0] != '\n' && s[0] != '\r')
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (len == 3 && s[0] == 0xed && s[1] >= 0xa0)
		return 0;	/* a surrogate */
	return len;
}

static bool name_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == ':' || c == '.';
}

/* An entity reference at s ("&amp;", "&#10;"); its length, 0 if invalid. */
static size_t entity(const char *s)
{
	static const char *const named[] = { "&lt;", "&gt;", "&amp;",
					     "&quot;", "&apos;" };
	size_t i = 2;

	for (size_t k = 0; k < 5; k++)
		if (!strncmp(s, named[k], strlen(named[k])))
			return strlen(named[k]);
	if (s[1] != '#')
		return 0;
	while (isxdigit((unsigned char)s[i]) || s[i] == 'x')
		i++;
	return i > 2 && s[i] == ';' ? i + 1 : 0;
}

/*
 * Whether s is well-formed XML, for what an SVG of ours can contain:
 * elements, attributes in double quotes, text, entities, CDATA, comments,
 * processing instructions. On failure why says where.
 */
static bool well_formed(const char *s, char *why, size_t n)
{
	const char *stack[256], *p = s, *end;
	size_t lens[256], depth = 0, roots = 0, len;

	for (const char *q = s; *q; q += len)
		if (!(len = utf8_ok((const unsigned char *)q)))
			return snprintf(why, n, "bad byte at %td", q - s), false;
	while (*p) {
		if (!strncmp(p, "<?", 2) || !strncmp(p, "<!--", 4) ||
		    !strncmp(p, "<![CDATA[", 9)) {
			const char *close = p[1] == '?' ? "?>" : p[2] == '-'
					    ? "-->" : "]]>";

			if (p[1] == '!' && p[2] == '[' && !depth)
				return snprintf(why, n, "CDATA outside"), false;
			if (!(end = strstr(p, close)))
				return snprintf(why, n, "unclosed at %td",
						p - s), false;
			p = end + strlen(close);
		} else if (p[0] == '<' && p[1] == '/') {
			for (end = p + 2; name_char(*end); end++)
				;
			if (!depth || (size_t)(end - p - 2) != lens[depth - 1] ||
			    strncmp(p + 2, stack[depth - 1], lens[depth - 1]) ||
			    *end != '>')
				return snprintf(why, n, "bad end tag at %td",
						p - s), false;
			depth--;
			p = end + 1;
		} else if (*p == '<') {
			const char *name = ++p;

			while (name_char(*p))
				p++;
			if (p == name || depth == 256 || (!depth && roots++))
				return snprintf(why, n, "bad tag at %td",
						p - s), false;
			stack[depth] = name;
			lens[depth++] = (size_t)(p - name);
			for (;;) {
				while (isspace((unsigned char)*p))
					p++;
				if (*p == '>' || (p[0] == '/' && p[1] == '>'))
					break;
				for (end = p; name_char(*end); end++)
					;
				if (end == p || end[0] != '=' || end[1] != '"')
					return snprintf(why, n, "bad attribute "
							"at %td", p - s), false;
				for (p = end + 2; *p && *p != '"'; p++)
					if (*p == '<' || (*p == '&' &&
							  !entity(p)))
						return snprintf(why, n, "bad "
							"value at %td", p - s),
							false;
				if (!*p++)
					return snprintf(why, n, "eof"), false;
			}
			if (*p == '/') {
				depth--;
				p++;
			}
			p++;
		} else if (*p == '&' && !entity(p)) {
			return snprintf(why, n, "bad & at %td", p - s), false;
		} else if (!strncmp(p, "]]>", 3)) {
			return snprintf(why, n, "]]> in text at %td", p - s),
			       false;
		} else {
			if (!depth && !isspace((unsigned char)*p))
				return snprintf(why, n, "text outside at %td",
						p - s), false;
			p++;
		}
	}
	if (depth || roots != 1)
		return snprintf(why, n, "unbalanced"), false;
	return true;
}

/*
 * The test's tools (python3, node) are installed by `make test`
 * (scripts/deps.sh test): a missing one fails the test, never skips it.
 */
static void need(const char *prog)
{
	char *cmd = xasprintf("command -v %s >/dev/null 2>&1", prog);
	int ret = system(cmd);

	free(cmd);
	if (ret != 0)
		fail_msg("'%s' is not installed: scripts/deps.sh test "
			 "installs it", prog);
}

/* Read back what was written to path and check that it is XML. */
static char *read_svg(const char *path)
{
	struct error e;
	char *data, why[128];
	size_t len;

	assert_int_equal(file_read_all(path, &data, &len, &e), 0);
	assert_int_equal(strlen(data), len);
	if (!well_formed(data, why, sizeof(why)))
		fail_msg("'%s' is not well-formed: %s", path, why);
	need("python3");
	char *cmd = xasprintf("python3 -c 'import sys, xml.etree."
			      "ElementTree as E; E.parse(sys.argv[1])' "
			      "'%s'", path);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	return data;
}

static char *render(const struct profile *p, const struct flame_opts *o)
{
	char *path = xasprintf("%s/out.svg", tmpdir), *svg;
	struct error e;

	if (profile_write_flamegraph(p, 0, o, path, &e))
		fail_msg("%s", e.msg);
	svg = read_svg(path);
	free(path);
	return svg;
}

static char *render_diff(const struct profile *base,
			 const struct profile *cand)
{
	char *path = xasprintf("%s/diff.svg", tmpdir), *svg;
	struct error e;

	if (profile_write_diff_flamegraph(base, cand, NULL, path, &e))
		fail_msg("%s", e.msg);
	svg = read_svg(path);
	free(path);
	return svg;
}

/* The <g> of the frame whose title starts with prefix (as in the file). */
static const char *frame(const char *svg, const char *prefix)
{
	char *needle = xasprintf("<title>%s", prefix);
	const char *t = strstr(svg, needle), *g;

	if (!t)
		fail_msg("no frame '%s'", prefix);
	assert_null(strstr(t + 1, needle));
	free(needle);
	for (g = t; g > svg && strncmp(g, "<g", 2); g--)
		;
	return g;
}

static double rect_attr(const char *svg, const char *prefix,
			const char *attr)
{
	const char *r = strstr(frame(svg, prefix), "<rect ");
	char *needle = xasprintf(" %s=\"", attr);
	const char *a = strstr(r, needle);

	assert_non_null(a);
	a += strlen(needle);
	free(needle);
	return strtod(a, NULL);
}

/* The fill of the next frame from g as r, g, b. */
static void fill_at(const char *g, unsigned rgb[3])
{
	const char *f = strstr(strstr(g, "<rect "), "fill=\"#");

	assert_int_equal(sscanf(f, "fill=\"#%2x%2x%2x", &rgb[0], &rgb[1],
				&rgb[2]), 3);
}

static void fill(const char *svg, const char *prefix, unsigned rgb[3])
{
	fill_at(frame(svg, prefix), rgb);
}

/* The title text of a frame, as written (escaped). */
static char *title(const char *svg, const char *prefix)
{
	const char *t = strstr(frame(svg, prefix), "<title>") + 7;

	return xstrndup(t, (size_t)(strstr(t, "</title>") - t));
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 0.01)
		fail_msg("%.4f, wanted %.4f", got, want);
}

/* --- the tests ------------------------------------------------------------- */

/* Everything from outside is escaped, invalid UTF-8 and control characters
 * replaced; unicode passes through. */
static void test_escaping(void **state)
{
	static const char *const fn[] = {
		"main", "std::vector<int>::operator<<&\"'",
		"naïve_日本_🔥", "bad\xff\xfeutf8\001ctl\r\nx",
	};
	static const char *const mod[] = {
		"app", "lib<&>\"'.so", "ünï.so", NULL,
	};
	struct flame_opts o = { "T <&>\"' é", "S </text> & ü", "<b>", 0 };
	struct profile p;
	char *svg;

	profile_init(&p, &samples, 1);
	add_frames(&p, 10, fn, mod, 4);
	svg = render(&p, &o);
	assert_non_null(strstr(svg, "<title>std::vector&lt;int&gt;::operator"
			       "&lt;&lt;&amp;&quot;&apos; (lib&lt;&amp;&gt;"
			       "&quot;&apos;.so) — 10 &lt;b&gt;, 100.00%"));
	assert_null(strstr(svg, "vector<int>"));
	assert_null(strstr(svg, "<b>"));
	assert_non_null(strstr(svg, "<title>naïve_日本_🔥 (ünï.so) — "));
	assert_non_null(strstr(svg, "<title>bad??utf8?ctl  x — 10 "));
	assert_non_null(strstr(svg, ">T &lt;&amp;&gt;&quot;&apos; é</text>"));
	assert_non_null(strstr(svg, ">S &lt;/text&gt; &amp; ü</text>"));
	/* The module table the script reads names back with, sorted. */
	assert_non_null(strstr(svg, "<defs id=\"mods\"><text>app</text>"
			       "<text>lib&lt;&amp;&gt;&quot;&apos;.so</text>"
			       "<text>ünï.so</text></defs>"));
	/* No string of the profile inside the script. */
	assert_null(strstr(strstr(svg, "<script"), "vector"));
	free(svg);
	profile_free(&p);
}

/*
 * A hand-built profile of 1,000,000 samples, 1180 px wide: frames under
 * 1,000,000 * 0.1 / 1180 = 84.7 samples are dropped. Tree: all, main, a,
 * x, y (100: kept), b, c (50: dropped) and c's d, e, f (dropped).
 */
static void test_frame_count(void **state)
{
	struct profile p;
	char *svg;
	double y_all, y_x;

	profile_init(&p, &samples, 1);
	add(&p, 499900, "main@app;a@app;x@app");
	add(&p, 100, "main@app;a@app;y@app");
	add(&p, 499950, "main@app;b@app");
	add(&p, 25, "main@app;c@app;d@app;e@app;f@app");
	add(&p, 25, "main@app;c@app;d@app");
	svg = render(&p, NULL);
	assert_int_equal(count(svg, "<title>"), 6);
	assert_int_equal(count(svg, "<rect "), 6 + 1);	/* + background */
	assert_non_null(strstr(svg, "4 frames narrower than 0.1 px not "
			       "shown"));
	assert_null(strstr(svg, "<title>c (app)"));
	assert_near(rect_attr(svg, "y (app)", "width"), 100 * 1180 / 1e6);
	/* Rows: all at the bottom, x three rows up, and nothing for the
	 * dropped deeper frames. */
	y_all = rect_attr(svg, "all —", "y");
	y_x = rect_attr(svg, "x (app)", "y");
	assert_near(y_all - y_x, 3 * 16);
	assert_near(rect_attr(svg, "main (app)", "y"), y_all - 16);
	assert_int_equal((int)strtol(strstr(svg, " height=\"") + 9, NULL, 10),
			 (int)y_all + 16 + 30);
	free(svg);
	profile_free(&p);
}

/* Three children of 1, 2, 1 under the root: W/4, W/2, W/4, in name order
 * whatever the order they came in; a long name is cut to fit. */
static void test_widths(void **state)
{
	struct flame_opts o = { NULL, NULL, NULL, 800 };
	char *svg, *longname = xmalloc(201), *text, *want;
	struct profile p;
	double w;

	for (int i = 0; i < 100; i++)
		memcpy(longname + 2 * i, "é", 2);
	longname[200] = '\0';
	profile_init(&p, &samples, 1);
	add(&p, 1, "c@app");
	want = xasprintf("b@app;%s", longname);
	add(&p, 2, want);
	free(want);
	add(&p, 1, "a@app");
	svg = render(&p, NULL);
	w = rect_attr(svg, "all —", "width");
	assert_near(w, 1180);
	assert_near(rect_attr(svg, "all —", "x"), 10);
	assert_near(rect_attr(svg, "a (app)", "width"), w / 4);
	assert_near(rect_attr(svg, "b (app)", "width"), w / 2);
	assert_near(rect_attr(svg, "c (app)", "width"), w / 4);
	assert_near(rect_attr(svg, "a (app)", "x"), 10);
	assert_near(rect_attr(svg, "b (app)", "x"), 10 + w / 4);
	assert_near(rect_attr(svg, "c (app)", "x"), 10 + 3 * w / 4);
	assert_near(rect_attr(svg, "a (app)", "y"),
		    rect_attr(svg, "all —", "y") - 16);
	assert_non_null(strstr(svg, "<title>a (app) — 1 sample, 25.00%"));
	/* 590 px hold floor(587 / 7.08) = 82 characters: 80 and "..". */
	text = strstr(frame(svg, longname), "<text");
	want = xasprintf(">%.160s..</text>", longname);
	assert_true(!strncmp(strchr(text, '>'), want, strlen(want)));
	free(want);
	free(svg);

	svg = render(&p, &o);
	assert_near(rect_attr(svg, "a (app)", "width"), 780 / 4.0);
	assert_near(rect_attr(svg, "b (app)", "width"), 780 / 2.0);
	free(svg);
	free(longname);
	profile_free(&p);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/*
 * 10,000 distinct stacks, 6 to 20 deep, over 2,000 functions in 9
 * modules: a few choices per level near the root, many further up, values
 * 1 to 100 — the leaves are mostly just above the 0.1 px cutoff, which is
 * the worst case for the size of the file.
 */
static void large_profile(struct profile *p, uint64_t seed)
{
	char names[20][40], *fn[20], *mod[20];
	static const char *const mods[] = {
		"app", "libc.so.6", "libm.so.6", "libssl.so.3", "libz.so.1",
		"libstdc++.so.6", "[kernel]", "[unknown]", "libx.so",
	};

	profile_init(p, &samples, 1);
	while (p->nstacks < 10000) {
		size_t depth = 6 + lcg(&seed) % 15;
		uint64_t h = 0;

		for (size_t k = 0; k < depth; k++) {
			h = (h * 31 + lcg(&seed) % (k < 5 ? 4 : 50)) % 2000;
			snprintf(names[k], sizeof(names[k]), "%s_%llu",
				 k ? "function" : "main",
				 (unsigned long long)h);
			fn[k] = names[k];
			mod[k] = (char *)mods[k ? h % 9 : 0];
		}
		add_frames(p, (int64_t)(1 + lcg(&seed) % 100),
			   (const char *const *)fn, (const char *const *)mod,
			   depth);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_large(void **state)
{
	char *path = xasprintf("%s/large.svg", tmpdir), *svg;
	const char *sub;
	struct profile p;
	struct error e;
	struct stat st;
	double t0, secs;

	large_profile(&p, 42);
	t0 = now();
	assert_int_equal(profile_write_flamegraph(&p, 0, NULL, path, &e), 0);
	secs = now() - t0;
	assert_int_equal(stat(path, &st), 0);
	svg = read_svg(path);
	sub = strstr(svg, "y=\"41\">") + 7;
	print_message("10,000 stacks: %zu frames drawn (%.*s), %.3f s, "
		      "%.2f MB\n", count(svg, "<title>"),
		      (int)(strstr(sub, "</text>") - sub), sub, secs,
		      st.st_size / 1e6);
	/* its time printed, not asserted: speed is bench/'s */
	assert_true(st.st_size < 10 * 1000 * 1000);
	free(svg);
	free(path);
	profile_free(&p);
}

/* Depth is bounded only by the data: nothing recurses. */
static void test_deep(void **state)
{
	enum { DEPTH = 5000 };
	uint32_t *ids = xmalloc(DEPTH * sizeof(*ids));
	struct profile p;
	int64_t v = 7;
	char *svg;

	profile_init(&p, &samples, 1);
	for (size_t i = 0; i < DEPTH; i++) {
		struct frame f = { 0 };

		f.function = i ? "recurse" : "main";
		f.module = "app";
		ids[DEPTH - 1 - i] = profile_frame(&p, &f);
	}
	profile_add(&p, ids, DEPTH, &v);
	svg = render(&p, NULL);
	assert_int_equal(count(svg, "<title>recurse (app) — 7 samples"),
			 DEPTH - 1);
	assert_int_equal(rect_attr(svg, "all —", "y") -
			 rect_attr(svg, "main (app)", "y"), 16);
	assert_int_equal((int)strtol(strstr(svg, " height=\"") + 9, NULL, 10),
			 (int)rect_attr(svg, "all —", "y") + 16 + 30);
	assert_true(rect_attr(svg, "all —", "y") > DEPTH * 16);
	free(svg);
	free(ids);
	profile_free(&p);
}

/* The same input gives the same bytes, whatever order the stacks and
 * frames came in. */
static void test_deterministic(void **state)
{
	static const char *const stacks[] = {
		"main@app;parse@app;strlen@libc.so.6",
		"main@app;parse@app;malloc@libc.so.6",
		"main@app;run@app;sqrt@libm.so.6",
		"main@app;run@app;[unknown]@[unknown]",
		"main@app;run@app;schedule@[kernel]",
	};
	struct profile p, q;
	char *a, *b, *c;

	profile_init(&p, &samples, 1);
	profile_init(&q, &samples, 1);
	for (size_t i = 0; i < 5; i++) {
		add(&p, (int64_t)i + 1, stacks[i]);
		add(&q, (int64_t)(5 - i), stacks[4 - i]);
	}
	a = render(&p, NULL);
	b = render(&p, NULL);
	c = render(&q, NULL);
	assert_string_equal(a, b);
	assert_string_equal(a, c);
	free(a);
	free(b);
	free(c);
	profile_free(&p);
	profile_free(&q);
}

/* Hue by module: warm for the main binary, gray for [unknown], one family
 * per library; the shade by function. */
static void test_colours(void **state)
{
	struct profile p;
	unsigned m[3], pa[3], s[3], ma[3], u[3], s2[3];
	char *svg;

	profile_init(&p, &samples, 1);
	add(&p, 10, "main@app;parse@app;strlen@libc.so.6");
	add(&p, 10, "main@app;parse@app;malloc@libc.so.6");
	add(&p, 10, "main@app;run@app;[unknown]@[unknown]");
	add(&p, 10, "main@app;run@app;strlen@libc.so.6");
	svg = render(&p, NULL);
	fill(svg, "main (app)", m);
	fill(svg, "parse (app)", pa);
	fill(svg, "malloc (libc.so.6)", ma);
	fill(svg, "[unknown] ([unknown])", u);
	/* Two frames of strlen: same colour in both places. */
	fill_at(strstr(svg, "<title>strlen"), s);
	fill_at(strstr(strstr(svg, "<title>strlen") + 1, "<title>strlen"), s2);
	assert_memory_equal(s, s2, sizeof(s));
	assert_true(m[0] >= 205 && m[2] <= 55 && pa[0] >= 205 && pa[2] <= 55);
	assert_memory_not_equal(m, pa, sizeof(m));
	assert_true(u[0] == u[1] && u[1] == u[2]);
	/* The libc family is not warm; its two functions differ a little. */
	assert_true(s[2] > 55 && ma[2] > 55);
	assert_memory_not_equal(s, ma, sizeof(s));
	for (int i = 0; i < 3; i++)
		assert_true(abs((int)s[i] - (int)ma[i]) <= 50);
	free(svg);
	profile_free(&p);
}

/*
 * BASE (200): grow 50, shrink 80, same 40, mild 10, gone 20.
 * NEW (100):  grow 50, shrink 10, same 20, mild 10, new 10.
 * Shares are of each profile's own total.
 * The largest change is shrink's 30 points: full colour; grow's 25 is
 * 25/30 of it, mild's 5 is 1/6; unchanged frames are neutral, new ones
 * full red, gone ones in the note.
 */
static void test_diff(void **state)
{
	struct profile base, cand;
	unsigned c[3];
	char *svg, *t;

	profile_init(&base, &samples, 1);
	profile_init(&cand, &samples, 1);
	add(&base, 50, "main@app;grow@app");
	add(&base, 80, "main@app;shrink@app");
	add(&base, 40, "main@app;same@app");
	add(&base, 10, "main@app;mild@app");
	add(&base, 20, "main@app;gone@app");
	add(&cand, 50, "main@app;grow@app");
	add(&cand, 10, "main@app;shrink@app");
	add(&cand, 20, "main@app;same@app");
	add(&cand, 10, "main@app;mild@app");
	add(&cand, 10, "main@app;new@app");
	svg = render_diff(&base, &cand);
	/* The shape of NEW. */
	assert_near(rect_attr(svg, "grow (app)", "width"), 1180 / 2.0);
	assert_near(rect_attr(svg, "new (app)", "width"), 1180 / 10.0);
	t = title(svg, "grow (app)");
	assert_string_equal(t, "grow (app) — 50 samples, 50.00%, +25.00 "
			    "points (25.0% → 50.0%)");
	free(t);
	fill(svg, "grow (app)", c);
	assert_int_equal(c[0], 255);
	assert_int_equal(c[1], lround(225 - 165 * 25 / 30.0));
	assert_int_equal(c[2], c[1]);
	t = title(svg, "shrink (app)");
	assert_non_null(strstr(t, ", -30.00 points (40.0% → 10.0%)"));
	free(t);
	fill(svg, "shrink (app)", c);
	assert_true(c[0] == 60 && c[1] == 60 && c[2] == 255);
	fill(svg, "mild (app)", c);
	assert_true(c[0] == 255 && c[1] == lround(225 - 165 / 6.0));
	t = title(svg, "same (app)");
	assert_non_null(strstr(t, ", +0.00 points (20.0% → 20.0%)"));
	free(t);
	fill(svg, "same (app)", c);
	assert_true(c[0] == 232 && c[1] == 232 && c[2] == 232);
	fill(svg, "main (app)", c);
	assert_true(c[0] == 232 && c[1] == 232 && c[2] == 232);
	t = title(svg, "new (app)");
	assert_non_null(strstr(t, ", +10.00 points (new, 0.0% → 10.0%)"));
	free(t);
	fill(svg, "new (app)", c);
	assert_true(c[0] == 255 && c[1] == 60 && c[2] == 60);
	assert_null(strstr(strstr(svg, "<g id=\"frames\">"), "<title>gone"));
	assert_non_null(strstr(svg, "only in BASE, not drawn: gone (10.00%)"));
	assert_non_null(strstr(svg, "full colour at ±30.00 points"));
	free(svg);
	profile_free(&base);
	profile_free(&cand);
}

static void test_empty_and_errors(void **state)
{
	struct flame_opts o = { NULL, NULL, NULL, 50 };
	struct profile p;
	struct error e;
	char *svg, *path;

	profile_init(&p, &samples, 1);
	svg = render(&p, NULL);
	assert_int_equal(count(svg, "<title>"), 0);
	assert_non_null(strstr(svg, ">no samples</text>"));
	free(svg);

	add(&p, 1, "main");
	assert_int_equal(profile_write_flamegraph(&p, 1, NULL, "-", &e), -1);
	assert_string_equal(e.msg, "sample type 1 out of range: the profile "
			    "has 1");
	assert_int_equal(profile_write_flamegraph(&p, 0, &o, "-", &e), -1);
	assert_non_null(strstr(e.msg, "width 50 out of range"));
	path = xasprintf("%s/no/such/dir/x.svg", tmpdir);
	assert_int_equal(profile_write_flamegraph(&p, 0, NULL, path, &e), -1);
	assert_non_null(strstr(e.msg, path));
	free(path);
	profile_free(&p);
}

/*
 * Run the embedded script under node on a minimal DOM
 * (tests/data/flamegraph_dom.js) after the actions in cmds; returns what
 * it prints: a line per frame "F|name|x|width|class|fill|label", then
 * matched|, details| and unzoom|.
 */
static char *run_script(const char *svg_path, const char *cmds)
{
	char *cpath = xasprintf("%s/cmds", tmpdir), *cmd, *out = NULL;
	size_t len = 0;
	FILE *fp = fopen(cpath, "w"), *ms;
	int c;

	assert_non_null(fp);
	fputs(cmds, fp);
	assert_int_equal(fclose(fp), 0);
	cmd = xasprintf("node '%s/flamegraph_dom.js' '%s' '%s'", TESTDATA_DIR,
			svg_path, cpath);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	ms = open_memstream(&out, &len);
	while ((c = fgetc(fp)) != EOF)
		fputc(c, ms);
	fclose(ms);
	assert_int_equal(pclose(fp), 0);
	free(cmd);
	free(cpath);
	return out;
}

static void expect_line(const char *out, const char *line)
{
	char *want = xasprintf("\n%s\n", line), *all = xasprintf("\n%s", out);

	if (!strstr(all, want))
		fail_msg("no line '%s' in:\n%s", line, out);
	free(want);
	free(all);
}

/*
 * all (8) - main (8) - a (2) - x (1, libx.so), y (1)
 *                    - b (2) - x (2, libx.so)
 *                    - f (x) — <"&'> (4, module "we (ird).so")
 */
static void test_script(void **state)
{
	char *path, *out;
	struct profile p;

	need("node");
	path = xasprintf("%s/out.svg", tmpdir);
	profile_init(&p, &samples, 1);
	add(&p, 1, "main@app;a@app;x@libx.so");
	add(&p, 1, "main@app;a@app;y@app");
	add(&p, 2, "main@app;b@app;x@libx.so");
	add(&p, 4, "main@app;f (x) — <\"&'>@we (ird).so");
	free(render(&p, NULL));

	out = run_script(path, "hover x (libx.so)\n");
	expect_line(out, "details|x (libx.so) — 1 sample, 12.50%");
	/* Labels as C wrote them; names read back through the entities
	 * and without the module, even one with " (" and " — ". */
	expect_line(out, "F|f (x) — <\"&'> (we (ird).so)|600.00|590.00|-|-|"
		    "f (x) — <\"&'>");
	free(out);

	/* Zoom on a: it takes the width, its children half each, its
	 * ancestors are dimmed, the rest hidden. */
	out = run_script(path, "click a (app)\n");
	expect_line(out, "F|a (app)|10.00|1180.00|-|-|a");
	expect_line(out, "F|x (libx.so)|10.00|590.00|-|-|x");
	expect_line(out, "F|y (app)|600.00|590.00|-|-|y");
	expect_line(out, "F|main (app)|10.00|1180.00|p|-|main");
	expect_line(out, "F|b (app)|305.00|295.00|h|-|b");
	expect_line(out, "unzoom|btn");
	free(out);

	/* Case-insensitive; f (x) matches too: (1 + 2 + 4) / 8. */
	out = run_script(path, "search X\n");
	expect_line(out, "matched|Matched: 87.5%");
	expect_line(out, "F|x (libx.so)|305.00|295.00|-|rgb(230,0,230)|x");
	expect_line(out, "F|b (app)|305.00|295.00|-|-|b");
	free(out);
	/* x under a is inside a: counted once, (2 + 2) / 8. */
	out = run_script(path, "search ^(a|x)$\n");
	expect_line(out, "matched|Matched: 50.0%");
	free(out);
	out = run_script(path, "search ^f \\(x\\) — <\"&'>$\n");
	expect_line(out, "matched|Matched: 50.0%");
	free(out);
	/* Modules are not part of the name; a bad regex is plain text. */
	out = run_script(path, "search libx\n");
	expect_line(out, "matched|Matched: 0.0%");
	free(out);
	out = run_script(path, "search f (x\n");
	expect_line(out, "matched|Matched: 50.0%");
	free(out);

	/* Escape resets zoom and search; clicking the root unzooms. */
	out = run_script(path, "click b (app)\nsearch y\nescape\n");
	expect_line(out, "F|a (app)|10.00|295.00|-|-|a");
	expect_line(out, "F|y (app)|157.50|147.50|-|-|y");
	expect_line(out, "matched| ");
	expect_line(out, "unzoom|btn off");
	free(out);
	out = run_script(path, "click x (libx.so)\nclick all\n");
	expect_line(out, "F|b (app)|305.00|295.00|-|-|b");
	expect_line(out, "unzoom|btn off");
	free(out);
	/* The keyboard: Enter on a focused frame zooms as a click does,
	 * Enter on the root unzooms; an arrow moves the focus (the details
	 * line follows it): up to the leftmost callee, right in the row,
	 * down to the caller. */
	static const char *const keys[][3] = {
		{ "key Enter a (app)\n", "F|a (app)|10.00|1180.00|-|-|a",
		  "F|b (app)|305.00|295.00|h|-|b" },
		{ "key Enter a (app)\nkey Enter all\n",
		  "F|b (app)|305.00|295.00|-|-|b", "unzoom|btn off" },
		{ "key ArrowUp main (app)\n",
		  "details|a (app) — 2 samples, 25.00%", "unzoom|btn off" },
		{ "key ArrowRight a (app)\n",
		  "details|b (app) — 2 samples, 25.00%", "matched| " },
		{ "key ArrowDown b (app)\n",
		  "details|main (app) — 8 samples, 100.00%", "matched| " },
	};
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		out = run_script(path, keys[k][0]);
		expect_line(out, keys[k][1]);
		expect_line(out, keys[k][2]);
		free(out);
	}
	free(path);
	profile_free(&p);
}

/* The flame graph's script, as kept in the source tree. */
#define SCRIPT_JS TESTDATA_DIR "/../../src/profile/flamegraph.js"

/*
 * The script in the SVG is flamegraph.js byte for byte (tools/embed.c
 * compiled it in), after the one line of constants, in plain and
 * differential graphs; it cannot end the CDATA section around it.
 */
static void test_script_embedded(void **state)
{
	char *js, *svg, *want;
	const char *start;
	struct profile p, q;
	struct error e;
	size_t len;

	assert_int_equal(file_read_all(SCRIPT_JS, &js, &len, &e), 0);
	assert_int_equal(strlen(js), len);
	assert_true(len > 1000);
	assert_null(strstr(js, "]]>"));
	want = xasprintf("%s]]></script>\n</svg>\n", js);

	profile_init(&p, &samples, 1);
	profile_init(&q, &samples, 1);
	add(&p, 3, "main@app;a@app;x@libx.so");
	add(&q, 1, "main@app;b@app");
	for (int diff = 0; diff < 2; diff++) {
		svg = diff ? render_diff(&q, &p) : render(&p, NULL);
		start = strstr(svg, "<script type=\"text/ecmascript\">"
			       "<![CDATA[\nvar XP = 10, CW = 1180, CH = ");
		assert_non_null(start);
		start = strchr(start, ';');
		assert_non_null(start);
		assert_string_equal(start + 2, want);
		free(svg);
	}
	free(want);
	free(js);
	profile_free(&p);
	profile_free(&q);
}

/* Lint: node parses the script (strict mode's early errors included). */
static void test_script_syntax(void **state)
{
	char *cmd = xasprintf("node --check '%s'", SCRIPT_JS);

	need("node");
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int ret = system(cmd);

	free(cmd);
	return ret;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_frame_count),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_colours),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_empty_and_errors),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_script_embedded),
		cmocka_unit_test(test_script_syntax),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
