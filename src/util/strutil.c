/*
 * String helpers. split_words implements the quoting part of the POSIX
 * shell's token recognition and nothing else: no expansion, no operators.
 */
#include "util/strutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
	fputs("yardstick: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *try_calloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size ? size : 1);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap;

	if (need <= c)
		return p;
	if (c < 8)
		c = 8;
	while (c < need)
		c *= 2;
	if (c > ((size_t)-1) / size)
		oom();
	*cap = c;
	return xrealloc(p, c * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/*
 * v = k / 1e9 for a whole k with 0 < |k| < 10^15 (a time in seconds taken
 * from nanoseconds, as `load`'s latencies): its text from k's digits, the
 * same bytes as fmt_roundtrip's without snprintf and strtod, which cost
 * a microsecond a value (0.2 s for `load`'s 2 x 100,000 latencies). Why
 * they are the same: v is the double nearest to the decimal d = k 10^-9
 * (one correctly rounded division); d has at most 15 significant digits,
 * so "%.15g" prints d (v is within 2^-53 of it relatively, far inside
 * half a unit of its 15th digit) and strtod reads d back as v. The text
 * is "%g"'s: exponent form below 10^-4, else plain, trailing zeros
 * dropped. False (buf untouched) for any other v.
 */
static bool fmt_nanos(double v, char *buf, size_t n)
{
	double k = nearbyint(v * 1e9);
	char dig[16], *p = buf;
	unsigned long long u;
	int len = 0, sig, x;

	if (!(fabs(k) >= 1 && fabs(k) < 1e15) || k / 1e9 != v || n < 32)
		return false;
	for (u = (unsigned long long)fabs(k); u; u /= 10)
		dig[len++] = (char)('0' + u % 10);
	/* dig holds the digits from the last; sig of them are significant */
	for (sig = len; dig[len - sig] == '0'; sig--)
		;
	x = len - 10;		/* the decimal exponent of the first digit */
	if (k < 0)
		*p++ = '-';
	if (x < -4) {
		*p++ = dig[len - 1];
		if (sig > 1)
			*p++ = '.';
		for (int i = 1; i < sig; i++)
			*p++ = dig[len - 1 - i];
		/* -x is 5 to 9: "e-05" ... "e-09" */
		*p++ = 'e';
		*p++ = '-';
		*p++ = '0';
		*p++ = (char)('0' - x);
		*p = '\0';
		return true;
	}
	if (x < 0) {
		*p++ = '0';
		*p++ = '.';
		for (int i = -1; i > x; i--)
			*p++ = '0';
	}
	for (int i = 0; i < sig || i <= x; i++) {
		if (x >= 0 && i == x + 1)
			*p++ = '.';
		*p++ = i < len ? dig[len - 1 - i] : '0';
	}
	*p = '\0';
	return true;
}

void fmt_json_number(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "null");
	else if (v == 0 && signbit(v))
		snprintf(buf, n, "-0.0");
	else if (!fmt_nanos(v, buf, n))
		fmt_roundtrip(v, buf, n);
}

void fmt_roundtrip(double v, char *buf, size_t n)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
}

void strbuf_put(struct strbuf *b, const char *p, size_t n)
{
	b->s = xgrow(b->s, &b->cap, b->len + n + 1, 1);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_puts(struct strbuf *b, const char *str)
{
	strbuf_put(b, str, strlen(str));
}

void strbuf_putc(struct strbuf *b, char c)
{
	strbuf_put(b, &c, 1);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int split_words(const char *s, char ***argvp, size_t *argcp, struct error *e)
{
	char **argv = NULL;
	size_t argc = 0, cap = 0;
	struct strbuf w = { 0 };
	int in_word = 0;
	const char *p = s;

	for (;;) {
		char c = *p;

		if (c == '\0' || is_blank(c)) {
			if (in_word) {
				argv = xgrow(argv, &cap, argc + 2, sizeof(*argv));
				argv[argc++] = w.s ? w.s : xstrdup("");
				w = (struct strbuf){ 0 };
				in_word = 0;
			}
			if (c == '\0')
				break;
			p++;
			continue;
		}
		in_word = 1;
		if (c == '\\') {
			if (p[1] == '\0')
				goto trailing_backslash;
			if (p[1] != '\n')
				strbuf_putc(&w, p[1]);
			p += 2;
		} else if (c == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end)
				goto unterminated;
			for (p++; p < end; p++)
				strbuf_putc(&w, *p);
			if (!w.s)
				w.s = xstrdup("");
			p = end + 1;
		} else if (c == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0')
					goto unterminated;
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1])) {
					p++;
					if (*p == '\n')
						continue;
				}
				strbuf_putc(&w, *p);
			}
			if (!w.s)
				w.s = xstrdup("");
			p++;
		} else {
			strbuf_putc(&w, c);
			p++;
		}
	}
	if (!argv)
		argv = xcalloc(1, sizeof(*argv));
	argv[argc] = NULL;
	*argvp = argv;
	if (argcp)
		*argcp = argc;
	return 0;

unterminated:
	error_set(e, "unterminated quote in '%s'", s);
	goto out_free;
trailing_backslash:
	error_set(e, "trailing backslash in '%s'", s);
out_free:
	free(w.s);
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return -1;
}

void argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

