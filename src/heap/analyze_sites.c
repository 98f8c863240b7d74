/*
 * The sites of a heap trace's replay (analyze_replay.h): one per distinct
 * stack, from the trace's STACK records (and the Python codes of its
 * PYCODE records), indexed by the stack's hash.
 */
#include <string.h>

#include "heap/analyze_replay.h"
#include "util/hugemem.h"
#include "util/strutil.h"

/*
 * The site of a stack hash: an index of site + 1 by hash_u64 of the stack
 * hash, which is one-to-one, so the index's hash is the key. A stack hash
 * of 0 is read as 1, as it always was (0 was the empty mark of the
 * private table this replaced).
 */
static uint32_t site_lookup(const struct hashidx *x, uint64_t k)
{
	size_t pos;

	return (uint32_t)hashidx_first(x, hash_u64(k ? k : 1), &pos);
}

static void site_index_add(struct hashidx *x, uint64_t k, uint32_t site)
{
	hashidx_add(x, hash_u64(k ? k : 1), (uint64_t)site + 1);
}

/* A new site of hash, without frames. */
static uint32_t add_site(struct heap_report *r, size_t *cap, uint64_t hash)
{
	struct heap_site *s;
	size_t was = *cap;

	r->sites = xgrow(r->sites, cap, r->nsites + 1, sizeof(*r->sites));
	/* each event reads its site's counts: at random, once there are
	 * more sites than the caches hold (util/hugemem.h) */
	if (*cap != was)
		huge_advise(r->sites, *cap * sizeof(*r->sites));
	s = &r->sites[r->nsites];
	memset(s, 0, sizeof(*s));
	s->hash = hash;
	/* a site without its STACK record: after all those with one, in
	 * the order the merge met them */
	s->order = HEAP_ORDER_LOST | r->nsites;
	return (uint32_t)r->nsites++;
}

/*
 * The stack of the STACK or STACK_TAIL record w (whole), found at order
 * (heap_order: its slot and place in the slot's stream), interned in
 * r->stacks into *out: every one of a slot's stack records, in the
 * stream's order, whether its stack is known or not, so that the slot's
 * last stack is the base of a STACK_TAIL after it (protocol.h, stack
 * tails). false: a STACK_TAIL whose base is not the slot's last stack
 * (its chunk before was lost, or what the program wrote): damaged,
 * counted, and no STACK_TAIL on it is rebuilt either.
 */
static bool stack_intern(const uint64_t *w, uint64_t order,
			 struct replay *p, struct stack_ref *out)
{
	struct heap_report *r = p->r;
	uint32_t slot = (uint32_t)(order >> 48);
	uint32_t depth = HEAP_STACK_DEPTH(w[0]), npy = HEAP_STACK_PY(w[0]);

	if (rec_type(w[0]) == HEAP_REC_STACK) {
		*out = stackstore_intern(r->stacks, slot, &w[3], depth,
					 &w[3 + depth], npy);
	} else if (!w[3] || w[3] != p->slot_stack[slot] ||
		   !stackstore_intern_tail(r->stacks, slot,
					   HEAP_TAIL_KEEP(w[2]), &w[4], depth,
					   HEAP_TAIL_KEEP_PY(w[2]),
					   &w[4 + depth], npy, out)) {
		r->stacks_damaged++;
		p->slot_stack[slot] = 0;
		return false;
	}
	p->slot_stack[slot] = w[1];
	return true;
}

/*
 * The STACK or STACK_TAIL record w (whole), found at order: a site,
 * unless it is one, its frames interned in r->stacks (the record is not
 * kept). A site the merge made without frames (its record had not come
 * yet: its order has HEAP_ORDER_LOST) takes them; of two records of one
 * stack the site keeps the first in that order, whichever came first. A
 * damaged stack (stack_intern) makes no site: the merge makes one
 * without frames, as of a lost record.
 */
