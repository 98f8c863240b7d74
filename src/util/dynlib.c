/* Libraries loaded on first need (see dynlib.h). */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

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
	return error_set(e, "cannot load '%s' (%s): %s (apt-get install %s)",
			 l->soname, l->purpose, l->why, l->package);
}
