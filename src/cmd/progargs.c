/*
 * The command line of a command that runs a program (`record`, `mem`):
 * its own options, then "--", then the program and its arguments.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"

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
