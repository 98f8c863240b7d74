/*
 * The pprof exporter: the profile as a gzip-compressed
 * perftools.profiles.Profile protocol buffer (github.com/google/pprof,
 * proto/profile.proto), encoded with util/pbwire — varints and
 * length-delimited fields are all this message needs.
 *
 * Mapping the model: a pprof Location is one machine address, and inlining
 * is several Lines in it, innermost first. So a run of our frames marked
 * inlined, followed by the non-inlined frame they were inlined into, is one
 * Location; the same run of frame ids always gives the same Location. A
 * Function is a distinct (name, file); a Mapping a distinct module name
 * (addresses are only representative, so memory ranges stay 0 and the
 * mappings say has_functions: pprof must not try to symbolize them).
 * Field numbers below are those of profile.proto; keep them in sync.
 *
 * profile.proto is proto3, whose strings must be valid UTF-8: a decoder
 * that checks (protoc, Python's protobuf, protobuf-go) refuses the whole
 * profile over one bad byte. Names come from outside (symbols, a Python
 * frame's name or file, the command line), so every string is written
 * with its invalid bytes as U+FFFD, as the JSON writers do.
 */
#include "profile/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/dynlib.h"
#include "util/hashmap.h"
#include "util/json_emit.h"
#include "util/pbwire.h"
#include "util/fileio.h"
#include "util/strutil.h"

enum {
	/* Profile */
	PB_SAMPLE_TYPE = 1, PB_SAMPLE = 2, PB_MAPPING = 3, PB_LOCATION = 4,
	PB_FUNCTION = 5, PB_STRING_TABLE = 6, PB_DURATION_NANOS = 10,
	PB_PERIOD_TYPE = 11, PB_PERIOD = 12, PB_COMMENT = 13,
	PB_DEFAULT_SAMPLE_TYPE = 14,
	/* ValueType */
	VT_TYPE = 1, VT_UNIT = 2,
	/* Sample */
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	/* Mapping */
	MAP_ID = 1, MAP_FILENAME = 5, MAP_HAS_FUNCTIONS = 7,
	MAP_HAS_FILENAMES = 8, MAP_HAS_LINE_NUMBERS = 9,
	MAP_HAS_INLINE_FRAMES = 10,
	/* Location */
	LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	/* Line */
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	/* Function */
	FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3, FN_FILENAME = 4,
};

/* A hash set of integer sequences mapping each to a dense index. */
struct seqmap {
	uint64_t **keys;	/* [0] = length, then the items */
	size_t n, cap;
	struct hashidx index;	/* index + 1 by seq_hash */
};

