/*
 * Reservoir sampling of latency pairs (see sample.h). The merge draws
 * from the inputs as a multivariate hypergeometric: each output pair
 * comes from input t with probability (pairs of t not yet drawn) / (pairs
 * of all not yet drawn), and is the next pair of t's shuffled reservoir —
 * a uniform sample of t's pairs in uniform order — so the whole is a
 * uniform sample without replacement of everything offered.
 */
#include "load/sample.h"

#include <assert.h>
#include <stdlib.h>

#include "util/strutil.h"

void sample_init(struct sample *s, size_t cap, uint64_t seed)
{
	assert(cap >= 1);
	s->alloc = cap < 1024 ? cap : 1024;
	s->a = xmalloc(s->alloc * sizeof(*s->a));
	s->b = xmalloc(s->alloc * sizeof(*s->b));
	s->n = 0;
	s->cap = cap;
	s->seen = 0;
	rng_seed(&s->rng, seed);
}

/* Keep the pair as the n-th (n < cap). */
static void push(struct sample *s, int64_t a, int64_t b)
{
	if (s->n == s->alloc) {
		size_t room = s->alloc * 2 < s->cap ? s->alloc * 2 : s->cap;

		s->a = xrealloc(s->a, room * sizeof(*s->a));
		s->b = xrealloc(s->b, room * sizeof(*s->b));
		s->alloc = room;
	}
	s->a[s->n] = a;
	s->b[s->n++] = b;
}

void sample_free(struct sample *s)
{
	free(s->a);
	free(s->b);
	s->a = s->b = NULL;
	s->n = s->cap = s->alloc = 0;
}

void sample_add(struct sample *s, int64_t a, int64_t b)
{
	uint64_t j;

	s->seen++;
	if (s->n < s->cap) {
		push(s, a, b);
		return;
	}
	j = rng_below(&s->rng, s->seen);
	if (j < s->cap) {
		s->a[j] = a;
		s->b[j] = b;
	}
}

static void shuffle(struct sample *s)
{
	for (size_t i = s->n; i > 1; i--) {
		size_t j = (size_t)rng_below(&s->rng, i);
		int64_t ta = s->a[i - 1], tb = s->b[i - 1];

		s->a[i - 1] = s->a[j];
		s->b[i - 1] = s->b[j];
		s->a[j] = ta;
		s->b[j] = tb;
	}
}

void sample_merge(struct sample *out, struct sample *const *in, size_t k,
		  size_t cap, uint64_t seed)
{
	uint64_t total = 0, *left = xcalloc(k ? k : 1, sizeof(uint64_t));
	size_t *taken = xcalloc(k ? k : 1, sizeof(size_t));

	sample_init(out, cap, seed);
	for (size_t t = 0; t < k; t++) {
		shuffle(in[t]);
		left[t] = in[t]->seen;
		total += in[t]->seen;
	}
	out->seen = total;
	while (out->n < cap && total > 0) {
		uint64_t r = rng_below(&out->rng, total);
		size_t t = 0;

		while (r >= left[t])
			r -= left[t++];
		assert(taken[t] < in[t]->n);
		push(out, in[t]->a[taken[t]], in[t]->b[taken[t]]);
		taken[t]++;
		left[t]--;
		total--;
	}
	free(left);
	free(taken);
}
