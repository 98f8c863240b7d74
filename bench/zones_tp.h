/* The LTTng-UST tracepoints bench/zones_cost.c compares libyardstick's
 * zones with: a zone's begin and end, each with one integer field (the
 * zone's id, as a libyardstick record carries its name's id). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER ysbench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./zones_tp.h"

#if !defined(ZONES_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define ZONES_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(ysbench, zone_begin, TP_ARGS(int, id),
		 TP_FIELDS(ctf_integer(int, id, id)))
TRACEPOINT_EVENT(ysbench, zone_end, TP_ARGS(int, id),
		 TP_FIELDS(ctf_integer(int, id, id)))

#endif

#include <lttng/tracepoint-event.h>
