/*
 * yardstick: the command table and dispatch, and nothing else. `help` and
 * the usage text are generated from the table.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/run.h"
#include "config.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *help;
};

static const struct command commands[] = {
	{ "run", cmd_run, "benchmark commands: time, memory, counters, "
	  "statistics, comparisons", run_help },
	{ "compare", cmd_compare, "compare two result sets metric by metric",
	  compare_help },
	{ "gate", cmd_gate, "fail CI when a metric regressed beyond a "
	  "threshold, significantly", gate_help },
	{ "history", cmd_history, "stored results over time, change points",
	  history_help },
	{ "record", cmd_record, "sampling CPU profiler: top functions, flame "
	  "graphs, pprof", record_help },
	{ "load", cmd_load, "HTTP load generator: closed or fixed-rate, "
	  "latency corrected for coordinated omission", load_help },
	{ "mem", cmd_mem, "heap profiler: peak heap, leaks, temporary "
	  "allocations, allocation sites", mem_help },
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
			commands[i].summary);
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
		fputs(c->help, stdout);
		return finish(0);
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "yardstick: '%s' is not a command (see "
			"'yardstick help')\n", argv[1]);
		return 2;
	}
	return finish(c->fn(argc - 1, argv + 1));
}
