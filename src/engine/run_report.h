/*
 * The terminal report of a `run` result (run_report.c), and the parts of
 * it `bench` prints too: per benchmark a table of its metrics with
 * auto-scaled units, the comparisons in words, the complexity fits and
 * the warnings. Each writes to the stream it is given.
 */
#ifndef YS_ENGINE_RUN_REPORT_H
#define YS_ENGINE_RUN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

/* Beyond this many benchmarks the report is one line each, unless
 * --details is given. */
#define RUN_REPORT_MAX_DETAILED 4

/* Terminal report of a summarized, analyzed result. */
void run_report(const struct result *r, bool details, FILE *fp);
/* The comparisons of r in words, under a heading per metric (bench's
 * group ratios too). */
void run_report_comparisons(const struct result *r, FILE *fp);
/* The complexity fits of r, one a line under a heading (bench's too). */
void run_report_fits(const struct result *r, FILE *fp);
/* Every benchmark's warnings, one a line ("warning: 'name': text"); with
 * no table shown (table false, -q), not the one about too few runs for
 * the table's percentiles (it stays in the result). */
void run_report_warnings(const struct result *r, bool table, FILE *fp);

#endif
