/*
 * Strings: checked allocation, shell-style word splitting, replacement,
 * quoting for display and escaping for the output formats.
 *
 * The x* allocators abort with a message when memory runs out: there is no
 * sensible recovery in a measuring tool, and it keeps every caller honest
 * about checking.
 */
#ifndef YS_UTIL_STRUTIL_H
#define YS_UTIL_STRUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
/* parse_double, parse_long, parse_duration: the numbers a user writes */
#include "util/number.h"

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
/* The same without the abort: NULL when the memory cannot be had, for a
 * caller with a way on without it (stats.c's radix sort falls back to a
 * sort in place). */
void *try_calloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow *p (holding *cap elements of size) to hold at least need. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* A growing string, always NUL-terminated once anything is put in it
 * (s is NULL before). Start from (struct strbuf){ 0 }; s is the caller's
 * to free. */
struct strbuf {
	char *s;
	size_t len, cap;
};

void strbuf_put(struct strbuf *b, const char *p, size_t n);
void strbuf_puts(struct strbuf *b, const char *str);
void strbuf_putc(struct strbuf *b, char c);

/*
 * Split s into words by POSIX shell quoting rules: blanks separate words;
 * single quotes keep everything literally; double quotes keep everything
 * but \" \\ \$ \` and \newline; a backslash outside quotes escapes the next
 * character. No expansion of any kind. On success *argv is a
 * NULL-terminated malloc'd vector (free with argv_free). Fails on an
 * unterminated quote or a trailing backslash (message says which).
 */
int split_words(const char *s, char ***argv, size_t *argc, struct error *e);
void argv_free(char **argv);
char **argv_dup(char *const *argv);
/* argv as a command line a shell would split back the same way. */
char *argv_join(char *const *argv);

/* The plural ending of a count's noun: "" for 1, else "s" ("%zu
 * result%s", n, plural_s(n)). */
const char *plural_s(uint64_t n);
/* The same for a noun whose plural takes "es" ("%zu process%s", n,
 * plural_es(n)). */
const char *plural_es(uint64_t n);

/* s with every occurrence of from replaced by to (from non-empty). */
char *str_replace(const char *s, const char *from, const char *to);

/* v (finite) in buf as the shortest of %.15g, %.16g, %.17g that strtod
 * reads back as v. */
void fmt_roundtrip(double v, char *buf, size_t n);

/* Room for any text of fmt_json_number, with its NUL. */
#define JSON_NUMBER_MAX 32

/*
 * v as a JSON number, the one rule of every JSON writer (those that build
 * a jansson tree go through json_number, util/json_emit.h): "null" when v
 * is NaN or infinite (JSON has no token for them: "-nan" or "inf" would
 * make the whole file invalid); -0 as "-0.0" (a reader takes "-0" for
 * the integer 0, losing the sign); else fmt_roundtrip's text, which reads
 * back as v (subnormals, 1.8e308 and integers above 2^53 included). n is
 * at least JSON_NUMBER_MAX.
 */
void fmt_json_number(double v, char *buf, size_t n);


/*
 * The UTF-8 sequence at s: its length, with its code point in *cp; 0 when
 * the bytes are not well-formed UTF-8 (overlong, surrogate, beyond
 * U+10FFFF, cut short by the NUL).
 */
size_t utf8_decode(const char *s, uint32_t *cp);
/* Code points a terminal or a text viewer obeys rather than shows: C0 and
 * C1 controls, DEL, and the bidirectional controls that reorder what
 * follows. */
bool utf8_is_control(uint32_t c);

/*
 * Write s to fp escaped for CSV (quoted when needed), Markdown table cells
 * (|, backticks, <, >, &, newlines) or HTML/SVG/XML text and attributes.
 * These are the escapings of every outside string (names, commands,
 * units, parameters, metric names, hosts) into those formats; for the
 * terminal it is term_safe (term.h). The Markdown and XML ones also write
 * '?' for a byte that is not UTF-8 and for control characters.
 */
void fputs_csv(const char *s, FILE *fp);
void fputs_markdown(const char *s, FILE *fp);
void fputs_xml(const char *s, FILE *fp);


/* a and b equal, either NULL (two NULLs are equal). */
static inline bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

#endif

