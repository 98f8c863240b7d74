/*
 * `yardstick store copy FROM TO`: a whole history copied between stores,
 * SQLite files and PostgreSQL URLs alike (store_copy in store/store.h has
 * the rules: idempotent by fingerprint, ids kept where free); or one
 * result file (FROM ending in .json: a result a failed save kept, or any
 * --json output) saved into TO (store_add: once, however often).
 * `yardstick store flush [STORE]`: the store's save log moved into its
 * database now (store_flush), as a save starts it when the log is full.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "util/options.h"
#include "engine/refs.h"
#include "store/store.h"
#include "util/stop.h"
#include "util/strutil.h"

static const char *const store_usage[] = { "copy [OPTIONS] FROM TO",
					   "copy [OPTIONS] FILE.json [TO]",
					   "flush [OPTIONS] [STORE]",
					   NULL };

static const char store_description[] =
"Copy every result of the store FROM into the store TO, oldest first. A\n"
"store is a file (SQLite) or a postgresql:// URL (PostgreSQL); TO is made\n"
"when missing. A result TO already holds (the same fingerprint: the same\n"
"results, settings, machine and commit, every per-run value) is skipped,\n"
"so running the copy again copies nothing twice. A copied result keeps\n"
"its id when TO has no result with that id, else it takes TO's next id:\n"
"each such result is listed as 'result ID copied as NEWID' (on stdout).\n"
"The last line counts the results copied and skipped. FROM is checked\n"
"first: a damaged FROM (SQLite's check fails, or results saved into it\n"
"are missing: a damaged -wal) is copied as far as it can be read, and\n"
"the damage named, with exit status 2. Ctrl-C (SIGTERM, SIGHUP) stops\n"
"the copy between two results: TO holds whole results only, and the\n"
"message says how many were copied and that the same copy again copies\n"
"the rest (exit 130, 143, 129). Stopped or failed before its first\n"
"result, a TO file the copy made is removed, with the directories it\n"
"made for it (not a TO that was there before, nor one another program\n"
"opened or saved into meanwhile), and the message says so.\n"
"\n"
"FROM may also be a result file, FILE.json: a result a save could not\n"
"keep (the message then names it: .yardstick/unsaved/TIME-PID.json),\n"
"or any --json output of a command that saves. It is saved into TO\n"
"with TO's next id, once: a result TO holds already is skipped. TO\n"
"is the store a save would use when not given.\n"
"\n"
"flush moves the results saved into STORE's log (STORE-log) into its\n"
"database, where sqlite3 and other programs see them; STORE is the\n"
"store a save would use when not given. Every yardstick command that\n"
"reads the store does it first, and the save that finds 1024 results\n"
"in the log starts `store flush --idle 1s` itself, in the background:\n"
"the move waits until saves stop for a second, so that a loop of runs\n"
"is not measured beside it. It prints how many results it moved\n"
"(nothing with -q).\n";

static const char store_epilog[] =
"Exit status: 0 copied or flushed (or nothing to do); 2 bad usage, no\n"
"store FROM (or STORE),\n"
"a corrupt store, a bad URL; 3 a store locked, read-only or unreadable,\n"
"a PostgreSQL server that cannot be reached or refuses us, or SQLite or\n"
"libpq cannot be loaded; 130, 143, 129 a copy stopped by SIGINT, SIGTERM,\n"
"SIGHUP. What was copied before a failure or a stop stays copied.\n";

struct store_args {
	bool quiet;
	double idle;		/* flush --idle, seconds (0: at once) */
};

/* flush --idle: the longest wait for the saves to stop */
#define IDLE_WAIT_MAX_MS 60000

