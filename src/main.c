/*
 * yardstick: the command table and dispatch, and nothing else. `help`, the
 * usage text and each command's help (from its options table, cmd/options.h)
 * are generated.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/run.h"
#include "config.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct opt_cmd *opts;	/* summary, help, completions */
};

static const struct command commands[] = {
	{ "run", cmd_run, &run_cmd },
	{ "compare", cmd_compare, &compare_cmd },
	{ "gate", cmd_gate, &gate_cmd },
	{ "history", cmd_history, &history_cmd },
	{ "record", cmd_record, &record_cmd },
	{ "load", cmd_load, &load_cmd },
	{ "mem", cmd_mem, &mem_cmd },
	{ "bench", cmd_bench, &bench_cmd },
	{ "report", cmd_report, &report_cmd },
	{ "trace", cmd_trace, &trace_cmd },
	{ "roofline", cmd_roofline, &roofline_cmd },
	{ "store", cmd_store, &store_cmd },
	{ "export", cmd_export, &export_cmd },
	{ "merge", cmd_merge, &merge_cmd },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *fp)
{
	fputs("usage: yardstick COMMAND [OPTIONS] [ARGS]\n"
	      "       yardstick help [COMMAND]\n"
	      "       yardstick --version\n\n"
	      "yardstick measures what a program costs and where.\n\n"
	      "Commands:\n", fp);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name,
			commands[i].opts->summary);
	fputs("  help       show this, or the help of a command\n\n"
	      "'yardstick help COMMAND' or 'yardstick COMMAND --help' tells "
	      "more.\n", fp);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* yardstick completion bash|zsh|fish: the script, from the tables. */
static int completion(int argc, char **argv)
{
	const struct opt_cmd *cmds[NCOMMANDS];
	struct error e;

	if (argc != 3) {
		fputs("usage: yardstick completion bash|zsh|fish\n", stderr);
		return 2;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		cmds[i] = commands[i].opts;
	if (opt_completion(argv[2], cmds, NCOMMANDS, stdout, &e)) {
		fprintf(stderr, "yardstick completion: %s\n", e.msg);
		return 2;
	}
	return 0;
}

static int finish(int ret)
{
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		perror("yardstick: cannot write to stdout");
		return ret ? ret : 2;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("yardstick %s\n", YS_VERSION);
		return finish(0);
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		if (argc < 3 || !strcmp(argv[1], "--help") ||
		    !strcmp(argv[1], "-h")) {
			usage(stdout);
			return finish(0);
		}
		c = find(argv[2]);
		if (!c) {
			fprintf(stderr, "yardstick: no command '%s' (see "
				"'yardstick help')\n", argv[2]);
			return 2;
		}
		opt_help(c->opts, stdout);
		return finish(0);
	}
	/* hidden: the build generates the completion scripts with it */
	if (!strcmp(argv[1], "completion"))
		return finish(completion(argc, argv));
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "yardstick: '%s' is not a command (see "
			"'yardstick help')\n", argv[1]);
		return 2;
	}
	return finish(c->fn(argc - 1, argv + 1));
}
