/*
 * yardstick: the command table and dispatch, and nothing else. `help`, the
 * usage text and each command's help (from its options table, cmd/options.h)
 * are generated.
 */
#include <malloc.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/options.h"
#include "util/stop.h"
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
	{ "import", cmd_import, &import_cmd },
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
	fputs("  completion the shell completion script: completion "
	      "bash|zsh|fish\n"
	      "  help       show this, or the help of a command\n\n"
	      "'yardstick help COMMAND' or 'yardstick COMMAND --help' tells "
	      "more; 'man yardstick' tells the exit codes and the "
	      "environment.\n", fp);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "yardstick: 'rnu' is not a command; did you mean 'run'?" and exit 2.
 * An option before any command is yardstick's own (--help, --version) or
 * a command's given too early (`yardstick --json x run`). */
static int unknown(const char *name)
{
	static const char *const own[] = { "--help", "--version" };
	const char *names[NCOMMANDS + 2];
	const char *near;

	if (name[0] == '-') {
		near = opt_closest(name, own, 2);
		if (near)
			fprintf(stderr, "yardstick: unknown option '%s'; did "
				"you mean '%s'?\n", name, near);
		else
			fprintf(stderr, "yardstick: unknown option '%s' "
				"(yardstick's own are --help and --version; a "
				"command's go after its name: yardstick COMMAND "
				"[OPTIONS])\n", name);
		return 2;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = "help";
	names[NCOMMANDS + 1] = "completion";
	near = opt_closest(name, names, NCOMMANDS + 2);
	if (near)
		fprintf(stderr, "yardstick: '%s' is not a command; did you "
			"mean '%s'? (see 'yardstick help')\n", name, near);
	else
		fprintf(stderr, "yardstick: '%s' is not a command (see "
			"'yardstick help')\n", name);
	return 2;
}

static const char completion_help[] =
	"usage: yardstick completion bash|zsh|fish\n\n"
	"Print the completion script of a shell, generated from the same "
	"option tables\nas every command's parser and help. `make install` "
	"installs all three where\neach shell looks; to try one in the "
	"current shell:\n\n"
	"  bash: source <(yardstick completion bash)\n"
	"  zsh:  source <(yardstick completion zsh)\n"
	"  fish: yardstick completion fish | source\n\n"
	"The script (the output) goes to stdout.\n";

/* yardstick completion bash|zsh|fish: the script, from the tables. */
static int completion(int argc, char **argv)
{
	const struct opt_cmd *cmds[NCOMMANDS];
	struct error e;

	if (argc == 3 && (!strcmp(argv[2], "--help") ||
			  !strcmp(argv[2], "-h"))) {
		fputs(completion_help, stdout);
		return 0;
	}
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

/* yardstick(1): the commands, the exit codes, the environment. */
static void man_index(FILE *fp)
{
	fprintf(fp, ".TH YARDSTICK 1 \"\" \"yardstick %s\" \"yardstick "
		"manual\"\n"
		".SH NAME\nyardstick \\- measure what a program costs and "
		"where\n"
		".SH SYNOPSIS\n.nf\n\\fByardstick\\fR COMMAND [OPTIONS] "
		"[ARGS]\n\\fByardstick help\\fR [COMMAND]\n"
		"\\fByardstick \\-\\-version\\fR\n.fi\n"
		".SH DESCRIPTION\n"
		"yardstick measures what a program costs \\(em latency, memory, "
		"CPU counters, FLOPs \\(em, shows where that cost goes, keeps "
		"every measurement in a history and fails a CI job on a "
		"significant regression. Each command has a page of its own, "
		"yardstick\\-COMMAND(1), generated from the same option "
		"table as its \\-\\-help.\n"
		".SH COMMANDS\n", YS_VERSION);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(fp, ".TP\n.BR yardstick\\-%s (1)\n%s\n",
			commands[i].name, commands[i].opts->summary);
	fputs(".TP\n.B yardstick completion bash|zsh|fish\n"
	      "the shell completion script\n"
	      ".SH EXIT STATUS\n"
	      ".TP\n.B 0\nsuccess\n"
	      ".TP\n.B 1\na measured program failed, timed out or crashed; "
	      "a gate failed\n"
	      ".TP\n.B 2\nbad usage or bad input: an unknown option, a "
	      "malformed file, a program that does not exist\n"
	      ".TP\n.B 3\nthe environment: a library that cannot be "
	      "loaded, a store locked, read\\-only or unreachable, perf "
	      "events not permitted\n"
	      ".TP\n.B 130, 143\ninterrupted by SIGINT or SIGTERM: the "
	      "program was stopped and what was measured is kept\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B NO_COLOR\nany value: no colour on the terminal\n"
	      ".TP\n.B YARDSTICK_STORE\nthe store: a file (SQLite) or a "
	      "postgresql:// URL; \\-\\-store overrides it\n"
	      ".TP\n.B YARDSTICK_NO_PROGRESS\nany value: no progress bar\n"
	      ".TP\n.B YARDSTICK_CACHE_MAX\nthe bound of the symbol cache "
	      "(bytes, or with K, M or G)\n"
	      ".TP\n.B XDG_CACHE_HOME\nwhere the symbol cache lives "
	      "(default ~/.cache)\n"
	      ".TP\n.B DEBUGINFOD_URLS\nservers of debugging information, "
	      "as libdw reads it\n"
	      ".SH SEE ALSO\n", fp);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(fp, ".BR yardstick\\-%s (1)%s\n", commands[i].name,
			i + 1 < NCOMMANDS ? "," : "");
}

/*
 * yardstick doc man [COMMAND] | doc markdown COMMAND: the manual pages
 * and the docs/cmd options sections, generated at build time (hidden).
 */
static int doc(int argc, char **argv)
{
	const struct command *c = argc == 4 ? find(argv[3]) : NULL;

	if (argc == 3 && !strcmp(argv[2], "man")) {
		man_index(stdout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[2], "numbers")) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(*commands);
		     i++)
			opt_numbers(commands[i].opts, stdout);
		return 0;
	}
	if (argc != 4 || !c || (strcmp(argv[2], "man") &&
				strcmp(argv[2], "markdown"))) {
		fputs("usage: yardstick doc man [COMMAND] | doc markdown "
		      "COMMAND | doc numbers\n", stderr);
		return 2;
	}
	if (!strcmp(argv[2], "man"))
		opt_man(c->opts, YS_VERSION, stdout);
	else
		opt_markdown(c->opts, stdout);
	return 0;
}

