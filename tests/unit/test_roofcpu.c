/* Unit tests of src/roofline's machine side: cpuid decoding (registers
 * made up), the caches from a made-up sysfs tree, the clock from the
 * model name and cpufreq, the plan of ceilings, and the pool running
 * real kernels (values only checked to be positive: no timing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roofline/ceilings.h"
#include "roofline/cpu.h"
#include "roofline/measure.h"
#include "util/strutil.h"

/* ---- cpuid -------------------------------------------------------------- */

#define L1_SSE2 (1u << 26)			/* edx */
#define L1_FMA (1u << 12)			/* ecx */
#define L1_OSXSAVE (1u << 27)
#define L1_AVX (1u << 28)
#define L7_AVX2 (1u << 5)			/* ebx */
#define L7_AVX512F (1u << 16)

/* An AMD EPYC of family 0x19 model 0x11 (Zen 4) with everything on. */
static struct roof_cpuid_raw zen4(void)
{
	struct roof_cpuid_raw r;

	memset(&r, 0, sizeof(r));
	r.max_leaf = 0x10;
	memcpy(&r.vendor[0], "Auth", 4);
	memcpy(&r.vendor[1], "enti", 4);
	memcpy(&r.vendor[2], "cAMD", 4);
	/* family 0xf + extended 0xa, model 1 + extended 1 << 4 */
	r.l1_eax = 0xa << 20 | 1 << 16 | 0xf << 8 | 1 << 4 | 1;
	r.l1_ecx = L1_FMA | L1_OSXSAVE | L1_AVX;
	r.l1_edx = L1_SSE2;
	r.l7_ebx = L7_AVX2 | L7_AVX512F;
	r.xcr0 = 0xe7;
	memcpy(r.brand, "AMD EPYC 9654 96-Core Processor", 32);
	return r;
}

static void test_decode_all(void **state)
{
	struct roof_cpuid_raw r = zen4();
	struct roof_cpu c;

	roof_cpu_decode(&r, &c);
	assert_string_equal(c.vendor, "AuthenticAMD");
	assert_string_equal(c.brand, "AMD EPYC 9654 96-Core Processor");
	assert_int_equal(c.family, 0x19);
	assert_int_equal(c.model, 0x11);
	for (int i = 0; i < ROOF_NISA; i++)
		assert_true(c.has[i]);
	assert_string_equal(c.note, "");
}

/* The CPU has AVX-512 but the OS does not save the ZMM state: no
 * avx512; nor AVX without the YMM state; nor anything of XCR0 without
 * OSXSAVE (XGETBV would fault: its value means nothing). */
static void test_decode_os_state(void **state)
{
	struct roof_cpuid_raw r = zen4();
	struct roof_cpu c;

	r.xcr0 = 0x7;
	roof_cpu_decode(&r, &c);
	assert_true(c.has[ROOF_ISA_AVX2_FMA]);
	assert_false(c.has[ROOF_ISA_AVX512]);
	assert_non_null(strstr(c.note, "avx512"));
	assert_non_null(strstr(c.note, "XCR0 0x7"));

	r.xcr0 = 0xe3;		/* AVX-512 bits without the AVX bit */
	roof_cpu_decode(&r, &c);
	assert_true(c.has[ROOF_ISA_SSE2]);
	assert_false(c.has[ROOF_ISA_AVX2_FMA]);
	assert_false(c.has[ROOF_ISA_AVX512]);
	assert_non_null(strstr(c.note, "YMM"));

	r = zen4();
	r.l1_ecx &= ~L1_OSXSAVE;
	roof_cpu_decode(&r, &c);
	assert_true(c.has[ROOF_ISA_SCALAR]);
	assert_false(c.has[ROOF_ISA_AVX2_FMA]);
	assert_false(c.has[ROOF_ISA_AVX512]);
}

/* Each feature bit is needed: no FMA (Sandy Bridge-like AVX only), no
 * AVX2, a leaf 7 beyond max_leaf (its bits are not to be believed). */
