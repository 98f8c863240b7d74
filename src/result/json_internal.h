/*
 * What the JSON readers share: json_read.c owns the entry point, the
 * format table and the helpers below; import_hyperfine.c and
 * import_gbench.c read other tools' files with the same helpers, so that
 * every reader's messages look alike: "cannot read 'FILE': PATH: what",
 * PATH a JSON path such as "results[2].times[4]". Internal to src/result.
 */
#ifndef YS_RESULT_JSON_INTERNAL_H
#define YS_RESULT_JSON_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"

struct reader {
	const char *name;	/* what messages call it: "'base.json'" */
	struct error *e;
	bool raw;		/* leave the summaries uncomputed */
};

/* Flags of jr_member(). */
#define REQUIRED 1
#define NULLABLE 2

/* "cannot read 'f': where: what"; where "" means the top of the file.
 * Always returns -1. */
int jr_bad(struct reader *rd, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* where.key and where[i] into buf (cut short with "..." if too long). */
void jr_path_key(char *buf, size_t n, const char *where, const char *key);
void jr_path_index(char *buf, size_t n, const char *where, size_t i);

/* Check v's type (JSON_REAL: any number, JSON_TRUE: a boolean). */
int jr_check(struct reader *rd, json_t *v, const char *where,
	     json_type type);

/*
 * obj[key] in *out, checked to be of type. *out is NULL when the key is
 * absent (an error if REQUIRED) or null (an error unless NULLABLE); when
 * it is of another type, -1 with *out the value, so that
 * "if (jr_member(...) || !v) return v ? -1 : 0;" skips an optional key
 * (not a REQUIRED one: absent, it fails with *out NULL).
 */
int jr_member(struct reader *rd, json_t *obj, const char *where,
	      const char *key, json_type type, int flags, json_t **out);

/*
 * Whether v can be a metric's value. Every metric there is -- seconds,
 * bytes, counts, their rates and ratios -- is a non-negative quantity, and
 * none comes near JR_VALUE_MAX (beyond it, sums of squares of a file's
 * values could overflow the statistics). NaN is not a value: a run that
 * measured nothing is null in the file, and readers push NaN for it
 * themselves.
 */
#define JR_VALUE_MAX 1e30
static inline bool jr_value_ok(double v)
{
	return v >= 0 && v <= JR_VALUE_MAX;
}
/* The error of a value that is not jr_value_ok (always -1). */
int jr_bad_value(struct reader *rd, const char *where, double v);

/*
 * Summarize every metric of r with its settings "seed" and
 * "bootstrap_resamples" if it has them, else RESULT_READ_SEED and
 * RESULT_READ_RESAMPLES. The last step of every format's reader.
 */
int jr_summarize(struct reader *rd, struct result *r);

/* `load`'s "histograms", "per_second" and "counts" of benchmark b
 * (json_load.c): written into o when b has them; read from o (absent:
 * none) with every number checked. */
void json_put_load_keys(json_t *o, const struct benchmark *b);
int json_read_load_keys(struct reader *rd, json_t *o, const char *where,
			struct benchmark *b);

/* Other tools' files: detected from the top-level keys of root (an
 * object), then read into r (initialized, empty). */
bool import_hyperfine_detect(json_t *root);
int import_hyperfine_read(struct reader *rd, json_t *root, struct result *r);
bool import_gbench_detect(json_t *root);
int import_gbench_read(struct reader *rd, json_t *root, struct result *r);

#endif
