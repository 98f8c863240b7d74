/*
 * torch.profiler's Chrome trace (`prof.export_chrome_trace(path)`) read
 * into the timeline model: its operator events become zones. The file is
 * untrusted and may be large (hundreds of MB for a long profile): it is
 * read in chunks by a small scanner that follows JSON's brackets and
 * strings, copies each element of the events array (at most
 * TORCHOPS_MAX_EVENT_BYTES) and parses that one element with jansson, so
 * that memory holds one event's text and the events kept, never the
 * file. Outside the events the scanner checks the brackets only.
 *
 * Design notes:
 * 1. The events array is the top-level array (torch 1.13's legacy
 *    profiler, Debian's) or the value of the top-level key
 *    "traceEvents" (Kineto's object form); other arrays of the object
 *    ("deviceProperties") are skipped.
 * 2. An event's thread is the pair (pid, tid), each an integer or a
 *    string (the legacy profiler's pid is "CPU functions"), numbered
 *    1, 2, ... in order of appearance: tid in the timeline.
 * 3. ts and dur are whole µs in both forms: a child's end may pass its
 *    parent's by the rounding, up to 1 µs; such an end is clipped to the
 *    parent's (counted). A larger overlap is no nesting torch makes: an
 *    error.
 */
#include "profile/torchops.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

/* ts + dur in µs: TRACE_US_MAX (1.8e16, the limit before, made every
 * start past 9.2e15 µs llround's same LONG_MIN) */
#define US_MAX TRACE_US_MAX
/* brackets deeper than this are refused (no event needs them) */
#define MAX_DEPTH 256
/* the rounding of ts and dur (note 3), ns */
#define CLIP_NS 1000

struct scan {
	const char *name;
	struct trace *t;
	struct torchops_trace_stats *st;
	struct error *e;
	char stack[MAX_DEPTH];	/* '{' or '[' of each open bracket */
	size_t depth;
	bool in_str, esc;
	bool top_done;		/* the top-level value is closed */
	bool top_seen;
	/* the top-level object's keys: the one being read, whether the
	 * next value is the events array */
	bool key_next, in_key, want_events;
	char key[16];
	size_t keylen;
	size_t events_depth;	/* depth inside the events array, 0: not
				 * in it */
	bool events_found;
	/* the event being copied: its bytes before this chunk in ev, in
	 * this one from mark */
	struct strbuf ev;
	bool in_ev;
	const char *chunk;
	size_t pos, mark;
	uint64_t offset;	/* of the byte being scanned */
	uint64_t ev_offset;	/* where the event began */
	size_t index;		/* of the event, from 0 */
	struct hashmap threads;	/* "pid\x1ftid" -> number */
	uint32_t nthreads;
};

static int fail(struct scan *s, const char *fmt, const char *what)
{
	char msg[200];

	snprintf(msg, sizeof(msg), fmt, what);
	error_set(s->e, "cannot read '%s': event %zu (byte %llu): %s",
		  s->name, s->index, (unsigned long long)s->ev_offset, msg);
	return -1;
}

static int fail_at(struct scan *s, const char *msg)
{
	error_set(s->e, "cannot read '%s': byte %llu: %s", s->name,
		  (unsigned long long)s->offset, msg);
	return -1;
}

/* A pid or tid as text into buf (an integer or a string; absent: ""). */
static int id_text(struct scan *s, json_t *o, const char *key, char *buf,
		   size_t cap)
{
	json_t *v = json_object_get(o, key);

	buf[0] = '\0';
	if (!v)
		return 0;
	if (json_is_integer(v))
		snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(buf, cap, "\"%s", json_string_value(v));
	else
		return fail(s, "'%s' is neither an integer nor a string", key);
	return 0;
}

static uint32_t thread_of(struct scan *s, const char *pid, const char *tid)
{
	char *k = xasprintf("%s\x1f%s", pid, tid);
	void *v = hashmap_get(&s->threads, k, strlen(k));

	if (!v) {
		v = (void *)(uintptr_t)++s->nthreads;
		hashmap_put(&s->threads, k, strlen(k), v, NULL);
	}
	free(k);
	return (uint32_t)(uintptr_t)v;
}

/* A number of µs, 0 <= v <= max, into *out. */
static int get_us(struct scan *s, json_t *o, const char *key, double max,
		  double *out)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return fail(s, "no '%s'", key);
	*out = json_number_value(v);
	if (!json_is_number(v) || !(*out >= 0 && *out <= max))
		return fail(s, "'%s' is not a time in µs from 0 to 9e15",
			    key);
	return 0;
}

/* Whether an event of category cat (NULL: none) is an operator's. */
static bool operator_category(const char *cat)
{
	return !cat || !strcmp(cat, "cpu_op") || !strcmp(cat, "Operator") ||
	       !strcmp(cat, "operator");
}

