/* The CPU, its caches and its clock, as the ceilings need them: see
 * cpu.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "roofline/cpu.h"
#include "util/fileio.h"
#include "util/strutil.h"

const char *roof_isa_name(enum roof_isa isa)
{
	static const char *const names[ROOF_NISA] = {
		"scalar", "sse2", "avx2_fma", "avx512",
	};

	return isa < ROOF_NISA ? names[isa] : "?";
}

unsigned roof_isa_bytes(enum roof_isa isa)
{
	static const unsigned bytes[ROOF_NISA] = { 8, 16, 32, 64 };

	return isa < ROOF_NISA ? bytes[isa] : 0;
}

#if defined(__x86_64__)
static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

bool roof_cpuid_read(struct roof_cpuid_raw *raw)
{
	unsigned a, b, c, d, max_ext;

	memset(raw, 0, sizeof(*raw));
	__cpuid(0, a, b, c, d);
	raw->max_leaf = a;
	raw->vendor[0] = b;
	raw->vendor[1] = d;
	raw->vendor[2] = c;
	if (a >= 1) {
		__cpuid(1, a, b, c, d);
		raw->l1_eax = a;
		raw->l1_ecx = c;
		raw->l1_edx = d;
		/* XGETBV faults unless the OS set CR4.OSXSAVE (ecx bit 27) */
		if (c & 1u << 27)
			raw->xcr0 = xgetbv0();
	}
	if (raw->max_leaf >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		raw->l7_ebx = b;
	}
	__cpuid(0x80000000, max_ext, b, c, d);
	if (max_ext >= 0x80000004)
		for (unsigned i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, raw->brand[4 * i],
				raw->brand[4 * i + 1], raw->brand[4 * i + 2],
				raw->brand[4 * i + 3]);
	return true;
}

bool roof_cpuid_caches_read(struct roof_cpuid_caches *raw)
{
	unsigned a, b, c, d, max, max_ext, leaf = 0;

	memset(raw, 0, sizeof(*raw));
	__cpuid(0, max, b, c, d);
	__cpuid(0x80000000, max_ext, b, c, d);
	if (max_ext >= 0x8000001d) {
		__cpuid(0x80000001, a, b, c, d);
		if (c & 1u << 22)	/* TOPOEXT */
			leaf = 0x8000001d;
	}
	if (!leaf && max >= 4)
		leaf = 4;
	for (unsigned i = 0; leaf && i < 16; i++) {
		__cpuid_count(leaf, i, a, b, c, d);
		if (!(a & 0x1f))
			break;
		raw->det[raw->ndet][0] = a;
		raw->det[raw->ndet][1] = b;
		raw->det[raw->ndet++][2] = c;
	}
	if (max_ext >= 0x80000005)
		__cpuid(0x80000005, a, b, raw->l5_ecx, d);
	if (max_ext >= 0x80000006)
		__cpuid(0x80000006, a, b, raw->l6_ecx, raw->l6_edx);
	return true;
}
#else
bool roof_cpuid_read(struct roof_cpuid_raw *raw)
{
	memset(raw, 0, sizeof(*raw));
	return false;
}

bool roof_cpuid_caches_read(struct roof_cpuid_caches *raw)
{
	memset(raw, 0, sizeof(*raw));
	return false;
}
#endif

/* The XCR0 bits the OS sets when it saves a register file. */
#define XCR0_SSE	(1u << 1)
#define XCR0_AVX	(1u << 2)
#define XCR0_AVX512	(7u << 5)	/* opmask, ZMM_Hi256, Hi16_ZMM */

