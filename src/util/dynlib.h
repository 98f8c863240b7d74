/*
 * A shared library loaded with dlopen when first needed, not linked, so
 * that yardstick's start-up does not pay for what one command uses (its
 * mapping, relocations and constructors, and those of its dependencies).
 * Only its headers are needed to build.
 *
 * A user lists the functions it calls once, as an X-macro, and gets a
 * table it calls them through with their own types:
 *
 *   #define FOO_FUNCTIONS(X) X(foo_open) X(foo_close)
 *   static DYNLIB_TABLE(foo_fns, FOO_FUNCTIONS) foo;
 *   static struct dynlib foo_lib = DYNLIB(foo, FOO_FUNCTIONS, "libfoo.so.1",
 *                                         "libfoo1", "what it is for");
 *   ...
 *   if (dynlib_load(&foo_lib, &e)) ...
 *   foo.foo_open(...);
 *
 * The first call of dynlib_load must come from one thread, before any
 * other uses the table.
 */
#ifndef YS_UTIL_DYNLIB_H
#define YS_UTIL_DYNLIB_H

#include <stddef.h>

#include "util/error.h"

/* union TAG: a pointer of its own type per function of the X-macro list
 * FUNCTIONS, and the same pointers as an array for dynlib_load. */
#define DYNLIB_TABLE(tag, FUNCTIONS)					\
	union tag {							\
		struct {						\
			FUNCTIONS(DYNLIB_FIELD)				\
		};							\
		void *fn[0 FUNCTIONS(DYNLIB_COUNT)];			\
	}
#define DYNLIB_FIELD(name) __typeof__(name) *name;
#define DYNLIB_COUNT(name) + 1
#define DYNLIB_NAME(name) #name,

/* The struct dynlib that fills table (a DYNLIB_TABLE of FUNCTIONS). */
#define DYNLIB(table, FUNCTIONS, so, pkg, what) {			\
	.soname = (so), .package = (pkg), .purpose = (what),		\
	.names = (const char *const[]){ FUNCTIONS(DYNLIB_NAME) },	\
	.fn = (table).fn, .n = sizeof((table).fn) / sizeof(void *),	\
}

struct dynlib {
	const char *soname;	/* what dlopen loads: "libdw.so.1" */
	const char *package;	/* the Debian package that has it */
	const char *purpose;	/* for the message: "elfutils, which ..." */
	const char *const *names;	/* the functions ... */
	void **fn;		/* ... and where their addresses go */
	size_t n;
	int state;		/* 0 not tried, 1 loaded, -1 failed */
	char why[256];		/* the failure */
};

/*
 * Load the library and every function of names into fn, once: later calls
 * give the first answer. Returns 0, or -1 with "cannot load 'SONAME'
 * (PURPOSE): WHY (apt-get install PACKAGE)", WHY being dlopen's reason or
 * the first function missing.
 */
int dynlib_load(struct dynlib *l, struct error *e);

#endif
