/*
 * One line of events per task, for the sampler on a running process
 * (sampler_attach.c): the records of a task that two of our events
 * follow are kept from one of them only.
 *
 * Why a task can be followed twice: the attach opens an inheriting event
 * per thread (and per process of the tree), then lists the threads (the
 * children) again to find the ones started meanwhile. A task started by a
 * thread whose events were open already inherits them, and is listed
 * too: it then has its inherited events and the ones opened on it, and
 * every sample, switch and fork of it came twice. Nothing the kernel
 * shows before the open says which new task inherits (its FORK record
 * comes after it is in /proc), so the records tell: every record carries
 * PERF_SAMPLE_IDENTIFIER, the id of the event we opened (an inherited
 * event reports its parent's), and the events opened on one task, on all
 * CPUs, are one family. A task's records are kept from one family at a
 * time: the first seen for it (inherited: from the task's start), until
 * a record of the family opened on the task itself comes, which is kept
 * from then on (an inherited family may lack a CPU: the task started
 * while its parent's events were being opened, one CPU after another).
 * A family is partial when its thread ended before its events on every
 * CPU were open (they are enabled all the same: its children inherited
 * them): a task that keeps a partial family's records switches to the
 * first whole family that writes one. A task's EXIT frees its tid for a
 * task that reuses it.
 */
#ifndef YS_PROFILE_FAMFILTER_H
#define YS_PROFILE_FAMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

struct famfilter_task {
	uint32_t tid;
	uint32_t fam;		/* 0: none yet; FAMFILTER_EXITED: ended */
	bool own;		/* fam is the family opened on tid */
	bool partial;		/* fam is partial */
};

/* An event of ours: its id, its family, the task it was opened on. */
struct famfilter_event {
	uint64_t id;
	uint32_t fam, owner;
	bool partial;		/* its family lacks a CPU */
};

struct famfilter {
	struct famfilter_event *ev;	/* sorted by id by famfilter_seal */
	size_t n, cap;
	struct famfilter_task *tasks;
	size_t ntasks, captasks;
	struct hashidx ix;	/* tasks + 1 by hash_u64(tid) */
	uint64_t dropped;	/* records dropped: a second family's */
};

void famfilter_init(struct famfilter *f);
void famfilter_free(struct famfilter *f);
/* Event id (PERF_EVENT_IOC_ID) of family fam (not 0), opened on task
 * owner. */
void famfilter_add(struct famfilter *f, uint64_t id, uint32_t fam,
		   uint32_t owner);
/* Family fam, whose events were the last added, is partial (above). */
void famfilter_partial(struct famfilter *f, uint32_t fam);
/* Every event added: ready for famfilter_keep. */
void famfilter_seal(struct famfilter *f);
/*
 * Whether a record of task tid written by event id (its identifier) is
 * kept: an id of no family of ours (another event's) always is; else
 * only those of the task's family now (above) are: the first family
 * seen for it, until its own comes, or a whole one when it is partial.
 * With exit (the task's EXIT record), the task ends: a second EXIT of it
 * is dropped, and its tid is free for the next task to take it.
 */
bool famfilter_keep(struct famfilter *f, uint32_t tid, uint64_t id,
		    bool exit);

#endif
