/*
 * A result collected up to a stop signal says so, for every engine that
 * runs a program (run, trace, mem) alike.
 */
#ifndef YS_ENGINE_PARTIAL_H
#define YS_ENGINE_PARTIAL_H

#include "result/result.h"

/* After a stop signal (util/stop.h): the setting "partial" of res, "stopped
 * by SIGINT" (docs/result-format.md); nothing otherwise. */
void result_mark_partial(struct result *res);

#endif
