/* The views of the report page (internal to the report module). */
#ifndef YS_REPORT_VIEWS_H
#define YS_REPORT_VIEWS_H

#include <stdio.h>

#include "report/report.h"

/* A number for a data-* attribute, in digits that read back as v, or
 * "" when not finite. */
void html_num_attr(FILE *fp, const char *name, double v);
/* "<p class=CLS>WHAT: v[0]; v[1] ...</p>" (escaped), nothing when n is
 * 0. */
void html_list(FILE *fp, const char *cls, const char *what,
	       char *const *v, size_t n);
/* A value with its unit in words ("1.234 ms"), escaped. */
void html_value(FILE *fp, double v, const char *unit);

/* Every metric's distribution (every run a dot, outliers marked; the
 * warm-up runs, when warmup is given and not empty, apart in a row of
 * their own) and its run sequence. */
void plot_distribution(FILE *fp, const struct metric *m,
		       const struct series *warmup);
void plot_sequence(FILE *fp, const struct metric *m);
/* load: the latency percentile spectrum on a nines axis. */
void plot_spectrum(FILE *fp, const struct benchmark *b);
/* mem: the heap and RSS timeline, the peak marked (nothing without
 * one). */
void plot_heap_timeline(FILE *fp, const struct benchmark *b);
/* load --find-max: each step's achieved throughput and latency against
 * the offered rate, the max and the knee marked (capacity.c); nothing
 * for a result without steps. */
void view_capacity(FILE *fp, const struct result *r);
/* A parameter scan: cost against the parameter, log axes, the fit. */
void plot_scan(FILE *fp, const struct result *r,
	       const struct complexity_fit *f);

/* The scans of a result that has no fit (an import: hyperfine's
 * --parameter-scan): each numeric parameter with 3 values or more, every
 * benchmark with it a point, fitted here as `run` fits its scans. */
void plot_scans_unfitted(FILE *fp, const struct result *r);
/* --baseline: per metric shown (charts as report_input's) the forest
 * plot of ratios and the table; gate (or NULL) its checks. */
void view_compare(FILE *fp, const struct compare_report *rep,
		  const struct gate_report *gate, const char *label,
		  const char *baseline, size_t idx,
		  const char *const *charts);
/* --profile: the flame graph and the top table; bytes: the profile is
 * mem's folded allocation sites (given with a mem result), whose weights
 * are bytes: said in bytes, and no Amdahl bound (it is about time). */
void view_profile(FILE *fp, const struct profile *p, const char *label,
		  bool bytes);
/* --history: the metric over results, CI band, change points. */
void view_history(FILE *fp, const struct report_history *h);
/* A run of several commands (2 to 12, not a scan): the result's
 * comparison sentences, and each command's runs in a strip of its own
 * under one shared axis of their headline metric (shared.c). */
void view_shared(FILE *fp, const struct result *r);
/* The roofline of the result sets' benchmarks (roofline_view.c). */
void view_roofline(FILE *fp, const struct roof_chart *rc);

#endif
