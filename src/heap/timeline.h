/*
 * `yardstick mem --timeline FILE.svg`: the heap (bytes live) and the
 * resident set size over the program's run, as a standalone SVG chart.
 */
#ifndef YS_HEAP_TIMELINE_H
#define YS_HEAP_TIMELINE_H

#include "heap/analyze.h"
#include "util/error.h"

/*
 * Draw r->timeline (heap as a filled area, RSS as a line; points whose
 * rss is NaN have no RSS sample), a marker at the peak (r->peak at
 * r->peak_t) labelled with its size and time, axes with readable ticks
 * (time in s/ms, bytes in B/KiB/MiB/GiB), a title (escaped: it holds the
 * command line) and a legend; "(estimated)" in the legend when
 * r->estimated. Written atomically; "-" is stdout. Returns 0, or -1 with
 * a message naming the file.
 */
int heap_write_timeline(const struct heap_report *r, const char *title,
			const char *path, struct error *e);

#endif
