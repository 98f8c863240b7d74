/*
 * A kernel tracepoint as perf opens it: its id and where a field lies in
 * its raw record, from its format file in tracefs
 * (events/SYSTEM/NAME/format). Internal to profile/ (sampler.c opens
 * sched:sched_wakeup with it).
 */
#ifndef YS_PROFILE_TRACEPOINT_H
#define YS_PROFILE_TRACEPOINT_H

#include <stdint.h>

#include "util/error.h"

struct tp_format {
	uint64_t id;		/* perf_event_attr.config (PERF_TYPE_TRACEPOINT) */
	uint32_t offset, size;	/* the field's, in the raw record */
};

/* From the text of a format file: the "ID:" line and the field named
 * field ("field:TYPE NAME;\toffset:N;\tsize:N;..."). 0, or -1 with a
 * message naming what is missing. */
int tp_format_parse(const char *text, const char *field, struct tp_format *f,
		    struct error *e);


/* The format of event ("sched/sched_wakeup") and its field: 0, or -1
 * with a message (tracefs not mounted, no such event or field). */
int tp_format_read(const char *event, const char *field, struct tp_format *f,
		   struct error *e);

#endif
