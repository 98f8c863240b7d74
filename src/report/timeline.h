/* The report's timeline of a trace (--trace): internal to the report
 * module. */
#ifndef YS_REPORT_TIMELINE_H
#define YS_REPORT_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "profile/trace.h"

/* The section of trace t (read from label; lost: events the tracer lost
 * or cut, as the reader counted them): the timeline SVG and the zone
 * table (name, count, total, p50/p95/p99, max). */
void view_timeline(FILE *fp, const struct trace *t, uint64_t lost,
		   const char *label);

#endif