static uint64_t seq_hash(const uint64_t *k, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL * (n + 1);

	for (size_t i = 0; i < n; i++) {
		h = (h ^ k[i]) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

/* The index of k[0..n-1]; *added tells whether it is new. */
static size_t seq_intern(struct seqmap *m, const uint64_t *k, size_t n,
			 bool *added)
{
	uint64_t h = seq_hash(k, n), v;
	size_t pos;

	for (v = hashidx_first(&m->index, h, &pos); v;
	     v = hashidx_next(&m->index, h, &pos)) {
		const uint64_t *o = m->keys[v - 1];

		if (o[0] == n && !memcmp(o + 1, k, n * sizeof(*k))) {
			*added = false;
			return v - 1;
		}
	}
	m->keys = xgrow(m->keys, &m->cap, m->n + 1, sizeof(*m->keys));
	m->keys[m->n] = xmalloc((n + 1) * sizeof(**m->keys));
	m->keys[m->n][0] = n;
	memcpy(m->keys[m->n] + 1, k, n * sizeof(*k));
	hashidx_add(&m->index, h, m->n + 1);
	*added = true;
	return m->n++;
}

static void seq_free(struct seqmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	hashidx_free(&m->index);
}

/* Strings by content, mapping each to its string table index. */
struct strmap {
	const char **strs;	/* by index; owned by the profile */
	size_t n, cap;
	struct hashidx index;	/* index + 1 by hash_str */
};

struct pprof {
	const struct profile *p;
	struct strbuf out;	/* the Profile message without strings */
	struct strbuf sub, sub2;	/* scratch for nested messages */
	struct strbuf strtab;	/* string_table fields, in index order */
	struct strmap strings;
	char **cleaned;		/* the U+FFFD copies str_index made */
	size_t ncleaned, capcleaned;
	struct seqmap functions, mappings, locations;
	uint64_t *fn_of;	/* frame id -> function id */
	uint64_t *map_of;	/* frame id -> mapping id (0 = none) */
};

/* Is s valid UTF-8 throughout? */
static bool utf8_valid(const char *s)
{
	uint32_t c;
	size_t n;

	for (; *s; s += n)
		if (!(n = utf8_decode(s, &c)))
			return false;
	return true;
}

/* The string table index of s (NULL is ""); s must outlive the writer.
 * Invalid UTF-8 is interned as its U+FFFD copy, kept until the end. */
static uint64_t str_index(struct pprof *x, const char *s)
{
	struct strmap *m = &x->strings;
	uint64_t h, v;
	size_t pos;

	if (!s)
		s = "";
	if (!utf8_valid(s)) {
		x->cleaned = xgrow(x->cleaned, &x->capcleaned,
				   x->ncleaned + 1, sizeof(*x->cleaned));
		s = x->cleaned[x->ncleaned++] = json_utf8_dup(s);
	}
	h = hash_str(s);
	for (v = hashidx_first(&m->index, h, &pos); v;
	     v = hashidx_next(&m->index, h, &pos))
		if (!strcmp(m->strs[v - 1], s))
			return v - 1;
	m->strs = xgrow(m->strs, &m->cap, m->n + 1, sizeof(*m->strs));
	m->strs[m->n] = s;
	hashidx_add(&m->index, h, m->n + 1);
	pbwire_bytes(&x->strtab, PB_STRING_TABLE, s, strlen(s));
	return m->n++;
}

static void put_value_type(struct pprof *x, int field,
			   const struct sample_type *t)
{
	pbwire_uint(&x->sub, VT_TYPE, str_index(x, t->name));
	pbwire_uint(&x->sub, VT_UNIT, str_index(x, t->unit));
	pbwire_msg(&x->out, field, &x->sub);
}

/* Functions and mappings of every frame, written as they are found. */
static void put_functions(struct pprof *x)
{
	const struct profile *p = x->p;
	bool added;

	for (size_t i = 0; i < p->nframes; i++) {
		const struct frame *f = &p->frames[i];
		uint64_t k[2] = { str_index(x, f->function),
				  str_index(x, f->file) };
		uint64_t id = seq_intern(&x->functions, k, 2, &added) + 1;

		x->fn_of[i] = id;
		if (!added)
			continue;
		pbwire_uint(&x->sub, FN_ID, id);
		pbwire_uint(&x->sub, FN_NAME, k[0]);
		pbwire_uint(&x->sub, FN_SYSTEM_NAME, k[0]);
		pbwire_uint(&x->sub, FN_FILENAME, k[1]);
		pbwire_msg(&x->out, PB_FUNCTION, &x->sub);
	}
}

/*
 * profile.proto: "mapping[0] will be the main binary", which pprof names
 * as the profile's File. Ours is the module the most samples start in
 * (their main, else their outermost frame: the program's, not that of a
 * wrapper such as env or sh that ran briefly before it), a file rather
 * than one of the bracketed names ([python], [kernel]); interned first,
 * it is mapping 1.
 */
/* The frame a stack starts in the program: its outermost main (under it
 * are the C library's start-up frames), else its outermost frame. */
static uint32_t stack_start(const struct profile *p, const struct stack *st)
{
	for (size_t d = st->depth; d-- > 0;)
		if (!strcmp(p->frames[st->frames[d]].function, "main"))
			return st->frames[d];
	return st->frames[st->depth - 1];
}

static void put_main_mapping(struct pprof *x)
{
	const struct profile *p = x->p;
	int64_t *root = xcalloc(p->nframes + 1, sizeof(*root)), best = 0;
	uint32_t *roots = NULL;		/* the frames some stack starts in */
	size_t nroots = 0, cap = 0;
	const char *main_module = NULL;
	bool added;

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct stack *st = &p->stacks[s];
		int64_t v = p->ntypes ? st->values[0] : 0;
		uint32_t f;

		if (!st->depth || !v)
			continue;
		f = stack_start(p, st);
		if (!root[f]) {
			roots = xgrow(roots, &cap, nroots + 1, sizeof(*roots));
			roots[nroots++] = f;
		}
		root[f] += v < 0 ? -v : v;
	}
	/* by module: the root frames of one module add up */
	for (size_t i = 0; i < nroots; i++) {
		const char *m = p->frames[roots[i]].module;
		int64_t w = 0;

		/* [python], [kernel], [unknown]...: no binary */
		if (!m || !*m || *m == '[' || !root[roots[i]])
			continue;
		for (size_t j = i; j < nroots; j++) {
			const char *o = p->frames[roots[j]].module;

			if (o && !strcmp(o, m)) {
				w += root[roots[j]];
				root[roots[j]] = 0;
			}
		}
		if (w > best) {
			best = w;
			main_module = m;
		}
	}
	free(roots);
	free(root);
	if (main_module) {
		uint64_t k = str_index(x, main_module);

		seq_intern(&x->mappings, &k, 1, &added);
	}
}

static void put_mappings(struct pprof *x)
{
	const struct profile *p = x->p;
	bool *files, *lines, *inl, added;
	size_t n;

	put_main_mapping(x);
	for (size_t i = 0; i < p->nframes; i++) {
		const struct frame *f = &p->frames[i];
		uint64_t k;

		if (!f->module || !*f->module) {
			x->map_of[i] = 0;
			continue;
		}
		k = str_index(x, f->module);
		x->map_of[i] = seq_intern(&x->mappings, &k, 1, &added) + 1;
	}
	n = x->mappings.n;
	files = xcalloc(n + 1, sizeof(bool));
	lines = xcalloc(n + 1, sizeof(bool));
	inl = xcalloc(n + 1, sizeof(bool));
	for (size_t i = 0; i < p->nframes; i++) {
		const struct frame *f = &p->frames[i];

		files[x->map_of[i]] |= f->file != NULL;
		lines[x->map_of[i]] |= f->line > 0;
		inl[x->map_of[i]] |= f->inlined;
	}
	for (size_t m = 1; m <= n; m++) {
		pbwire_uint(&x->sub, MAP_ID, m);
		pbwire_uint(&x->sub, MAP_FILENAME, x->mappings.keys[m - 1][1]);
		pbwire_uint(&x->sub, MAP_HAS_FUNCTIONS, 1);
		pbwire_uint(&x->sub, MAP_HAS_FILENAMES, files[m]);
		pbwire_uint(&x->sub, MAP_HAS_LINE_NUMBERS, lines[m]);
		pbwire_uint(&x->sub, MAP_HAS_INLINE_FRAMES, inl[m]);
		pbwire_msg(&x->out, PB_MAPPING, &x->sub);
	}
	free(files);
	free(lines);
	free(inl);
}

/* Write the Location of frames[0..n-1] (inlined callees, then their
 * caller) the first time it is seen; returns its id. */
static uint64_t location(struct pprof *x, const uint32_t *frames, size_t n)
{
	const struct profile *p = x->p;
	const struct frame *outer = &p->frames[frames[n - 1]];
	uint64_t k[64], *key = n <= 64 ? k : xmalloc(n * sizeof(*key)), id;
	uint64_t address = outer->address;
	bool added;

	for (size_t i = 0; i < n; i++)
		key[i] = frames[i];
	id = seq_intern(&x->locations, key, n, &added) + 1;
	if (key != k)
		free(key);
	if (!added)
		return id;
	for (size_t i = 0; i < n && !address; i++)
		address = p->frames[frames[i]].address;
	pbwire_uint(&x->sub, LOC_ID, id);
	pbwire_uint(&x->sub, LOC_MAPPING_ID, x->map_of[frames[n - 1]]);
	pbwire_uint(&x->sub, LOC_ADDRESS, address);
	for (size_t i = 0; i < n; i++) {
		const struct frame *f = &p->frames[frames[i]];

		pbwire_uint(&x->sub2, LINE_FUNCTION_ID, x->fn_of[frames[i]]);
		pbwire_uint(&x->sub2, LINE_LINE, (uint64_t)(int64_t)f->line);
		pbwire_msg(&x->sub, LOC_LINE, &x->sub2);
	}
	pbwire_msg(&x->out, PB_LOCATION, &x->sub);
	return id;
}

static void put_samples(struct pprof *x)
{
	const struct profile *p = x->p;
	struct strbuf ids = { 0 }, vals = { 0 };

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct stack *st = &p->stacks[s];
		bool any = false;

		for (size_t t = 0; t < p->ntypes; t++)
			any |= st->values[t] != 0;
		if (!any)
			continue;
		for (size_t d = 0, run = 0; d < st->depth; d = run) {
			/* The run: inlined frames and the frame they are in. */
			while (run < st->depth &&
			       p->frames[st->frames[run]].inlined)
				run++;
			if (run < st->depth)
				run++;
			pbwire_varint(&ids, location(x, st->frames + d, run - d));
		}
		for (size_t t = 0; t < p->ntypes; t++)
			pbwire_varint(&vals, (uint64_t)st->values[t]);
		pbwire_bytes(&x->sub, SAMPLE_LOCATION_ID, ids.s, ids.len);
		pbwire_bytes(&x->sub, SAMPLE_VALUE, vals.s, vals.len);
		ids.len = vals.len = 0;
		pbwire_msg(&x->out, PB_SAMPLE, &x->sub);
	}
	free(ids.s);
	free(vals.s);
}

