/*
 * Unit tests of src/profile's model and exporters: interning, totals, the
 * top list, folded output and reading, speedscope JSON, and pprof decoded
 * by a small protobuf reader written here (independent of the encoder),
 * plus the time of a million profile_add calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <math.h>

#include "profile/profile.h"
#include "profile/trace.h"
#include "profile/tracepoint.h"
#include "util/fileio.h"
#include "util/strutil.h"

static const struct sample_type one_type[] = { { "samples", "count" } };
static const struct sample_type two_types[] = {
	{ "samples", "count" }, { "cpu", "nanoseconds" },
};

static char tmpdir[] = "/tmp/ys_profile_XXXXXX";

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static char *slurp(const char *path, size_t *len)
{
	struct error e;
	char *data = NULL;

	assert_int_equal(file_read_all(path, &data, len, &e), 0);
	return data;
}

static void assert_contains(const char *hay, const char *needle)
{
	/* (never NULL: said for GCC with the sanitizers at -O2) */
	if (!strstr(hay, needle))
		fail_msg("'%s' not found in:\n%s", needle, hay ? hay : "");
}

static void spitn(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void spit(const char *path, const char *text)
{
	spitn(path, text, strlen(text));
}

static uint32_t fr(struct profile *p, const char *fn, const char *file,
		   int line, const char *module, bool inlined)
{
	struct frame f = { (char *)fn, (char *)file, line, (char *)module,
			   0x1000 + (uint64_t)line, inlined };

	return profile_frame(p, &f);
}

/* ADD(p, V(values...), frame ids leaf first...) */
#define V(...) ((int64_t[]){ __VA_ARGS__ })
#define ADD(p, vals, ...)                                               \
	profile_add(p, (uint32_t[]){ __VA_ARGS__ },                      \
		    sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t), \
		    vals)

static void test_intern(void **state)
{
	struct profile p;
	uint32_t a, b, c, d, e2;
	size_t s1, s2, s3;

	profile_init(&p, two_types, 2);
	a = fr(&p, "main", "main.c", 10, "prog", false);
	b = fr(&p, "main", "main.c", 10, "prog", false);
	assert_int_equal(a, b);
	/* The address does not count. */
	{
		struct frame f = { "main", "main.c", 10, "prog", 0xdead, false };

		assert_int_equal(profile_frame(&p, &f), a);
		assert_int_equal(p.frames[a].address, 0x100a);
	}
	/* Every other field does. */
	c = fr(&p, "main", "main.c", 11, "prog", false);
	d = fr(&p, "main", NULL, 10, "prog", false);
	e2 = fr(&p, "main", "main.c", 10, "prog", true);
	assert_int_not_equal(c, a);
	assert_int_not_equal(d, a);
	assert_int_not_equal(e2, a);
	assert_int_not_equal(fr(&p, "main", "main.c", 10, "lib", false), a);
	assert_int_not_equal(fr(&p, "main", "main.c", 10, NULL, false), a);
	assert_int_not_equal(fr(&p, "main", "", 10, "prog", false), d);
	assert_int_equal(p.nframes, 7);
	assert_string_equal(p.frames[a].function, "main");
	assert_null(p.frames[d].file);
	assert_true(p.frames[e2].inlined);

	s1 = ADD(&p, V(1, 100), c, a);
	s2 = ADD(&p, V(2, 200), c, a);
	s3 = ADD(&p, V(4, 400), a, c);
	assert_int_equal(s1, s2);
	assert_int_not_equal(s1, s3);
	assert_int_equal(p.nstacks, 2);
	assert_int_equal(p.stacks[s1].values[0], 3);
	assert_int_equal(p.stacks[s1].values[1], 300);
	assert_int_equal(p.stacks[s1].depth, 2);
	assert_int_equal(p.stacks[s1].frames[0], c);
	assert_int_equal(profile_total(&p, 0), 7);
	assert_int_equal(profile_total(&p, 1), 700);
	/* A prefix is another stack. */
	assert_int_equal(ADD(&p, V(8, 0), c), 2);
	assert_int_equal(profile_total(&p, 0), 15);
	profile_free(&p);
	/* Freeing twice (zeroed) is harmless. */
	profile_free(&p);
}

/* Many frames and stacks: the tables grow and keep every id. */
static void test_intern_growth(void **state)
{
	struct profile p;
	uint32_t ids[5000];

	profile_init(&p, one_type, 1);
	for (int i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		ids[i] = fr(&p, name, "x.c", i, "m", false);
		assert_int_equal(ids[i], i);
	}
	for (int i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(fr(&p, name, "x.c", i, "m", false), i);
		assert_int_equal(ADD(&p, V(1), ids[i], ids[(i + 1) % 5000]),
				 i);
	}
	for (int i = 0; i < 5000; i++)
		assert_int_equal(ADD(&p, V(i), ids[i], ids[(i + 1) % 5000]),
				 i);
	assert_int_equal(p.nstacks, 5000);
	assert_int_equal(profile_total(&p, 0), 5000 + 4999 * 5000 / 2);
	profile_free(&p);
}

static void test_top(void **state)
{
	struct profile p;
	struct profile_top *top;
	size_t n;
	uint32_t main_, a, b, b20, c, d, y, z;

	profile_init(&p, two_types, 2);
	main_ = fr(&p, "main", "m.c", 1, "prog", false);
	a = fr(&p, "a", "m.c", 2, "prog", false);
	b = fr(&p, "b", "m.c", 3, "prog", false);
	b20 = fr(&p, "b", "m.c", 20, "prog", false);
	c = fr(&p, "c", "c.h", 4, "prog", true);
	d = fr(&p, "d", "m.c", 5, "prog", false);
	y = fr(&p, "y", "m.c", 6, "prog", false);
	z = fr(&p, "z", "m.c", 7, "prog", false);
	ADD(&p, V(10, 1), b, a, main_);
	ADD(&p, V(5, 1), a, b, a, main_);	/* a recursive */
	ADD(&p, V(7, 1), c, b, main_);	/* c inlined into b */
	ADD(&p, V(3, 1), main_);
	ADD(&p, V(2, 1), b20, a, main_);	/* b at another line */
	ADD(&p, V(7, 1), d, main_);
	ADD(&p, V(1, 1), y, d, main_);
	ADD(&p, V(0, 1), z, main_);	/* nothing of type 0 */

	assert_int_equal(profile_top(&p, 0, &top, &n), 0);
	/* By hand: self b 10+2, c 7, d 7, a 5, main 3, y 1; total main
	 * 35, b 10+5+7+2, a 10+5+2 (once in the recursive stack), d 7+1. */
	assert_int_equal(n, 6);
	struct { const char *fn; int64_t self, total; } want[] = {
		{ "b", 12, 24 }, { "d", 7, 8 }, { "c", 7, 7 },
		{ "a", 5, 17 }, { "main", 3, 35 }, { "y", 1, 1 },
	};
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(top[i].function, want[i].fn);
		assert_string_equal(top[i].module, "prog");
		assert_int_equal(top[i].self, want[i].self);
		assert_int_equal(top[i].total, want[i].total);
	}
	free(top);
	/* Type 1: one per stack; z now counts. */
	assert_int_equal(profile_top(&p, 1, &top, &n), 0);
	assert_int_equal(n, 7);
	assert_string_equal(top[0].function, "b");
	assert_int_equal(top[0].self, 2);
	assert_int_equal(top[0].total, 4);
	assert_string_equal(top[1].function, "main");
	assert_int_equal(top[1].self, 1);
	assert_int_equal(top[1].total, 8);
	free(top);
	/* Per line (record --lines): b at line 3 and at line 20 are two
	 * rows, by hand self 10 and 2, total 10+5+7 and 2; the others as
	 * before, each at its one line. */
	assert_int_equal(profile_top_lines(&p, 0, &top, &n), 0);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(top[i].function, "b"))
			continue;
		assert_string_equal(top[i].file, "m.c");
		assert_int_equal(top[i].self, top[i].line == 3 ? 10 : 2);
		assert_int_equal(top[i].total, top[i].line == 3 ? 22 : 2);
		assert_true(top[i].line == 3 || top[i].line == 20);
	}
	assert_string_equal(top[0].function, "b");
	assert_int_equal(top[0].line, 3);
	free(top);
	profile_free(&p);
}

