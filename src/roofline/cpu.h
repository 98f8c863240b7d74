/*
 * What the roofline's ceilings are measured on: the instruction sets the
 * CPU has and the operating system lets us use (cpuid and XGETBV, never
 * assumed from the compiler or the model name), the data caches per level
 * (sysfs), the CPUs we may run on (sched_getaffinity), and the clock.
 *
 * Detection is split from decoding so that the tests can feed made-up
 * registers and a made-up sysfs tree: roof_cpuid_read reads the machine,
 * roof_cpu_decode turns the registers into ISAs; roof_caches_read takes
 * the cache directory as a path.
 */
#ifndef YS_ROOFLINE_CPU_H
#define YS_ROOFLINE_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The instruction sets of the compute ceilings, narrowest first. */
enum roof_isa {
	ROOF_ISA_SCALAR,	/* SSE2 scalar mulsd/addsd: every x86-64 */
	ROOF_ISA_SSE2,		/* packed mulpd/addpd on xmm */
	ROOF_ISA_AVX2_FMA,	/* vfmadd on ymm: AVX, AVX2 and FMA */
	ROOF_ISA_AVX512,	/* vfmadd on zmm: AVX512F */
	ROOF_NISA,
};

/* "scalar", "sse2", "avx2_fma", "avx512": the names of ceilings.h */
const char *roof_isa_name(enum roof_isa isa);
/* Bytes of one vector of isa (8 for scalar). */
unsigned roof_isa_bytes(enum roof_isa isa);

/* The cpuid leaves and XCR0 the decoding needs, as the CPU gave them. */
struct roof_cpuid_raw {
	uint32_t max_leaf;		/* leaf 0 eax */
	uint32_t vendor[3];		/* leaf 0 ebx, edx, ecx */
	uint32_t l1_eax, l1_ecx, l1_edx;	/* leaf 1 */
	uint32_t l7_ebx;		/* leaf 7 subleaf 0 (0 if absent) */
	uint64_t xcr0;			/* XGETBV(0); 0 without OSXSAVE */
	uint32_t brand[12];		/* leaves 0x80000002..4 (0: none) */
};

struct roof_cpu {
	char vendor[13];	/* "GenuineIntel", "AuthenticAMD" */
	char brand[49];		/* "AMD EPYC 9654 96-Core Processor" */
	unsigned family, model;	/* with the extended fields added */
	bool has[ROOF_NISA];	/* the CPU has it and the OS saves its
				 * registers */
	/* why an ISA the CPU reports is not usable ("avx512: the OS does
	 * not save the ZMM registers (XCR0 0x7)"), or "" */
	char note[128];
};

/* Read the registers of the CPU we run on; false on a CPU that is not
 * x86-64 (then nothing is usable). */
bool roof_cpuid_read(struct roof_cpuid_raw *raw);
/* Decode raw into cpu. */
void roof_cpu_decode(const struct roof_cpuid_raw *raw, struct roof_cpu *cpu);

/*
 * Floating-point operations one core can start per cycle with isa's
 * widest kernel, FP64 (FP32 is twice): lanes × 2 (a fused multiply-add)
 * × the FMA pipes of the core, from a table by vendor and family; 0 where
 * the core is not in the table (no theoretical peak then).
 */
unsigned roof_flops_per_cycle(const struct roof_cpu *cpu, enum roof_isa isa);

/* One cache of CPU 0, from sysfs. */
struct roof_cache {
	int level;		/* 1, 2, 3 ... */
	char type[16];		/* "Data", "Unified" ("Instruction" ones are
				 * skipped) */
	uint64_t size;		/* bytes */
	int shared;		/* CPUs that share it (shared_cpu_list) */
};

struct roof_caches {
	struct roof_cache c[16];
	size_t n;
	bool from_cpuid;	/* roof_caches_from_cpuid's, not sysfs' */
};

/*
 * The data and unified caches described under dir (normally
 * /sys/devices/system/cpu/cpu0/cache): each index*\/ directory's level,
 * type, size ("32K", "1024K", "16M" or bytes) and shared_cpu_list
 * ("0-1,4"). 0, or -1 with e naming the file and what is wrong in it.
 */
int roof_caches_read(const char *dir, struct roof_caches *out,
		     struct error *e);
/*
 * What cpuid says of the caches, for a machine whose sysfs has no cache
 * topology (a PVM guest's kernel made none): the deterministic cache
 * leaves (4 on Intel; 0x8000001D on AMD with TOPOEXT), one subleaf per
 * cache, and AMD's legacy leaves (0x80000005 ecx: L1d; 0x80000006 ecx
 * and edx: L2, L3). Raw registers, decoded apart.
 */
struct roof_cpuid_caches {
	uint32_t det[16][3];	/* each subleaf's eax, ebx, ecx */
	size_t ndet;
	uint32_t l5_ecx, l6_ecx, l6_edx;	/* 0: no such leaf */
};
/* Read them; false on a CPU that is not x86. */
bool roof_cpuid_caches_read(struct roof_cpuid_caches *raw);
/*
 * The data and unified caches of raw into out, as roof_caches_read
 * gives them: from the deterministic leaves when they describe a level 1
 * data cache, else from the legacy ones (L1d and L2 one per CPU, L3
 * shared by all); a cache's sharers at most ncpus (cpuid counts those
 * the package could have, not those there are). 0, or -1 when cpuid
 * describes no level 1 data cache.
 */
int roof_caches_from_cpuid(const struct roof_cpuid_caches *raw, int ncpus,
			   struct roof_caches *out);
/* The data (or unified) cache of level, or NULL. */
const struct roof_cache *roof_cache_level(const struct roof_caches *c,
					  int level);

/* Parsers of sysfs' formats, for the tests: a size ("32K"): 0 or -1; a
 * CPU list ("0-3,8"): the number of CPUs, or -1. */
int roof_parse_size(const char *s, uint64_t *out);
int roof_parse_cpulist(const char *s);

/* The CPUs this process may run on (sched_getaffinity), ascending, into
 * cpus[0..max); returns how many (at least 1: CPU 0 when it cannot be
 * read). */
int roof_cpus(int *cpus, int max);

/* The nominal clock in the model name ("... CPU @ 2.60GHz"), Hz, or 0. */
double roof_model_hz(const char *model);
/* The highest clock of cpufreq_dir/cpuinfo_max_freq (kHz in the file),
 * Hz, or 0 when there is none. */
double roof_cpufreq_max_hz(const char *cpufreq_dir);

#endif
