/*
 * The table of known slow libraries and the advice on a profile
 * (advice.h). Every row has a test: a program of the test's own that
 * spends its time in the library, and one that does not
 * (tests/cli/record_advice.sh); advice_case_of's matching is tested on
 * generated paths (tests/unit/test_advice.c).
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/advice.h"
#include "util/strutil.h"

/*
 * Debian installs each BLAS and LAPACK build in a directory of its own
 * under /usr/lib/TRIPLET/ and points /usr/lib/TRIPLET/libblas.so.3 (and
 * liblapack.so.3) at one of them through update-alternatives, the
 * highest priority winning: the reference builds (libblas3, liblapack3:
 * plain Fortran loops, no blocking for the caches, no SIMD kernels, one
 * thread) have the lowest, so installing OpenBLAS or BLIS moves every
 * program linked with -lblas (numpy, PyTorch, R, Octave) over without
 * relinking. OpenBLAS's package also provides liblapack.so.3, its LAPACK
 * built on its own kernels; BLIS provides no LAPACK.
 */
static const struct advice_case cases[] = {
	{ "blas", "libblas.so.3", "the reference BLAS", "libblas3",
	  "libopenblas0-pthread (or libblis4-pthread)", "libblas.so.3" },
	{ "lapack", "liblapack.so.3", "the reference LAPACK", "liblapack3",
	  "libopenblas0-pthread", "liblapack.so.3" },
};

/* Whether name is file, or file followed by a version: "libblas.so.3"
 * and "libblas.so.3.11.0" for "libblas.so.3", not "libblas.so.30". */
static bool file_matches(const char *name, const char *file)
{
	size_t n = strlen(file);

	return !strncmp(name, file, n) && (name[n] == '\0' || name[n] == '.');
}

/* The library directory a path is in, "/usr/lib/" or "/lib/" followed by
 * at most one component (the multiarch triplet) and then dir: the length
 * of the part before dir, or 0 when it is not one. */
static size_t libdir_prefix(const char *path, size_t dirstart)
{
	static const char *const roots[] = { "/usr/lib/", "/lib/" };

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t n = strlen(roots[i]);
		const char *slash;

		if (strncmp(path, roots[i], n) || dirstart < n)
			continue;
		if (dirstart == n)
			return n;
		slash = memchr(path + n, '/', dirstart - n);
		if (slash && (size_t)(slash - path) + 1 == dirstart &&
		    slash > path + n)
			return n;
	}
	return 0;
}

const struct advice_case *advice_case_of(const char *path)
{
	const char *name = strrchr(path, '/'), *dir;

	if (!name || name == path)
		return NULL;
	/* the directory's name: between the previous slash and name */
	dir = name;
	while (dir > path && dir[-1] != '/')
		dir--;
	if (dir == name || dir == path)
		return NULL;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = strlen(cases[i].dir);

		if ((size_t)(name - dir) == n && !strncmp(dir, cases[i].dir, n) &&
		    file_matches(name + 1, cases[i].file) &&
		    libdir_prefix(path, (size_t)(dir - path)))
			return &cases[i];
	}
	return NULL;
}

/* The case of every file named name in mods, or NULL when one is not a
 * case or two differ. */
static const struct advice_case *name_case(const char *name,
					   const struct advice_module *mods,
					   size_t nmods, const char **path)
{
	const struct advice_case *c = NULL;

	for (size_t i = 0; i < nmods; i++) {
		const struct advice_case *ci;

		if (strcmp(mods[i].name, name))
			continue;
		ci = advice_case_of(mods[i].path);
		if (!ci || (c && ci != c))
			return NULL;
		c = ci;
		*path = mods[i].path;
	}
	return c;
}

static int by_share(const void *a, const void *b)
{
	double x = ((const struct advice *)a)->share;
	double y = ((const struct advice *)b)->share;

	return (x < y) - (x > y);
}

/* Whether mods[0..i) has a module named like mods[i] (seen already). */
static bool seen_before(const struct advice_module *mods, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(mods[j].name, mods[i].name))
			return true;
	return false;
}

size_t advice_find(const struct profile *p, size_t t,
		   const struct advice_module *mods, size_t nmods,
		   struct advice *out, size_t max)
{
	int64_t total = profile_total(p, t);
	size_t n = 0;

	if (total <= 0 || max == 0)
		return 0;
	for (size_t i = 0; i < nmods && n < max; i++) {
		const char *path = NULL;
		const struct advice_case *c;
		double share;

		if (seen_before(mods, i))
			continue;
		c = name_case(mods[i].name, mods, nmods, &path);
		if (!c)
			continue;
		share = (double)profile_total_in(p, t, mods[i].name) / total;
		if (share >= ADVICE_MIN_SHARE)
			out[n++] = (struct advice){ c, path, share };
	}
	qsort(out, n, sizeof(*out), by_share);
	return n;
}

/* The multiarch triplet of a case's path (the component between the
 * library root and the case's directory: "x86_64-linux-gnu"), malloc'd,
 * or NULL when the path has none. */
static char *triplet_of(const char *path, const struct advice_case *c)
{
	size_t dirlen = strlen(c->dir);
	const char *name = strrchr(path, '/');
	size_t dirstart = (size_t)(name - path) - dirlen;
	size_t root = libdir_prefix(path, dirstart);

	/* advice_case_of(path) is c: a debug check only */
	assert(name && strlen(path) > dirlen && root);
	if (root + 1 >= dirstart)
		return NULL;
	return xstrndup(path + root, dirstart - root - 1);
}

char *advice_text(const struct advice *a)
{
	char *triplet = triplet_of(a->path, a->c), *s;

	s = xasprintf("%.1f%% of the samples are in %s (%s, Debian's package "
		      "%s), plain loops tuned for no CPU: install %s, "
		      "and Debian's alternatives hand it to every program "
		      "using %s (update-alternatives --display %s%s%s)",
		      100 * a->share, a->c->what, a->path, a->c->package,
		      a->c->instead, a->c->alternative, a->c->alternative,
		      triplet ? "-" : "", triplet ? triplet : "");
	free(triplet);
	return s;
}
