/*
 * Unit tests of src/profile/advice.c: which mapped files are the table's
 * known slow libraries (generated paths: every multiarch triplet Debian
 * has, each file's versioned names, the other builds' directories with
 * the same file names, near misses), and the advice on profiles built by
 * hand, against shares computed here: the threshold on both sides, a
 * module name two files share, the order, the sentence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/advice.h"
#include "util/strutil.h"

static const char *const triplets[] = {
	"x86_64-linux-gnu", "aarch64-linux-gnu", "i386-linux-gnu",
	"arm-linux-gnueabihf", "powerpc64le-linux-gnu", "s390x-linux-gnu",
	"riscv64-linux-gnu", "mips64el-linux-gnuabi64",
};
#define NTRIPLETS (sizeof(triplets) / sizeof(triplets[0]))

/* (directory, file): the reference builds' files, and what must not be
 * taken for them */
struct named { const char *dir, *file, *package; };
static const struct named reference[] = {
	{ "blas", "libblas.so.3", "libblas3" },
	{ "blas", "libblas.so.3.11.0", "libblas3" },
	{ "blas", "libblas.so.3.9.0", "libblas3" },
	{ "lapack", "liblapack.so.3", "liblapack3" },
	{ "lapack", "liblapack.so.3.11.0", "liblapack3" },
};
static const struct named others[] = {
	/* the optimised builds install the same names elsewhere */
	{ "openblas-pthread", "libblas.so.3", NULL },
	{ "openblas-pthread", "liblapack.so.3", NULL },
	{ "openblas-openmp", "libblas.so.3", NULL },
	{ "openblas-serial", "libblas.so.3", NULL },
	{ "blis-pthread", "libblas.so.3", NULL },
	{ "atlas", "libblas.so.3", NULL },
	{ "atlas", "liblapack.so.3", NULL },
	/* not the file of its directory */
	{ "blas", "libcblas.so.3", NULL },
	{ "blas", "libblas.so.30", NULL },
	{ "blas", "liblapack.so.3", NULL },
	{ "lapack", "libblas.so.3", NULL },
	{ "lapack", "liblapacke.so.3", NULL },
	{ "blas", "libblas.a", NULL },
	{ "blas2", "libblas.so.3", NULL },
	{ "xblas", "libblas.so.3", NULL },
};

static void test_case_of_generated(void **state)
{
	(void)state;
	for (size_t t = 0; t < NTRIPLETS; t++) {
		for (size_t i = 0; i < sizeof(reference) / sizeof(*reference);
		     i++) {
			char *p = xasprintf("/usr/lib/%s/%s/%s", triplets[t],
					    reference[i].dir,
					    reference[i].file);
			const struct advice_case *c = advice_case_of(p);

			if (!c)
				fail_msg("'%s' not known", p);
			assert_string_equal(c->package, reference[i].package);
			free(p);
			/* the non-merged /lib of an older system */
			p = xasprintf("/lib/%s/%s/%s", triplets[t],
				      reference[i].dir, reference[i].file);
			assert_non_null(advice_case_of(p));
			free(p);
		}
		for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++) {
			char *p = xasprintf("/usr/lib/%s/%s/%s", triplets[t],
					    others[i].dir, others[i].file);

			if (advice_case_of(p))
				fail_msg("'%s' taken for a slow library", p);
			free(p);
		}
	}
}

