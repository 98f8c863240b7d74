/*
 * The command line of a command that runs a program (`record`, `mem`):
 * its own options, then "--", then the program and its arguments.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "profile/output.h"

int parse_program_args(int argc, char **argv, const struct prog_parser *pp,
		       int *operands, int *dashdash)
{
	int c;

	*dashdash = argc;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			*dashdash = i;
			break;
		}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(*dashdash, argv, pp->shortopts, pp->longopts,
				NULL)) != -1) {
		if (c == 'h') {
			fputs(pp->help, stdout);
			return 1;
		}
		if (c == ':') {
			fprintf(stderr, "yardstick %s: option '%s' needs a "
				"value\n", pp->cmd, argv[optind - 1]);
			return 2;
		}
		if (c == '?') {
			fprintf(stderr, "yardstick %s: unknown option '%s'\n",
				pp->cmd, argv[optind - 1]);
			return 2;
		}
		if (pp->opt(pp->arg, c, optarg))
			return 2;
	}
	*operands = optind;
	return 0;
}

int program_and_outputs(const char *cmd, int argc, char **argv, int first,
			int dashdash, const struct profile_outputs *out,
			char ***prog)
{
	if (first < dashdash) {
		fprintf(stderr, "yardstick %s: '%s': put the program after "
			"'--'\n", cmd, argv[first]);
		return 2;
	}
	if (dashdash + 1 >= argc) {
		fprintf(stderr, "yardstick %s: no program to profile (yardstick "
			"%s -- PROGRAM [ARGS...])\n", cmd, cmd);
		return 2;
	}
	*prog = argv + dashdash + 1;
	for (size_t i = 0; i < out->n; i++)
		if (profile_fmt_of(out->paths[i], out->format) ==
		    PROFILE_FMT_NONE) {
			fprintf(stderr, "yardstick %s: -o '%s': say the format "
				"with its name (.folded, .svg, "
				".speedscope.json, .pb.gz) or --format\n", cmd,
				out->paths[i]);
			return 2;
		}
	return 0;
}
