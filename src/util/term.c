/* Colour, a progress bar and human-readable numbers for the terminal. */
#include "util/term.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/monoclock.h"
#include "util/strutil.h"

bool term_use_color(FILE *fp)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return false;
	return isatty(fileno(fp));
}

const char *term_bold(bool on) { return on ? "\033[1m" : ""; }
const char *term_green(bool on) { return on ? "\033[32m" : ""; }
const char *term_red(bool on) { return on ? "\033[31m" : ""; }
const char *term_yellow(bool on) { return on ? "\033[33m" : ""; }
const char *term_dim(bool on) { return on ? "\033[2m" : ""; }
const char *term_reset(bool on) { return on ? "\033[0m" : ""; }

/* Print v with 4 significant digits, at least one decimal for scaled.
 * Beyond the units' prefixes (a million TiB, a result whose values reach
 * 1e30) or below a thousandth of the smallest, in exponent form: fixed
 * decimals would print 30 digits, or 0, and a buffer cut short would
 * drop digits and the unit. */
static char *fmt_sig(double v, const char *unit, char *buf, size_t n)
{
	double a = fabs(v);
	int decimals = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;

	if (a >= 1e6 || (a != 0 && a < 1e-3)) {
		snprintf(buf, n, "%.4g%s%s", v, *unit ? " " : "", unit);
		return buf;
	}
	if (v == 0)
		decimals = 0;
	snprintf(buf, n, "%.*f%s%s", decimals, v, *unit ? " " : "", unit);
	return buf;
}

char *fmt_change_pct(double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "?");
	else if (isinf(v))
		snprintf(buf, n, "%s∞", v > 0 ? "+" : "-");
	else if (fabs(v) >= 1e4)	/* a million per cent: 30 digits */
		snprintf(buf, n, "%+.3g%%", 100 * v);
	else
		snprintf(buf, n, "%+.1f%%", fabs(v) < 5e-4 ? 0.0 : 100 * v);
	return buf;
}

/* A rate, unit "X/s": bytes with binary prefixes ("2.430 GiB/s"), any
 * other X with decimal ones before it ("2.044 G flop/s", "500 items/s"). */
static char *fmt_rate(double v, const char *unit, size_t len, char *buf,
		      size_t n)
{
	char num[48];
	bool bytes = len == 5 && !strncmp(unit, "bytes", 5);

	fmt_value(v, bytes ? "bytes" : "count", num, sizeof(num));
	if (bytes)
		snprintf(buf, n, "%s/s", num);
	else
		snprintf(buf, n, "%s %.*s/s", num, (int)len, unit);
	return buf;
}

char *fmt_value(double v, const char *unit, char *buf, size_t n)
{
	size_t len = strlen(unit);

	static const char *time_units[] = { "s", "ms", "µs", "ns" };
	static const char *byte_units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *count_units[] = { "", "k", "M", "G", "T" };
	double a = fabs(v);
	int i = 0;

	if (!strcmp(unit, "s")) {
		while (i < 3 && a != 0 && a < 1) {
			a *= 1000;
			v *= 1000;
			i++;
		}
		return fmt_sig(v, time_units[i], buf, n);
	}
	if (!strcmp(unit, "bytes")) {
		while (i < 4 && a >= 1024) {
			a /= 1024;
			v /= 1024;
			i++;
		}
		/* a fraction of a byte (a mean per operation) is no 0 B */
		if (i == 0 && v == floor(v)) {
			snprintf(buf, n, "%.0f B", v);
			return buf;
		}
		return fmt_sig(v, byte_units[i], buf, n);
	}
	if (!strcmp(unit, "flop")) {	/* decimal prefixes: 8 Mflop */
		static const char *flop_units[] = {
			"flop", "kflop", "Mflop", "Gflop", "Tflop"
		};

		while (i < 4 && a >= 1000) {
			a /= 1000;
			v /= 1000;
			i++;
		}
		return fmt_sig(v, flop_units[i], buf, n);
	}
	if (!strcmp(unit, "count")) {
		while (i < 4 && a >= 1000) {
			a /= 1000;
			v /= 1000;
			i++;
		}
		if (i == 0 && v == floor(v)) {
			snprintf(buf, n, "%.0f", v);
			return buf;
		}
		return fmt_sig(v, count_units[i], buf, n);
	}
	if (len > 2 && !strcmp(unit + len - 2, "/s"))
		return fmt_rate(v, unit, len - 2, buf, n);
	if (!strcmp(unit, "ratio")) {
		snprintf(buf, n, "%.4g", v);
		return buf;
	}
	return fmt_sig(v, unit, buf, n);
}

