/*
 * What the ceilings' inputs and results must look like before anyone
 * trusts them: the caches sysfs describes (a virtual machine may report
 * its host's last level cache, 480 MiB where 2 vCPUs have a few MiB of
 * it), and each cache ceiling against DRAM's (a cache measured slower
 * than memory was not measured in that cache). Each check returns its
 * warning in words; the command prints it and keeps it in the result.
 */
#ifndef YS_ROOFLINE_SANITY_H
#define YS_ROOFLINE_SANITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roofline/ceilings.h"
#include "roofline/cpu.h"

/* A cache is implausible above this many bytes per CPU sharing it (the
 * largest real ones hold about 12 MiB a core: AMD's 3D V-Cache), or above
 * 1/ROOF_CACHE_MEM_SHARE of the machine's memory; it is then measured as
 * ROOF_CACHE_CAP_PER_CPU bytes a CPU sharing it, a size every last level
 * cache of the last decade holds. */
#define ROOF_CACHE_MAX_PER_CPU ((uint64_t)16 << 20)
#define ROOF_CACHE_MEM_SHARE 8
#define ROOF_CACHE_CAP_PER_CPU ((uint64_t)2 << 20)

/*
 * Cap every cache of c that cannot be this machine's (mem_bytes of
 * memory; 0: unknown), in place: its size becomes the capped one. For
 * each one capped, a warning naming the level, the size reported and the
 * size measured is written to warn[level] (levels 1 to 4, each at most
 * len bytes; warn[level][0] stays 0 for a plausible level). Returns how
 * many were capped.
 */
int roof_caches_sanitize(struct roof_caches *c, uint64_t mem_bytes,
			 char warn[5][256]);

/*
 * Whether memory ceiling c[i] is a cache level measured slower than DRAM
 * with the same threads and pattern among c[0..n); if so, the warning
 * is written to buf (len bytes).
 */
bool roof_ceiling_below_dram(const struct roof_ceiling *c, size_t n,
			     size_t i, char *buf, size_t len);

/* The machine's physical memory in bytes, or 0 when unknown. */
uint64_t roof_mem_bytes(void);

#endif