static void test_decode_features(void **state)
{
	struct roof_cpuid_raw r = zen4();
	struct roof_cpu c;

	r.l1_ecx &= ~L1_FMA;
	roof_cpu_decode(&r, &c);
	assert_false(c.has[ROOF_ISA_AVX2_FMA]);
	assert_false(c.has[ROOF_ISA_AVX512]);

	r = zen4();
	r.l7_ebx = L7_AVX512F;
	roof_cpu_decode(&r, &c);
	assert_false(c.has[ROOF_ISA_AVX2_FMA]);

	r = zen4();
	r.max_leaf = 6;
	roof_cpu_decode(&r, &c);
	assert_true(c.has[ROOF_ISA_SSE2]);
	assert_false(c.has[ROOF_ISA_AVX2_FMA]);
	assert_false(c.has[ROOF_ISA_AVX512]);

	r = zen4();
	r.l1_edx = 0;
	roof_cpu_decode(&r, &c);
	assert_false(c.has[ROOF_ISA_SCALAR]);
	assert_false(c.has[ROOF_ISA_SSE2]);
}

/* Intel's family 6 takes the extended model: 0x000906ea is family 6,
 * model 0x9e (Coffee Lake). Bytes that are not printable in the brand
 * become '?'. */
static void test_decode_intel(void **state)
{
	struct roof_cpuid_raw r = zen4();
	struct roof_cpu c;

	memcpy(&r.vendor[0], "Genu", 4);
	memcpy(&r.vendor[1], "ineI", 4);
	memcpy(&r.vendor[2], "ntel", 4);
	r.l1_eax = 0x000906ea;
	memcpy(r.brand, "Intel\x1b[31m", 10);
	roof_cpu_decode(&r, &c);
	assert_string_equal(c.vendor, "GenuineIntel");
	assert_int_equal(c.family, 6);
	assert_int_equal(c.model, 0x9e);
	assert_null(strchr(c.brand, '\x1b'));
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_AVX2_FMA), 16);
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_AVX512), 32);
}

static void test_flops_per_cycle(void **state)
{
	struct roof_cpuid_raw r = zen4();
	struct roof_cpu c;

	roof_cpu_decode(&r, &c);
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_SCALAR), 4);
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_SSE2), 8);
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_AVX2_FMA), 16);
	/* Zen 4 runs a zmm FMA as two halves */
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_AVX512), 16);
	/* Zen 1: 128-bit pipes */
	r.l1_eax = 0x8 << 20 | 0xf << 8 | 1 << 4;
	roof_cpu_decode(&r, &c);
	assert_int_equal(c.family, 0x17);
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_AVX2_FMA), 8);
	/* a vendor not in the table: unknown, no theoretical peak */
	memcpy(&r.vendor[0], "Hygo", 4);
	roof_cpu_decode(&r, &c);
	assert_int_equal(roof_flops_per_cycle(&c, ROOF_ISA_AVX2_FMA), 0);
}

/* ---- sysfs formats ------------------------------------------------------ */

static void test_parse_size(void **state)
{
	uint64_t v;

	assert_int_equal(roof_parse_size("32K", &v), 0);
	assert_int_equal(v, 32768);
	assert_int_equal(roof_parse_size("1024K\n", &v), 0);
	assert_int_equal(v, 1 << 20);
	assert_int_equal(roof_parse_size("16M", &v), 0);
	assert_int_equal(v, 16 << 20);
	assert_int_equal(roof_parse_size("65536", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(roof_parse_size("", &v), -1);
	assert_int_equal(roof_parse_size("K", &v), -1);
	assert_int_equal(roof_parse_size("-1K", &v), -1);
	assert_int_equal(roof_parse_size("32KB", &v), -1);
	assert_int_equal(roof_parse_size("0K", &v), -1);
	assert_int_equal(roof_parse_size("99999999999999999999K", &v), -1);
	assert_int_equal(roof_parse_size("99999999999G", &v), -1);
}

static void test_parse_cpulist(void **state)
{
	assert_int_equal(roof_parse_cpulist("0"), 1);
	assert_int_equal(roof_parse_cpulist("0-1\n"), 2);
	assert_int_equal(roof_parse_cpulist("0-3,8,10-11"), 7);
	assert_int_equal(roof_parse_cpulist(""), -1);
	assert_int_equal(roof_parse_cpulist("3-1"), -1);
	assert_int_equal(roof_parse_cpulist("0-"), -1);
	assert_int_equal(roof_parse_cpulist("a"), -1);
	assert_int_equal(roof_parse_cpulist("0,,1"), -1);
	assert_int_equal(roof_parse_cpulist("0-99999999"), -1);
	assert_int_equal(roof_parse_cpulist("1 2"), -1);
}

/* ---- a made-up sysfs tree ----------------------------------------------- */

static char tree[64];

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", tree, rel);
	FILE *fp;

	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	free(path);
}

static void index_dir(int i, const char *level, const char *type,
		      const char *size, const char *shared)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%s/index%d", tree, i);
	assert_int_equal(mkdir(rel, 0700), 0);
	snprintf(rel, sizeof(rel), "index%d/level", i);
	put(rel, level);
	snprintf(rel, sizeof(rel), "index%d/type", i);
	put(rel, type);
	snprintf(rel, sizeof(rel), "index%d/size", i);
	put(rel, size);
	snprintf(rel, sizeof(rel), "index%d/shared_cpu_list", i);
	put(rel, shared);
}

