/*
 * A printer for jansson trees: like json_dumpf with JSON_INDENT(2), but
 * with shortest round-trip reals and scalar arrays on one line, so that a
 * result file of 1000 runs stays readable. Strings are escaped by jansson
 * itself.
 */
#include "util/json_emit.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strutil.h"

/* Whole numbers below 10^15 in magnitude, which "%.15g" prints as their
 * digits: the common case (nanoseconds, bytes, counts), written without
 * snprintf and strtod, byte for byte as the general path would. */
static bool put_whole(double v, FILE *fp)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long long u;

	if (!(v > -1e15 && v < 1e15) || v != (double)(long long)v ||
	    (v == 0 && signbit(v)))
		return false;
	u = (unsigned long long)(v < 0 ? -v : v);
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		*--p = '-';
	fputs(p, fp);
	fputs(".0", fp);
	return true;
}

static void put_real(double v, FILE *fp)
{
	char buf[JSON_NUMBER_MAX];

	if (put_whole(v, fp))
		return;
	fmt_json_number(v, buf, sizeof(buf));
	/* A real stays a real when read back ("-0" would come back as the
	 * integer 0, losing the sign). */
	fputs(buf, fp);
	if (!strpbrk(buf, ".eEn"))
		fputs(".0", fp);
}

static void put_indent(int depth, FILE *fp)
{
	fputc('\n', fp);
	for (int i = 0; i < depth; i++)
		fputs("  ", fp);
}

static int is_scalar_array(json_t *v)
{
	size_t i;
	json_t *x;

	json_array_foreach(v, i, x)
		if (json_is_object(x) || json_is_array(x))
			return 0;
	return 1;
}

static int emit(json_t *v, int depth, FILE *fp);

static int emit_string(json_t *v, FILE *fp)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY);

	if (!s)
		return -1;
	fputs(s, fp);
	free(s);
	return 0;
}

static int emit_array(json_t *v, int depth, FILE *fp)
{
	int inline_ = is_scalar_array(v);
	size_t i;
	json_t *x;

	fputc('[', fp);
	json_array_foreach(v, i, x) {
		if (i)
			fputs(inline_ ? ", " : ",", fp);
		if (!inline_)
			put_indent(depth + 1, fp);
		if (emit(x, depth + 1, fp))
			return -1;
	}
	if (!inline_ && json_array_size(v))
		put_indent(depth, fp);
	fputc(']', fp);
	return 0;
}

static int emit_object(json_t *v, int depth, FILE *fp)
{
	const char *key;
	json_t *x;
	int first = 1;

	fputc('{', fp);
	json_object_foreach(v, key, x) {
		json_t *k = json_string(key);
		int r;

		if (!first)
			fputc(',', fp);
		first = 0;
		put_indent(depth + 1, fp);
		r = k ? emit_string(k, fp) : -1;
		json_decref(k);
		if (r)
			return -1;
		fputs(": ", fp);
		if (emit(x, depth + 1, fp))
			return -1;
	}
	if (!first)
		put_indent(depth, fp);
	fputc('}', fp);
	return 0;
}

static int emit(json_t *v, int depth, FILE *fp)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return emit_object(v, depth, fp);
	case JSON_ARRAY:
		return emit_array(v, depth, fp);
	case JSON_STRING:
		return emit_string(v, fp);
	case JSON_INTEGER:
		fprintf(fp, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		put_real(json_real_value(v), fp);
		return 0;
	case JSON_TRUE:
		fputs("true", fp);
		return 0;
	case JSON_FALSE:
		fputs("false", fp);
		return 0;
	case JSON_NULL:
		fputs("null", fp);
		return 0;
	}
	return -1;
}

int json_emit(json_t *v, FILE *fp)
{
	if (emit(v, 0, fp))
		return -1;
	return ferror(fp) ? -1 : 0;
}

/*
 * The top-level object v, with the array at key produced by next(arg, i)
 * one element at a time, each emitted and released before the next is
 * made (v holds a placeholder at key, for the keys' order).
 */
static int emit_streamed(json_t *v, const char *key, json_stream_fn next,
			 void *arg, FILE *fp)
{
	const char *k;
	json_t *x;
	int first = 1;

	fputc('{', fp);
	json_object_foreach(v, k, x) {
		json_t *ks = json_string(k);
		int r;

		if (!first)
			fputc(',', fp);
		first = 0;
		put_indent(1, fp);
		r = ks ? emit_string(ks, fp) : -1;
		json_decref(ks);
		if (r)
			return -1;
		fputs(": ", fp);
		if (strcmp(k, key)) {
			if (emit(x, 1, fp))
				return -1;
			continue;
		}
		fputc('[', fp);
		for (size_t i = 0;; i++) {
			json_t *el = next(arg, i);

			if (!el) {
				if (i)
					put_indent(1, fp);
				break;
			}
			if (i)
				fputc(',', fp);
			put_indent(2, fp);
			r = emit(el, 2, fp);
			json_decref(el);
			if (r || ferror(fp))
				return -1;
		}
		fputc(']', fp);
	}
	if (!first)
		put_indent(0, fp);
	fputc('}', fp);
	return ferror(fp) ? -1 : 0;
}

int json_write_file_streamed(json_t *v, const char *key, json_stream_fn next,
			     void *arg, const char *path, struct error *e)
{
	struct atomic_file af;
	int r;

	if (atomic_open(&af, path, e)) {
		json_decref(v);
		return -1;
	}
	r = emit_streamed(v, key, next, arg, af.fp);
	json_decref(v);
	if (r || fputc('\n', af.fp) == EOF || ferror(af.fp)) {
		/* a write that failed says why (No space left on device) */
		if (ferror(af.fp))
			return atomic_fail(&af, e);
		atomic_abort(&af);
		return error_set(e, "cannot write '%s'", path);
	}
	return atomic_commit(&af, e);
}

int json_write_file(json_t *v, const char *path, struct error *e)
{
	struct atomic_file af;
	int r;

	if (atomic_open(&af, path, e)) {
		json_decref(v);
		return -1;
	}
	r = json_emit(v, af.fp);
	json_decref(v);
	if (r || fputc('\n', af.fp) == EOF || ferror(af.fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}

/* ---- building values from outside text ---- */

void json_oom(void)
{
	fputs("yardstick: out of memory\n", stderr);
	abort();
}

/* jansson says NULL when memory runs out: do what the x* allocators do. */
json_t *json_must(json_t *v)
{
	if (!v)
		json_oom();
	return v;
}

/* A copy of s with every byte that is not valid UTF-8 replaced. */
char *json_utf8_dup(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *d = xmalloc(3 * len + 1);
	const char *p = s;
	uint32_t c;

	while (*p) {
		size_t n = utf8_decode(p, &c);

		if (n) {
			memcpy(d + o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(d + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	d[o] = '\0';
	return d;
}

/* A JSON string of s (null for NULL). */
json_t *json_text(const char *s)
{
	json_t *v;
	char *clean;

	if (!s)
		return json_must(json_null());
	v = json_string(s);
	if (v)
		return v;
	clean = json_utf8_dup(s);
	v = json_string(clean);
	free(clean);
	return json_must(v);
}

json_t *json_number(double v)
{
	if (!isfinite(v))
		return json_must(json_null());
	if (v == floor(v) && fabs(v) <= 9007199254740992.0 &&
	    !(v == 0 && signbit(v)))
		return json_must(json_integer((json_int_t)v));
	return json_must(json_real(v));
}
