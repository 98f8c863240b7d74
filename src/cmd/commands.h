/* The subcommands: each parses its own options, calls modules, prints, and
 * returns the process exit code (0, 1 failure/regression, 2 bad usage or
 * input, 3 the environment refused). */
#ifndef YS_CMD_COMMANDS_H
#define YS_CMD_COMMANDS_H

#include <stdbool.h>

#include "result/result.h"

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_mem(int argc, char **argv);

/* Their options tables (cmd/options.h): help and completions. */
struct opt_cmd;
extern const struct opt_cmd compare_cmd, gate_cmd, history_cmd, record_cmd,
	load_cmd, mem_cmd;

/*
 * Keep res in the store at store (NULL: the default, $YARDSTICK_STORE or
 * .yardstick/results.db), saying where on stderr unless quiet. Returns 0,
 * or the exit code: 3 for a locked or read-only store, 2 otherwise.
 */
int save_result(const struct result *res, const char *store, bool quiet);

/* After opt_parse of "yardstick CMD [OPTIONS] -- PROGRAM [ARGS...]" (its
 * operands argv[first..dashdash)): no operand, the program after "--" into
 * *prog, and a format known for every -o file of out; else a usage error
 * printed, and 2. */
struct profile_outputs;
int program_and_outputs(const char *cmd, int argc, char **argv, int first,
			int dashdash, const struct profile_outputs *out,
			char ***prog);

#endif