char **argv_dup(char *const *argv)
{
	size_t n = 0;
	char **copy;

	while (argv[n])
		n++;
	copy = xcalloc(n + 1, sizeof(*copy));
	for (size_t i = 0; i < n; i++)
		copy[i] = xstrdup(argv[i]);
	return copy;
}

static int needs_quotes(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+@%^", *s))
			return 1;
	return 0;
}

char *argv_join(char *const *argv)
{
	struct strbuf w = { 0 };

	strbuf_putc(&w, ' ');
	w.len = 0;
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];

		if (i)
			strbuf_putc(&w, ' ');
		if (!needs_quotes(a)) {
			for (; *a; a++)
				strbuf_putc(&w, *a);
			continue;
		}
		strbuf_putc(&w, '\'');
		for (; *a; a++) {
			if (*a == '\'') {
				strbuf_putc(&w, '\'');
				strbuf_putc(&w, '\\');
				strbuf_putc(&w, '\'');
			}
			strbuf_putc(&w, *a);
		}
		strbuf_putc(&w, '\'');
	}
	return w.s;
}

const char *plural_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

const char *plural_es(uint64_t n)
{
	return n == 1 ? "" : "es";
}

char *str_replace(const char *s, const char *from, const char *to)
{
	struct strbuf w = { 0 };
	size_t flen = strlen(from);
	const char *hit;

	strbuf_putc(&w, ' ');
	w.len = 0;
	w.s[0] = '\0';
	while ((hit = strstr(s, from))) {
		for (; s < hit; s++)
			strbuf_putc(&w, *s);
		for (const char *t = to; *t; t++)
			strbuf_putc(&w, *t);
		s += flen;
	}
	for (; *s; s++)
		strbuf_putc(&w, *s);
	return w.s;
}



/*
 * The UTF-8 sequence at s: its length, with its code point in *cp; 0 when
 * the bytes are not well-formed UTF-8 (overlong, surrogate, beyond
 * U+10FFFF, cut short).
 */
size_t utf8_decode(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool utf8_is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x200e ||
	       c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/* Whether s is a decimal number and nothing else ("-5", "+1.5e-3"): a
 * spreadsheet reads it as that number, never as a formula. */
static bool csv_is_number(const char *s)
{
	char *end;
	double v;

	if (!s[0] || s[strspn(s, "0123456789.eE+-")])
		return false;
	v = strtod(s, &end);
	return !*end && isfinite(v);
}

void fputs_csv(const char *s, FILE *fp)
{
	if (csv_is_number(s)) {
		fputs(s, fp);	/* a negative number stays a number */
		return;
	}
	if (!strpbrk(s, ",\"\r\n") && !(s[0] && strchr(" \t=+-@", s[0]))) {
		fputs(s, fp);
		return;
	}
	/* Quote; a leading formula character (a tab or CR may precede
	 * one) is defused with a quote mark so that spreadsheets do not
	 * evaluate it. */
	fputc('"', fp);
	if (s[0] && strchr("\t\r=+-@", s[0]))
		fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/*
 * The code point at *s for a text format, its bytes in seq, s advanced
 * past it: a byte that is not UTF-8, a control character but tab, newline
 * and CR (XML 1.0 forbids C0, discourages DEL and C1; bidi controls
 * reorder what a reader sees) and U+FFFE/U+FFFF come back as '?'.
 */
static uint32_t text_char(const char **s, char *seq, size_t *len)
{
	uint32_t c = '?';

	*len = utf8_decode(*s, &c);
	if (!*len || (utf8_is_control(c) && c != '\t' && c != '\n' &&
		      c != '\r') || c == 0xfffe || c == 0xffff) {
		*s += *len ? *len : 1;
		seq[0] = '?';
		seq[1] = '\0';
		return '?';
	}
	memcpy(seq, *s, *len);
	seq[*len] = '\0';
	*s += *len;
	return c;
}

/* The entities both Markdown (read as HTML) and XML need; NULL for any
 * other character. */
static const char *entity(uint32_t c)
{
	switch (c) {
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '&': return "&amp;";
	default: return NULL;
	}
}

static const char *markdown_escape(uint32_t c)
{
	switch (c) {
	case '|': return "\\|";
	case '`': return "\\`";
	case '*': return "\\*";
	case '_': return "\\_";
	case '[': return "\\[";
	case ']': return "\\]";
	case '\\': return "\\\\";
	case '\n': case '\r': case '\t': return " ";
	default: return entity(c);
	}
}

static const char *xml_escape(uint32_t c)
{
	switch (c) {
	case '"': return "&quot;";
	case '\'': return "&apos;";
	/* In an attribute, a raw newline would read back as a space: kept
	 * as a character reference. */
	case '\n': return "&#10;";
	case '\r': return "&#13;";
	case '\t': return "&#9;";
	default: return entity(c);
	}
}

/* s as text characters (text_char), each one esc names a replacement for
 * replaced: the one loop of the escapers above. */
static void fputs_escaped(const char *s, FILE *fp,
			  const char *(*esc)(uint32_t c))
{
	char seq[8];
	size_t len;

	while (*s) {
		const char *r = esc(text_char(&s, seq, &len));

		fputs(r ? r : seq, fp);
	}
}

void fputs_markdown(const char *s, FILE *fp)
{
	fputs_escaped(s, fp, markdown_escape);
}

void fputs_xml(const char *s, FILE *fp)
{
	fputs_escaped(s, fp, xml_escape);
}