char *fmt_p_value(double p, char *buf, size_t n)
{
	if (!isfinite(p))
		snprintf(buf, n, "-");
	else if (p < 0.001)
		snprintf(buf, n, "p < 0.001");
	else
		snprintf(buf, n, "p = %.3f", p);
	return buf;
}

char *term_safe(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), o = 0, cap = 4 * n + 1;
	/* At most 4 bytes ("\x1b"; "\u202e" for 3) for each byte of s. */
	char *out = xmalloc(cap);

	for (size_t i = 0; i < n;) {
		uint32_t c = 0;
		size_t len = utf8_decode(s + i, &c);

		if (!len) {
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x",
					      u[i]);
			i++;
		} else if (utf8_is_control(c)) {
			o += (size_t)snprintf(out + o, cap - o, c < 0x100 ?
					      "\\x%02x" : "\\u%04x",
					      (unsigned)c);
			i += len;
		} else {
			memcpy(out + o, u + i, len);
			o += len;
			i += len;
		}
	}
	out[o] = '\0';
	return out;
}

void term_puts(FILE *fp, const char *s)
{
	char *safe = term_safe(s);

	fputs(safe, fp);
	free(safe);
}

size_t term_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void term_pad(FILE *fp, const char *s, size_t width, bool right)
{
	char *safe = term_safe(s);
	size_t w = term_width(safe);

	if (!right)
		fputs(safe, fp);
	for (; w < width; w++)
		fputc(' ', fp);
	if (right)
		fputs(safe, fp);
	free(safe);
}

void term_cell(FILE *fp, const char *s, size_t width)
{
	char *safe = term_safe(s);
	size_t cols = 0, i = 0;

	/* safe is UTF-8: a character is a lead byte and its followers. */
	while (safe[i] && cols < width) {
		i++;
		while (((unsigned char)safe[i] & 0xc0) == 0x80)
			i++;
		cols++;
	}
	fwrite(safe, 1, i, fp);
	for (; cols < width; cols++)
		fputc(' ', fp);
	free(safe);
}

/* Copy at most max columns of s into buf, whole UTF-8 characters only. */
static void clip(const char *s, size_t max, char *buf, size_t n)
{
	size_t cols = 0, i = 0;

	for (; s[i] && i + 4 < n; i++) {
		bool lead = ((unsigned char)s[i] & 0xc0) != 0x80;

		if (lead && cols++ == max)
			break;
		buf[i] = s[i];
	}
	/* Do not end inside a character. */
	while (i > 0 && ((unsigned char)buf[i - 1] & 0xc0) == 0xc0)
		i--;
	buf[i] = '\0';
}

void progress_init(struct progress *p)
{
	memset(p, 0, sizeof(*p));
	p->enabled = isatty(STDERR_FILENO) && !getenv("YARDSTICK_NO_PROGRESS");
	p->start = monoclock_s();
	p->width = 25;
}

void progress_update(struct progress *p, double fraction, const char *label)
{
	double t, eta;
	size_t fill;
	char bar[64], name[128], *safe;

	if (!p->enabled)
		return;
	t = monoclock_s();
	/* Redraw at most 20 times a second: drawing is not free. */
	if (t - p->last_draw < 0.05 && fraction < 1)
		return;
	p->last_draw = t;
	if (fraction < 0)
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	fill = (size_t)(fraction * p->width);
	for (size_t i = 0; i < p->width; i++)
		bar[i] = i < fill ? '#' : '-';
	bar[p->width] = '\0';
	eta = fraction > 0 ? (t - p->start) * (1 - fraction) / fraction : 0;
	/* 30 + 2 + 25 + 2 + 15 columns: fits an 80-column terminal. */
	safe = term_safe(label);
	clip(safe, 30, name, sizeof(name));
	free(safe);
	fprintf(stderr, "\r\033[K%s [%s] %3.0f%% ETA %.0fs", name, bar,
		fraction * 100, ceil(eta));
	fflush(stderr);
}

void progress_clear(struct progress *p)
{
	if (!p->enabled || p->last_draw == 0)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->last_draw = 0;
}
