/*
 * The engine of `yardstick merge`: the results of the segments of one
 * load test (`load --segment I/N`, each written with --json) merged into
 * the result of the whole test, as `load` would have made it.
 */
#ifndef YS_ENGINE_LOAD_MERGE_H
#define YS_ENGINE_LOAD_MERGE_H

#include <stddef.h>

#include "result/result.h"
#include "util/error.h"

/*
 * Read the n result files (or references), check that they are every
 * segment 0/N .. N-1/N of one test once (the same benchmark, settings,
 * N, and start within a second), and merge them into out (result_init'ed
 * here; the caller's to result_free, whatever the return). Returns 0, or
 * the exit code with e set: the reader's for a file that cannot be read,
 * 2 for results that are not the segments of one test or whose counts
 * contradict each other.
 */
int load_merge_files(const char *const *files, size_t n, struct result *out,
		     struct error *e);

#endif