/* The kept fields of one event object o. */
static int take_event(struct scan *s, json_t *o)
{
	json_t *ph = json_object_get(o, "ph"), *cat, *name;
	char pid[80], tid[80];
	double ts, dur;
	struct trace_event *ev;

	if (!json_is_object(o))
		return fail(s, "%s", "not an object");
	if (!json_is_string(ph))
		return fail(s, "'%s' is missing or not a string", "ph");
	cat = json_object_get(o, "cat");
	if (cat && !json_is_string(cat))
		return fail(s, "'%s' is not a string", "cat");
	if (strcmp(json_string_value(ph), "X") ||
	    !operator_category(json_string_value(cat))) {
		s->st->ignored++;
		return 0;
	}
	name = json_object_get(o, "name");
	if (!json_is_string(name) || !json_string_length(name))
		return fail(s, "'%s' is missing or not a string", "name");
	if (get_us(s, o, "ts", US_MAX, &ts) ||
	    get_us(s, o, "dur", US_MAX - ts, &dur) ||
	    id_text(s, o, "pid", pid, sizeof(pid)) ||
	    id_text(s, o, "tid", tid, sizeof(tid)))
		return -1;
	s->st->events++;
	ev = trace_add(s->t, TRACE_ZONE);
	if (!ev)
		return 0;	/* counted in dropped */
	ev->pid = 1;
	ev->tid = ev->end_tid = thread_of(s, pid, tid);
	ev->start = (uint64_t)llround(ts * 1000);
	ev->end = ev->start + (uint64_t)llround(dur * 1000);
	ev->name = trace_intern(s->t, json_string_value(name));
	ev->id = s->index;
	return 0;
}

static int end_event(struct scan *s)
{
	json_error_t je;
	json_t *o = json_loadb(s->ev.s, s->ev.len, 0, &je);
	int ret;

	s->in_ev = false;
	if (!o)
		return fail(s, "%s", je.text);
	ret = take_event(s, o);
	json_decref(o);
	s->ev.len = 0;
	s->index++;
	return ret;
}

/* The event's bytes of this chunk up to pos (excluded) into ev. */
static int copy_event(struct scan *s, size_t pos)
{
	if (s->ev.len + (pos - s->mark) > TORCHOPS_MAX_EVENT_BYTES)
		return fail(s, "%s", "longer than 1 MiB");
	strbuf_put(&s->ev, s->chunk + s->mark, pos - s->mark);
	s->mark = pos;
	return 0;
}

/* A key of the top-level object has ended: is it "traceEvents"? */
static void end_key(struct scan *s)
{
	s->in_key = false;
	s->want_events = s->keylen == 11 && !memcmp(s->key, "traceEvents",
						     11);
}

static int open_bracket(struct scan *s, char c)
{
	if (s->depth == 0 && s->top_done)
		return fail_at(s, "data after the trace's end");
	if (s->depth == MAX_DEPTH)
		return fail_at(s, "brackets nested too deep");
	if (s->events_depth && s->depth == s->events_depth) {
		if (c != '{')
			return fail_at(s, "an event is not an object");
		s->in_ev = true;
		s->ev_offset = s->offset;
		s->ev.len = 0;
		s->mark = s->pos;
	}
	if (s->depth == 0) {
		s->top_seen = true;
		s->key_next = c == '{';
		if (c == '[')
			s->events_depth = 1;
	} else if (s->depth == 1 && s->stack[0] == '{' && s->want_events &&
		   c == '[') {
		s->events_depth = 2;
	}
	s->want_events = false;
	s->stack[s->depth++] = c;
	return 0;
}

static int close_bracket(struct scan *s, char c)
{
	char want = c == '}' ? '{' : '[';

	if (!s->depth || s->stack[s->depth - 1] != want)
		return fail_at(s, "unbalanced brackets");
	s->depth--;
	if (s->in_ev && s->depth == s->events_depth)
		return copy_event(s, s->pos + 1) ? -1 : end_event(s);
	if (s->events_depth && s->depth + 1 == s->events_depth) {
		s->events_depth = 0;
		s->events_found = true;
	}
	if (s->depth == 0)
		s->top_done = true;
	return 0;
}

/* A byte inside a string. */
static void string_byte(struct scan *s, char c)
{
	if (s->esc) {
		s->esc = false;
	} else if (c == '\\') {
		s->esc = true;
	} else if (c == '"') {
		s->in_str = false;
		if (s->in_key)
			end_key(s);
		return;
	}
	if (s->in_key && s->keylen < sizeof(s->key))
		s->key[s->keylen++] = c;
}

static int scan_byte(struct scan *s, char c)
{
	if (s->in_str) {
		string_byte(s, c);
		return 0;
	}
	switch (c) {
	case '"':
		if (s->depth == 0)
			return fail_at(s, "not a JSON array or object");
		/* a string where an event goes: no more an event than 3 */
		if (s->events_depth && s->depth == s->events_depth)
			return fail_at(s, "an event is not an object");
		s->in_str = true;
		if (s->depth == 1 && s->stack[0] == '{' && s->key_next) {
			s->in_key = true;
			s->key_next = false;
			s->keylen = 0;
		}
		return 0;
	case '{': case '[':
		return open_bracket(s, c);
	case '}': case ']':
		return close_bracket(s, c);
	case ',':
		if (s->depth == 1 && s->stack[0] == '{')
			s->key_next = true;
		if (s->depth == 1)
			s->want_events = false;
		return 0;
	case ' ': case '\t': case '\n': case '\r': case ':':
		return 0;
	default:
		if (s->depth == 0)
			return fail_at(s, s->top_done ? "data after the "
				       "trace's end" : "not a JSON array or "
				       "object");
		if (s->events_depth && s->depth == s->events_depth)
			return fail_at(s, "an event is not an object");
		if (s->depth == 1)
			s->want_events = false;
		return 0;
	}
}