/* Build the whole message, uncompressed, into x->out. */
static void build(struct pprof *x)
{
	/* the strings must outlive the writer (str_index) */
	char note[64];
	const struct profile *p = x->p;

	str_index(x, "");
	for (size_t t = 0; t < p->ntypes; t++)
		put_value_type(x, PB_SAMPLE_TYPE, &p->types[t]);
	put_functions(x);
	put_mappings(x);
	put_samples(x);
	pbwire_uint(&x->out, PB_DURATION_NANOS, (uint64_t)p->duration_ns);
	if (p->period && p->period_type < p->ntypes) {
		put_value_type(x, PB_PERIOD_TYPE, &p->types[p->period_type]);
		pbwire_uint(&x->out, PB_PERIOD, (uint64_t)p->period);
	}
	if (p->command && *p->command)
		pbwire_uint(&x->out, PB_COMMENT, str_index(x, p->command));
	if (p->partial) {
		snprintf(note, sizeof(note), "partial: stopped by %s",
			 p->partial);
		pbwire_uint(&x->out, PB_COMMENT, str_index(x, note));
	}
	/* Our first sample type is the main one; pprof would pick the last. */
	if (p->ntypes)
		pbwire_uint(&x->out, PB_DEFAULT_SAMPLE_TYPE,
			str_index(x, p->types[0].name));
	strbuf_put(&x->out, x->strtab.s, x->strtab.len);
}

