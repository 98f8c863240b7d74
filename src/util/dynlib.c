/* Libraries loaded on first need (see dynlib.h). */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

#ifdef __SANITIZE_ADDRESS__
/*
 * Sanitizer builds only: up to GCC 13 the leak checker guesses the bounds
 * of a dlopen'ed library's dynamic TLS block (libdw's, libelf's,
 * libstdc++'s) from a glibc 2.19 header that glibc no longer writes; when
 * a block happens to sit 16 bytes into a page it reads garbage and its
 * tracer dies at exit ("Tracer caught signal 11"), by the luck of heap
 * layout. Those blocks hold no pointers of ours: they need not be
 * scanned. Every program that can dlopen a library links this file, and
 * options given in ASAN_OPTIONS still apply over this default.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "intercept_tls_get_addr=0";
}
#endif

static int load(struct dynlib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	const char *err;

	if (!h) {
		err = dlerror();
		snprintf(l->why, sizeof(l->why), "%s", err ? err : "not found");
		return -1;
	}
	/* a library's own dependencies are searched too (dlsym of a handle
	 * looks through its whole dependency tree) */
	for (size_t i = 0; i < l->n; i++) {
		l->fn[i] = dlsym(h, l->names[i]);
		if (!l->fn[i]) {
			snprintf(l->why, sizeof(l->why),
				 "no function '%s' in it, too old",
				 l->names[i]);
			dlclose(h);
			return -1;
		}
	}
	return 0;
}

int dynlib_load(struct dynlib *l, struct error *e)
{
	if (!l->state)
		l->state = load(l) ? -1 : 1;
	if (l->state > 0)
		return 0;
	return error_env(e, "cannot load '%s' (%s): %s (apt-get install %s)",
			 l->soname, l->purpose, l->why, l->package);
}
