/*
 * Counters of the agent's stack walks, for measuring where a walk's time
 * goes (issue 30): compiled in only with -DHEAP_STATS (a build of its
 * own, e.g. cc ... -DHEAP_STATS as bench/RESULTS.md's "Session 17, h1"
 * says), printed to stderr at the image's end.
 * Off, every macro is empty. Global relaxed atomics: a diagnostic build
 * of a single-threaded program is what they are for.
 */
#ifdef HEAP_STATS
#include <stdio.h>

enum heap_stat {
	ST_CALLS,		/* traced calls walked with libunwind */
	ST_HIT,			/* a cached stack found the same */
	ST_HIT_STALE,		/* the key found, a checked word changed */
	ST_NOCACHE,		/* the key's stack cannot be cached: trace */
	ST_FIRST_MISS,		/* a key's first miss: trace */
	ST_REFILL_WAIT,		/* a full set, between refills: trace */
	ST_FILL,		/* full walk into the cache */
	ST_TRACE_FULL,		/* a trace that fell back to a full walk */
	ST_PY_WALKS, ST_PY_FRAMES,
	/* rdtsc cycles, preemption included: ratios, not times */
	ST_CYC_HIT, ST_CYC_TRACE, ST_CYC_FILL, ST_CYC_PY,
	/* why a found key's stack was not the same; the fills' words */
	ST_STALE_RET, ST_STALE_CHECK, ST_STALE_CHECK_IDX, ST_CHECKS, ST_DEPTH,
	ST_N
};
static const char *const heap_stat_name[ST_N] = {
	"calls", "hit", "hit_stale", "nocache", "first_miss",
	"refill_wait", "fill", "trace_full", "py_walks", "py_frames",
	"cyc_hit", "cyc_trace", "cyc_fill", "cyc_py",
	"stale_ret", "stale_check", "stale_check_idx_sum", "fill_checks_sum",
	"fill_depth_sum",
};
static _Atomic uint64_t heap_stats[ST_N];
#define STAT_ADD(k, v) atomic_fetch_add_explicit(&heap_stats[k], (v), \
						 memory_order_relaxed)
#define STAT_T0(x) uint64_t x = __rdtsc()
#define STAT_SINCE(k, x) STAT_ADD(k, __rdtsc() - (x))

static void heap_stats_print(void)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "heap stats %d:", (int)getpid());

	for (int i = 0; i < ST_N && n > 0 && (size_t)n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s=%llu",
			      heap_stat_name[i],
			      (unsigned long long)atomic_load(&heap_stats[i]));
	if (n > 0 && (size_t)n < sizeof(buf) - 1) {
		buf[n++] = '\n';
		if (write(2, buf, (size_t)n) < 0)
			return;
	}
}
#else
#define STAT_ADD(k, v) ((void)0)
#define STAT_T0(x) ((void)0)
#define STAT_SINCE(k, x) ((void)0)
#define heap_stats_print() ((void)0)
#endif
#define STAT_INC(k) STAT_ADD(k, 1)
