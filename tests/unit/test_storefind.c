/*
 * Unit tests of store_find (src/store/store_find.c): the newest result of
 * a kind from one machine, as `roofline` finds this machine's ceilings —
 * never another kind's, never another machine's that shares its hostname
 * (another CPU, core count or memory), the newest of several, none when
 * none matches, the candidate filter obeyed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/strutil.h"

static char tmpdir[] = "/tmp/ys-test-storefind-XXXXXX";

static void set_machine(struct machine *m, const char *host, const char *cpu,
			int cores, unsigned long long mem)
{
	m->hostname = host ? xstrdup(host) : NULL;
	m->cpu = cpu ? xstrdup(cpu) : NULL;
	m->cores = cores;
	m->memory_bytes = mem;
}

/* Save a result of kind with one benchmark name carrying
 * flops_per_second = v, from the machine given; its id. */
static long long save(struct store *s, const char *kind, const char *name,
		      const char *host, const char *cpu, int cores,
		      unsigned long long mem, double v)
{
	struct result r;
	struct error e;
	long long id;

	result_init(&r, kind);
	set_machine(&r.machine, host, cpu, cores, mem);
	metric_push(benchmark_metric(result_add_benchmark(&r, name, NULL),
				     "flops_per_second", "flop/s"), v);
	assert_int_equal(store_save(s, &r, &id, &e), 0);
	result_free(&r);
	return id;
}

static bool fp64_only(const char *name)
{
	return !strncmp(name, "fp64 ", 5);
}

static void test_find(void **state)
{
	char *path = xasprintf("%s/s.db", tmpdir);
	struct machine me = { 0 };
	struct store_find_query q = { "roofline", "flops_per_second", &me,
				      NULL };
	struct store *s;
	struct result r;
	struct error e;
	long long id = 0, want;

	(void)state;
	set_machine(&me, "host", "cpu A", 8, 1ULL << 34);
	assert_int_equal(store_open(&s, path, STORE_CREATE, &e), 0);
	/* nothing yet */
	memset(&r, 0, sizeof(r));
	assert_int_equal(store_find(s, &q, &r, &id, &e), 1);
	result_free(&r);

	want = save(s, "roofline", "fp64 scalar 1 thread", "host", "cpu A",
		    8, 1ULL << 34, 1);
	save(s, "roofline", "fp64 scalar 1 thread", "host", "cpu A", 8,
	     1ULL << 33, 2);				/* other memory */
	save(s, "roofline", "fp64 scalar 1 thread", "host", "cpu B", 8,
	     1ULL << 34, 3);				/* other cpu */
	save(s, "roofline", "fp64 scalar 1 thread", "host", "cpu A", 4,
	     1ULL << 34, 4);				/* other cores */
	save(s, "roofline", "fp64 scalar 1 thread", "other", "cpu A", 8,
	     1ULL << 34, 5);				/* other host */
	save(s, "bench", "fp64 scalar 1 thread", "host", "cpu A", 8,
	     1ULL << 34, 6);				/* other kind */
	assert_int_equal(store_find(s, &q, &r, &id, &e), 0);
	assert_int_equal(id, want);
	assert_string_equal(r.kind, "roofline");
	assert_true(r.benchmarks[0].metrics[0].values[0] == 1);
	result_free(&r);

	/* the newest of this machine's */
	want = save(s, "roofline", "fp32 scalar 1 thread", "host", "cpu A",
		    8, 1ULL << 34, 7);
	save(s, "run", "x", "host", "cpu A", 8, 1ULL << 34, 8);
	assert_int_equal(store_find(s, &q, &r, &id, &e), 0);
	assert_int_equal(id, want);
	result_free(&r);

	/* the filter: the newest one's benchmark is not a candidate */
	q.candidate = fp64_only;
	assert_int_equal(store_find(s, &q, &r, &id, &e), 0);
	assert_true(r.benchmarks[0].metrics[0].values[0] == 1);
	result_free(&r);

	/* no such kind */
	q.kind = "load";
	assert_int_equal(store_find(s, &q, &r, &id, &e), 1);
	result_free(&r);
	store_close(s);
	free(me.hostname);
	free(me.cpu);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int ret = system(cmd);

	(void)state;
	free(cmd);
	return ret;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
