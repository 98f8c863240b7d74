/*
 * The trace as Perfetto's protobuf (perfetto.protos.Trace), encoded with
 * util/pbwire: varints, fixed64 doubles and length-delimited fields. The
 * field numbers are the official ones of Perfetto's
 * protos/perfetto/trace/ (trace.proto, trace_packet.proto,
 * clock_snapshot.proto, track_event/track_descriptor.proto,
 * track_event.proto, process_descriptor.proto, thread_descriptor.proto);
 * tests/cli/perfetto_trace.proto holds the subset the tests decode with.
 *
 * One packet sequence (trusted_packet_sequence_id 1): a clock snapshot
 * (CLOCK_MONOTONIC against BOOTTIME, read together, so that the trace
 * processor can place MONOTONIC timestamps), the track descriptors (a
 * process track per process, a thread track per thread under it, an
 * "on-CPU" track under each thread, a track per async span and per
 * counter under its process), then the track events with
 * timestamp_clock_id 3 (MONOTONIC). A zone is a SLICE_BEGIN/SLICE_END
 * pair on its thread's track, an on-CPU slice likewise on the thread's
 * on-CPU track; the trace processor sorts the packets by time, so a
 * pair is written together and the size cap cuts between events.
 */
#include "profile/trace.h"

#include "util/fileio.h"
#include "util/json_emit.h"
#include "util/pbwire.h"
#include "util/strutil.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* field numbers */
enum {
	TRACE_PACKET = 1,
	PKT_CLOCK_SNAPSHOT = 6, PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10,
	PKT_TRACK_EVENT = 11, PKT_SEQ_FLAGS = 13, PKT_CLOCK_ID = 58,
	PKT_TRACK_DESCRIPTOR = 60,
	SNAP_CLOCKS = 1, SNAP_PRIMARY = 2, CLOCK_ID = 1, CLOCK_TS = 2,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4,
	TD_PARENT = 5, TD_COUNTER = 8,
	PD_PID = 1, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	TE_TYPE = 9, TE_TRACK = 11, TE_CATEGORIES = 22, TE_NAME = 23,
	TE_DOUBLE_COUNTER = 44, TE_CALLSTACK = 55, TE_DEBUG = 4,
	CS_FRAMES = 1, FRAME_FUNCTION = 1,
	DA_NAME = 10, DA_STRING = 6, DA_INT = 4,
};

enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3, COUNTER = 4 };
enum { CLOCK_MONO = 3, CLOCK_BOOT = 6 };
enum { SEQ_CLEARED = 1, SEQ_NEEDS = 2 };

/* a string field: valid UTF-8 (U+FFFD for bad bytes), as protobuf's
 * strings must be; names come from the traced program */
static void f_str(struct strbuf *b, unsigned field, const char *s)
{
	char *clean = json_utf8_dup(s);

	pbwire_bytes(b, field, clean, strlen(clean));
	free(clean);
}

/* uuids: a process 1<<32 | pid; a thread 2<<32 | index; its on-CPU
 * track 3<<32 | index; an async span 4<<32 | event; a counter 5<<32 |
 * its first event; yardstick's own track (the partial marker) 6<<32 */
#define UUID(kind, n) (((uint64_t)(kind) << 32) | (uint64_t)(n))

struct writer {
	const struct trace *t;
	struct strbuf pkt, m1, m2, m3;
	FILE *fp;
	uint64_t bytes;
	struct hashidx counters;	/* counter name -> its track */
};

static void emit(struct writer *w)
{
	struct strbuf out = { 0 };

	pbwire_msg(&out, TRACE_PACKET, &w->pkt);
	fwrite(out.s, 1, out.len, w->fp);
	w->bytes += out.len;
	free(out.s);
}

static void clock_snapshot(struct writer *w)
{
	struct timespec mono, boot;
	uint64_t mono_ns, boot_ns;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	mono_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
	boot_ns = (uint64_t)boot.tv_sec * 1000000000u + (uint64_t)boot.tv_nsec;
	pbwire_varint_field(&w->m2, CLOCK_ID, CLOCK_MONO);
	pbwire_varint_field(&w->m2, CLOCK_TS, mono_ns);
	pbwire_msg(&w->m1, SNAP_CLOCKS, &w->m2);
	pbwire_varint_field(&w->m2, CLOCK_ID, CLOCK_BOOT);
	pbwire_varint_field(&w->m2, CLOCK_TS, boot_ns);
	pbwire_msg(&w->m1, SNAP_CLOCKS, &w->m2);
	pbwire_varint_field(&w->m1, SNAP_PRIMARY, CLOCK_BOOT);
	pbwire_varint_field(&w->pkt, PKT_TIMESTAMP, boot_ns);
	pbwire_msg(&w->pkt, PKT_CLOCK_SNAPSHOT, &w->m1);
	pbwire_varint_field(&w->pkt, PKT_SEQ_ID, 1);
	pbwire_varint_field(&w->pkt, PKT_SEQ_FLAGS, SEQ_CLEARED);
	emit(w);
}

