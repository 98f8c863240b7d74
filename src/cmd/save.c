/*
 * The end of every command: its output set checked and written, and a
 * result kept in the store, for every command that produces one (run,
 * mem, load, bench, trace, roofline): after the files were written, so
 * that a store that fails loses nothing --json was asked for; and when
 * the store fails, the result kept in a file (store_keep_unsaved) that
 * `yardstick store copy` saves later. A PostgreSQL store is checked
 * before the first run too (save_check). The save that finds the store's
 * log due for its move into the database leaves the move to a yardstick
 * of its own (`store flush`), which this one does not wait for.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "engine/refs.h"
#include "store/store.h"
#include "util/child.h"
#include "util/strutil.h"

int save_check(const char *store)
{
	struct error e;
	char *path;
	int r = ref_store_path(store, &path, &e);

	/* a store that cannot even be named (a default path refused) is
	 * reported when saving, as before: --json still gets the result */
	r = path ? store_check_save(path, &e) : 0;
	free(path);
	if (r == 0)
		return 0;
	fprintf(stderr, "yardstick: %s; nothing was run (the store is "
		"checked before the runs)\n", e.msg);
	return error_exit_code(&e);
}

/* res, which the store at path could not keep, into a file, and how to
 * save it later. */
static void keep_unsaved(const char *path, const struct result *res)
{
	char *kept, *shown = store_shown(path);
	struct error e;

	if (store_keep_unsaved(path, res, &kept, &e))
		fprintf(stderr, "yardstick: the result could not be kept in a "
			"file either: %s\n", e.msg);
	else
		fprintf(stderr, "yardstick: the result is kept in '%s'; save "
			"it later with: yardstick store copy '%s' '%s'\n",
			kept, kept, shown);
	free(kept);
	free(shown);
}

/*
 * The log's move into the database, due after a save (store_save_to): by
 * `yardstick store flush --idle 1s PATH` (the move once the saves have
 * stopped for a second: a loop of runs is not measured beside it;
 * store_log_wait_idle), started and not waited for, in a process
 * group of its own (a Ctrl-C meant for this command does not reach it;
 * killed all the same, it loses nothing: store_log.c), its output
 * nowhere: a move that fails leaves the log past its bound, and the
 * saves that follow try again, then say why (store.h). Here, the old
 * way, when it cannot be started.
 */
static void flush_apart(const char *path)
{
	char *const argv[] = { "yardstick", "store", "flush", "-q",
			       "--idle", "1s", "--", (char *)path, NULL };
	struct child c = { .path = "/proc/self/exe", .argv = argv,
			   .own_group = true,
			   .io = { CHILD_IO_NULL, CHILD_IO_NULL,
				   CHILD_IO_NULL } };
	struct error e;

	/* one started before waits still: it moves what this save added */
	if (store_log_move_waiting(path))
		return;
	if (child_start(&c, &e))
		store_flush_after_save(path);
}

int save_result(const struct result *res, const char *store, bool quiet)
{
	long long id;
	struct error e;
	char *path;
	bool move = false;
	int r = ref_store_path(store, &path, &e);

	store_set_warn(ref_store_warning);
	if (path)
		r = store_save_to(path, res, &id, &move, &e);
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
	if (r == 0) {
		if (move)
			flush_apart(path);
		free(path);
		return 0;
	}
	fprintf(stderr, "yardstick: %s\n", e.msg);
	if (path)
		keep_unsaved(path, res);
	free(path);
	return error_exit_code(&e);
}

int check_output_set(struct output_set *s, const char *who)
{
	struct error e;

	if (outputs_check(s, &e)) {
		fprintf(stderr, "%s: %s\n", who, e.msg);
		return 2;
	}
	for (size_t i = 0; i < s->n; i++)
		if (outputs_name_mismatch(s, i, &e))
			fprintf(stderr, "%s: warning: %s\n", who, e.msg);
	return 0;
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

void add_result_outputs(struct output_set *s, const char *json,
			const char *csv, const char *markdown, const char *bmf,
			struct result *res)
{
	const char *paths[RESULT_FMT_COUNT] = {
		[RESULT_FMT_JSON] = json, [RESULT_FMT_CSV] = csv,
		[RESULT_FMT_MARKDOWN] = markdown, [RESULT_FMT_BMF] = bmf,
	};

	for (size_t i = 0; i < RESULT_FMT_COUNT; i++) {
		const struct result_writer *w = result_writers[i];

		outputs_add(s, w->flag, paths[i], w->format, w->write, res);
	}
}
