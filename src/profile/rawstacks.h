/*
 * Raw stacks: the address chains of samples, interned per process while
 * the program runs (a million samples usually hold a few thousand
 * distinct chains), and turned into symbolized profile stacks afterwards
 * (an exec'ed image's under symtab_retire's id, with its old mappings).
 */
#ifndef YS_PROFILE_RAWSTACKS_H
#define YS_PROFILE_RAWSTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "profile/symbolize.h"

struct rawstacks;

struct rawstacks *rawstacks_new(void);
void rawstacks_free(struct rawstacks *r);

/* One sample of pid with user stack ips[0..n-1] (leaf first) and period
 * (nanoseconds for a clock event). */
void rawstacks_add(struct rawstacks *r, uint32_t pid, const uint64_t *ips,
		   size_t n, uint64_t period);
/* The same, weighing as samples samples (off-CPU time in sampling
 * intervals). */
void rawstacks_add_n(struct rawstacks *r, uint32_t pid, const uint64_t *ips,
		     size_t n, uint64_t samples, uint64_t period);

/* The stacks of pid are to's from now on (symtab_retire's id). */
void rawstacks_rename(struct rawstacks *r, uint32_t pid, uint32_t to);

/*
 * Symbolize the stacks of pid (every pid when all) with s and add them to
 * p, whose sample types are {samples, count} and {cpu, nanoseconds}; the
 * flushed stacks are dropped. Counts frames and unknown frames into
 * p->total_frames and p->unknown_frames.
 */
void rawstacks_flush(struct rawstacks *r, uint32_t pid, int all,
		     struct symtab *s, struct profile *p);

/*
 * Address chains into a profile's frame ids, for rawstacks_flush and the
 * heap's sites: each (pid, address) is looked up in the symtab (at most
 * max_inline frames) and interned into the profile once per stackframes;
 * later stacks through it copy its ids. Neither s nor p may change
 * meanwhile except through stackframes_ids.
 */
struct stackframes;

struct stackframes *stackframes_new(struct symtab *s, struct profile *p,
				    size_t max_inline);
void stackframes_free(struct stackframes *c);

/* The frame ids of ips[0..n-1] (ips[0] the sampled IP unless all are
 * return addresses), leaf first, at most max into ids; adds weight per
 * frame to p->total_frames (and p->unknown_frames for the unknown ones).
 * A stack without frames is one "[unknown]" frame. Returns how many. */
size_t stackframes_ids(struct stackframes *c, uint32_t pid,
		       const uint64_t *ips, size_t n, bool all_return,
		       int64_t weight, uint32_t *ids, size_t max);

#endif
