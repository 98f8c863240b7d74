/*
 * The replay's live-block table (src/heap/analyze_table.h): random
 * inserts and removals against a reference (a sorted array of the keys
 * live), through doublings in place (tables past 2 MiB) and by a new
 * table (small ones); keys chosen to pile up in the last homes, so that
 * runs go into the slack and past it (the table then doubles by a
 * rebuild). After each step every live key is found with its value and
 * no removed key is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "heap/analyze_table.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct ref {
	uint64_t *key;
	uint32_t *site;
	size_t n, cap;
};

static void ref_add(struct ref *r, uint64_t key, uint32_t site)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->key = realloc(r->key, r->cap * sizeof(*r->key));
		r->site = realloc(r->site, r->cap * sizeof(*r->site));
	}
	r->key[r->n] = key;
	r->site[r->n++] = site;
}

static void ref_take(struct ref *r, size_t i)
{
	r->key[i] = r->key[--r->n];
	r->site[i] = r->site[r->n];
}

/* key k of table l whose home is in its last `last` (by search: mix is
 * not invertible cheaply, keys are tried in turn) */
static uint64_t key_near_end(uint64_t *s, const struct live *l, size_t last)
{
	for (;;) {
		uint64_t k = rng(s) | 1;

		if ((live_mix(l, k) & l->mask) >= l->mask + 1 - last)
			return k;
	}
}

static void put(struct live *l, uint64_t key, uint32_t site)
{
	struct block *b = live_find(l, key);

	while (!b) {
		replay_blocks_grow(l);
		b = live_find(l, key);
	}
	assert_int_equal(b->ptr, 0);
	b->ptr = key;
	b->site = site;
	b->size = (uint64_t)site * 3;
	l->n++;
	if (l->n * 2 > l->mask)
		replay_blocks_grow(l);
}

static void check_all(struct live *l, const struct ref *r)
{
	size_t seen = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct block *b = live_find(l, r->key[i]);

		assert_non_null(b);
		assert_int_equal(b->ptr, r->key[i]);
		assert_int_equal(b->site, r->site[i]);
		assert_int_equal(b->size, (uint64_t)r->site[i] * 3);
	}
	for (size_t i = 0; i < live_cells(l); i++)
		seen += l->b[i].ptr != 0;
	assert_int_equal(seen, r->n);
	assert_int_equal(l->n, r->n);
}

/* steps events on a table first of `first` homes: inserts (a share of
 * them of keys homed in the last cells), removals of live keys, look-ups
 * of removed ones; every check_every steps all of it checked */
static void run(uint64_t seed, size_t first, int steps, int near_end_pct,
		int check_every)
{
	struct live l = { 0 };
	struct ref r = { 0 };
	uint64_t s = seed;

	l.first = first;
	replay_blocks_grow(&l);
	for (int i = 0; i < steps; i++) {
		uint64_t x = rng(&s) % 100;

		if (x < 60 || r.n == 0) {
			uint64_t k = (int)(rng(&s) % 100) < near_end_pct
					     ? key_near_end(&s, &l, 8)
					     : rng(&s) | 1;

			if (live_find(&l, k) && live_find(&l, k)->ptr)
				continue;	/* drawn twice */
			put(&l, k, (uint32_t)i);
			ref_add(&r, k, (uint32_t)i);
		} else {
			size_t j = rng(&s) % r.n;
			uint64_t k = r.key[j];
			struct block *b = live_find(&l, k);

			assert_non_null(b);
			assert_int_equal(b->ptr, k);
			live_remove(&l, b);
			ref_take(&r, j);
			b = live_find(&l, k);
			assert_true(!b || b->ptr == 0);
		}
		if (check_every && i % check_every == 0)
			check_all(&l, &r);
	}
	check_all(&l, &r);
	replay_blocks_free(l.b, l.bytes);
	free(r.key);
	free(r.site);
}

/* small tables (calloc'd, doubled by a new table), checked often */
static void test_small(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++)
		run(seed * 0x9e3779b97f4a7c15u, 16, 20000, 0, 97);
}

/* past 2 MiB (65536 homes and up: doubled in place), to 1 M blocks */
static void test_in_place(void **state)
{
	(void)state;
	run(7, 1 << 16, 2500000, 0, 500000);
}

/* a third of the keys homed in the last 8 homes: runs into the slack and
 * past it, in small tables and in place */
static void test_runs_past_the_end(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++)
		run(seed + 100, 64, 30000, 33, 1009);
	run(11, 1 << 16, 200000, 2, 50000);
}

/*
 * Addresses a traced program chose knowing the mix without a key: 1100
 * whose mix has its low 48 bits all ones, so that in any table up to 2^48
 * homes all are homed in the last one and their run goes past the slack
 * (1024 cells). Unkeyed, the table doubled without end (in place, then
 * by new tables: 21 TB of address space after 15 s, never done); keyed
 * (hash_secret), they are homed anywhere. In a child, which an alarm
 * ends if it does not: the table must end at its first size.
 */
static uint64_t mix_unkeyed(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdu;
	return k ^ (k >> 33);
}

static uint64_t unmix(uint64_t y)
{
	y ^= y >> 33;
	y *= 0x4f74430c22a54005u;	/* 0xff51afd7ed558ccd's inverse */
	return y ^ (y >> 33);
}

static void chosen_addresses(void)
{
	struct live l = { 0 };
	const uint64_t low = (UINT64_C(1) << 48) - 1;

	alarm(60);
	replay_blocks_grow(&l);
	for (uint64_t j = 1; j <= 1100; j++) {
		struct block *b;
		uint64_t k = unmix(j << 48 | low);

		if (mix_unkeyed(k) != (j << 48 | low))
			_exit(3);	/* not the mix's inverse */
		while (!(b = live_find(&l, k)))
			replay_blocks_grow(&l);
		b->ptr = k;
		l.n++;
	}
	_exit(l.mask + 1 == 1 << 16 ? 0 : 4);
}

static void test_chosen_addresses(void **state)
{
	pid_t pid = fork();
	int status = 0;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		chosen_addresses();
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("the table never stopped doubling (signal %d)",
			 WTERMSIG(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_runs_past_the_end),
		cmocka_unit_test(test_chosen_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