void roof_cpu_decode(const struct roof_cpuid_raw *raw, struct roof_cpu *cpu)
{
	unsigned fam, model;
	bool sse2, avx, fma, avx2, avx512f, osxsave;
	bool os_avx, os_avx512;

	memset(cpu, 0, sizeof(*cpu));
	memcpy(cpu->vendor, raw->vendor, 12);
	memcpy(cpu->brand, raw->brand, 48);
	for (size_t i = 0; i < 12; i++)	/* only printable bytes kept */
		if (cpu->vendor[i] && !isprint((unsigned char)cpu->vendor[i]))
			cpu->vendor[i] = '?';
	for (size_t i = 0; i < 48 && cpu->brand[i]; i++)
		if (!isprint((unsigned char)cpu->brand[i]))
			cpu->brand[i] = '?';
	fam = raw->l1_eax >> 8 & 0xf;
	model = raw->l1_eax >> 4 & 0xf;
	if (fam == 0xf)
		fam += raw->l1_eax >> 20 & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		model |= (raw->l1_eax >> 16 & 0xf) << 4;
	cpu->family = fam;
	cpu->model = model;

	sse2 = raw->l1_edx & 1u << 26;
	fma = raw->l1_ecx & 1u << 12;
	osxsave = raw->l1_ecx & 1u << 27;
	avx = raw->l1_ecx & 1u << 28;
	avx2 = raw->max_leaf >= 7 && raw->l7_ebx & 1u << 5;
	avx512f = raw->max_leaf >= 7 && raw->l7_ebx & 1u << 16;
	os_avx = osxsave && (raw->xcr0 & (XCR0_SSE | XCR0_AVX)) ==
		(XCR0_SSE | XCR0_AVX);
	os_avx512 = os_avx && (raw->xcr0 & XCR0_AVX512) == XCR0_AVX512;

	cpu->has[ROOF_ISA_SCALAR] = sse2;
	cpu->has[ROOF_ISA_SSE2] = sse2;
	cpu->has[ROOF_ISA_AVX2_FMA] = avx && avx2 && fma && os_avx;
	cpu->has[ROOF_ISA_AVX512] = cpu->has[ROOF_ISA_AVX2_FMA] && avx512f &&
		os_avx512;
	if (avx && avx2 && fma && !os_avx)
		snprintf(cpu->note, sizeof(cpu->note), "avx2_fma: the OS does "
			 "not save the YMM registers (XCR0 0x%llx)",
			 (unsigned long long)raw->xcr0);
	else if (avx512f && cpu->has[ROOF_ISA_AVX2_FMA] && !os_avx512)
		snprintf(cpu->note, sizeof(cpu->note), "avx512: the OS does "
			 "not save the ZMM registers (XCR0 0x%llx)",
			 (unsigned long long)raw->xcr0);
}

/*
 * FMA pipes per core for a vector of isa, FP64 lanes × 2 × pipes. Intel
 * cores since Haswell (family 6) have two FMA pipes of 256 bits and, with
 * AVX-512, up to two of 512 (the upper bound: some Xeons have one). AMD
 * Zen 1 (family 0x17, models below 0x30) has two of 128 bits, so a ymm
 * FMA takes both; Zen 2 to Zen 4 two of 256 bits, Zen 4's AVX-512 split
 * in two halves; Zen 5 (0x1a) two of 512. The scalar and SSE2 kernels
 * multiply and add apart: at most the same count of operations as the
 * FMA pipes start (Zen's separate add pipes make up the FMA's 2).
 */
unsigned roof_flops_per_cycle(const struct roof_cpu *cpu, enum roof_isa isa)
{
	unsigned lanes = roof_isa_bytes(isa) / 8, max_bits;

	if (!strcmp(cpu->vendor, "GenuineIntel") && cpu->family == 6)
		max_bits = 512;
	else if (!strcmp(cpu->vendor, "AuthenticAMD") && cpu->family == 0x17)
		max_bits = cpu->model < 0x30 ? 128 : 256;
	else if (!strcmp(cpu->vendor, "AuthenticAMD") && cpu->family == 0x19)
		max_bits = 256;
	else if (!strcmp(cpu->vendor, "AuthenticAMD") && cpu->family == 0x1a)
		max_bits = 512;
	else
		return 0;
	if (lanes * 64 > max_bits)
		lanes = max_bits / 64;
	return lanes * 2 * 2;
}

/* ---- caches ------------------------------------------------------------ */

