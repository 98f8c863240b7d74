/*
 * Keeping a result in the store, for every command that produces one
 * (run, mem, load): after the files were written, so that a store that
 * fails loses nothing --json was asked for.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/refs.h"
#include "store/store.h"
#include "util/strutil.h"

int save_result(const struct result *res, const char *store, bool quiet)
{
	struct store *s;
	long long id;
	struct error e;
	char *path;
	int r;

	r = ref_open_store(&s, store, STORE_CREATE, &path, &e);
	if (r == 0) {
		r = store_save(s, res, &id, &e);
		store_close(s);
	}
	if (r == 0 && !quiet)
		fprintf(stderr, "yardstick: saved as result %lld in %s\n", id,
			path);
	free(path);
	if (r == 0)
		return 0;
	fprintf(stderr, "yardstick: %s\n", e.msg);
	return ref_store_exit(r);
}
