/*
 * Advice on a profile: when much of it sits in a library that Debian
 * ships in a slow reference build beside fast ones (the reference BLAS
 * and LAPACK, which its alternatives system lets an optimised build
 * replace without relinking), say so and name the package to install.
 *
 * One table of known cases (advice.c) is the only home of the libraries,
 * packages and the threshold. A library is known by the file the process
 * mapped (the kernel's path: links resolved), never by its module name
 * alone: the reference BLAS and OpenBLAS are both libblas.so.3, in
 * different directories.
 */
#ifndef YS_PROFILE_ADVICE_H
#define YS_PROFILE_ADVICE_H

#include <stddef.h>

#include "profile/profile.h"

/* A case's share of the samples (those with a frame in the library,
 * each sample once) from which record advises */
#define ADVICE_MIN_SHARE 0.20

/* One known slow library: the table's row. */
struct advice_case {
	const char *dir;	/* the directory Debian installs it in,
				 * under /usr/lib/TRIPLET/: "blas" */
	const char *file;	/* its file's name up to the version:
				 * "libblas.so.3" (libblas.so.3.11.0 too) */
	const char *what;	/* "the reference BLAS" */
	const char *package;	/* the Debian package of the file */
	const char *instead;	/* the package(s) to install instead */
	const char *alternative; /* the update-alternatives link name,
				  * without its "-TRIPLET" */
};

/* The case of a mapped file's path, or NULL when it is none of the
 * table's. */
const struct advice_case *advice_case_of(const char *path);

/* A file a profiled process mapped, under its module name (the
 * basename: a frame's module). */
struct advice_module {
	const char *name, *path;
};

/* One piece of advice: a case, the file, and its share. */
struct advice {
	const struct advice_case *c;
	const char *path;	/* belongs to the caller's modules */
	double share;		/* of sample type t's total, 0 to 1 */
};

/*
 * The advice on profile p (sample type t) whose frames' modules come from
 * the files mods[0..nmods): a case is advised when its library's share is
 * at least ADVICE_MIN_SHARE, and every file of that module name is the
 * case's (a name two files share, such as libblas.so.3 of the reference
 * and of OpenBLAS, cannot tell them apart in the samples: no advice then).
 * Writes up to max to out, the largest share first; returns how many.
 */
size_t advice_find(const struct profile *p, size_t t,
		   const struct advice_module *mods, size_t nmods,
		   struct advice *out, size_t max);

/*
 * The advice as one sentence, malloc'd: the share, the library, its file
 * and package, and what to install instead, with the alternatives' link
 * to check ("... update-alternatives --display
 * libblas.so.3-x86_64-linux-gnu"). The path is the program's: escape it
 * for the output.
 */
char *advice_text(const struct advice *a);

#endif
