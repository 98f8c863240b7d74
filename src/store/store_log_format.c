/*
 * The save log's bytes (store_log.h): header, framing, the record of a
 * result, and the walk. A record's payload is the fields store_save keeps,
 * in its order: strings as length and bytes (a NULL string has the length
 * 0xffffffff), doubles as their bits, lists as a count and the elements.
 * The decoder trusts nothing: every count is checked against the bytes
 * left before anything is allocated, and a string may not hold a NUL.
 */
#include "store/store_log.h"

#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

#define LOG_MAGIC "YSTKLOG\n"
#define LOG_VERSION 1
#define REC_MAGIC 0x31525359u	/* "YSR1" */
#define STR_NULL 0xffffffffu
/* In a metric's count of values: a process id (32 bits) follows each
 * value (struct metric.process). A record without it reads as before. */
#define VALUES_PROCESS (1ULL << 63)

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* CRC-32 (IEEE, reflected), continued from crc. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	static uint32_t table[256];

	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

void log_header_put(unsigned char buf[LOG_HEADER_SIZE],
		    const struct log_header *h)
{
	memcpy(buf, LOG_MAGIC, 8);
	put32(buf + 8, LOG_VERSION);
	put32(buf + 12, h->records);
	put64(buf + 16, (uint64_t)h->next_id);
	put64(buf + 24, h->end);
}

int log_header_get(const unsigned char *buf, size_t len,
		   struct log_header *h, const char **why)
{
	unsigned long long span;
	const char *bad = NULL;

	if (len < LOG_HEADER_SIZE || memcmp(buf, LOG_MAGIC, 8))
		bad = "no log header";
	else if (get32(buf + 8) != LOG_VERSION)
		bad = "an unknown version";
	if (bad)
		goto out;
	h->records = get32(buf + 12);
	h->next_id = (long long)get64(buf + 16);
	h->end = get64(buf + 24);
	span = h->end - LOG_HEADER_SIZE;
	/* every field against the format: an id a save may take, an end
	 * after the header, and as many records as the bytes before end
	 * can hold (each at least a frame, at most a frame and
	 * LOG_RECORD_MAX) */
	if (h->next_id < 1 || h->next_id > LOG_ID_MAX)
		bad = "the next id is out of range";
	else if (h->end < LOG_HEADER_SIZE || h->end > LOG_END_MAX)
		bad = "the end of the records is out of range";
	else if ((h->records == 0) != (span == 0) ||
		 h->records > span / LOG_FRAME_SIZE ||
		 (h->records &&
		  span / h->records > LOG_FRAME_SIZE + LOG_RECORD_MAX))
		bad = "the record count does not match the end";
out:
	if (why)
		*why = bad;
	return bad ? -1 : 0;
}

/* ---- encoding ---- */

struct wbuf {
	unsigned char *p;
	size_t n, cap;
};

static unsigned char *grow(struct wbuf *b, size_t more)
{
	b->p = xgrow(b->p, &b->cap, b->n + more, 1);
	b->n += more;
	return b->p + b->n - more;
}

static void w32(struct wbuf *b, uint32_t v)
{
	put32(grow(b, 4), v);
}

static void w64(struct wbuf *b, uint64_t v)
{
	put64(grow(b, 8), v);
}

static void wdbl(struct wbuf *b, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	w64(b, bits);
}

static void wstr(struct wbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	w32(b, s ? (uint32_t)n : STR_NULL);
	if (n)
		memcpy(grow(b, n), s, n);
}

static void wstrv(struct wbuf *b, char *const *v, size_t n)
{
	w32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		wstr(b, v[i]);
}

static void encode_benchmark(struct wbuf *b, const struct benchmark *bm)
{
	wstr(b, bm->name);
	wstrv(b, bm->command, bm->argc);
	w32(b, (uint32_t)bm->nparams);
	for (size_t i = 0; i < bm->nparams; i++) {
		wstr(b, bm->params[i].name);
		wstr(b, bm->params[i].value);
	}
	w32(b, (uint32_t)bm->nexit);
	for (size_t i = 0; i < bm->nexit; i++)
		w32(b, (uint32_t)bm->exit_codes[i]);
	w64(b, bm->timeouts);
	wstrv(b, bm->unsupported, bm->nunsupported);
	wstrv(b, bm->warnings, bm->nwarnings);
	w32(b, (uint32_t)bm->nmetrics);
	for (size_t i = 0; i < bm->nmetrics; i++) {
		const struct metric *m = &bm->metrics[i];

		wstr(b, m->name);
		wstr(b, m->unit);
		w64(b, m->n | (m->process ? VALUES_PROCESS : 0));
		for (size_t k = 0; k < m->n; k++) {
			wdbl(b, m->values[k]);
			if (m->process)
				w32(b, m->process[k]);
		}
	}
}

