/*
 * The end of every command: its output set checked and written, and a
 * result kept in the store, for every command that produces one (run,
 * mem, load): after the files were written, so that a store that fails
 * loses nothing --json was asked for.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/refs.h"
#include "store/store.h"
#include "util/strutil.h"

int save_result(const struct result *res, const char *store, bool quiet)
{
	long long id;
	struct error e;
	char *path;
	int r = ref_store_path(store, &path, &e);

	store_set_warn(ref_store_warning);
	if (path)
		r = store_save_to(path, res, &id, &e);
	/* -q hides the report, never the id a script needs to refer to
	 * the result (on stderr, as every message) */
	if (r == 0 && quiet) {
		fprintf(stderr, "yardstick: saved as result %lld\n", id);
	} else if (r == 0) {
		char *shown = store_shown(path);

		fprintf(stderr, "yardstick: saved as result %lld in %s\n", id,
			shown);
		free(shown);
	}
	free(path);
	if (r == 0)
		return 0;
	fprintf(stderr, "yardstick: %s\n", e.msg);
	return ref_store_exit(r);
}

int check_output_set(struct output_set *s, const char *who)
{
	struct error e;

	if (!outputs_check(s, &e))
		return 0;
	fprintf(stderr, "%s: %s\n", who, e.msg);
	return 2;
}

int write_output_set(struct output_set *s, const char *who)
{
	if (!outputs_write(s))
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].failed)
			fprintf(stderr, "%s: %s\n", who, s->v[i].err.msg);
	return 2;
}

int output_result_json(const char *path, void *res, struct error *e)
{
	return result_write_json(res, path, e);
}

int output_result_csv(const char *path, void *res, struct error *e)
{
	return result_write_csv(res, path, e);
}

int output_result_markdown(const char *path, void *res, struct error *e)
{
	return result_write_markdown(res, path, e);
}

int output_result_bmf(const char *path, void *res, struct error *e)
{
	return result_write_bmf(res, path, e);
}

void add_result_outputs(struct output_set *s, const char *json,
			const char *csv, const char *markdown, const char *bmf,
			struct result *res)
{
	outputs_add(s, "--json", json, "json", output_result_json, res);
	outputs_add(s, "--csv", csv, "csv", output_result_csv, res);
	outputs_add(s, "--markdown", markdown, "markdown",
		    output_result_markdown, res);
	outputs_add(s, "--bmf", bmf, "bmf", output_result_bmf, res);
}
