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

#include "util/child.h"
#include "measure/run_sample.h"
#include "util/error.h"

/*
 * The tail of a pipe the commands write their stderr to, kept so that
 * memory stays bounded whatever a command writes, and drained while the
 * commands run so that none blocks on a full pipe. Two ways:
 * - threaded: a thread of its own drains it, so that a measuring thread
 *   that spawns the commands itself can wait with a plain wait4;
 * - pumped: the owner polls drainer_fd beside what it waits on and calls
 *   drainer_pump when it is readable: what the spawner's client does
 *   while it waits for a reply (spawner_set_drain), which spares each
 *   `run` a thread's start and its context switches.
 */
struct drainer;

/* Start draining read_fd (made non-blocking here). NULL on failure. */
struct drainer *drainer_start(int read_fd, bool threaded);
/* A pumped drainer's descriptor to poll for input; -1 for a threaded
 * one, or once the pipe's end was read. */
int drainer_fd(const struct drainer *d);
/* Read what the pipe holds now (a pumped drainer). */
void drainer_pump(struct drainer *d);
/* Forget what was kept: before a run. */
void drainer_reset(struct drainer *d);
/* After a command was reaped: take in what the pipe still holds and
 * return a malloc'd copy of the tail (NULL when empty) — with start > 0
 * (CLOCK_MONOTONIC seconds), only of what was read at or after start: the
 * output of the command that started then, when earlier ones of a batch
 * ran since the reset (what they wrote that was not read before start
 * is kept too: the pipe does not say whose it is). */
char *drainer_take(struct drainer *d, double start);
/* Stop the thread (if any) and free d. */
void drainer_stop(struct drainer *d);

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