unsigned char *log_record_encode(const struct result *r, size_t *len)
{
	const struct machine *m = &r->machine;
	struct wbuf b = { 0 };

	grow(&b, LOG_FRAME_SIZE);
	wstr(&b, r->kind);
	wstr(&b, r->created);
	wstr(&b, r->tool_version);
	wstr(&b, r->git.commit);
	wstr(&b, r->git.branch);
	w32(&b, r->git.dirty);
	wstr(&b, m->hostname);
	wstr(&b, m->os);
	wstr(&b, m->cpu);
	wstr(&b, m->governor);
	w64(&b, (uint64_t)(int64_t)m->cores);
	w64(&b, m->memory_bytes);
	w32(&b, m->virtualized);
	w32(&b, (uint32_t)r->nsettings);
	for (size_t i = 0; i < r->nsettings; i++) {
		wstr(&b, r->settings[i].key);
		wstr(&b, r->settings[i].str);
		wdbl(&b, r->settings[i].num);
	}
	w32(&b, (uint32_t)r->nbenchmarks);
	for (size_t i = 0; i < r->nbenchmarks; i++)
		encode_benchmark(&b, &r->benchmarks[i]);
	log_record_frame(b.p, b.n);
	*len = b.n;
	return b.p;
}

void log_record_frame(unsigned char *rec, size_t len)
{
	put32(rec, REC_MAGIC);
	put32(rec + 4, (uint32_t)(len - LOG_FRAME_SIZE));
	put64(rec + 8, 0);
	/* the crc of the payload for now; the id completes it */
	put32(rec + 16, crc32_update(0, rec + LOG_FRAME_SIZE,
				     len - LOG_FRAME_SIZE));
}

/* The crc of a frame: the payload's, continued over length and id. */
static uint32_t frame_crc(uint32_t payload_crc, const unsigned char *rec)
{
	return crc32_update(payload_crc, rec + 4, 12);
}

void log_record_set_id(unsigned char *rec, long long id)
{
	/* the payload's crc is in the crc field until the id is known */
	uint32_t payload = get32(rec + 16);

	put64(rec + 8, (uint64_t)id);
	put32(rec + 16, frame_crc(payload, rec));
}

/* ---- decoding ---- */

struct rbuf {
	const unsigned char *p, *end;
	bool bad;
};

static bool have(struct rbuf *b, size_t n)
{
	if (!b->bad && (size_t)(b->end - b->p) >= n)
		return true;
	b->bad = true;
	return false;
}

static uint32_t r32(struct rbuf *b)
{
	uint32_t v = have(b, 4) ? get32(b->p) : 0;

	b->p += b->bad ? 0 : 4;
	return v;
}

static uint64_t r64(struct rbuf *b)
{
	uint64_t v = have(b, 8) ? get64(b->p) : 0;

	b->p += b->bad ? 0 : 8;
	return v;
}

static double rdbl(struct rbuf *b)
{
	uint64_t bits = r64(b);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* A boolean: 0 or 1, anything else is damage. */
static bool rbool(struct rbuf *b)
{
	uint32_t v = r32(b);

	if (v > 1)
		b->bad = true;
	return v == 1;
}

/* A count of elements of at least min bytes each, which must fit in
 * what is left (no allocation of a size read from outside). */
static size_t rcount(struct rbuf *b, size_t min)
{
	uint32_t n = r32(b);

	if (!b->bad && (size_t)n > (size_t)(b->end - b->p) / min)
		b->bad = true;
	return b->bad ? 0 : n;
}

/* A string, malloc'd; NULL for a NULL string (and on damage). */
static char *rstr(struct rbuf *b)
{
	uint32_t n = r32(b);
	char *s;

	if (b->bad || n == STR_NULL)
		return NULL;
	if (!have(b, n) || memchr(b->p, '\0', n)) {
		b->bad = true;
		return NULL;
	}
	s = xstrndup((const char *)b->p, n);
	b->p += n;
	return s;
}

/* A string that may not be NULL. */
static char *rstr_nn(struct rbuf *b)
{
	char *s = rstr(b);

	if (!s)
		b->bad = true;
	return s;
}

static char **rstrv(struct rbuf *b)
{
	size_t n = rcount(b, 4);
	char **v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n && !b->bad; i++)
		v[i] = rstr_nn(b);
	return v;
}

static void decode_lists(struct rbuf *b, struct benchmark *bm)
{
	size_t n = rcount(b, 8);

	for (size_t i = 0; i < n && !b->bad; i++) {
		char *name = rstr_nn(b), *value = rstr_nn(b);

		if (!b->bad)
			benchmark_add_param(bm, name, value);
		free(name);
		free(value);
	}
	n = rcount(b, 4);
	for (size_t i = 0; i < n && !b->bad; i++)
		benchmark_push_exit(bm, (int)r32(b));
	bm->timeouts = (size_t)r64(b);
	for (int list = 0; list < 2; list++) {
		char **v = rstrv(b);

		for (size_t i = 0; v[i] && !b->bad; i++) {
			if (list == 0)
				benchmark_add_unsupported(bm, v[i]);
			else
				benchmark_add_warning(bm, "%s", v[i]);
		}
		argv_free(v);
	}
}