static void test_case_of_places(void **state)
{
	(void)state;
	/* a directory of that name outside the system's library
	 * directories is someone's own build: no claim about it */
	static const char *const no[] = {
		"/home/u/src/blas/libblas.so.3",
		"/opt/blas/libblas.so.3",
		"/usr/lib/x86_64-linux-gnu/extra/blas/libblas.so.3",
		"/usr/lib//blas/libblas.so.3",
		"/usr/local/lib/blas/libblas.so.3",
		"/usr/lib/x86_64-linux-gnu/libblas.so.3",
		"blas/libblas.so.3", "libblas.so.3", "/libblas.so.3",
		"/blas/libblas.so.3", "", "/", "//", "[vdso]",
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		if (advice_case_of(no[i]))
			fail_msg("'%s' taken for a slow library", no[i]);
	/* a 32-bit or unsuffixed layout: /usr/lib/blas */
	assert_non_null(advice_case_of("/usr/lib/blas/libblas.so.3"));
}

static const struct sample_type one_type[] = { { "samples", "count" } };

/* A profile of stacks with the given leaf modules: n[i] samples of a
 * stack main (in "prog") calling a function of mods[i]. */
static void build(struct profile *p, const char *const *mods,
		  const int64_t *n, size_t k)
{
	uint32_t root;

	profile_init(p, one_type, 1);
	root = profile_frame(p, &(struct frame){ .function = "main",
						 .module = "prog" });
	for (size_t i = 0; i < k; i++) {
		uint32_t f[2];

		f[0] = profile_frame(p, &(struct frame){
			.function = "fn", .module = (char *)mods[i] });
		f[1] = root;
		profile_add(p, f, 2, &n[i]);
	}
}

#define BLAS "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"
#define LAPACK "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3.11.0"
#define OPENBLAS "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"

static const struct advice_module mods[] = {
	{ "prog", "/usr/bin/prog" },
	{ "libblas.so.3.11.0", BLAS },
	{ "liblapack.so.3.11.0", LAPACK },
	{ "libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6" },
};

/* The threshold on both sides, for shares computed here: k of 1000
 * samples in the library. */
static void test_find_threshold(void **state)
{
	const char *const m[] = { "libblas.so.3.11.0", "libc.so.6" };

	(void)state;
	for (int64_t k = 0; k <= 1000; k += 10) {
		struct profile p;
		struct advice a[4];
		int64_t n[] = { k, 1000 - k };
		size_t got;

		build(&p, m, n, 2);
		got = advice_find(&p, 0, mods, 4, a, 4);
		if (k >= 200) {
			assert_int_equal(got, 1);
			assert_string_equal(a[0].c->package, "libblas3");
			assert_string_equal(a[0].path, BLAS);
			assert_true(a[0].share == k / 1000.0);
		} else {
			assert_int_equal(got, 0);
		}
		profile_free(&p);
	}
}

static void test_find_order_and_shared_names(void **state)
{
	const char *const m[] = { "liblapack.so.3.11.0", "libblas.so.3.11.0",
				  "libc.so.6" };
	int64_t n[] = { 300, 500, 200 };
	struct profile p;
	struct advice a[4];
	struct advice_module two[5];
	char *text;

	(void)state;
	build(&p, m, n, 3);
	/* both, the larger share first; max bounds the count */
	assert_int_equal(advice_find(&p, 0, mods, 4, a, 4), 2);
	assert_string_equal(a[0].c->package, "libblas3");
	assert_true(a[0].share == 0.5);
	assert_string_equal(a[1].c->package, "liblapack3");
	assert_true(a[1].share == 0.3);
	assert_int_equal(advice_find(&p, 0, mods, 4, a, 1), 1);
	/* the sentence names the share, the file, the package, the
	 * replacement and the alternatives' link of the triplet */
	assert_int_equal(advice_find(&p, 0, mods, 4, a, 4), 2);
	text = advice_text(&a[0]);
	assert_non_null(strstr(text, "50.0% of the samples are in the "
				     "reference BLAS (" BLAS ", Debian's "
				     "package libblas3)"));
	assert_non_null(strstr(text, "install libopenblas0-pthread"));
	assert_non_null(strstr(text, "update-alternatives --display "
				     "libblas.so.3-x86_64-linux-gnu)"));
	free(text);
	/* a module name that an optimised build's file shares too: the
	 * samples cannot tell them apart, no advice for it */
	memcpy(two, mods, sizeof(mods));
	two[4] = (struct advice_module){ "libblas.so.3.11.0", OPENBLAS };
	assert_int_equal(advice_find(&p, 0, two, 5, a, 4), 1);
	assert_string_equal(a[0].c->package, "liblapack3");
	profile_free(&p);
}

static void test_find_empty(void **state)
{
	struct profile p;
	struct advice a[1];

	(void)state;
	profile_init(&p, one_type, 1);
	assert_int_equal(advice_find(&p, 0, mods, 4, a, 1), 0);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_of_generated),
		cmocka_unit_test(test_case_of_places),
		cmocka_unit_test(test_find_threshold),
		cmocka_unit_test(test_find_order_and_shared_names),
		cmocka_unit_test(test_find_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
