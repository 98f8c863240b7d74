/*
 * `yardstick store copy FROM TO`: a whole history copied between stores,
 * SQLite files and PostgreSQL URLs alike (store_copy in store/store.h has
 * the rules: idempotent by fingerprint, ids kept where free).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/refs.h"
#include "store/store.h"

static const char *const store_usage[] = { "copy [OPTIONS] FROM TO", NULL };

static const char store_description[] =
"Copy every result of the store FROM into the store TO, oldest first. A\n"
"store is a file (SQLite) or a postgresql:// URL (PostgreSQL); TO is made\n"
"when missing. A result TO already holds (the same fingerprint: the same\n"
"results, settings, machine and commit, every per-run value) is skipped,\n"
"so running the copy again copies nothing twice. A copied result keeps\n"
"its id when TO has no result with that id, else it takes TO's next id:\n"
"each such result is listed as 'result ID copied as NEWID' (on stdout).\n"
"The last line counts the results copied and skipped.\n";

static const char store_epilog[] =
"Exit status: 0 copied (or nothing to copy); 2 bad usage, no store FROM,\n"
"a corrupt store, a bad URL; 3 a store locked, read-only or unreadable,\n"
"a PostgreSQL server that cannot be reached or refuses us, or SQLite or\n"
"libpq cannot be loaded. What was copied before a failure stays copied.\n";

struct store_args {
	bool quiet;
};

#define OPT_STRUCT struct store_args
static const struct opt_entry store_options[] = {
	{ OPT_FLAG('q', "quiet", quiet),
	  .help = "only the counts, not the renumbered results" },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static const char *const store_subcommands[] = { "copy", NULL };

const struct opt_cmd store_cmd = {
	.name = "store",
	.summary = "copy a history between stores (SQLite, PostgreSQL)",
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

static int copy(const struct store_args *a, const char *from, const char *to)
{
	struct store_copy_stats st = { .on_renumber = renumbered,
				       .ctx = (void *)&a->quiet };
	struct store *src = NULL, *dst = NULL;
	struct error e;
	int ret;

	store_set_warn(ref_store_warning);
	ret = store_open(&src, from, STORE_READ, &e);
	if (!ret)
		ret = store_open(&dst, to, STORE_CREATE, &e);
	if (!ret)
		ret = store_copy(src, dst, &st, &e);
	if (src && dst)
		printf("copied %zu result%s from %s to %s, skipped %zu "
		       "already there\n", st.copied, st.copied == 1 ? "" : "s",
		       store_path(src), store_path(dst), st.skipped);
	store_close(src);
	store_close(dst);
	if (!ret)
		return 0;
	fprintf(stderr, "yardstick store copy: %s\n", e.msg);
	return ref_store_exit(ret);
}

int cmd_store(int argc, char **argv)
{
	struct store_args a = { 0 };
	struct opt_rest rest;
	int ret;

	/* "copy" is the one subcommand: the options and arguments after it
	 * are its own (--help before it shows this help too) */
	if (argc > 1 && !strcmp(argv[1], "copy")) {
		argv++;
		argc--;
	} else if (argc > 1 && argv[1][0] != '-') {
		fprintf(stderr, "yardstick store: unknown subcommand '%s' "
			"(copy)\n", argv[1]);
		return 2;
	} else if (argc < 2) {
		fputs("yardstick store: a subcommand is needed: store copy "
		      "FROM TO\n", stderr);
		return 2;
	}
	if (!opt_parse_or_exit(&store_cmd, argc, argv, &a, &rest, &ret))
		return ret;
	if (rest.end - rest.first != 2) {
		fputs("yardstick store copy: expected two stores, FROM and TO\n",
		      stderr);
		return 2;
	}
	return copy(&a, argv[rest.first], argv[rest.first + 1]);
}