static void decode_metrics(struct rbuf *b, struct benchmark *bm)
{
	size_t n = rcount(b, 16);

	for (size_t i = 0; i < n && !b->bad; i++) {
		char *name = rstr_nn(b), *unit = rstr_nn(b);
		uint64_t nv = r64(b);
		bool proc = nv & VALUES_PROCESS;
		struct metric *m;

		nv &= ~VALUES_PROCESS;
		if (!b->bad && nv > (uint64_t)(b->end - b->p) / (proc ? 12 : 8))
			b->bad = true;
		if (!b->bad) {
			m = benchmark_metric(bm, name, unit);
			for (uint64_t k = 0; k < nv && !b->bad; k++) {
				double v = rdbl(b);
				uint32_t id;

				if (!proc) {
					metric_push(m, v);
					continue;
				}
				id = r32(b);
				if (id > RESULT_MAX_PROCESS)
					b->bad = true;
				metric_push_process(m, v, id);
			}
		}
		free(name);
		free(unit);
	}
}

static void decode_benchmark(struct rbuf *b, struct result *r)
{
	char *name = rstr_nn(b);
	char **argv = rstrv(b);
	struct benchmark *bm;

	if (!b->bad) {
		bm = result_add_benchmark(r, name, argv);
		decode_lists(b, bm);
		decode_metrics(b, bm);
	}
	free(name);
	argv_free(argv);
}

static void decode_settings(struct rbuf *b, struct result *r)
{
	size_t n = rcount(b, 16);

	for (size_t i = 0; i < n && !b->bad; i++) {
		char *key = rstr_nn(b), *str = rstr(b);
		double num = rdbl(b);

		if (!b->bad && str)
			result_set_str(r, key, str);
		else if (!b->bad)
			result_set_num(r, key, num);
		free(key);
		free(str);
	}
}

/* The payload p[0..n) into *r (result_init'ed here). 0, or -1 (r freed)
 * when it does not decode to the end exactly. */
static int decode(const unsigned char *p, size_t n, struct result *r)
{
	struct rbuf b = { p, p + n, false };
	struct machine *m = &r->machine;
	char *kind = rstr_nn(&b);
	size_t nb;

	result_init(r, kind ? kind : "run");
	free(kind);
	r->created = rstr(&b);
	r->tool_version = rstr(&b);
	r->git.commit = rstr(&b);
	r->git.branch = rstr(&b);
	r->git.dirty = rbool(&b);
	m->hostname = rstr(&b);
	m->os = rstr(&b);
	m->cpu = rstr(&b);
	m->governor = rstr(&b);
	m->cores = (int)(int64_t)r64(&b);
	m->memory_bytes = r64(&b);
	m->virtualized = rbool(&b);
	decode_settings(&b, r);
	nb = rcount(&b, 24);
	for (size_t i = 0; i < nb && !b.bad; i++)
		decode_benchmark(&b, r);
	if (b.bad || b.p != b.end) {
		result_free(r);
		return -1;
	}
	return 0;
}

/* ---- the walk ---- */

/* Whether a record that checks starts at buf[off]; its payload length in
 * *n. */
static bool frame_at(const unsigned char *buf, size_t len, size_t off,
		     size_t *n)
{
	const unsigned char *rec = buf + off;

	if (len - off < LOG_FRAME_SIZE || get32(rec) != REC_MAGIC)
		return false;
	*n = get32(rec + 4);
	if (*n > LOG_RECORD_MAX || *n > len - off - LOG_FRAME_SIZE)
		return false;
	return frame_crc(crc32_update(0, rec + LOG_FRAME_SIZE, *n), rec) ==
	       get32(rec + 16);
}

size_t log_record_at(const unsigned char *buf, size_t len, size_t off,
		     long long *id)
{
	size_t n;

	if (off >= len || !frame_at(buf, len, off, &n))
		return 0;
	*id = (long long)get64(buf + off + 8);
	return LOG_FRAME_SIZE + n;
}

int log_walk(const unsigned char *buf, size_t len, size_t base,
	     const struct log_walk *w)
{
	size_t off = 0, n;

	while (off < len) {
		struct result r;
		size_t next;
		int ret;

		if (!frame_at(buf, len, off, &n)) {
			/* to the next record that checks, or the end */
			for (next = off + 1; next < len &&
			     !frame_at(buf, len, next, &n); next++)
				;
			w->on_damage(w->ctx, base + off, next - off,
				     "a record cut short or overwritten");
			off = next;
			continue;
		}
		next = off + LOG_FRAME_SIZE + n;
		if (decode(buf + off + LOG_FRAME_SIZE, n, &r)) {
			w->on_damage(w->ctx, base + off, next - off,
				     "a record that does not decode");
		} else {
			ret = w->on_record(w->ctx,
					   (long long)get64(buf + off + 8), &r);
			if (ret)
				return ret;
		}
		off = next;
	}
	return 0;
}
