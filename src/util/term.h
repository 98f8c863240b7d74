/*
 * The terminal: whether to use colour (a tty and NO_COLOR unset), a
 * progress bar with an ETA for stderr, and numbers formatted with
 * auto-scaled units for people to read.
 */
#ifndef YS_UTIL_TERM_H
#define YS_UTIL_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True when fp is a terminal and NO_COLOR is unset or empty. */
bool term_use_color(FILE *fp);
/* Escape sequences, or "" when colour is off. */
const char *term_bold(bool on);
const char *term_green(bool on);
const char *term_red(bool on);
const char *term_yellow(bool on);
const char *term_dim(bool on);
const char *term_reset(bool on);

/*
 * Format v of unit ("s", "bytes", "count", "flop", a rate "X/s",
 * anything else printed as is) with a scaled unit and 4 significant
 * digits: "1.234 ms", "15.2 MiB", "1.20 M", "16.00 Mflop", "2.430 GiB/s"
 * ("bytes/s"), "2.044 G flop/s" ("flop/s"). Returns buf. The one
 * formatter of values for people: tables, compare, gate, history.
 */
char *fmt_value(double v, const char *unit, char *buf, size_t n);

/*
 * The one escaping of outside text (names, commands, units, metric names,
 * hosts) for the terminal: s with every control character a terminal
 * would obey -- C0 (ESC, BEL, CR, newline, tab...), DEL, C1, the
 * bidirectional overrides -- and every byte that is not UTF-8 written
 * visibly as "\x1b" or "\u202e". malloc'd (aborts when out of memory).
 * term_puts writes it; term_pad escapes too.
 */
char *term_safe(const char *s);
void term_puts(FILE *fp, const char *s);

/* s escaped by term_safe, cut to width columns and padded to them: a
 * left-aligned table cell ("%-20.20s" for outside text). */
void term_cell(FILE *fp, const char *s, size_t width);

/* Columns s takes on a terminal: UTF-8 code points, not bytes. */
size_t term_width(const char *s);
/* Write s padded with spaces to width columns, right-aligned or left. */
void term_pad(FILE *fp, const char *s, size_t width, bool right);

/* A progress bar on stderr, drawn only when stderr is a terminal. */
struct progress {
	bool enabled;
	double start;		/* monotonic seconds */
	double last_draw;
	size_t width;
};

void progress_init(struct progress *p);
/* fraction in [0, 1]; label is what is being measured now. */
void progress_update(struct progress *p, double fraction, const char *label);
void progress_clear(struct progress *p);

/* A relative change v (0.12 is 12%) signed, for people: "+12.0%",
 * "-0.4%", "+2.37e+31%" past a million per cent, "+∞" / "-∞" (a change
 * from 0, a bound the runs cannot set), "?" for no number: never "nan%".
 * The one formatter of changes: compare, gate, bench --baseline. */
char *fmt_change_pct(double v, char *buf, size_t n);

/* "p < 0.001", "p = 0.012", or "-" when p is not a number. Returns buf. */
char *fmt_p_value(double p, char *buf, size_t n);

#endif
