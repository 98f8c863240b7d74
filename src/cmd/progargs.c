/*
 * The command line of a command that runs a program (`record`, `mem`,
 * `bench`):
 * its own options (parsed by cmd/options.c), then "--", then the program
 * and its arguments.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/commands.h"
#include "profile/output.h"

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
		fprintf(stderr, "yardstick %s: no program to %s (yardstick "
			"%s -- PROGRAM [ARGS...])\n", cmd,
			out ? "profile" : "run", cmd);
		return 2;
	}
	*prog = argv + dashdash + 1;
	for (size_t i = 0; out && i < out->n; i++)
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

void print_program_status(const char *who, const char *covers, int status)
{
	if (WIFSIGNALED(status)) {
		const char *n = sigabbrev_np(WTERMSIG(status));

		fprintf(stderr, "%s: the program was killed by SIG%s; the %s "
			"covers it up to then\n", who, n ? n : "?", covers);
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "%s: the program exited with status %d\n",
			who, WEXITSTATUS(status));
	}
}