static int finish(int ret)
{
	/* A write that failed earlier left only the error flag: its errno
	 * is long gone, and perror would say "Success". */
	errno = 0;
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		if (errno)
			perror("yardstick: cannot write to stdout");
		else
			fputs("yardstick: cannot write to stdout (a write "
			      "failed: a full disk, or a reader that went "
			      "away)\n", stderr);
		return ret ? ret : 2;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const struct command *c;

	/* The heap grows 4 MiB at a time, and freed memory at its top stays
	 * up to 32 MiB: with glibc's defaults it is trimmed and grown again
	 * around every large free, a brk and page faults each time. Moving
	 * 64 saved results into the store (a save's worst case) faulted 735
	 * pages instead of 270, a third of its CPU (bench/RESULTS.md). The
	 * peak resident memory is what it was: untouched pages are not
	 * resident. */
	mallopt(M_TOP_PAD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
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
		    !strcmp(argv[1], "-h") || !strcmp(argv[2], "help")) {
			usage(stdout);
			return finish(0);
		}
		if (!strcmp(argv[2], "completion")) {
			fputs(completion_help, stdout);
			return finish(0);
		}
		c = find(argv[2]);
		if (!c)
			return unknown(argv[2]);
		opt_help(c->opts, stdout);
		return finish(0);
	}
	/* hidden: the build generates the manual with it */
	if (!strcmp(argv[1], "doc"))
		return finish(doc(argc, argv));
	if (!strcmp(argv[1], "completion"))
		return finish(completion(argc, argv));
	c = find(argv[1]);
	if (!c)
		return unknown(argv[1]);
	stop_install_default();
	return finish(c->fn(argc - 1, argv + 1));
}
