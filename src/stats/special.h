/*
 * Special functions of the judge's tests: the standard normal
 * distribution and its inverse (shift.c, mannwhitney.c, gate's notes),
 * and the regularized incomplete beta function (shift.c's Harrell-Davis
 * weights).
 */
#ifndef YS_STATS_SPECIAL_H
#define YS_STATS_SPECIAL_H

/* The standard normal distribution function. */
double stats_normal_cdf(double z);

/* Its inverse (p in [0, 1]: -inf, +inf at the ends, NaN outside). */
double stats_normal_quantile(double p);

/* The regularized incomplete beta function I_x(a, b) (0 for x <= 0, 1
 * for x >= 1). */
double stats_ibeta(double a, double b, double x);

#endif