/* This VM's tree: L1d 32K, L1i, L2 1024K private, L3 32768K shared. */
static void make_tree(void)
{
	snprintf(tree, sizeof(tree), "/tmp/ys-roofcpu-XXXXXX");
	assert_non_null(mkdtemp(tree));
	index_dir(3, "3\n", "Unified\n", "32768K\n", "0-1\n");
	index_dir(0, "1\n", "Data\n", "32K\n", "0\n");
	index_dir(1, "1\n", "Instruction\n", "32K\n", "0\n");
	index_dir(2, "2\n", "Unified\n", "1024K\n", "0\n");
}

static void remove_tree(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tree);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_caches(void **state)
{
	struct roof_caches c;
	struct error e;

	make_tree();
	assert_int_equal(roof_caches_read(tree, &c, &e), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.c[0].level, 1);
	assert_string_equal(c.c[0].type, "Data");
	assert_int_equal(c.c[0].size, 32768);
	assert_int_equal(c.c[0].shared, 1);
	assert_int_equal(c.c[1].level, 2);
	assert_int_equal(c.c[1].size, 1 << 20);
	assert_int_equal(c.c[2].level, 3);
	assert_int_equal(c.c[2].size, 32 << 20);
	assert_int_equal(c.c[2].shared, 2);
	assert_ptr_equal(roof_cache_level(&c, 2), &c.c[1]);
	assert_null(roof_cache_level(&c, 4));
	remove_tree();
}

/* Each wrong file is named, with what is wrong in it. */
static void test_caches_errors(void **state)
{
	struct roof_caches c;
	struct error e;
	char *want;

	assert_int_equal(roof_caches_read("/nonexistent/cache", &c, &e), -1);
	assert_non_null(strstr(e.msg, "'/nonexistent/cache'"));

	make_tree();
	put("index2/size", "12X\n");
	assert_int_equal(roof_caches_read(tree, &c, &e), -1);
	want = xasprintf("'%s/index2/size': '12X' is not a size", tree);
	assert_non_null(strstr(e.msg, want));
	free(want);
	put("index2/size", "1024K\n");

	put("index3/shared_cpu_list", "1-0\n");
	assert_int_equal(roof_caches_read(tree, &c, &e), -1);
	assert_non_null(strstr(e.msg, "index3/shared_cpu_list': '1-0'"));
	put("index3/shared_cpu_list", "0-1\n");

	put("index3/type", "Victim\n");
	assert_int_equal(roof_caches_read(tree, &c, &e), -1);
	assert_non_null(strstr(e.msg, "unknown cache type 'Victim'"));
	put("index3/type", "Unified\n");

	put("index2/level", "1\n");
	assert_int_equal(roof_caches_read(tree, &c, &e), -1);
	assert_non_null(strstr(e.msg, "two data caches of level 1"));
	put("index2/level", "0x2\n");
	assert_int_equal(roof_caches_read(tree, &c, &e), -1);
	assert_non_null(strstr(e.msg, "index2/level': '0x2'"));
	put("index2/level", "2\n");

	want = xasprintf("%s/index0/size", tree);
	assert_int_equal(unlink(want), 0);
	assert_int_equal(roof_caches_read(tree, &c, &e), -1);
	assert_non_null(strstr(e.msg, want));
	free(want);
	remove_tree();

	/* a tree with instruction caches only */
	snprintf(tree, sizeof(tree), "/tmp/ys-roofcpu-XXXXXX");
	assert_non_null(mkdtemp(tree));
	index_dir(0, "1\n", "Instruction\n", "32K\n", "0\n");
	assert_int_equal(roof_caches_read(tree, &c, &e), -1);
	assert_non_null(strstr(e.msg, "no data cache"));
	remove_tree();
}

