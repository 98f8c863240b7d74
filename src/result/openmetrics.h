/*
 * Results in the Prometheus text formats: OpenMetrics 1.0 and the classic
 * text format 0.0.4 that the Pushgateway takes (docs/export.md names every
 * metric and label). A document is a list of metric families, each with
 * its series; families keep the order they were first added in, and a
 * series (family and label set) is kept once: a later duplicate is left
 * out and counted.
 *
 * The one thing to know: names are sanitized ([a-zA-Z_:][a-zA-Z0-9_:]*
 * for metrics, [a-zA-Z_][a-zA-Z0-9_]* for labels), label values are
 * written as they are with \\, \" and \n escaped, and a value is written
 * in the shortest form that reads back as the same double.
 */
#ifndef YS_RESULT_OPENMETRICS_H
#define YS_RESULT_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"
#include "util/strutil.h"

enum om_format {
	OM_OPENMETRICS,		/* application/openmetrics-text 1.0.0 */
	OM_PROMETHEUS,		/* text/plain version 0.0.4 */
};

enum om_type { OM_GAUGE, OM_COUNTER };

/* A label of a series: name (sanitized when added) and value. */
struct om_label {
	const char *name, *value;
};

struct om_doc;

struct om_doc *om_new(void);
void om_free(struct om_doc *d);

/*
 * Add the sample value of the series family{labels} to d. family is
 * sanitized; a counter's family must not end in _total (the writers add
 * it to the sample's name). unit (NULL: none) is OpenMetrics's unit, a
 * suffix of the family's name. The family's first help, type and unit
 * stay. Returns 0, or 1 when the series was there already (left out).
 */
int om_add(struct om_doc *d, const char *family, enum om_type type,
	   const char *unit, const char *help, const struct om_label *labels,
	   size_t nlabels, double value);

/* Names that sanitize to one family ("x-y" and "x.y": yardstick_x_y):
 * om_add left the second's series out, without counting them as repeats.
 * Message i (0 <= i < om_ncollisions), naming both and the family; NULL
 * past the end. Owned by d. */
size_t om_ncollisions(const struct om_doc *d);
const char *om_collision(const struct om_doc *d, size_t i);

/* The text of the series of d that have every label of match (nmatch
 * 0: all), appended to out; OpenMetrics's ends with "# EOF". A family
 * without such series is left out. */
void om_write(const struct om_doc *d, enum om_format f,
	      const struct om_label *match, size_t nmatch, struct strbuf *out);

/*
 * Add every summarized metric of r's benchmarks to d as gauges named
 * yardstick_METRIC_UNIT with the labels benchmark, param_NAME per
 * parameter, statistic (mean, stddev, min, max, median, mad, p25 ...
 * p99, and the metric's extra keys), kind, machine, commit and branch
 * (the last two when known); and yardstick_metric_values{metric=...},
 * how many values each metric's statistics are of. Returns how many
 * series were duplicates.
 */
size_t om_add_result(struct om_doc *d, const struct result *r);


#endif
