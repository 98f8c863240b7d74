/*
 * The command line of a command that runs a program (`record`, `mem`,
 * `bench`, `trace`): its own options (parsed by cmd/options.c), then
 * "--", then the program and its arguments; and what such a command says
 * of how the program ended, under the signal policy of util/stop.h. And
 * the same for a command attached to a running process instead (`record
 * --pid`, `trace --pid`).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/commands.h"
#include "profile/output.h"
#include "profile/sampler.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

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

		if (n)
			fprintf(stderr, "%s: the program was killed by SIG%s; "
				"the %s covers it up to then\n", who, n,
				covers);
		else
			fprintf(stderr, "%s: the program was killed by signal "
				"%d; the %s covers it up to then\n", who,
				WTERMSIG(status), covers);
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "%s: the program exited with status %d\n",
			who, WEXITSTATUS(status));
	}
}

void ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

int program_stop_start(const char *who)
{
	struct error e;

	if (stop_install_kept(&e))
		fprintf(stderr, "%s: warning: %s: what the program leaves "
			"running is not killed\n", who, e.msg);
	return stop_signal() ? stop_exit_code() : 0;
}

void print_program_end(const char *who, const char *covers, int status,
		       size_t strays, const char *stray_names)
{
	if (stop_signal())
		fprintf(stderr, "%s: stopped by %s: the program and what it "
			"started were killed; the %s is partial\n", who,
			stop_signal_name(), covers);
	else
		print_program_status(who, covers, status);
	if (strays && !stop_signal())
		fprintf(stderr, "%s: warning: the program left %zu process%s "
			"running when it ended (in the background, or in a "
			"session of its own): %s; they were ended\n", who,
			strays, plural_es(strays), stray_names);
}

int program_exit_code(int ret, int status)
{
	if (stop_signal() && (ret == 0 || ret == 1))
		return stop_exit_code();
	if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return 1;
	return ret;
}

int attach_args(const char *cmd, const struct attach_opts *a, int argc,
		int first, int end, int dashdash)
{
	if (a->pid) {
		if (dashdash < argc || first < end) {
			fprintf(stderr, "yardstick %s: give a program to run or "
				"--pid of a running process, not both\n", cmd);
			return 2;
		}
		return 0;
	}
	if (a->duration > 0) {
		fprintf(stderr, "yardstick %s: --duration is for --pid: a "
			"program is %s until it exits\n", cmd, a->what);
		return 2;
	}
	if (a->no_children) {
		fprintf(stderr, "yardstick %s: --no-children is for --pid: "
			"every process a program starts is its own\n", cmd);
		return 2;
	}
	return 0;
}

int attach_stop_start(const char *who)
{
	struct error e;

	/* no program of ours to reap or keep: the signals alone */
	if (stop_install(&e))
		fprintf(stderr, "%s: warning: %s\n", who, e.msg);
	return stop_signal() ? stop_exit_code() : 0;
}

void print_attached(FILE *fp, uint32_t pid, const char *name,
		    const struct sampler_stats *st)
{
	fprintf(fp, "attached to pid %u (", pid);
	term_puts(fp, name ? name : "?");
	fputc(')', fp);
	if (st->children)
		fprintf(fp, " and %zu child process%s", st->children,
			plural_es(st->children));
	fprintf(fp, " for %.3f s, %s\n", st->duration_ns / 1e9,
		st->ended ? "until it exited"
		: stop_signal() ? "until stopped; it is still running"
		: "its duration; it is still running");
}

void print_attach_skipped(const char *who, const char *verb,
			  const struct sampler_stats *st)
{
	if (st->refused) {
		fprintf(stderr, "%s: warning: child process %u (", who,
			st->refused_pid);
		term_puts(stderr, st->refused_name);
		fputc(')', stderr);
		if (st->refused > 1)
			fprintf(stderr, " and %zu more", st->refused - 1);
		fprintf(stderr, " not %s: not permitted (another user's: "
			"perf events need the right to ptrace it)\n", verb);
	}
	if (st->zombies)
		fprintf(stderr, "%s: %zu child process%s passed over: exited, "
			"not yet waited for by %s parent (zombie%s)\n", who,
			st->zombies, plural_es(st->zombies),
			st->zombies == 1 ? "its" : "their",
			plural_s(st->zombies));
}