static void test_clock_sources(void **state)
{
	assert_true(fabs(roof_model_hz("Intel(R) Xeon(R) CPU E5-2680 v4 @ "
				       "2.40GHz") - 2.4e9) < 1);
	assert_true(fabs(roof_model_hz("Some CPU @ 2400 MHz") - 2.4e9) < 1);
	assert_true(roof_model_hz("AMD EPYC") == 0);
	assert_true(roof_model_hz("CPU @ GHz") == 0);
	assert_true(roof_model_hz("CPU @ 2.4") == 0);
	assert_true(roof_model_hz("CPU @ 9999GHz") == 0);

	snprintf(tree, sizeof(tree), "/tmp/ys-roofcpu-XXXXXX");
	assert_non_null(mkdtemp(tree));
	assert_true(roof_cpufreq_max_hz(tree) == 0);
	put("cpuinfo_max_freq", "3700000\n");
	assert_true(fabs(roof_cpufreq_max_hz(tree) - 3.7e9) < 1);
	put("cpuinfo_max_freq", "fast\n");
	assert_true(roof_cpufreq_max_hz(tree) == 0);
	remove_tree();
}

/* ---- the plan and the pool ---------------------------------------------- */

static void fake_machine(struct roof_machine *m)
{
	struct roof_cpuid_raw r = zen4();
	struct error e;

	memset(m, 0, sizeof(*m));
	r.xcr0 = 0x7;		/* no avx512 */
	roof_cpu_decode(&r, &m->cpu);
	make_tree();
	assert_int_equal(roof_caches_read(tree, &m->caches, &e), 0);
	remove_tree();
	m->ncpus = 2;
	m->cpus[0] = 0;
	m->cpus[1] = 1;
}

static const struct roof_ceiling *find(const struct roof_ceiling *c,
				       size_t n, const char *name)
{
	char buf[96];

	for (size_t i = 0; i < n; i++)
		if (!strcmp(roof_ceiling_name(&c[i], buf, sizeof(buf)), name))
			return &c[i];
	fail_msg("no ceiling '%s'", name);
	return NULL;
}

static void test_plan(void **state)
{
	struct roof_machine m;
	struct roof_ceiling *c;
	size_t n, compute = 0;

	fake_machine(&m);
	roof_plan(&m, 2, 256ull << 20, &c, &n);
	/* 3 ISAs × 2 precisions × 2 thread counts; 4 levels × 3 × 2 */
	assert_int_equal(n, 12 + 24);
	for (size_t i = 0; i < n; i++)
		compute += c[i].type == ROOF_COMPUTE;
	assert_int_equal(compute, 12);
	find(c, n, "fp32 avx2_fma 2 threads");
	/* private L1: half of it per thread */
	assert_int_equal(find(c, n, "L1 load 1 thread")->bytes, 16384);
	assert_int_equal(find(c, n, "L1 load 2 threads")->bytes, 32768);
	/* copy: two arrays, whole 256-byte blocks each */
	assert_int_equal(find(c, n, "L1 copy 2 threads")->bytes, 32768);
	assert_int_equal(find(c, n, "L1 triad 1 thread")->bytes,
			 3 * (16384 / 3 / 256 * 256));
	assert_int_equal(find(c, n, "L2 load 2 threads")->bytes, 1 << 20);
	/* shared L3: half of the one instance, for 1 thread or 2 */
	assert_int_equal(find(c, n, "L3 load 1 thread")->bytes, 16 << 20);
	assert_int_equal(find(c, n, "L3 load 2 threads")->bytes, 16 << 20);
	/* DRAM: 4 × 32 MiB is below the minimum asked */
	assert_int_equal(find(c, n, "DRAM load 2 threads")->bytes,
			 256ull << 20);
	free(c);

	roof_plan(&m, 2, 0, &c, &n);
	assert_int_equal(find(c, n, "DRAM copy 1 thread")->bytes,
			 128ull << 20);
	free(c);

	/* one thread: no all-cores ceilings twice */
	roof_plan(&m, 1, 0, &c, &n);
	assert_int_equal(n, 6 + 12);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(c[i].threads, 1);
	free(c);
}

/* The plan through the result, its JSON file and back (ceilings.h's
 * encoding). */