static void test_top_empty(void **state)
{
	struct profile p;
	struct profile_top *top;
	size_t n = 99;

	profile_init(&p, one_type, 1);
	assert_int_equal(profile_top(&p, 0, &top, &n), 0);
	assert_int_equal(n, 0);
	free(top);
	assert_int_equal(profile_total(&p, 0), 0);
	profile_free(&p);
}

/* The small profile of the folded and speedscope tests. */
static void small_profile(struct profile *p)
{
	uint32_t m, ab, ab9, xy, zz;

	profile_init(p, two_types, 2);
	m = fr(p, "main", "main.c", 3, "prog", false);
	ab = fr(p, "a;b", "a.c", 5, "prog", false);
	ab9 = fr(p, "a;b", "a.c", 9, "prog", false);
	xy = fr(p, "x\ny", NULL, 0, "libx.so", false);
	zz = fr(p, "zz", NULL, 0, NULL, false);
	ADD(p, V(3, 30), ab, m);
	ADD(p, V(4, 40), xy, m);
	ADD(p, V(2, 20), ab9, m);	/* same text as the first */
	ADD(p, V(1, 10), m);
	ADD(p, V(0, 5), zz, m);
}

static void test_folded_exact(void **state)
{
	struct profile p;
	struct error e;
	char *path = tmp_path("small.folded"), *text;

	small_profile(&p);
	assert_int_equal(profile_write_folded(&p, 0, path, &e), 0);
	text = slurp(path, NULL);
	assert_string_equal(text, "main 1\n"
				  "main;a:b 5\n"
				  "main;x y 4\n");
	free(text);
	assert_int_equal(profile_write_folded(&p, 1, path, &e), 0);
	text = slurp(path, NULL);
	assert_string_equal(text, "main 10\n"
				  "main;a:b 50\n"
				  "main;x y 40\n"
				  "main;zz 5\n");
	free(text);
	assert_int_equal(profile_write_folded(&p, 2, path, &e), -1);
	assert_non_null(strstr(e.msg, "sample type"));
	profile_free(&p);
	free(path);
}

/* test_folded_generated's reference: each stack's text made whole, as
 * the folded format defines it, sorted by strcmp, equal texts summed,
 * zero sums left out. */
struct ref_line {
	char *text;
	int64_t value;
};

static int ref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ref_line *)a)->text,
		      ((const struct ref_line *)b)->text);
}

static char *ref_folded(const struct profile *p, size_t t)
{
	struct ref_line *v = calloc(p->nstacks + 1, sizeof(*v));
	size_t n = 0, len = 1, at = 0;
	char *out;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *st = &p->stacks[i];
		size_t cap = 1;
		char *b;

		if (!st->values[t])
			continue;
		for (size_t d = 0; d < st->depth; d++)
			cap += strlen(p->frames[st->frames[d]].function) + 1;
		b = calloc(cap, 1);
		for (size_t d = st->depth; d-- > 0;) {
			const char *c = p->frames[st->frames[d]].function;
			size_t k = strlen(b);

			for (; *c; c++)
				b[k++] = *c == ';' ? ':' :
					 *c == '\n' || *c == '\r' ? ' ' : *c;
			if (d)
				b[k++] = ';';
		}
		v[n++] = (struct ref_line){ b, st->values[t] };
	}
	qsort(v, n, sizeof(*v), ref_cmp);
	for (size_t i = 0; i < n; i++)
		len += strlen(v[i].text) + 24;
	out = calloc(len, 1);
	for (size_t i = 0; i < n;) {
		int64_t sum = 0;
		size_t j = i;

		while (j < n && !strcmp(v[i].text, v[j].text))
			sum += v[j++].value;
		if (sum)
			at += (size_t)sprintf(out + at, "%s %lld\n", v[i].text,
					      (long long)sum);
		for (; i < j; i++)
			free(v[i].text);
	}
	free(v);
	return out;
}

/*
 * The folded writer (which never makes a line's text, and compares
 * stacks only past the frames they share) against the format's
 * definition, on profiles generated from seeds: names that fold to one
 * text (a;b and a:b, x\ny and x y), that are prefixes of one another
 * (a, ab, a;), empty, with bytes below and above ';' and above 0x7f,
 * several frames of one name (other lines), and values of both signs
 * that cancel out.
 */
static void test_folded_generated(void **state)
{
	static const char *const names[] = {
		"a", "a;b", "a:b", "ab", "a;", "a:", "", "x\ny", "x y",
		"x\r", "!", "~", "\xc3\xa9t\xc3\xa9", "main", "m", "ma",
		" ", "a b", ":", ";",
	};
	const size_t nn = sizeof(names) / sizeof(names[0]);
	char *path = tmp_path("gen.folded");

	(void)state;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		uint64_t r = seed * 0x9e3779b97f4a7c15u;
		uint32_t ids[3 * 20];
		struct profile p;
		struct error e;

#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
		profile_init(&p, two_types, 2);
		for (size_t i = 0; i < 3 * nn; i++)
			ids[i] = fr(&p, names[i % nn], "f.c", (int)(i / nn) + 1,
				    "prog", false);
		for (int s = 0; s < 200; s++) {
			uint32_t st[8];
			size_t depth = 1 + NEXT() % 8;
			int64_t v[2];

			for (size_t d = 0; d < depth; d++)
				st[d] = ids[NEXT() % (seed % 3 ? 3 * nn : 6)];
			v[0] = (int64_t)(NEXT() % 7) - 3;
			v[1] = (int64_t)(NEXT() % 1000);
			profile_add(&p, st, depth, v);
		}
#undef NEXT
		for (size_t t = 0; t < 2; t++) {
			char *want = ref_folded(&p, t), *got;

			assert_int_equal(profile_write_folded(&p, t, path, &e),
					 0);
			got = slurp(path, NULL);
			if (strcmp(got, want))
				fail_msg("seed %llu type %zu: the folded file "
					 "differs from the format's definition",
					 (unsigned long long)seed, t);
			free(got);
			free(want);
		}
		profile_free(&p);
	}
	free(path);
}

static void test_folded_roundtrip(void **state)
{
	struct profile p, q;
	struct error e;
	char *a = tmp_path("rt1.folded"), *b = tmp_path("rt2.folded");
	char *ta, *tb;

	small_profile(&p);
	assert_int_equal(profile_write_folded(&p, 1, a, &e), 0);
	assert_int_equal(profile_read_folded(&q, a, &e), 0);
	assert_int_equal(q.ntypes, 1);
	assert_string_equal(q.types[0].name, "samples");
	assert_string_equal(q.types[0].unit, "count");
	assert_int_equal(q.nstacks, 4);
	assert_int_equal(profile_total(&q, 0), profile_total(&p, 1));
	/* Leaf first, module unknown (NULL), root shared. */
	assert_int_equal(q.stacks[1].depth, 2);
	assert_string_equal(q.frames[q.stacks[1].frames[0]].function, "a:b");
	assert_string_equal(q.frames[q.stacks[1].frames[1]].function, "main");
	assert_null(q.frames[q.stacks[1].frames[0]].module);
	assert_null(q.frames[q.stacks[1].frames[0]].file);
	assert_int_equal(q.stacks[1].values[0], 50);
	assert_int_equal(q.nframes, 4);
	assert_int_equal(profile_write_folded(&q, 0, b, &e), 0);
	ta = slurp(a, NULL);
	tb = slurp(b, NULL);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	profile_free(&q);

	/* Tolerated: blank lines, CRLF, tabs, spaces in names, repeated
	 * stacks (summed), no final newline; a count of 0 adds nothing. */
	spit(a, "\n  \nmain;do work 7\r\n\nmain\t2\nmain;zero 0\n"
	     "main;do work 3");
	assert_int_equal(profile_read_folded(&q, a, &e), 0);
	assert_int_equal(q.nstacks, 2);
	assert_string_equal(q.frames[q.stacks[0].frames[0]].function,
			    "do work");
	assert_int_equal(q.stacks[0].values[0], 10);
	assert_int_equal(q.stacks[1].values[0], 2);
	assert_int_equal(profile_total(&q, 0), 12);
	profile_free(&q);

	profile_free(&p);
	free(a);
	free(b);
}