/* zlib, loaded by the first pprof written (util/dynlib.h) */
#define ZLIB_FUNCTIONS(X) X(deflateInit2_) X(deflate) X(deflateEnd)
static DYNLIB_TABLE(zlib_fns, ZLIB_FUNCTIONS) zlib;
static struct dynlib zlib_lib = DYNLIB(zlib, ZLIB_FUNCTIONS, "libz.so.1",
	"zlib1g", "zlib, which compresses pprof files");

static int gzip_write(const struct strbuf *b, FILE *fp)
{
	z_stream zs = { 0 };
	uint8_t chunk[65536];
	int zr;

	/* deflateInit2 is a macro of deflateInit2_ */
	if (zlib.deflateInit2_(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16,
			       8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
			       (int)sizeof(zs)) != Z_OK)
		return -1;
	/* One call for inputs up to 4 GiB (uInt); larger is not realistic
	 * for a profile and is refused. */
	if (b->len > (uInt)-1) {
		zlib.deflateEnd(&zs);
		return -1;
	}
	zs.next_in = (Bytef *)b->s;
	zs.avail_in = (uInt)b->len;
	do {
		size_t have;

		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zr = zlib.deflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			break;
		have = sizeof(chunk) - zs.avail_out;
		if (fwrite(chunk, 1, have, fp) != have) {
			zr = Z_ERRNO;
			break;
		}
	} while (zr != Z_STREAM_END);
	zlib.deflateEnd(&zs);
	return zr == Z_STREAM_END ? 0 : -1;
}

int profile_write_pprof(const struct profile *p, const char *path,
			struct error *e)
{
	struct pprof x = { .p = p };
	struct atomic_file af;
	int ret = -1;

	if (dynlib_load(&zlib_lib, e) || atomic_open(&af, path, e))
		return -1;
	x.fn_of = xcalloc(p->nframes + 1, sizeof(*x.fn_of));
	x.map_of = xcalloc(p->nframes + 1, sizeof(*x.map_of));
	build(&x);
	if (gzip_write(&x.out, af.fp)) {
		atomic_fail(&af, e);
		goto out_free;
	}
	ret = atomic_commit(&af, e);
out_free:
	free(x.out.s);
	free(x.sub.s);
	free(x.sub2.s);
	free(x.strtab.s);
	free(x.strings.strs);
	hashidx_free(&x.strings.index);
	for (size_t i = 0; i < x.ncleaned; i++)
		free(x.cleaned[i]);
	free(x.cleaned);
	seq_free(&x.functions);
	seq_free(&x.mappings);
	seq_free(&x.locations);
	free(x.fn_of);
	free(x.map_of);
	return ret;
}
