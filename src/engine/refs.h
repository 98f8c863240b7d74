/*
 * Result-set references, accepted wherever a command expects a result: a
 * JSON file (yardstick's own, hyperfine's --export-json, Google
 * Benchmark's --benchmark_out), or a reference into the store: "latest",
 * a result id, "@COMMIT", "branch:NAME".
 */
#ifndef YS_ENGINE_REFS_H
#define YS_ENGINE_REFS_H

#include "result/result.h"
#include "store/store.h"
#include "util/error.h"


/*
 * Load ref into *r (summarized). store_path NULL: the default store.
 * Returns 0, or -1 with e set, its class ERROR_ENV when the store is
 * locked or cannot be read (error_exit_code: 3), else ERROR_INPUT (bad
 * input, not found, corrupt: 2).
 */
int ref_load(const char *ref, const char *store_path, struct result *r,
	     struct error *e);
/* ref_load for callers that need the per-run values only: a file's
 * summaries are not computed. */
int ref_load_values(const char *ref, const char *store_path,
		    struct result *r, struct error *e);

/*
 * Open the store at store_path (NULL: the default store) as mode says;
 * *path receives the path used (malloc'd, NULL when the default could not
 * be found). Returns 0 or -STORE_ERR_* with e set.
 */
int ref_open_store(struct store **s, const char *store_path,
		   enum store_mode mode, char **path, struct error *e);
/*
 * The store a command uses: store (--store) when given, else
 * $YARDSTICK_STORE, else the top-level `store = ...` of ./yardstick.ini,
 * else store_default_path's, malloc'd in *path. 0, or with e set
 * -STORE_ERR_BADREF (the ini cannot be read) or -STORE_ERR_UNSAFE (the
 * default cannot be found), *path NULL.
 */
int ref_store_path(const char *store, char **path, struct error *e);
/* Print a warning of the store (store_set_warn) on stderr. */
void ref_store_warning(const char *msg);

#endif
