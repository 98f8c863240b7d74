/*
 * The one family of parsers of the numbers a user writes: options (the
 * options layer's counts, numbers, durations, sizes, percentages), the
 * config files read through it, gate's thresholds, load's SLOs and
 * segments, run's --pin and --work, record's CPU lists, store
 * references by id. Every number is decimal and nothing else:
 *
 *   [-] digits [. digits] [(e|E) [+|-] digits]     (".5" and "5." too)
 *
 * No hexadecimal ("0x10" is not 16), no "inf", "nan" or "infinity", no
 * leading blank or '+', no digit but 0-9, nothing after it unless the
 * caller reads a unit there, and no value strtod or strtol would have to
 * round to infinity, to zero or to their limits (out of range: refused).
 * A caller with a unit (a duration, a size, a threshold) scans the
 * number with parse_decimal_prefix and reads the unit after it.
 *
 * Each returns 0, or -1 for anything else; the caller's message quotes
 * the text ("'0x10ms' is not a duration ...").
 */
#ifndef YS_UTIL_NUMBER_H
#define YS_UTIL_NUMBER_H

#include <stdint.h>

/* The decimal number at the start of s (the grammar above, its longest
 * match): its value in *out and *end just past it. -1 when s does not
 * start with one, or it is out of range. */
int parse_decimal_prefix(const char *s, const char **end, double *out);

/* A whole string, a decimal number (the grammar above). */
int parse_double(const char *s, double *out);

/* A whole string, a decimal integer: [-] digits, within long's range. */
int parse_long(const char *s, long *out);

/* The decimal integer without a sign at the start of s, *end just past
 * it (a CPU list's "0-3,5", a segment's "1/4"); -1 when none or beyond
 * long's range. */
int parse_ulong_prefix(const char *s, const char **end, long *out);

/* "I/N", two decimal integers without a sign, 0 <= I < N (load's
 * segments). */
int parse_index_of(const char *s, long *i, long *n);

/*
 * A duration: a decimal number with an optional unit s, ms, us (or µs),
 * ns; plain numbers are seconds. Negative values are refused.
 */
int parse_duration(const char *s, double *out);

/* A size in bytes: a decimal number, optionally k, M or G (binary
 * multiples; "Ki"... and a final "B" or "b" allowed: 512k, 512KiB, 1MB,
 * 1.5g), at least 1 byte and at most 1e15. */
int parse_size(const char *s, uint64_t *out);

#endif