int roof_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'K': mult = 1ull << 10; end++; break;
	case 'M': mult = 1ull << 20; end++; break;
	case 'G': mult = 1ull << 30; end++; break;
	default: break;
	}
	while (*end == '\n' || *end == ' ')
		end++;
	if (*end || v == 0 || v > (1ull << 44) / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int roof_parse_cpulist(const char *s)
{
	long n = 0, lo, hi;
	char *end;

	for (;;) {
		if (!isdigit((unsigned char)*s))
			return -1;
		errno = 0;
		lo = strtol(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return -1;
			hi = strtol(s, &end, 10);
		}
		if (errno || hi < lo || hi - lo >= 1 << 20 || lo >= 1 << 20)
			return -1;
		n += hi - lo + 1;
		if (n > 1 << 20)
			return -1;
		s = end;
		if (*s != ',')
			break;
		s++;
	}
	while (*s == '\n' || *s == ' ')
		s++;
	return *s ? -1 : (int)n;
}

/* dir/name, its text without the final newline, into buf; 0 or -1. */
static int read_attr(const char *dir, const char *name, char *buf, size_t n,
		     struct error *e)
{
	char *path = xasprintf("%s/%s", dir, name), *data;
	size_t len;
	int ret = -1;

	if (file_read_all(path, &data, &len, e) == 0) {
		while (len && (data[len - 1] == '\n' || data[len - 1] == ' '))
			data[--len] = 0;
		if (len >= n || strlen(data) != len)
			error_set(e, "'%s': not a short line of text", path);
		else {
			memcpy(buf, data, len + 1);
			ret = 0;
		}
		free(data);
	}
	free(path);
	return ret;
}

/* One index* directory into c; 1 for a cache to keep, 0 for one to skip
 * (instruction), -1 on error. */
static int read_index(const char *dir, struct roof_cache *c, struct error *e)
{
	char buf[256];
	long level;
	int n;

	memset(c, 0, sizeof(*c));
	if (read_attr(dir, "type", buf, sizeof(buf), e) < 0)
		return -1;
	if (!strcmp(buf, "Instruction"))
		return 0;
	if (strcmp(buf, "Data") && strcmp(buf, "Unified"))
		return error_set(e, "'%s/type': unknown cache type '%s'", dir,
				 buf);
	snprintf(c->type, sizeof(c->type), "%.15s", buf);
	if (read_attr(dir, "level", buf, sizeof(buf), e) < 0)
		return -1;
	if (parse_long(buf, &level) < 0 || level < 1 || level > 9)
		return error_set(e, "'%s/level': '%s' is not a level from 1 "
				 "to 9", dir, buf);
	c->level = (int)level;
	if (read_attr(dir, "size", buf, sizeof(buf), e) < 0)
		return -1;
	if (roof_parse_size(buf, &c->size) < 0)
		return error_set(e, "'%s/size': '%s' is not a size (like "
				 "'32K')", dir, buf);
	if (read_attr(dir, "shared_cpu_list", buf, sizeof(buf), e) < 0)
		return -1;
	n = roof_parse_cpulist(buf);
	if (n < 1)
		return error_set(e, "'%s/shared_cpu_list': '%s' is not a list "
				 "of CPUs (like '0-3,8')", dir, buf);
	c->shared = n;
	return 1;
}

static int by_level(const void *a, const void *b)
{
	const struct roof_cache *x = a, *y = b;

	return x->level - y->level;
}

int roof_caches_read(const char *dir, struct roof_caches *out,
		     struct error *e)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	d = opendir(dir);
	if (!d)
		return error_errno(e, errno, "cannot read the caches in '%s'",
				   dir);
	while ((de = readdir(d)) && ret == 0) {
		struct roof_cache c;
		char *sub;
		int r;

		if (strncmp(de->d_name, "index", 5) ||
		    !isdigit((unsigned char)de->d_name[5]))
			continue;
		sub = xasprintf("%s/%s", dir, de->d_name);
		r = read_index(sub, &c, e);
		free(sub);
		if (r < 0)
			ret = -1;
		else if (r == 1 && out->n == sizeof(out->c) / sizeof(out->c[0]))
			ret = error_set(e, "'%s': more than %zu caches", dir,
					out->n);
		else if (r == 1) {
			if (roof_cache_level(out, c.level))
				ret = error_set(e, "'%s': two data caches of "
						"level %d", dir, c.level);
			out->c[out->n++] = c;
		}
	}
	closedir(d);
	if (ret == 0 && out->n == 0)
		ret = error_set(e, "'%s': no data cache described", dir);
	if (ret == 0 && !roof_cache_level(out, 1))
		ret = error_set(e, "'%s': no level 1 data cache", dir);
	qsort(out->c, out->n, sizeof(out->c[0]), by_level);
	return ret;
}

