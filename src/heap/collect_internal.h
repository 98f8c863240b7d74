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
};


/* The reader thread (arg: its struct reader): chunks, messages and
 * connections until the program was reaped (done). */
void *heap_reader_main(void *arg);
/* After the end: the records still in the shared slots, taken. */
void heap_take_remainders(struct reader *r, struct heap_header *h);
/* One sample of the program's RSS (and now and then its peak). */
void heap_sample_rss(struct reader *r);
/* Look at the processes of the tree: the new ones watched, the ended
 * ones counted. */
void heap_watch_procs(struct reader *r);

#endif