static void stack_site(const uint64_t *w, uint64_t order, struct replay *p)
{
	struct heap_report *r = p->r;
	struct stack_ref ref;
	uint32_t site;
	struct heap_site *s;

	if (!stack_intern(w, order, p, &ref))
		return;
	site = site_lookup(&p->x, w[1]);
	if (site && !(r->sites[site - 1].order & HEAP_ORDER_LOST) &&
	    r->sites[site - 1].order <= order)
		return;
	if (!site) {
		site = add_site(r, &p->capsites, w[1]) + 1;
		site_index_add(&p->x, w[1], site - 1);
	}
	s = &r->sites[site - 1];
	s->stack = ref;
	s->gen = HEAP_STACK_GEN(w[0]);
	s->unloads = HEAP_STACK_UNLOADS(w[2]);
	s->order = order;
}

/* The PYCODE record w, whole: a Python code's names. */
static void pycode_add(const uint64_t *w, struct heap_report *r, size_t *cap)
{
	size_t words = (size_t)heap_rec_words(w[0]);
	uint64_t nf = w[2] >> 32, nn = w[2] & 0xffffffffu;
	struct heap_pycode *c;

	/* the text within the record, as the agent wrote it, or nothing */
	if (nf > HEAP_PY_TEXT_MAX || nn > HEAP_PY_TEXT_MAX ||
	    3 + (nf + nn + 7) / 8 > words)
		return;
	r->pycodes = xgrow(r->pycodes, cap, r->npycodes + 1,
			   sizeof(*r->pycodes));
	c = &r->pycodes[r->npycodes++];
	c->gen = HEAP_STACK_GEN(w[0]);
	c->id = (uint32_t)w[1];
	c->firstlineno = (int32_t)(uint32_t)(w[1] >> 32);
	c->file = (const char *)&w[3];
	c->file_len = (uint32_t)nf;
	c->name = c->file + nf;
	c->name_len = (uint32_t)nn;
}

/* A record found by the collector or after it: a stack or code. */
void replay_index_record(const uint64_t *w, uint64_t order, struct replay *p,
			 size_t *capcodes)
{
	if (rec_type(w[0]) == HEAP_REC_PYCODE)
		pycode_add(w, p->r, capcodes);
	else
		stack_site(w, order, p);
}

/* Every stack of every stream becomes a site: those the collector found
 * (collect.h), then those after where it stopped. */
void replay_find_sites(const struct heap_trace *t, struct replay *p,
		       size_t *capcodes)
{
	for (int i = 0; i < HEAP_SLOTS; i++) {
		const struct heap_stream *s = &t->streams[i];

		for (size_t k = 0; k < s->nstacks; k++)
			replay_index_record(&s->words[s->stacks[k]],
					    heap_order(i, s->base +
						       s->stacks[k]),
					    p, capcodes);
		for (size_t j = s->scanned; j < s->n;
		     j += replay_rec_len(s->words[j])) {
			uint32_t type = rec_type(s->words[j]);

			if (!heap_rec_stack(type) && type != HEAP_REC_PYCODE)
				continue;
			if (j + replay_rec_len(s->words[j]) > s->n)
				break;
			replay_index_record(&s->words[j],
					    heap_order(i, s->base + j), p,
					    capcodes);
		}
	}
}

uint32_t replay_site_of(struct heap_report *r, struct hashidx *x,
			size_t *cap, uint64_t hash)
{
	uint32_t v = site_lookup(x, hash), site;

	if (v)
		return v - 1;
	/* a stack whose record was lost: a site without frames */
	site = add_site(r, cap, hash);
	site_index_add(x, hash, site);
	return site;
}


/* What r's stacks take: the store's bytes, and the stacks it keeps for
 * the sites (those whose record came: one per distinct stack). */
void replay_note_stacks(struct heap_report *r)
{
	r->stack_bytes = stackstore_bytes(r->stacks);
	r->nstacks = 0;
	for (size_t i = 0; i < r->nsites; i++)
		r->nstacks += !(r->sites[i].order & HEAP_ORDER_LOST);
}
