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

/*
 * One address's ids, for a caller that keeps them itself and puts a chain
 * together from them (the heap's sites: per node of their frame trie,
 * heap/sitepath.h): stackframes_addr looks the address up as
 * stackframes_ids does (its frames interned the first time) and returns
 * a handle to it (>= 1, valid as long as c); stackframes_addr_get tells
 * what stackframes_ids would copy for it. ids is valid until the next
 * look-up. A stand-in (shown once for a run of it) and a thread's origin
 * (the end of a chain whose first address it is) are left to
 * stackframes_ids: such a chain is not the sum of its addresses.
 */
struct stackframes_addr {
	const uint32_t *ids;	/* leaf first */
	uint32_t n, unknown;	/* ids, and "[unknown]" frames among them */
	bool standin, origin;
};

uint32_t stackframes_addr(struct stackframes *c, uint32_t pid, uint64_t addr,
			  bool is_return);
void stackframes_addr_get(const struct stackframes *c, uint32_t handle,
			  struct stackframes_addr *out);

#endif