static void add_cache(struct roof_caches *out, int level, const char *type,
		      uint64_t size, int shared)
{
	struct roof_cache *c;

	if (!size || roof_cache_level(out, level) ||
	    out->n == sizeof(out->c) / sizeof(out->c[0]))
		return;
	c = &out->c[out->n++];
	c->level = level;
	snprintf(c->type, sizeof(c->type), "%s", type);
	c->size = size;
	c->shared = shared;
}

int roof_caches_from_cpuid(const struct roof_cpuid_caches *raw, int ncpus,
			   struct roof_caches *out)
{
	if (ncpus < 1)
		ncpus = 1;
	memset(out, 0, sizeof(*out));
	/* eax: type (1 data, 2 instruction, 3 unified), level, sharers - 1;
	 * ebx: ways - 1, partitions - 1, line - 1; ecx: sets - 1 */
	for (size_t i = 0; i < raw->ndet && i < 16; i++) {
		uint32_t a = raw->det[i][0], b = raw->det[i][1];
		unsigned type = a & 0x1f, sharers = ((a >> 14) & 0xfff) + 1;
		uint64_t size = (uint64_t)((b >> 22) + 1) *
				(((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) *
				((uint64_t)raw->det[i][2] + 1);

		if (type == 1 || type == 3)
			add_cache(out, (int)((a >> 5) & 7),
				  type == 1 ? "Data" : "Unified", size,
				  (int)sharers < ncpus ? (int)sharers : ncpus);
	}
	if (!roof_cache_level(out, 1)) {
		/* 0x80000005 ecx[31:24] L1d KiB; 0x80000006 ecx[31:16] L2
		 * KiB, edx[31:18] L3 in 512 KiB */
		memset(out, 0, sizeof(*out));
		add_cache(out, 1, "Data", (uint64_t)(raw->l5_ecx >> 24) << 10,
			  1);
		add_cache(out, 2, "Unified",
			  (uint64_t)(raw->l6_ecx >> 16) << 10, 1);
		add_cache(out, 3, "Unified",
			  (uint64_t)(raw->l6_edx >> 18) << 19, ncpus);
	}
	qsort(out->c, out->n, sizeof(out->c[0]), by_level);
	out->from_cpuid = true;
	return roof_cache_level(out, 1) ? 0 : -1;
}

const struct roof_cache *roof_cache_level(const struct roof_caches *c,
					  int level)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i].level == level)
			return &c->c[i];
	return NULL;
}

/* ---- CPUs and clock ---------------------------------------------------- */

int roof_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (max < 1)
		return 0;
	if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		cpus[0] = 0;
		return 1;
	}
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	if (n == 0)
		cpus[n++] = 0;
	return n;
}

double roof_model_hz(const char *model)
{
	const char *at = strrchr(model, '@');
	double v;
	char *end;

	if (!at)
		return 0;
	at++;
	while (*at == ' ')
		at++;
	if (!isdigit((unsigned char)*at))
		return 0;
	v = strtod(at, &end);
	while (*end == ' ')
		end++;
	if (!strncasecmp(end, "GHz", 3))
		v *= 1e9;
	else if (!strncasecmp(end, "MHz", 3))
		v *= 1e6;
	else
		return 0;
	return v >= 1e8 && v <= 1e11 ? v : 0;
}

double roof_cpufreq_max_hz(const char *cpufreq_dir)
{
	char buf[64];
	struct error e;
	long khz;

	if (read_attr(cpufreq_dir, "cpuinfo_max_freq", buf, sizeof(buf),
		      &e) < 0 || parse_long(buf, &khz) < 0 || khz < 100000 ||
	    khz > 100000000)
		return 0;
	return khz * 1e3;
}