static void test_plan_round_trip(void **state)
{
	struct roof_machine m;
	struct roof_ceiling *c;
	struct roof_ceilings back;
	struct result r;
	struct error e;
	char *path;
	size_t n;

	fake_machine(&m);
	roof_plan(&m, 2, 0, &c, &n);
	result_init(&r, ROOF_KIND);
	for (size_t i = 0; i < n; i++) {
		double v[3] = { 1e9 + i, 3e9 + i, 2e9 + i };

		roof_ceiling_add(&r, &c[i], v, 3);
	}
	/* through the JSON writer and reader too */
	snprintf(tree, sizeof(tree), "/tmp/ys-roofcpu-XXXXXX");
	assert_non_null(mkdtemp(tree));
	path = xasprintf("%s/c.json", tree);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	result_free(&r);
	assert_int_equal(result_read_json(&r, path, &e), 0);
	free(path);
	remove_tree();
	assert_int_equal(roof_ceilings_read(&r, &back, &e), 0);
	assert_int_equal(back.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(back.c[i].type, c[i].type);
		assert_string_equal(back.c[i].isa, c[i].isa);
		assert_string_equal(back.c[i].level, c[i].level);
		assert_string_equal(back.c[i].pattern, c[i].pattern);
		assert_int_equal(back.c[i].threads, c[i].threads);
		assert_int_equal(back.c[i].bytes, c[i].bytes);
		assert_true(back.c[i].value == 3e9 + i);
	}
	roof_ceilings_free(&back);
	result_free(&r);
	free(c);
}

/* The pool runs real kernels: every value positive and finite. */
static void test_pool(void **state)
{
	struct roof_machine m;
	struct roof_cpuid_raw raw;
	struct roof_pool *p;
	struct roof_ceiling c = { .type = ROOF_COMPUTE, .threads = 2 };
	double v[2];
	struct error e;

	memset(&m, 0, sizeof(m));
	assert_true(roof_cpuid_read(&raw));
	roof_cpu_decode(&raw, &m.cpu);
	m.ncpus = roof_cpus(m.cpus, ROOF_MAX_CPUS);
	assert_true(m.ncpus >= 1);
	assert_int_equal(roof_pool_start(&p, m.cpus, m.ncpus, 2, &e), 0);
	for (int isa = 0; isa < ROOF_NISA; isa++) {
		if (!m.cpu.has[isa])
			continue;
		snprintf(c.isa, sizeof(c.isa), "%s",
			 roof_isa_name((enum roof_isa)isa));
		snprintf(c.precision, sizeof(c.precision), "fp32");
		assert_int_equal(roof_run(p, &c, 2, 0.001, v, &e), 0);
		assert_true(v[0] > 0 && isfinite(v[0]));
		assert_true(v[1] > 0 && isfinite(v[1]));
	}
	c = (struct roof_ceiling){ .type = ROOF_MEMORY, .threads = 1,
				   .bytes = 3 * 4096 };
	snprintf(c.level, sizeof(c.level), "L1");
	for (int k = 0; k < 3; k++) {
		static const char *const pat[] = { "load", "copy", "triad" };

		snprintf(c.pattern, sizeof(c.pattern), "%s", pat[k]);
		assert_int_equal(roof_run(p, &c, 2, 0.001, v, &e), 0);
		assert_true(v[0] > 0 && isfinite(v[0]));
	}
	/* a working set that is not whole blocks is refused */
	c.bytes = 3 * 4096 + 8;
	assert_int_equal(roof_run(p, &c, 2, 0.001, v, &e), -1);
	assert_non_null(strstr(e.msg, "256-byte blocks"));
	/* more threads than the pool */
	c.bytes = 3 * 4096;
	c.threads = 3;
	assert_int_equal(roof_run(p, &c, 2, 0.001, v, &e), -1);
	assert_true(roof_clock_hz(p, 3, 0.001) > 1e8);
	roof_pool_stop(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_all),
		cmocka_unit_test(test_decode_os_state),
		cmocka_unit_test(test_decode_features),
		cmocka_unit_test(test_decode_intel),
		cmocka_unit_test(test_flops_per_cycle),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_cpulist),
		cmocka_unit_test(test_caches),
		cmocka_unit_test(test_caches_errors),
		cmocka_unit_test(test_clock_sources),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_round_trip),
		cmocka_unit_test(test_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