/* Reading the first len bytes of text fails with a message naming the
 * file and containing want. */
static void expect_read_errorn(const char *text, size_t len,
			       const char *want)
{
	char *path = tmp_path("bad.folded");
	struct profile q;
	struct error e;

	spitn(path, text, len);
	assert_int_equal(profile_read_folded(&q, path, &e), -1);
	if (!strstr(e.msg, want))
		fail_msg("'%s' lacks '%s'", e.msg, want);
	assert_non_null(strstr(e.msg, path));
	/* p is left zeroed: freeing it is harmless. */
	assert_int_equal(q.nstacks, 0);
	profile_free(&q);
	free(path);
}

#define expect_read_error(text, want) \
	expect_read_errorn(text, sizeof(text) - 1, want)

static void test_folded_errors(void **state)
{
	struct profile q;
	struct error e;

	expect_read_error("a;b;c\n", "line 1: no count");
	expect_read_error("a;b 1\n\na;b;c\n", "line 3: no count");
	expect_read_error("a;b 1\na;b 12x\n", "line 2: bad count '12x'");
	expect_read_error("a 1\n 5\n", "line 2: empty stack");
	expect_read_error("a 99999999999999999999\n", "line 1: bad count "
			  "'99999999999999999999' (beyond 9223372036854775807)");
	/* A negative count would cancel frames out (a stack of 5 and one
	 * of -5 vanish); counts whose sum passes INT64_MAX overflowed the
	 * profile's sums (UBSan in profile.c and flametree.c). */
	expect_read_error("a;b 5\na;b -5\n", "line 2: bad count '-5' "
			  "(negative)");
	expect_read_error("a -99999999999999999999\n", "line 1: bad count "
			  "'-99999999999999999999' (negative)");
	expect_read_error("a +5\n", "line 1: bad count '+5'");
	expect_read_error("a 1.5\n", "line 1: bad count '1.5' (expected a "
			  "whole number of samples)");
	expect_read_error("a 9223372036854775807\nb 1\n",
			  "line 2: the counts add up beyond "
			  "9223372036854775807");
	expect_read_error("a 4611686018427387904\nb 4611686018427387904\n",
			  "line 2: the counts add up beyond");
	expect_read_error("a 1\nb\0c 2\n", "NUL");
	assert_int_equal(profile_read_folded(&q, "/nonexistent/x.folded",
					     &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/x.folded"));
}

static void test_speedscope(void **state)
{
	struct profile p;
	struct error e;
	json_error_t je;
	char *path = tmp_path("small.speedscope.json");
	json_t *root, *frames, *profiles;

	small_profile(&p);
	p.command = xstrdup("prog \"arg\"");
	assert_int_equal(profile_write_speedscope(&p, path, &e), 0);
	root = json_load_file(path, 0, &je);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "$schema")),
		"https://www.speedscope.app/file-format-schema.json");
	assert_string_equal(json_string_value(json_object_get(root, "name")),
			    "prog \"arg\"");
	assert_int_equal(json_integer_value(
		json_object_get(root, "activeProfileIndex")), 0);
	assert_non_null(strstr(json_string_value(
		json_object_get(root, "exporter")), "yardstick"));
	frames = json_object_get(json_object_get(root, "shared"), "frames");
	assert_int_equal(json_array_size(frames), p.nframes);
	for (size_t i = 0; i < p.nframes; i++) {
		json_t *f = json_array_get(frames, i);

		assert_string_equal(json_string_value(json_object_get(f, "name")),
				    p.frames[i].function);
	}
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(frames, 0), "file")), "main.c");
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(frames, 0), "line")), 3);
	assert_null(json_object_get(json_array_get(frames, 3), "file"));
	assert_null(json_object_get(json_array_get(frames, 3), "line"));

	profiles = json_object_get(root, "profiles");
	assert_int_equal(json_array_size(profiles), 2);
	for (size_t t = 0; t < 2; t++) {
		json_t *pr = json_array_get(profiles, t);
		json_t *samples = json_object_get(pr, "samples");
		json_t *weights = json_object_get(pr, "weights");
		int64_t sum = 0;

		assert_string_equal(json_string_value(
			json_object_get(pr, "type")), "sampled");
		assert_string_equal(json_string_value(
			json_object_get(pr, "name")), p.types[t].name);
		assert_string_equal(json_string_value(
			json_object_get(pr, "unit")),
			t ? "nanoseconds" : "none");
		assert_int_equal(json_integer_value(
			json_object_get(pr, "startValue")), 0);
		assert_int_equal(json_array_size(samples),
				 json_array_size(weights));
		for (size_t i = 0; i < json_array_size(weights); i++)
			sum += json_integer_value(json_array_get(weights, i));
		assert_int_equal(sum, profile_total(&p, t));
		assert_int_equal(json_integer_value(
			json_object_get(pr, "endValue")), sum);
		/* Zero-value stacks are left out. */
		assert_int_equal(json_array_size(samples), t ? 5 : 4);
	}
	/* First sample: stack [a;b, main] root first: main (0), a;b (1). */
	{
		json_t *s0 = json_array_get(json_object_get(
			json_array_get(profiles, 0), "samples"), 0);

		assert_int_equal(json_array_size(s0), 2);
		assert_int_equal(json_integer_value(json_array_get(s0, 0)), 0);
		assert_int_equal(json_integer_value(json_array_get(s0, 1)), 1);
	}
	json_decref(root);
	profile_free(&p);
	free(path);
}

/*
 * A name or file that is not UTF-8 keeps its valid part in speedscope's
 * JSON, each bad byte a U+FFFD (not a placeholder for the whole name, and
 * the file not dropped).
 */
static void test_speedscope_utf8(void **state)
{
	struct profile p;
	struct error e;
	json_error_t je;
	char *path = tmp_path("utf8.speedscope.json");
	json_t *root, *frames, *f;

	(void)state;
	profile_init(&p, one_type, 1);
	ADD(&p, V(2), fr(&p, "sur\xed\xb3\xbf (m\xff.py:2)", "/x/m\xff.py",
			 2, "[python]", false), fr(&p, "main", NULL, 0, NULL,
						    false));
	assert_int_equal(profile_write_speedscope(&p, path, &e), 0);
	root = json_load_file(path, 0, &je);
	assert_non_null(root);
	frames = json_object_get(json_object_get(root, "shared"), "frames");
	f = json_array_get(frames, 0);
	assert_string_equal(json_string_value(json_object_get(f, "name")),
			    "sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
			    "(m\xef\xbf\xbd.py:2)");
	assert_string_equal(json_string_value(json_object_get(f, "file")),
			    "/x/m\xef\xbf\xbd.py");
	assert_int_equal(json_integer_value(json_object_get(f, "line")), 2);
	json_decref(root);
	profile_free(&p);
	free(path);
}

/* ---- a minimal protobuf reader, for checking the pprof output ---- */

struct pbf {
	int num, wt;
	uint64_t v;		/* varint value */
	const uint8_t *data;	/* length-delimited bytes */
	size_t len;
};

static uint64_t rd_varint(const uint8_t **s, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		assert_true(*s < end);
		v |= (uint64_t)(**s & 0x7f) << shift;
		if (!(*(*s)++ & 0x80))
			return v;
	}
	fail_msg("varint too long");
	return 0;
}

/* The next field of [*s, end); false at the end. */
static bool rd_field(const uint8_t **s, const uint8_t *end, struct pbf *f)
{
	uint64_t key;

	if (*s == end)
		return false;
	key = rd_varint(s, end);
	f->num = (int)(key >> 3);
	f->wt = (int)(key & 7);
	if (f->wt == 0) {
		f->v = rd_varint(s, end);
	} else if (f->wt == 2) {
		f->len = rd_varint(s, end);
		assert_true(f->len <= (size_t)(end - *s));
		f->data = *s;
		*s += f->len;
	} else {
		fail_msg("unexpected wire type %d", f->wt);
	}
	return true;
}

