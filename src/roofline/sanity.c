/*
 * Checks of the ceilings' inputs and results (sanity.h).
 */
#include "roofline/sanity.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/strutil.h"

/* "480 MiB" or "48 KiB" */
static void fmt_size(uint64_t b, char *buf, size_t n)
{
	if (b >= 1ull << 20)
		snprintf(buf, n, "%.4g MiB", (double)b / (1 << 20));
	else
		snprintf(buf, n, "%.4g KiB", (double)b / 1024);
}

int roof_caches_sanitize(struct roof_caches *c, uint64_t mem_bytes,
			 char warn[5][256])
{
	int capped = 0;

	for (int l = 0; l < 5; l++)
		warn[l][0] = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct roof_cache *k = &c->c[i];
		uint64_t shared = k->shared > 0 ? (uint64_t)k->shared : 1;
		uint64_t cap = ROOF_CACHE_CAP_PER_CPU * shared;
		bool per_cpu = k->size / shared > ROOF_CACHE_MAX_PER_CPU;
		bool of_mem = mem_bytes &&
			      k->size > mem_bytes / ROOF_CACHE_MEM_SHARE;
		char was[32], now[32];

		if ((!per_cpu && !of_mem) || k->size <= cap)
			continue;
		fmt_size(k->size, was, sizeof(was));
		fmt_size(cap, now, sizeof(now));
		if (k->level >= 1 && k->level <= 4)
			snprintf(warn[k->level], 256, "%s reports a %s L%d "
				 "cache shared by %d CPU%s, more than this "
				 "machine can have (%s): measured with %s (a "
				 "virtual machine may report its host's cache); "
				 "its ceiling may be DRAM's",
				 c->from_cpuid ? "cpuid" : "sysfs", was, k->level,
				 k->shared, plural_s(k->shared),
				 per_cpu ? "over 16 MiB a CPU"
					 : "over 1/8 of its memory", now);
		k->size = cap;
		capped++;
	}
	return capped;
}

bool roof_ceiling_below_dram(const struct roof_ceiling *c, size_t n,
			     size_t i, char *buf, size_t len)
{
	const struct roof_ceiling *x = &c[i];
	char a[96], b[96];

	if (x->type != ROOF_MEMORY || !strcmp(x->level, "DRAM") ||
	    !(x->value > 0))
		return false;
	for (size_t k = 0; k < n; k++) {
		const struct roof_ceiling *d = &c[k];

		if (d->type != ROOF_MEMORY || strcmp(d->level, "DRAM") ||
		    d->threads != x->threads || strcmp(d->pattern, x->pattern) ||
		    !(x->value < d->value))
			continue;
		snprintf(buf, len, "%s measured at %.3g GB/s, slower than "
			 "%s at %.3g GB/s: its working set (%llu bytes) was "
			 "not served by %s (a cache smaller than sysfs says, "
			 "or a machine busy while it was measured)",
			 roof_ceiling_name(x, a, sizeof(a)), x->value / 1e9,
			 roof_ceiling_name(d, b, sizeof(b)), d->value / 1e9,
			 (unsigned long long)x->bytes, x->level);
		return true;
	}
	return false;
}

uint64_t roof_mem_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}
