/*
 * The tail of a pipe the commands write their stderr to (drainer.c).
 */
#ifndef YS_MEASURE_DRAINER_H
#define YS_MEASURE_DRAINER_H

#include <stdbool.h>

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

#endif
