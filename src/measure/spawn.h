/*
 * Spawn one command, wait for it and measure it: wall time on the
 * monotonic clock from just before posix_spawn to just after wait4, and the
 * rusage of that very child from wait4 (not RUSAGE_CHILDREN, which only
 * ever rises).
 *
 * The child runs in its own process group, so that a timeout can kill
 * everything it started and so that Ctrl-C reaches yardstick alone, which
 * then has the group killed. Through the spawner, processes that left the
 * group (setsid) are killed too, after every run: it is their subreaper.
 *
 * Peak RSS has a floor: until it execs, a posix_spawn'ed child runs in the
 * memory of the process that spawned it, and the kernel counts that
 * memory's peak into the child's ru_maxrss. A value at or below the
 * spawning process's own peak is therefore not the command's and is
 * reported as NAN. Spawned from yardstick that floor is yardstick's size;
 * spawned through the spawner (spawner.h, spawn_opts.via) it is the
 * spawner's, below that of any dynamically linked program.
 */
#ifndef YS_MEASURE_SPAWN_H
#define YS_MEASURE_SPAWN_H

#include <stdbool.h>

#include "measure/drainer.h"
#include "util/child.h"
#include "measure/run_sample.h"
#include "util/error.h"


/*
 * Run opts->argv to completion (or until the timeout or an interrupt, when
 * its process group is killed) and fill *out. Returns 0 when the command
 * ran (whatever its exit status), -1 when it could not be started
 * (out->spawn_failed; message names the program) or watched.
 */
int spawn_measure(const struct spawn_opts *opts, struct run_sample *out,
		  struct error *e);

/*
 * The rss_floor (bytes) of the latest run spawned as o says: the
 * spawner's, or our own peak RSS now.
 */
double spawn_rss_floor(const struct spawn_opts *o);

#endif