/* The integers of a packed field (or of a single varint). */
static size_t rd_packed(const struct pbf *f, uint64_t *out, size_t max)
{
	const uint8_t *s = f->data, *end = f->data + f->len;
	size_t n = 0;

	if (f->wt == 0) {
		out[0] = f->v;
		return 1;
	}
	while (s < end) {
		assert_true(n < max);
		out[n++] = rd_varint(&s, end);
	}
	return n;
}

struct pp_loc { uint64_t id, mapping, address, fn[8]; int64_t line[8];
		size_t nlines; };
struct pp_fn { uint64_t id, name, system_name, filename; };
struct pp_sample { uint64_t loc[32]; size_t nloc; int64_t val[4];
		   size_t nval; };
struct pp {
	char *strs[64];
	size_t nstrs;
	uint64_t types[4][2], period_type[2], mapping_file[8];
	size_t ntypes, nmappings;
	struct pp_loc locs[16];
	size_t nlocs;
	struct pp_fn fns[16];
	size_t nfns;
	struct pp_sample samples[16];
	size_t nsamples;
	int64_t period, duration;
	uint64_t comment, default_type;
};

/* Read a submessage's varint fields into vals[field] (field < 16). */
static void rd_flat(const struct pbf *f, uint64_t *vals)
{
	const uint8_t *s = f->data, *end = f->data + f->len;
	struct pbf g;

	memset(vals, 0, 16 * sizeof(*vals));
	while (rd_field(&s, end, &g))
		if (g.wt == 0 && g.num < 16)
			vals[g.num] = g.v;
}

static void rd_location(const struct pbf *f, struct pp_loc *l)
{
	const uint8_t *s = f->data, *end = f->data + f->len;
	struct pbf g;
	uint64_t v[16];

	memset(l, 0, sizeof(*l));
	while (rd_field(&s, end, &g)) {
		if (g.num == 1)
			l->id = g.v;
		else if (g.num == 2)
			l->mapping = g.v;
		else if (g.num == 3)
			l->address = g.v;
		if (g.num != 4)
			continue;
		assert_true(l->nlines < 8);
		rd_flat(&g, v);
		l->fn[l->nlines] = v[1];
		l->line[l->nlines++] = (int64_t)v[2];
	}
}

static void rd_sample(const struct pbf *f, struct pp_sample *sm)
{
	const uint8_t *s = f->data, *end = f->data + f->len;
	struct pbf g;
	uint64_t v[4];

	memset(sm, 0, sizeof(*sm));
	while (rd_field(&s, end, &g)) {
		if (g.num == 1)
			sm->nloc += rd_packed(&g, sm->loc + sm->nloc,
					      32 - sm->nloc);
		if (g.num != 2)
			continue;
		size_t n = rd_packed(&g, v, 4 - sm->nval);

		for (size_t i = 0; i < n; i++)
			sm->val[sm->nval++] = (int64_t)v[i];
	}
}

static void rd_profile(const uint8_t *s, size_t len, struct pp *x)
{
	const uint8_t *end = s + len;
	struct pbf f;
	uint64_t v[16];

	memset(x, 0, sizeof(*x));
	while (rd_field(&s, end, &f)) {
		switch (f.num) {
		case 1:
			rd_flat(&f, v);
			x->types[x->ntypes][0] = v[1];
			x->types[x->ntypes++][1] = v[2];
			break;
		case 2:
			rd_sample(&f, &x->samples[x->nsamples++]);
			break;
		case 3:
			rd_flat(&f, v);
			assert_int_equal(v[1], x->nmappings + 1);
			assert_int_equal(v[7], 1);	/* has_functions */
			x->mapping_file[x->nmappings++] = v[5];
			break;
		case 4:
			rd_location(&f, &x->locs[x->nlocs++]);
			break;
		case 5:
			rd_flat(&f, v);
			x->fns[x->nfns++] = (struct pp_fn){ v[1], v[2], v[3],
							    v[4] };
			break;
		case 6:
			x->strs[x->nstrs++] = xstrndup((const char *)f.data,
						       f.len);
			break;
		case 10: x->duration = (int64_t)f.v; break;
		case 11:
			rd_flat(&f, v);
			x->period_type[0] = v[1];
			x->period_type[1] = v[2];
			break;
		case 12: x->period = (int64_t)f.v; break;
		case 13: x->comment = f.v; break;
		case 14: x->default_type = f.v; break;
		default: fail_msg("unexpected Profile field %d", f.num);
		}
	}
}

static const char *pp_str(const struct pp *x, uint64_t i)
{
	assert_true(i < x->nstrs);
	return x->strs[i];
}