/* a track descriptor packet of m1 (already filled but for the uuid) */
static void descriptor(struct writer *w, uint64_t uuid, uint64_t parent,
		       const char *name)
{
	struct strbuf td = { 0 };

	pbwire_varint_field(&td, TD_UUID, uuid);
	if (parent)
		pbwire_varint_field(&td, TD_PARENT, parent);
	if (name)
		f_str(&td, TD_NAME, name);
	strbuf_put(&td, w->m1.s ? w->m1.s : "", w->m1.len);
	w->m1.len = 0;
	pbwire_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &td);
	pbwire_varint_field(&w->pkt, PKT_SEQ_ID, 1);
	pbwire_varint_field(&w->pkt, PKT_SEQ_FLAGS, SEQ_NEEDS);
	free(td.s);
	emit(w);
}

static const char *thread_name(const struct trace_thread *th, char *buf,
			       size_t n)
{
	if (th->name)
		return th->name;
	snprintf(buf, n, "thread %" PRIu32, th->tid);
	return buf;
}

static void descriptors(struct writer *w, const char *fallback)
{
	const struct trace *t = w->t;
	char nm[64];

	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		if (th->pid != th->tid)
			continue;
		pbwire_varint_field(&w->m2, PD_PID, th->pid);
		f_str(&w->m2, PD_NAME, th->process_name ? th->process_name :
				       th->name ? th->name : fallback);
		pbwire_msg(&w->m1, TD_PROCESS, &w->m2);
		descriptor(w, UUID(1, th->pid), 0, NULL);
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		pbwire_varint_field(&w->m2, THD_PID, th->pid);
		pbwire_varint_field(&w->m2, THD_TID, th->tid);
		f_str(&w->m2, THD_NAME, thread_name(th, nm, sizeof(nm)));
		pbwire_msg(&w->m1, TD_THREAD, &w->m2);
		descriptor(w, UUID(2, i), 0, NULL);
		descriptor(w, UUID(3, i), UUID(2, i), "on-CPU");
	}
}

static void track_event(struct writer *w, uint64_t track,
			int type, const char *cat, const char *name)
{
	pbwire_varint_field(&w->m1, TE_TYPE, (uint64_t)type);
	pbwire_varint_field(&w->m1, TE_TRACK, track);
	if (cat)
		f_str(&w->m1, TE_CATEGORIES, cat);
	if (name)
		f_str(&w->m1, TE_NAME, name);
}

static void packet(struct writer *w, uint64_t ts)
{
	pbwire_varint_field(&w->pkt, PKT_TIMESTAMP, ts);
	pbwire_varint_field(&w->pkt, PKT_CLOCK_ID, CLOCK_MONO);
	pbwire_msg(&w->pkt, PKT_TRACK_EVENT, &w->m1);
	pbwire_varint_field(&w->pkt, PKT_SEQ_ID, 1);
	pbwire_varint_field(&w->pkt, PKT_SEQ_FLAGS, SEQ_NEEDS);
	emit(w);
}

static void annotation_str(struct writer *w, const char *name,
			   const char *v)
{
	f_str(&w->m2, DA_NAME, name);
	f_str(&w->m2, DA_STRING, v);
	pbwire_msg(&w->m1, TE_DEBUG, &w->m2);
}

static void annotation_int(struct writer *w, const char *name, int64_t v)
{
	f_str(&w->m2, DA_NAME, name);
	pbwire_varint_field(&w->m2, DA_INT, (uint64_t)v);
	pbwire_msg(&w->m1, TE_DEBUG, &w->m2);
}

/* a sample's stack "outer;...;leaf" as a Callstack, outermost first */
static void callstack(struct writer *w, const char *stack)
{
	const char *p = stack, *semi;

	while (*p) {
		char *frame;

		semi = strchr(p, ';');
		frame = xstrndup(p, semi ? (size_t)(semi - p) : strlen(p));
		f_str(&w->m3, FRAME_FUNCTION, frame);
		free(frame);
		pbwire_msg(&w->m2, CS_FRAMES, &w->m3);
		p = semi ? semi + 1 : p + strlen(p);
	}
	pbwire_msg(&w->m1, TE_CALLSTACK, &w->m2);
}

/* the track of counter name: its first event's index, or k (a new one) */
static size_t counter_track(struct writer *w, const char *name, size_t k)
{
	uint64_t h = hash_u64((uint64_t)(uintptr_t)name), v;
	size_t pos;

	for (v = hashidx_first(&w->counters, h, &pos); v;
	     v = hashidx_next(&w->counters, h, &pos))
		if (w->t->ev[v - 1].name == name)
			return v - 1;
	hashidx_add(&w->counters, h, k + 1);
	return k;
}