#define OPT_STRUCT struct store_args
static const struct opt_entry store_options[] = {
	{ OPT_FLAG('q', "quiet", quiet),
	  .help = "copy: only the counts, not the renumbered results; "
	  "flush: nothing" },
	{ OPT_DURATION(0, "idle", idle), .help = "flush: first wait until "
	  "no save has appended to the log for T (at most a minute, less "
	  "when the log holds 1.5 times its bound), so that a loop of saves "
	  "is not slowed by the move; one such flush waits per store, "
	  "another exits at once (what a save that fills the log starts: "
	  "--idle 1s)" },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static const char *const store_subcommands[] = { "copy", "flush", NULL };

const struct opt_cmd store_cmd = {
	.name = "store",
	.summary = "copy a history between stores (SQLite, PostgreSQL); "
		   "flush a store's save log",
	.usage = store_usage,
	.description = store_description,
	.epilog = store_epilog,
	.subcommands = store_subcommands,
	.mode = OPT_PERMUTE,
	.opts = store_options,
	.args_size = sizeof(struct store_args),
};

static void renumbered(long long from, long long to, void *ctx)
{
	if (!*(bool *)ctx)
		printf("result %lld copied as %lld\n", from, to);
}

/* FROM a result file: saved into the store to, once. */
static bool is_result_file(const char *from)
{
	size_t n = strlen(from);

	return n > 5 && !strcmp(from + n - 5, ".json");
}

/*
 * A copy that failed with nothing copied: its error, and a TO it made
 * removed (store_close_discard, as after a stop: not one that was there
 * before, nor one another process opened meanwhile), so that a failure
 * leaves no empty store behind. Closes *dst; frees r and path if given.
 */
static int failed_empty(const struct error *e, struct store **dst,
			struct result *r, char *path)
{
	char *to = *dst ? xstrdup(store_path(*dst)) : NULL;
	bool gone = store_close_discard(*dst);

	*dst = NULL;
	if (r)
		result_free(r);
	free(path);
	fprintf(stderr, "yardstick store copy: %s\n", e->msg);
	if (gone)
		fprintf(stderr, "yardstick store copy: nothing was copied, so "
			"%s, which this copy had made, was removed\n", to);
	free(to);
	return error_exit_code(e);
}

static int add_file(const char *from, const char *to)
{
	struct store *dst = NULL;
	struct result r;
	struct error e;
	long long id = 0;
	bool dup = false;
	char *path = NULL;
	int ret;

	store_set_warn(ref_store_warning);
	/* (the reader leaves r empty on failure) */
	if (result_read_json_raw(&r, from, true, &e)) {
		fprintf(stderr, "yardstick store copy: %s\n", e.msg);
		return 2;
	}
	/* no TO: the store a save would use (the pytest plugin's
	 * --benchmark-save has no store to name) */
	ret = ref_store_path(to, &path, &e);
	if (!ret)
		ret = store_open(&dst, path, STORE_CREATE, &e);
	if (!ret)
		ret = store_add(dst, &r, &id, &dup, &e);
	if (!ret && dup)
		printf("copied 0 results from %s to %s, skipped 1 already "
		       "there (result %lld)\n", from, store_path(dst), id);
	else if (!ret)
		printf("copied 1 result from %s to %s as result %lld\n", from,
		       store_path(dst), id);
	if (ret)
		return failed_empty(&e, &dst, &r, path);
	store_close(dst);
	result_free(&r);
	free(path);
	return 0;
}

/*
 * Stopped by a signal between two results (store_copy: each is copied in
 * a transaction of its own): what TO holds of FROM, that it is not the
 * whole of it, and how to finish; never the line of a finished copy. A
 * TO this copy made and copied nothing into is removed (store_close_
 * discard: not one that was there before, nor one another process
 * opened meanwhile), and *dst closed then.
 */
static int copy_stopped(const struct store_copy_stats *st,
			const struct store *src, struct store **dst)
{
	size_t done = st->copied + st->skipped;
	char *to = xstrdup(store_path(*dst));
	bool gone = false;

	if (!done) {
		gone = store_close_discard(*dst);
		*dst = NULL;
	}
	fprintf(stderr, "yardstick store copy: interrupted by %s: ",
		stop_signal_name());
	if (gone)
		fprintf(stderr, "nothing was copied, so %s, which this copy "
			"had made, was removed", to);
	else if (!st->copied)
		fprintf(stderr, "nothing was copied into %s", to);
	else
		fprintf(stderr, "%zu result%s copied into %s, each whole",
			st->copied, plural_s(st->copied), to);
	if (st->skipped)
		fprintf(stderr, " (%zu skipped, already there)", st->skipped);
	fprintf(stderr, "; %zu of the %zu results of %s not copied: the same "
		"copy again copies them (nothing twice)\n", st->total - done,
		st->total, store_path(src));
	free(to);
	return stop_exit_code();
}

static int copy(const struct store_args *a, const char *from, const char *to)
{
	struct store_copy_stats st = { .on_renumber = renumbered,
				       .ctx = (void *)&a->quiet };
	struct store *src = NULL, *dst = NULL;
	struct error e;
	int ret;

	store_set_warn(ref_store_warning);
	/* Ctrl-C, SIGTERM, SIGHUP stop the copy between two results (a
	 * second one at once: the result being saved is rolled back) */
	if (stop_install(&e))
		fprintf(stderr, "yardstick store copy: warning: %s\n", e.msg);
	st.stop = stop_flag();
	ret = store_open(&src, from, STORE_READ, &e);
	if (!ret)
		ret = store_open(&dst, to, STORE_CREATE, &e);
	if (!ret)
		ret = store_copy(src, dst, &st, &e);
	if (!ret && st.stopped)
		ret = copy_stopped(&st, src, &dst);
	else if (src && dst && st.unreadable)
		printf("copied %zu result%s from %s to %s, skipped %zu "
		       "already there, %zu could not be read\n", st.copied,
		       plural_s(st.copied), store_path(src),
		       store_path(dst), st.skipped, st.unreadable);
	else if (src && dst)
		printf("copied %zu result%s from %s to %s, skipped %zu "
		       "already there\n", st.copied, plural_s(st.copied),
		       store_path(src), store_path(dst), st.skipped);
	if (ret && !st.stopped && !st.copied && !st.skipped) {
		store_close(src);
		return failed_empty(&e, &dst, NULL, NULL);
	}
	store_close(src);
	store_close(dst);
	if (!ret || st.stopped)
		return ret;
	fprintf(stderr, "yardstick store copy: %s\n", e.msg);
	return error_exit_code(&e);
}

static int flush(const struct store_args *a, const char *store)
{
	struct error e;
	size_t moved = 0;
	char *path;
	int hold = -1, ret = ref_store_path(store, &path, &e);

	store_set_warn(ref_store_warning);
	if (path && a->idle > 0 &&
	    !store_log_wait_idle(path, (int)(a->idle * 1000 + 0.5),
				 IDLE_WAIT_MAX_MS, &hold)) {
		if (!a->quiet)
			printf("another flush waits to move the log of %s\n",
			       path);
		free(path);
		return 0;
	}
	if (path)
		ret = store_flush(path, &moved, &e);
	if (hold >= 0)
		close(hold);
	if (!ret && !a->quiet) {
		char *shown = store_shown(path);

		printf("moved %zu result%s from the log into %s\n", moved,
		       plural_s(moved), shown);
		free(shown);
	}
	free(path);
	if (!ret)
		return 0;
	fprintf(stderr, "yardstick store flush: %s\n", e.msg);
	return error_exit_code(&e);
}

int cmd_store(int argc, char **argv)
{
	struct store_args a = { 0 };
	struct opt_rest rest;
	bool is_flush = argc > 1 && !strcmp(argv[1], "flush");
	int ret;

	/* the options and arguments after the subcommand are its own
	 * (--help before it shows this help too) */
	if (argc > 1 && (!strcmp(argv[1], "copy") || is_flush)) {
		argv++;
		argc--;
	} else if (argc > 1 && argv[1][0] != '-') {
		static const char *const subs[] = { "copy", "flush" };
		const char *near = opt_closest(argv[1], subs, 2);

		if (near)
			fprintf(stderr, "yardstick store: unknown subcommand "
				"'%s'; did you mean '%s'?\n", argv[1], near);
		else
			fprintf(stderr, "yardstick store: unknown subcommand "
				"'%s' (copy, flush)\n", argv[1]);
		return 2;
	} else if (argc < 2) {
		fputs("yardstick store: a subcommand is needed: store copy "
		      "FROM TO, or store flush [STORE]\n", stderr);
		return 2;
	}
	if (!opt_parse_or_exit(&store_cmd, argc, argv, &a, &rest, &ret))
		return ret;
	if (is_flush && rest.end - rest.first > 1) {
		fputs("yardstick store flush: expected one store at most\n",
		      stderr);
		return 2;
	}
	if (is_flush)
		return flush(&a, rest.end > rest.first ? argv[rest.first]
							: NULL);
	if (rest.end - rest.first == 1 && is_result_file(argv[rest.first]))
		return add_file(argv[rest.first], NULL);
	if (rest.end - rest.first != 2) {
		fputs("yardstick store copy: expected two stores, FROM and TO\n",
		      stderr);
		return 2;
	}
	if (is_result_file(argv[rest.first]))
		return add_file(argv[rest.first], argv[rest.first + 1]);
	return copy(&a, argv[rest.first], argv[rest.first + 1]);
}