static const struct pp_loc *pp_loc(const struct pp *x, uint64_t id)
{
	for (size_t i = 0; i < x->nlocs; i++)
		if (x->locs[i].id == id)
			return &x->locs[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const struct pp_fn *pp_fn(const struct pp *x, uint64_t id)
{
	for (size_t i = 0; i < x->nfns; i++)
		if (x->fns[i].id == id)
			return &x->fns[i];
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

/* A sample as text: locations leaf first by ';', lines by '+'. */
static void pp_stack(const struct pp *x, const struct pp_sample *s,
		     char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nloc; i++) {
		const struct pp_loc *l = pp_loc(x, s->loc[i]);

		for (size_t j = 0; j < l->nlines; j++)
			len += snprintf(buf + len, size - len, "%s%s",
					j ? "+" : i ? ";" : "",
					pp_str(x, pp_fn(x, l->fn[j])->name));
		assert_true(len < size);
	}
}

static uint8_t *gunzip(const uint8_t *in, size_t n, size_t *outlen)
{
	z_stream zs = { 0 };
	size_t cap = 1 << 20;
	uint8_t *out = xmalloc(cap);

	assert_int_equal(inflateInit2(&zs, 15 + 32), Z_OK);
	zs.next_in = (uint8_t *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	*outlen = zs.total_out;
	inflateEnd(&zs);
	return out;
}

/*
 * The schema of profile.proto (github.com/google/pprof), written out
 * field by field, for protoc to decode our output against: protoc fails
 * on a wire type that does not match a field's declared type.
 */
static const char profile_proto[] =
	"syntax = \"proto3\";\n"
	"package perftools.profiles;\n"
	"message Profile {\n"
	"  repeated ValueType sample_type = 1; repeated Sample sample = 2;\n"
	"  repeated Mapping mapping = 3; repeated Location location = 4;\n"
	"  repeated Function function = 5;\n"
	"  repeated string string_table = 6; int64 drop_frames = 7;\n"
	"  int64 keep_frames = 8; int64 time_nanos = 9;\n"
	"  int64 duration_nanos = 10; ValueType period_type = 11;\n"
	"  int64 period = 12; repeated int64 comment = 13;\n"
	"  int64 default_sample_type = 14;\n"
	"}\n"
	"message ValueType { int64 type = 1; int64 unit = 2; }\n"
	"message Sample { repeated uint64 location_id = 1;\n"
	"  repeated int64 value = 2; }\n"
	"message Mapping { uint64 id = 1; uint64 memory_start = 2;\n"
	"  uint64 memory_limit = 3; uint64 file_offset = 4;\n"
	"  int64 filename = 5; int64 build_id = 6; bool has_functions = 7;\n"
	"  bool has_filenames = 8; bool has_line_numbers = 9;\n"
	"  bool has_inline_frames = 10; }\n"
	"message Location { uint64 id = 1; uint64 mapping_id = 2;\n"
	"  uint64 address = 3; repeated Line line = 4; bool is_folded = 5; }\n"
	"message Line { uint64 function_id = 1; int64 line = 2; }\n"
	"message Function { uint64 id = 1; int64 name = 2;\n"
	"  int64 system_name = 3; int64 filename = 4; int64 start_line = 5; }\n";

/* protoc decodes the pprof test's message with the real schema. */
static void protoc_check(const uint8_t *raw, size_t rawlen)
{
	char *proto = tmp_path("profile.proto"), *pb = tmp_path("small.pb");
	char *txt = tmp_path("small.txt"), *cmd, *dump;

	spit(proto, profile_proto);
	spitn(pb, (const char *)raw, rawlen);
	cmd = xasprintf("cd %s && /usr/bin/protoc --decode=perftools.profiles."
			"Profile profile.proto < %s > %s", tmpdir, pb, txt);
	assert_int_equal(system(cmd), 0);
	dump = slurp(txt, NULL);
	/* helper (function 3, line 5) inlined into work (function 2, line
	 * 20): one location, innermost first, at work's address. */
	assert_contains(dump, "location {\n  id: 1\n  mapping_id: 1\n"
			"  address: 4116\n"
			"  line {\n    function_id: 3\n"
			"    line: 5\n  }\n"
			"  line {\n    function_id: 2\n"
			"    line: 20\n  }\n}\n");
	assert_contains(dump, "sample {\n  location_id: 3\n"
			"  location_id: 1\n  location_id: 2\n"
			"  value: 2\n  value: -2002002\n}\n");
	assert_contains(dump, "string_table: \"helper.h\"\n");
	assert_contains(dump, "period: 1001001\n");
	assert_contains(dump, "duration_nanos: 5000000000\n");
	free(dump);
	free(cmd);
	free(txt);
	free(pb);
	free(proto);
}

static void test_pprof(void **state)
{
	struct profile p;
	struct error e;
	struct pp *x = xcalloc(1, sizeof(*x));
	char *path = tmp_path("small.pb.gz"), *gz, buf[256];
	uint8_t *raw;
	size_t gzlen, rawlen;
	uint32_t m, w, h, mc;

	profile_init(&p, two_types, 2);
	p.period_type = 1;
	p.period = 1001001;
	p.duration_ns = 5000000000LL;
	p.command = xstrdup("prog --x");
	m = fr(&p, "main", "main.c", 10, "prog", false);
	w = fr(&p, "work", "work.c", 20, "prog", false);
	h = fr(&p, "helper", "helper.h", 5, "prog", true);
	mc = fr(&p, "memcpy", NULL, 0, "libc.so.6", false);
	ADD(&p, V(3, 3003003), h, w, m);
	ADD(&p, V(2, -2002002), mc, h, w, m);	/* as in a difference */
	ADD(&p, V(1, 1001001), w, m);
	ADD(&p, V(0, 0), m);
	assert_int_equal(profile_write_pprof(&p, path, &e), 0);

	gz = slurp(path, &gzlen);
	assert_true(gzlen > 2);
	assert_int_equal((uint8_t)gz[0], 0x1f);
	assert_int_equal((uint8_t)gz[1], 0x8b);
	raw = gunzip((uint8_t *)gz, gzlen, &rawlen);
	rd_profile(raw, rawlen, x);

	assert_true(x->nstrs > 0);
	assert_string_equal(pp_str(x, 0), "");
	for (size_t i = 1; i < x->nstrs; i++)	/* each string once */
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(x->strs[i], x->strs[j]);
	assert_int_equal(x->ntypes, 2);
	assert_string_equal(pp_str(x, x->types[0][0]), "samples");
	assert_string_equal(pp_str(x, x->types[0][1]), "count");
	assert_string_equal(pp_str(x, x->types[1][0]), "cpu");
	assert_string_equal(pp_str(x, x->types[1][1]), "nanoseconds");
	assert_string_equal(pp_str(x, x->period_type[0]), "cpu");
	assert_string_equal(pp_str(x, x->period_type[1]), "nanoseconds");
	assert_int_equal(x->period, 1001001);
	assert_int_equal(x->duration, 5000000000LL);
	assert_string_equal(pp_str(x, x->comment), "prog --x");
	assert_string_equal(pp_str(x, x->default_type), "samples");
	assert_int_equal(x->nmappings, 2);
	assert_string_equal(pp_str(x, x->mapping_file[0]), "prog");
	assert_string_equal(pp_str(x, x->mapping_file[1]), "libc.so.6");

	/* The zero stack is left out; inlined helper shares work's
	 * location; work alone is another location. */
	assert_int_equal(x->nsamples, 3);
	assert_int_equal(x->nlocs, 4);
	assert_int_equal(x->nfns, 4);
	const char *want[] = { "helper+work;main", "memcpy;helper+work;main",
			       "work;main" };
	int64_t want_vals[][2] = { { 3, 3003003 }, { 2, -2002002 },
				   { 1, 1001001 } };
	for (size_t i = 0; i < 3; i++) {
		pp_stack(x, &x->samples[i], buf, sizeof(buf));
		assert_string_equal(buf, want[i]);
		assert_int_equal(x->samples[i].nval, 2);
		assert_int_equal(x->samples[i].val[0], want_vals[i][0]);
		assert_int_equal(x->samples[i].val[1], want_vals[i][1]);
	}
	/* helper+work: lines innermost first, with their line numbers and
	 * functions' files; in the prog mapping. memcpy in libc. */
	{
		const struct pp_loc *l = pp_loc(x, x->samples[0].loc[0]);
		const struct pp_fn *fh = pp_fn(x, l->fn[0]);

		assert_int_equal(l->nlines, 2);
		assert_int_equal(l->line[0], 5);
		assert_int_equal(l->line[1], 20);
		assert_string_equal(pp_str(x, fh->filename), "helper.h");
		assert_string_equal(pp_str(x, fh->system_name), "helper");
		assert_string_equal(pp_str(x, x->mapping_file[l->mapping - 1]),
				    "prog");
		assert_int_equal(l->address, 0x1000 + 20);
		l = pp_loc(x, x->samples[1].loc[0]);
		assert_string_equal(pp_str(x, x->mapping_file[l->mapping - 1]),
				    "libc.so.6");
		assert_string_equal(pp_str(x, pp_fn(x, l->fn[0])->filename),
				    "");
	}

	if (access("/usr/bin/protoc", X_OK) == 0)
		protoc_check(raw, rawlen);
	for (size_t i = 0; i < x->nstrs; i++)
		free(x->strs[i]);
	free(x);
	free(raw);
	free(gz);
	free(path);
	profile_free(&p);
}

/*
 * profile.proto: mapping[0] is the main binary (pprof's "File:"). It was
 * the module of the first frame interned: libc.so.6 (whose
 * __libc_start_call_main is the outermost frame of a frame-pointer
 * stack), or a wrapper that ran first (env, sh). Now it is the module of
 * the main most samples start in.
 */
static void test_pprof_main_mapping(void **state)
{
	struct profile p;
	struct error e;
	struct pp *x = xcalloc(1, sizeof(*x));
	char *path = tmp_path("main.pb.gz"), *gz;
	uint8_t *raw;
	size_t gzlen, rawlen;
	uint32_t lsm, em, eo, pm, w, py;

	(void)state;
	profile_init(&p, one_type, 1);
	lsm = fr(&p, "__libc_start_call_main", NULL, 0, "libc.so.6", false);
	em = fr(&p, "main", NULL, 0, "env", false);
	eo = fr(&p, "execvp", NULL, 0, "libc.so.6", false);
	pm = fr(&p, "main", "prog.c", 3, "prog", false);
	w = fr(&p, "work", "prog.c", 9, "prog", false);
	py = fr(&p, "f (x.py:1)", "x.py", 1, "[python]", false);
	ADD(&p, V(2), eo, em, lsm);	/* the wrapper, briefly */
	ADD(&p, V(7), w, pm, lsm);
	ADD(&p, V(3), pm, lsm);
	ADD(&p, V(9), py);		/* no binary: never the main one */
	assert_int_equal(profile_write_pprof(&p, path, &e), 0);
	gz = slurp(path, &gzlen);
	raw = gunzip((uint8_t *)gz, gzlen, &rawlen);
	rd_profile(raw, rawlen, x);
	assert_int_equal(x->nmappings, 4);
	assert_string_equal(pp_str(x, x->mapping_file[0]), "prog");
	/* the others in the order they were seen, every location kept */
	assert_string_equal(pp_str(x, x->mapping_file[1]), "libc.so.6");
	assert_string_equal(pp_str(x, x->mapping_file[2]), "env");
	assert_string_equal(pp_str(x, x->mapping_file[3]), "[python]");
	assert_int_equal(x->nsamples, 4);
	for (size_t i = 0; i < x->nstrs; i++)
		free(x->strs[i]);
	free(x);
	free(raw);
	free(gz);
	free(path);
	profile_free(&p);
}

/* Is s valid UTF-8 throughout? */
static bool valid_utf8(const char *s)
{
	uint32_t c;
	size_t n;

	for (; *s; s += n)
		if (!(n = utf8_decode(s, &c)))
			return false;
	return true;
}

/*
 * Names from outside that are not UTF-8 (a lone surrogate as CPython's
 * str holds it for an undecodable file name, a stray byte in a symbol or a
 * command) are written with U+FFFD in pprof's string table: profile.proto
 * is proto3, and protoc, Python's protobuf and protobuf-go refuse the
 * whole profile over one invalid string.
 */
static void test_pprof_utf8(void **state)
{
	struct profile p;
	struct error e;
	struct pp *x = xcalloc(1, sizeof(*x));
	char *path = tmp_path("utf8.pb.gz"), *gz, buf[256];
	uint8_t *raw;
	size_t gzlen, rawlen;
	uint32_t m, s, b;

	(void)state;
	profile_init(&p, one_type, 1);
	p.command = xstrdup("prog \xff");
	m = fr(&p, "main", "m\xc3.py", 1, "python3.11", false);
	s = fr(&p, "sur\xed\xb3\xbf", "m\xc3.py", 2, "python3.11", false);
	b = fr(&p, "caf\xc3\xa9 \xfe", NULL, 0, "lib\x80.so", false);
	ADD(&p, V(3), s, m);
	ADD(&p, V(1), b, m);
	assert_int_equal(profile_write_pprof(&p, path, &e), 0);
	gz = slurp(path, &gzlen);
	raw = gunzip((uint8_t *)gz, gzlen, &rawlen);
	rd_profile(raw, rawlen, x);
	for (size_t i = 0; i < x->nstrs; i++)
		if (!valid_utf8(x->strs[i]))
			fail_msg("string %zu is not UTF-8: '%s'", i,
				 x->strs[i]);
	/* each bad byte one U+FFFD, the valid é kept */
	pp_stack(x, &x->samples[0], buf, sizeof(buf));
	assert_string_equal(buf, "sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd;main");
	pp_stack(x, &x->samples[1], buf, sizeof(buf));
	assert_string_equal(buf, "caf\xc3\xa9 \xef\xbf\xbd;main");
	assert_string_equal(pp_str(x, pp_fn(x, pp_loc(x,
		x->samples[0].loc[1])->fn[0])->filename), "m\xef\xbf\xbd.py");
	assert_string_equal(pp_str(x, x->comment), "prog \xef\xbf\xbd");
	assert_string_equal(pp_str(x, x->mapping_file[1]),
			    "lib\xef\xbf\xbd.so");
	if (access("/usr/bin/protoc", X_OK) == 0) {
		char *proto = tmp_path("profile.proto");
		char *pb = tmp_path("utf8.pb"), *cmd;

		spit(proto, profile_proto);
		spitn(pb, (const char *)raw, rawlen);
		cmd = xasprintf("cd %s && /usr/bin/protoc --decode=perftools."
				"profiles.Profile profile.proto < %s "
				">/dev/null", tmpdir, pb);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		free(pb);
		free(proto);
	}
	for (size_t i = 0; i < x->nstrs; i++)
		free(x->strs[i]);
	free(x);
	free(raw);
	free(gz);
	free(path);
	profile_free(&p);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* 1,000,000 profile_add calls over 10,000 stacks of depth 20. */
/*
 * Unknown code of two modules is two functions, in every view: the top
 * list (and record's "if X cost nothing" lines, which name its entries),
 * folded, speedscope and pprof. Of one module, it may be one.
 */
static void test_unknown_modules(void **state)
{
	struct profile p;
	struct profile_top *top;
	struct error e;
	struct pp *x = xcalloc(1, sizeof(*x));
	char *path = tmp_path("unknown.folded"), *text, *gz;
	uint8_t *raw;
	size_t n, gzlen, rawlen, found = 0;
	uint32_t m, lz, lz2, c, k, u, none, nul;

	profile_init(&p, one_type, 1);
	m = fr(&p, "main", "main.c", 1, "prog", false);
	lz = fr(&p, "[unknown]", NULL, 0, "liblzma.so.5", false);
	lz2 = fr(&p, NULL, NULL, 0, "liblzma.so.5", false);
	c = fr(&p, "[unknown]", NULL, 0, "libc.so.6", false);
	k = fr(&p, "[unknown]", NULL, 0, "[kernel]", false);
	u = fr(&p, "[unknown]", NULL, 0, "[unknown]", false);
	none = fr(&p, "[unknown]", NULL, 0, NULL, false);
	nul = fr(&p, NULL, NULL, 0, "", false);
	assert_int_equal(lz, lz2);	/* one module: one function */
	assert_string_equal(p.frames[lz].function, "[unknown in liblzma.so.5]");
	assert_string_equal(p.frames[lz].module, "liblzma.so.5");
	assert_string_equal(p.frames[c].function, "[unknown in libc.so.6]");
	assert_string_equal(p.frames[k].function, "[unknown in kernel]");
	/* No module to name: "[unknown]" as before. */
	assert_string_equal(p.frames[u].function, "[unknown]");
	assert_string_equal(p.frames[none].function, "[unknown]");
	assert_string_equal(p.frames[nul].function, "[unknown]");
	/* A known function is never renamed. */
	assert_string_equal(p.frames[fr(&p, "memcpy", NULL, 0, "libc.so.6",
					 false)].function, "memcpy");
	ADD(&p, V(5), lz, m);
	ADD(&p, V(3), c, m);
	ADD(&p, V(2), k, c, m);

	assert_int_equal(profile_top(&p, 0, &top, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(top[0].function, "[unknown in liblzma.so.5]");
	assert_int_equal(top[0].self, 5);
	assert_string_equal(top[1].function, "[unknown in libc.so.6]");
	assert_int_equal(top[1].self, 3);
	assert_int_equal(top[1].total, 5);
	assert_string_equal(top[2].function, "[unknown in kernel]");
	free(top);

	assert_int_equal(profile_write_folded(&p, 0, path, &e), 0);
	text = slurp(path, NULL);
	assert_string_equal(text, "main;[unknown in libc.so.6] 3\n"
				  "main;[unknown in libc.so.6];[unknown in kernel] 2\n"
				  "main;[unknown in liblzma.so.5] 5\n");
	free(text);

	free(path);
	path = tmp_path("unknown.pb.gz");
	assert_int_equal(profile_write_pprof(&p, path, &e), 0);
	gz = slurp(path, &gzlen);
	raw = gunzip((uint8_t *)gz, gzlen, &rawlen);
	rd_profile(raw, rawlen, x);
	for (size_t i = 0; i < x->nfns; i++) {
		const char *name = pp_str(x, x->fns[i].name);

		found += !strcmp(name, "[unknown in liblzma.so.5]") ||
			 !strcmp(name, "[unknown in libc.so.6]");
	}
	assert_int_equal(found, 2);
	for (size_t i = 0; i < x->nstrs; i++)
		free(x->strs[i]);
	free(raw);
	free(gz);
	free(x);
	free(path);
	profile_free(&p);
}

static void test_performance(void **state)
{
	enum { NFRAMES = 1000, NSTACKS = 10000, DEPTH = 20, NADD = 1000000 };
	struct profile p;
	struct error e;
	uint32_t *ids = xmalloc(NFRAMES * sizeof(*ids));
	uint32_t *stacks = xmalloc((size_t)NSTACKS * DEPTH * sizeof(*stacks));
	uint64_t seed = 42;
	double t0, t_add, t_top, t_fold, t_ss, t_pp;
	struct profile_top *top;
	size_t n;
	char *path;

	profile_init(&p, two_types, 2);
	for (int i = 0; i < NFRAMES; i++) {
		char *name = xasprintf("ns::function_%d(int)", i);

		ids[i] = fr(&p, name, "src/file.cc", i, "prog", i % 7 == 0);
		free(name);
	}
	for (size_t i = 0; i < (size_t)NSTACKS * DEPTH; i++)
		stacks[i] = ids[rng(&seed) % NFRAMES];
	t0 = now();
	for (int i = 0; i < NADD; i++) {
		size_t k = rng(&seed) % NSTACKS;

		profile_add(&p, stacks + k * DEPTH, DEPTH,
			    (int64_t[]){ 1, 1001001 });
	}
	t_add = now() - t0;
	assert_int_equal(p.nstacks, NSTACKS);
	assert_int_equal(profile_total(&p, 0), NADD);
	assert_int_equal(profile_total(&p, 1), (int64_t)NADD * 1001001);

	t0 = now();
	assert_int_equal(profile_top(&p, 0, &top, &n), 0);
	t_top = now() - t0;
	assert_true(n > 0 && n <= NFRAMES);
	free(top);
	path = tmp_path("big.out");
	t0 = now();
	assert_int_equal(profile_write_folded(&p, 0, path, &e), 0);
	t_fold = now() - t0;
	t0 = now();
	assert_int_equal(profile_write_speedscope(&p, path, &e), 0);
	t_ss = now() - t0;
	t0 = now();
	assert_int_equal(profile_write_pprof(&p, path, &e), 0);
	t_pp = now() - t0;
	print_message("1,000,000 profile_add over 10,000 stacks of depth 20: "
		      "%.0f ms; top %.1f ms; folded %.1f ms; speedscope "
		      "%.1f ms; pprof %.1f ms\n", t_add * 1e3, t_top * 1e3,
		      t_fold * 1e3, t_ss * 1e3, t_pp * 1e3);
	/* the times printed, not asserted: speed is measured in bench/,
	 * never in a test (a wall-time bound fails on a loaded machine) */
	free(path);
	free(stacks);
	free(ids);
	profile_free(&p);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);

	free(cmd);
	return rc ? -1 : 0;
}

/* Issue 25 case 7: a counter of NaN or ±inf was written as bare -nan and
 * inf tokens, and the file was not JSON (report --trace refused it).
 * Each non-finite value becomes null: the file parses strictly, reads
 * back, and the finite values are kept exactly. */
static void test_chrome_nonfinite(void **state)
{
	static const double vals[] = { NAN, -NAN, INFINITY, -INFINITY, 1.5,
					-0.25, 5e-324, 1.7976931348623157e308 };
	size_t n = sizeof(vals) / sizeof(*vals), finite = 0;
	struct trace t, back;
	struct trace_write_opts o = { 0 };
	struct trace_write_stats st;
	struct trace_read_stats rs;
	struct error e;
	char *path = tmp_path("nonfinite.json");
	json_error_t je;
	json_t *root;

	(void)state;
	trace_init(&t, 100);
	for (size_t i = 0; i < n; i++) {
		struct trace_event *ev = trace_add(&t, TRACE_COUNTER);
		struct trace_event *mk = trace_add(&t, TRACE_INSTANT);

		ev->pid = ev->tid = ev->end_tid = 1;
		ev->start = ev->end = 1000 * (i + 1);
		ev->name = trace_intern(&t, "queue");
		ev->value = vals[i];
		mk->pid = mk->tid = mk->end_tid = 1;
		mk->start = mk->end = 1000 * (i + 1) + 1;
		mk->name = trace_intern(&t, "mark");
		mk->value = vals[i];
		finite += isfinite(vals[i]);
	}
	assert_int_equal(trace_write_chrome(&t, &o, path, &st, &e), 0);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		fail_msg("not JSON: %s (line %d)", je.text, je.line);
	json_decref(root);
	assert_int_equal(trace_read_chrome(&back, path, 1000, &rs, &e), 0);
	{
		size_t got = 0;

		for (size_t i = 0; i < back.n; i++)
			if (back.ev[i].kind == TRACE_COUNTER) {
				assert_true(isfinite(back.ev[i].value));
				got++;
			}
		assert_int_equal(got, finite);
		for (size_t i = 0, k = 0; i < back.n; i++)
			if (back.ev[i].kind == TRACE_COUNTER) {
				while (!isfinite(vals[k]))
					k++;
				assert_memory_equal(&back.ev[i].value, &vals[k++],
						    sizeof(double));
			}
	}
	trace_free(&back);
	/* Perfetto: no NaN or infinite double_counter_value (a NaN took the
	 * track's scale with it), the finite ones exact; protoc decodes the
	 * file with the fields it needs of Perfetto's schema (numbers from
	 * tests/cli/perfetto_trace.proto) */
	if (access("/usr/bin/protoc", X_OK) == 0) {
		char *pf = tmp_path("nonfinite.pftrace");
		char *proto = tmp_path("pftrace.proto");
		char *txt = tmp_path("nonfinite.txt"), *cmd, *dump, *q;
		size_t got = 0;

		spit(proto, "syntax = \"proto2\";\n"
		     "message Trace { repeated TracePacket packet = 1; }\n"
		     "message TracePacket { optional TrackEvent track_event = 11; }\n"
		     "message TrackEvent { optional double double_counter_value = 44; }\n");
		assert_int_equal(trace_write_perfetto(&t, &o, pf, &st, &e), 0);
		cmd = xasprintf("cd %s && /usr/bin/protoc --decode=Trace "
				"pftrace.proto < %s > %s", tmpdir, pf, txt);
		assert_int_equal(system(cmd), 0);
		dump = slurp(txt, NULL);
		for (q = dump; (q = strstr(q, "double_counter_value: ")); q++)
			got++;
		assert_int_equal(got, finite);
		assert_null(strstr(dump, "nan"));
		assert_null(strstr(dump, "inf"));
		assert_contains(dump, "double_counter_value: 1.5\n");
		assert_contains(dump, "double_counter_value: -0.25\n");
		free(dump);
		free(cmd);
		free(txt);
		free(proto);
		free(pf);
	}
	trace_free(&t);
	free(path);
}

/*
 * trace's thread state machine on made-up switch and wake-up records, by
 * hand (ns): thread 10 from 1000 to 30000 runs to 5000, blocks until its
 * wake-up at 8000, runs at 9500 (a delay of 1500), is preempted at 12000
 * (a wake-up at 12500 of a runnable thread changes nothing), runs at
 * 13000, blocks at 15000 until 20000 (a second wake-up at 20100 changes
 * nothing), runs at 23000 (a delay of 3000) until its exit at 30000.
 */
struct sched_rec { char kind; uint64_t time; bool flag; };

static const struct sched_rec sched_recs[] = {
	/* arrival order is not time order: replay sorts them */
	{ 'T', 1000, false }, { 'O', 5000, false }, { 'I', 9500, false },
	{ 'W', 8000, false }, { 'O', 12000, true }, { 'W', 12500, false },
	{ 'I', 13000, false }, { 'O', 15000, false }, { 'W', 20000, false },
	{ 'W', 20100, false }, { 'I', 23000, false }, { 'X', 30000, false },
};

static void sched_replay(struct trace *t, bool wakeups)
{
	trace_init(t, 1000);
	for (size_t i = 0; i < sizeof(sched_recs) / sizeof(sched_recs[0]);
	     i++) {
		const struct sched_rec *r = &sched_recs[i];

		switch (r->kind) {
		case 'T':
		case 'X':
			trace_task(t, 10, 10, r->time, r->kind == 'X');
			break;
		case 'O':
		case 'I':
			trace_switch(t, 10, 10, r->time, r->kind == 'O',
				     r->flag);
			break;
		case 'W':
			if (wakeups)
				trace_wakeup(t, 10, r->time);
			break;
		}
	}
	t->wakeups = wakeups;
	trace_finish(t, 30000);
}

static void test_trace_sched_delay(void **state)
{
	struct trace t, without;
	const struct trace_thread *th;
	uint64_t starts[4] = { 1000, 9500, 13000, 23000 };
	uint64_t delays[4] = { 0, 1500, 0, 3000 };
	size_t k = 0, before;

	(void)state;
	sched_replay(&t, true);
	assert_int_equal(t.nthreads, 1);
	th = &t.threads[0];
	assert_int_equal(th->on_ns, 4000 + 2500 + 2000 + 7000);
	assert_int_equal(th->blocked_ns, 3000 + 5000);
	assert_int_equal(th->sched_delay_ns, 1500 + 3000);
	assert_int_equal(th->sched_delay_max_ns, 3000);
	assert_int_equal(th->wakeups, 2);
	assert_int_equal(th->preempted_ns, 1000);
	assert_int_equal(th->on_ns + th->blocked_ns + th->sched_delay_ns +
			 th->preempted_ns, th->end - th->start);
	for (size_t i = 0; i < t.n; i++) {
		const struct trace_event *e = &t.ev[i];

		if (e->kind != TRACE_ONCPU)
			continue;
		assert_true(k < 4);
		assert_int_equal(e->start, starts[k]);
		assert_int_equal(!!(e->flags & TRACE_AFTER_WAKEUP),
				 delays[k] != 0);
		if (delays[k])
			assert_true(e->value == (double)delays[k]);
		k++;
	}
	assert_int_equal(k, 4);

	/* without the wake-ups blocked holds the delay: the same total */
	sched_replay(&without, false);
	assert_int_equal(without.threads[0].blocked_ns,
			 th->blocked_ns + th->sched_delay_ns);
	assert_int_equal(without.threads[0].sched_delay_ns, 0);
	assert_int_equal(without.threads[0].on_ns, th->on_ns);
	assert_int_equal(without.threads[0].preempted_ns, th->preempted_ns);
	trace_free(&without);
	trace_free(&t);

	/* a wake-up of a task no record named (the rest of the system) is
	 * not kept */
	trace_init(&t, 1000);
	trace_task(&t, 10, 10, 1000, false);
	before = t.nsched;
	trace_wakeup(&t, 99, 1500);
	assert_int_equal(t.nsched, before);
	trace_wakeup(&t, 10, 1500);
	assert_int_equal(t.nsched, before + 1);
	trace_free(&t);
}

/*
 * A main thread that ends (pthread_exit) before any thread's first switch
 * record: it ran from its exec to its end, 1000 ns on a CPU. Its end came
 * before the first switch in time order, and it was counted as nothing
 * (0 on a CPU, 0 blocked, 0 preempted, for a lifetime of 1000).
 */
static void test_trace_main_ends_first(void **state)
{
	struct trace t;
	const struct trace_thread *main_th = NULL;

	(void)state;
	trace_init(&t, 1000);
	trace_task(&t, 10, 10, 1000, false);
	trace_task(&t, 10, 11, 1500, false);
	trace_task(&t, 10, 10, 2000, true);
	trace_switch(&t, 10, 11, 2500, false, false);
	trace_switch(&t, 10, 11, 9000, true, false);
	trace_task(&t, 10, 11, 9000, true);
	trace_finish(&t, 9000);
	for (size_t i = 0; i < t.nthreads; i++)
		if (t.threads[i].tid == 10)
			main_th = &t.threads[i];
	assert_non_null(main_th);
	assert_int_equal(main_th->end - main_th->start, 1000);
	assert_int_equal(main_th->on_ns, 1000);
	assert_int_equal(main_th->on_ns + main_th->blocked_ns +
			 main_th->preempted_ns, 1000);
	trace_free(&t);
}

/*
 * Threads there at an attach (trace --pid), at 1000 ns; the trace ends at
 * 10000. Thread 10 asleep then, woken and on a CPU 4000..5000, asleep
 * again: blocked 3000 + 5000, on 1000. Thread 11 running then: its first
 * record a switch-out (preempted) at 3000, so on 2000 from the attach,
 * then preempted until it comes back at 6000 (3000), on to the end
 * (4000). Thread 12 runnable, not on a CPU: a switch-in first at 2000,
 * preempted 1000 until then, on 8000. Names as given, the main thread's
 * its process's too.
 */
static void test_trace_attached(void **state)
{
	struct trace t;
	const struct trace_thread *th[3] = { NULL, NULL, NULL };

	(void)state;
	trace_init(&t, 1000);
	trace_attached(&t, 10, 10, "server", true, 1000);
	trace_attached(&t, 10, 11, "busy", false, 1000);
	trace_attached(&t, 10, 12, "ready", false, 1000);
	trace_switch(&t, 10, 12, 2000, false, false);
	trace_switch(&t, 10, 11, 3000, true, true);
	trace_switch(&t, 10, 10, 4000, false, false);
	trace_switch(&t, 10, 10, 5000, true, false);
	trace_switch(&t, 10, 11, 6000, false, false);
	trace_finish(&t, 10000);
	assert_int_equal(t.nthreads, 3);
	for (size_t i = 0; i < t.nthreads; i++)
		th[t.threads[i].tid - 10] = &t.threads[i];
	assert_string_equal(th[0]->name, "server");
	assert_string_equal(th[0]->process_name, "server");
	assert_string_equal(th[1]->name, "busy");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(th[i]->start, 1000);
		assert_int_equal(th[i]->end, 10000);
		assert_int_equal(th[i]->on_ns + th[i]->blocked_ns +
				 th[i]->preempted_ns, 9000);
	}
	assert_int_equal(th[0]->on_ns, 1000);
	assert_int_equal(th[0]->blocked_ns, 8000);
	assert_int_equal(th[1]->on_ns, 2000 + 4000);
	assert_int_equal(th[1]->preempted_ns, 3000);
	assert_int_equal(th[2]->on_ns, 8000);
	assert_int_equal(th[2]->preempted_ns, 1000);
	trace_free(&t);
}

/* The tracepoint format file: the id, a field's offset and size; the
 * field matched by its name, not as the end of another (common_pid). */
static void test_tp_format(void **state)
{
	static const char fmt[] =
		"name: sched_wakeup\nID: 374\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";
	static const char no_pid[] =
		"ID: 7\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n";
	struct tp_format f;
	struct error e;

	(void)state;
	assert_int_equal(tp_format_parse(fmt, "pid", &f, &e), 0);
	assert_int_equal(f.id, 374);
	assert_int_equal(f.offset, 24);
	assert_int_equal(f.size, 4);
	assert_int_equal(tp_format_parse(fmt, "prio", &f, &e), 0);
	assert_int_equal(f.offset, 28);
	assert_int_equal(tp_format_parse(no_pid, "pid", &f, &e), -1);
	assert_non_null(strstr(e.msg, "no field 'pid'"));
	assert_int_equal(tp_format_parse("\tfield:pid_t pid;\toffset:24;"
					 "\tsize:4;\n", "pid", &f, &e), -1);
	assert_non_null(strstr(e.msg, "'ID:'"));
	assert_int_equal(tp_format_parse("ID: 3\n\tfield:pid_t pid;\t"
					 "offset:x;\tsize:4;\n", "pid", &f,
					 &e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_chrome_nonfinite),
		cmocka_unit_test(test_intern_growth),
		cmocka_unit_test(test_top),
		cmocka_unit_test(test_top_empty),
		cmocka_unit_test(test_folded_exact),
		cmocka_unit_test(test_folded_roundtrip),
		cmocka_unit_test(test_folded_generated),
		cmocka_unit_test(test_folded_errors),
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_speedscope_utf8),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_pprof_utf8),
		cmocka_unit_test(test_pprof_main_mapping),
		cmocka_unit_test(test_unknown_modules),
		cmocka_unit_test(test_performance),
		cmocka_unit_test(test_trace_sched_delay),
		cmocka_unit_test(test_trace_main_ends_first),
		cmocka_unit_test(test_trace_attached),
		cmocka_unit_test(test_tp_format),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
