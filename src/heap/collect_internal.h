/*
 * The shared state of the heap collector's files (collect.c starts the
 * program and waits; collect_reader.c is the thread that takes in the
 * agent's records while it runs, and what the slots still hold after;
 * collect_rss.c samples the RSS and watches the processes of the tree;
 * collect_agent.c finds the agent and tells whether a program can take
 * it). Private to the heap module.
 */
#ifndef YS_HEAP_COLLECT_INTERNAL_H
#define YS_HEAP_COLLECT_INTERNAL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "heap/collect.h"

struct reader {
	struct heap_trace *t;
	int sock;
	pid_t pid;
	double t0, rss_interval;
	long page;
	_Atomic int done;	/* 1: the program was reaped */
	struct heap_header *h;	/* the segment (what is in it: protocol.h) */
	uint64_t handed[HEAP_SLOTS];	/* the slot's count when last looked */
	bool waiting[HEAP_SLOTS];	/* chunks handed over after a gap */
	bool look_again;	/* one of waiting[] was set */
	uint64_t handed_all;	/* the header's count when last looked */
	uint64_t next_seq[HEAP_SLOTS];	/* the chunk expected next */
	int listener;		/* where the agent connects again */
	int status, statm;	/* /proc/PID/status and statm, read again
				 * and again (sample_rss) */
	unsigned long nsamples;	/* of the RSS */
	int shm;		/* the segment, sent on each connection */
	struct conn {
		int fd;
		char *buf;
		size_t len, cap;
	} *conns;		/* oldest first: [0] the socket the program
				 * inherited, then the connections of the
				 * processes of the tree */
	int nconns;
	size_t capconns;
	struct pollfd *polls;
	size_t cappolls;
	/* the processes of the tree seen alive (watch_procs) */
	struct watch {
		pid_t pid;
		unsigned long long start;	/* its start time (stat) */
	} *watch;
	size_t nwatch, capwatch;
	uint32_t watched;	/* images looked at */
	unsigned long nwatches;	/* heap_watch_procs calls */
	/* a replay while the program runs (t->live; collect_live.c): how
	 * much of the chunk each slot is filling was taken already (bytes
	 * peek_off of chunk peek_seq), the clock then known (rate: ticks a
	 * second, 0: not yet), a free's merge key's offset (analyze.c) and
	 * the margin for a record stamped but not yet written, in ticks */
	uint64_t peek_seq[HEAP_SLOTS];
	size_t peek_off[HEAP_SLOTS];
	double rate;
	uint64_t early, margin;
	uint64_t ts0;		/* t->ts0, the clock's reading at the start */
	bool tsc;		/* the clock is the TSC */
	uint64_t *peek;		/* a chunk's room: HEAP_SLOT_BYTES */
};


/* The reader thread (arg: its struct reader): chunks, messages and
 * connections until the program was reaped (done). */
void *heap_reader_main(void *arg);
/* While the program runs: take what the slots hold that will not change
 * and replay what no record still to come can precede (t->live). */
void heap_live_step(struct reader *r);
/*
 * The two ways records come in, each from memory the program can write
 * (collect_reader.c; tests/fuzz/fuzz_heap_stream.c drives both on a
 * segment and a socket stream of its own): the chunks handed over
 * through the segment's rings since the last look (whether any were),
 * and the messages at the start of c->buf (at the end, what is left
 * too), taken out of it.
 */
bool heap_take_handed(struct reader *r);
void heap_parse_messages(struct reader *r, struct conn *c, bool end);
/* Slot i's records (bytes) into its stream (collect_reader.c). */
void heap_stream_add(struct heap_trace *t, uint32_t i, const void *data,
		     size_t bytes);

/* After the end: the records still in the shared slots, taken. */
void heap_take_remainders(struct reader *r, struct heap_header *h);
/* One sample of the program's RSS (and now and then its peak). */
void heap_sample_rss(struct reader *r);
/* Look at the processes of the tree: the new ones watched, the ended
 * ones counted. */
void heap_watch_procs(struct reader *r);

#endif
