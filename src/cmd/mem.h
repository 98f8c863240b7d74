/*
 * `yardstick mem`'s command files: options and flow in mem.c, what it
 * says of the run and the store in mem_status.c; the engine is
 * engine/mem_run.h.
 */
#ifndef YS_CMD_MEM_H
#define YS_CMD_MEM_H

#include <stdbool.h>

#include "engine/mem_run.h"
#include "profile/output.h"

/* The options: the engine's plan, and the outputs of the command. */
struct mem_args {
	struct mem_plan plan;
	int cost;		/* index into mem.c's costs[] */
	struct profile_outputs out;
	const char *title, *timeline, *json, *store;
	bool no_store, quiet;
	bool sample_rate_given;
};

/* How the program ended, on stderr, when it did not exit with 0; what
 * the agent could not do. */
void mem_print_status(const struct mem_run *m);
/* Keep the result in the store; the exit code (0 when kept). */
int mem_save(const struct mem_args *a, struct mem_run *m);

#endif