static int scan_chunk(struct scan *s, const char *buf, size_t n)
{
	s->chunk = buf;
	s->mark = 0;
	for (s->pos = 0; s->pos < n; s->pos++, s->offset++)
		if (scan_byte(s, buf[s->pos]))
			return -1;
	/* an event goes on into the next chunk */
	return s->in_ev ? copy_event(s, n) : 0;
}

static int scan_end(struct scan *s)
{
	if (!s->top_seen)
		return fail_at(s, "empty: no JSON array or object");
	if (s->depth || s->in_str)
		return fail_at(s, "unexpected end of file (truncated?)");
	if (!s->events_found)
		return fail_at(s, "no events: neither an array of events nor "
			       "an object with a 'traceEvents' array");
	return 0;
}

/* Start order; at the same start the longer first (the parent). */
static int by_start(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* One thread's open events' ends while the events are walked. */
struct open_ends {
	uint64_t *end;
	size_t n, cap;
};

/* Note 3: every event inside the one it starts in, or an error. */
static int check_nesting(struct scan *s)
{
	struct trace *t = s->t;
	struct open_ends *th = xcalloc((size_t)s->nthreads + 1, sizeof(*th));
	int ret = 0;

	for (size_t i = 0; i < t->n && !ret; i++) {
		struct trace_event *ev = &t->ev[i];
		struct open_ends *o = &th[ev->tid];

		while (o->n && o->end[o->n - 1] <= ev->start)
			o->n--;
		if (o->n && ev->end > o->end[o->n - 1]) {
			uint64_t over = ev->end - o->end[o->n - 1];

			if (over > CLIP_NS) {
				s->index = (size_t)ev->id;
				s->ev_offset = 0;
				error_set(s->e, "cannot read '%s': event %zu "
					  "('%s', ts %.3f µs) starts inside "
					  "another event of its thread but "
					  "ends %.3f µs after it: not nested",
					  s->name, (size_t)ev->id, ev->name,
					  (double)ev->start / 1e3,
					  (double)over / 1e3);
				ret = -1;
				break;
			}
			ev->end = o->end[o->n - 1];
			s->st->clipped++;
		}
		ev->depth = o->n > UINT16_MAX ? UINT16_MAX : (uint16_t)o->n;
		o->end = xgrow(o->end, &o->cap, o->n + 1, sizeof(*o->end));
		o->end[o->n++] = ev->end;
	}
	for (size_t i = 0; i <= s->nthreads; i++)
		free(th[i].end);
	free(th);
	return ret;
}

static int finish(struct scan *s)
{
	struct trace *t = s->t;

	if (t->n)
		qsort(t->ev, t->n, sizeof(*t->ev), by_start);
	if (check_nesting(s))
		return -1;
	t->first = t->last = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (i == 0 || t->ev[i].start < t->first)
			t->first = t->ev[i].start;
		if (t->ev[i].end > t->last)
			t->last = t->ev[i].end;
	}
	s->st->threads = s->nthreads;
	return 0;
}

static void scan_init(struct scan *s, struct trace *t, const char *name,
		      struct torchops_trace_stats *st, struct error *e)
{
	memset(s, 0, sizeof(*s));
	memset(st, 0, sizeof(*st));
	s->name = name;
	s->t = t;
	s->st = st;
	s->e = e;
	hashmap_init(&s->threads);
}

static int scan_done(struct scan *s, int ret)
{
	if (ret == 0)
		ret = scan_end(s);
	if (ret == 0)
		ret = finish(s);
	free(s->ev.s);
	hashmap_free(&s->threads);
	return ret;
}

int torchops_read_trace_mem(struct trace *t, const char *name,
			    const char *buf, size_t len,
			    struct torchops_trace_stats *st, struct error *e)
{
	struct scan s;

	scan_init(&s, t, name, st, e);
	return scan_done(&s, scan_chunk(&s, buf, len));
}

int torchops_read_trace(struct trace *t, const char *path,
			struct torchops_trace_stats *st, struct error *e)
{
	FILE *fp = fopen(path, "rb");
	char buf[1 << 16];
	struct scan s;
	size_t n;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (!fp) {
		error_set(e, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	scan_init(&s, t, path, st, e);
	while (!ret && (n = fread(buf, 1, sizeof(buf), fp)) > 0)
		ret = scan_chunk(&s, buf, n);
	if (!ret && ferror(fp)) {
		error_set(e, "cannot read '%s': %s", path, strerror(errno));
		ret = -1;
	}
	fclose(fp);
	if (ret) {
		free(s.ev.s);
		hashmap_free(&s.threads);
		return ret;
	}
	return scan_done(&s, 0);
}
