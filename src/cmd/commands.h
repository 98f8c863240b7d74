/* The subcommands: each parses its own options, calls modules, prints, and
 * returns the process exit code (0, 1 failure/regression, 2 bad usage or
 * input, 3 the environment refused). */
#ifndef YS_CMD_COMMANDS_H
#define YS_CMD_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "result/result.h"
#include "util/outputs.h"

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* Their options tables (cmd/options.h): help and completions. */
struct opt_cmd;
extern const struct opt_cmd compare_cmd, gate_cmd, history_cmd, record_cmd,
	load_cmd, mem_cmd, bench_cmd, report_cmd, trace_cmd, roofline_cmd,
	export_cmd, merge_cmd, import_cmd;
extern const struct opt_cmd store_cmd;

/*
 * Keep res in the store at store (NULL: the default, $YARDSTICK_STORE or
 * .yardstick/results.db), saying where on stderr unless quiet. Returns 0,
 * or the exit code: 3 for a locked or read-only store, 2 otherwise; the
 * result is then kept in a file (store_keep_unsaved), and the message
 * says where and the `yardstick store copy` that saves it later.
 */
int save_result(const struct result *res, const char *store, bool quiet);

/*
 * Before the first run of a command that saves: whether the store at
 * store (as save_result) could take a result (store_check_save: a
 * PostgreSQL server reached, its schema known, writable). Returns 0, or
 * the exit code as save_result's, the reason on stderr.
 */
int save_check(const char *store);

/*
 * The output set of a command (util/outputs.h), for every command alike:
 * check_output_set before any work (a failure printed as "WHO: message",
 * returns 2; a file whose name says another format than it holds, a
 * warning, "WHO: warning: message", outputs_name_mismatch), write_output_set at the end (each failure printed, the
 * others still written; returns 0, or 2 when any failed).
 */
int check_output_set(struct output_set *s, const char *who);
int write_output_set(struct output_set *s, const char *who);
/* The writer of a struct result (ctx) as JSON, for a set. */
#define output_result_json (result_writers[RESULT_FMT_JSON]->write)
/* The result's writers (result/result.h's result_writers) for --json,
 * --csv, --markdown, --bmf (OPT_RESULT_OUTPUTS; a NULL path: not asked
 * for), all writing res. */
void add_result_outputs(struct output_set *s, const char *json,
			const char *csv, const char *markdown, const char *bmf,
			struct result *res);

/* After opt_parse of "yardstick CMD [OPTIONS] -- PROGRAM [ARGS...]" (its
 * operands argv[first..dashdash)): no operand, the program after "--" into
 * *prog, and a format known for every -o file of out (NULL: a command
 * without -o files); else a usage error printed, and 2. */
struct profile_outputs;
int program_and_outputs(const char *cmd, int argc, char **argv, int first,
			int dashdash, const struct profile_outputs *out,
			char ***prog);
/* How the program ended, on stderr, unless it exited with 0: "WHO: the
 * program was killed by SIGSEGV; the COVERS covers it up to then" or
 * "WHO: the program exited with status N". */
void print_program_status(const char *who, const char *covers, int status);

/*
 * The signal policy (util/stop.h) for a command about to run a program:
 * the stop handlers, the reaper of what it leaves. Returns 0, or the exit
 * code when a stop was asked already (nothing should be started).
 */
int program_stop_start(const char *who);

/*
 * Ignore SIGPIPE from now on, before the first word of a report: a reader
 * of the report that went away (`| head`, `2>&1 | head`) then cuts the
 * report short (a failed write) instead of killing yardstick before it
 * writes its outputs and saves what it measured. An output on stdout that
 * cannot be written is an error it reports. What yardstick starts gets
 * SIGPIPE at its default whatever (child_spawnattr), so `run` may call it
 * before its runs.
 */
void ignore_sigpipe(void);

/*
 * How the program ended, to stderr: stopped by a signal (the COVERS is
 * partial), else print_program_status; and, when it ended by itself,
 * the processes it left running (killed: child.h's strays).
 */
void print_program_end(const char *who, const char *covers, int status,
		       size_t strays, const char *stray_names);

/*
 * The exit code of a command that ran a program, from ret, its own so
 * far (0 or 1: the outputs were written): 128 + the stop signal when
 * one stopped it, 1 when the program failed, else ret.
 */
int program_exit_code(int ret, int status);

/*
 * A command that runs a program or attaches to a running process
 * instead (`record --pid`, `trace --pid`): the options of the attach.
 * what: how the command's own program is taken ("recorded",
 * "traced"), for the messages.
 */
struct attach_opts {
	long pid;		/* --pid; 0: a program */
	double duration;	/* --duration */
	bool no_children;	/* --no-children */
	const char *what;
};
/* After opt_parse (the operands argv[first..end), "--" at dashdash):
 * --pid and a program are exclusive, --duration and --no-children are
 * for --pid. 0, or a usage error printed and 2. */
int attach_args(const char *cmd, const struct attach_opts *a, int argc,
		int first, int end, int dashdash);
/* The signal policy (util/stop.h) of an attached command: a stop ends
 * the sampling, nothing is killed. 0, or the exit code when a stop was
 * asked already. */
int attach_stop_start(const char *who);
/* "attached to pid PID (NAME) and N child processes for S s, ..." */
struct sampler_stats;
void print_attached(FILE *fp, uint32_t pid, const char *name,
		    const struct sampler_stats *st);
/* The descendants passed over (another user's: "not VERB", zombies),
 * and why, on stderr. */
void print_attach_skipped(const char *who, const char *verb,
			  const struct sampler_stats *st);

/*
 * Measuring with run's engine (cmd/runplan.c), for `run` and `roofline
 * --count`: the outputs asked for, and what another command adds —
 * measured, once the runs are done and before the statistics, the report,
 * the files and the store (to add metrics and settings to the result);
 * done, after the store, when all went well (its return is the exit
 * code).
 */
struct run_outputs {
	const char *json, *csv, *markdown, *bmf;	/* NULL: not asked */
	const char *store;	/* NULL: the default store */
	const char *command;	/* its messages' prefix ("yardstick
				 * roofline"); NULL: "yardstick run" */
	bool no_store, quiet, details;
};

struct run_hooks {
	void (*measured)(struct result *r, void *arg);
	int (*done)(const struct result *r, void *arg);
	void *arg;
};

/* The runs of plan p (its warn NULL: warnings on stderr), the report, the
 * files and the store; h may be NULL. Returns the exit code. */
struct run_plan;
int run_plan_execute(const struct run_plan *p, const struct run_outputs *o,
		     const struct run_hooks *h);

/* result_mark_partial, which the engines call too */
#include "engine/partial.h"

#endif