static void event(struct writer *w, size_t k)
{
	const struct trace *t = w->t;
	const struct trace_event *e = &t->ev[k];
	size_t th = trace_thread_at(t, e->tid, e->start);
	size_t c;

	if (th == SIZE_MAX)
		th = 0;		/* every event's thread is known: not reached */

	switch (e->kind) {
	case TRACE_ONCPU:
		track_event(w, UUID(3, th), SLICE_BEGIN, "cpu",
			    "on-CPU");
		/* the wait for a CPU after its wake-up, before this slice */
		if (e->flags & TRACE_AFTER_WAKEUP)
			annotation_int(w, "sched_delay_ns", (int64_t)e->value);
		packet(w, e->start);
		track_event(w, UUID(3, th), SLICE_END, NULL, NULL);
		annotation_str(w, "left", e->flags & TRACE_LEFT_PREEMPTED
			       ? "preempted" : e->flags & TRACE_LEFT_BLOCKED
			       ? "blocked" : "exited");
		packet(w, e->end);
		break;
	case TRACE_ZONE:
		track_event(w, UUID(2, th), SLICE_BEGIN, "zone",
			    e->name);
		if (e->text)
			annotation_str(w, "text", e->text);
		packet(w, e->start);
		track_event(w, UUID(2, th), SLICE_END, NULL, NULL);
		packet(w, e->end);
		break;
	case TRACE_ASYNC:
		descriptor(w, UUID(4, k), UUID(1, e->pid), e->name);
		track_event(w, UUID(4, k), SLICE_BEGIN, "async",
			    e->name);
		packet(w, e->start);
		track_event(w, UUID(4, k), SLICE_END, NULL, NULL);
		packet(w, e->end);
		break;
	case TRACE_INSTANT:
		track_event(w, UUID(2, th), INSTANT, "mark",
			    e->name);
		if (e->text)
			annotation_str(w, "text", e->text);
		packet(w, e->start);
		break;
	case TRACE_COUNTER:
		c = counter_track(w, e->name, k);
		if (c == k) {
			pbwire_bytes(&w->m1, TD_COUNTER, "", 0);
			descriptor(w, UUID(5, k), UUID(1, e->pid), e->name);
		}
		/* no value (NaN, infinite): none drawn, as the JSON's null
		 * (a NaN would take the track's scale with it) */
		if (!isfinite(e->value))
			break;
		pbwire_varint_field(&w->m1, TE_TYPE, COUNTER);
		pbwire_varint_field(&w->m1, TE_TRACK, UUID(5, c));
		pbwire_double(&w->m1, TE_DOUBLE_COUNTER, e->value);
		packet(w, e->start);
		break;
	case TRACE_FAULT: {
		char ip[32];

		snprintf(ip, sizeof(ip), "0x%" PRIx64, e->id);
		track_event(w, UUID(2, th), INSTANT, "fault", e->name);
		annotation_str(w, "ip", ip);
		packet(w, e->start);
		break;
	}
	case TRACE_SAMPLE:
		track_event(w, UUID(2, th), INSTANT, "sample",
			    e->name);
		if (e->text && *e->text)
			callstack(w, e->text);
		packet(w, e->start);
		break;
	}
}

/* A partial trace's marker: an instant at its end on a track of its own,
 * "yardstick", named "partial: stopped by SIGINT", with the reason as
 * the debug annotation yardstick.partial. Written before the events, so
 * that --max-size never cuts it. */
static void partial_marker(struct writer *w)
{
	char name[96];

	snprintf(name, sizeof(name), "partial: %s", w->t->partial);
	descriptor(w, UUID(6, 0), 0, "yardstick");
	track_event(w, UUID(6, 0), INSTANT, "yardstick", name);
	annotation_str(w, "yardstick.partial", w->t->partial);
	packet(w, w->t->last);
}

int trace_write_perfetto(const struct trace *t,
			 const struct trace_write_opts *o, const char *path,
			 struct trace_write_stats *st, struct error *e)
{
	struct writer w = { .t = t };
	struct atomic_file af;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (atomic_open(&af, path, e))
		return -1;
	w.fp = af.fp;
	hashidx_init(&w.counters);
	clock_snapshot(&w);
	descriptors(&w, o->process_name);
	if (t->partial)
		partial_marker(&w);
	for (i = 0; i < t->n; i++) {
		/* an event is a few packets of at most a few KiB */
		if (o->max_bytes && w.bytes + 16384 > o->max_bytes)
			break;
		event(&w, i);
		st->events++;
	}
	st->truncated = t->n - i;
	st->bytes = w.bytes;
	free(w.pkt.s);
	free(w.m1.s);
	free(w.m2.s);
	free(w.m3.s);
	hashidx_free(&w.counters);
	if (ferror(af.fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}
