/*
 * The perf-event layer (perf_event.h): the perf_event_open wrapper and the
 * attributes counting and sampling share, the one strerror of a failed
 * open, event names — perf's generic hardware, software and cache names,
 * raw "rNNNN" codes, and libpfm4's names, libpfm4 loaded with dlopen on
 * first need — the floating-point arithmetic events of this CPU that the
 * derived metric "flops" adds up, and group reads scaled for multiplexing.
 */
#include "measure/perf_event.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/dynlib.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- opening ---- */

int perf_event_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, void *arg)
{
	(void)arg;
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

int perf_event_hold_hooks(bool hardware)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};

	if (hardware) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
	}
	return perf_event_sys_open(&a, 0, -1, -1, NULL);
}

int perf_event_open_attr(pe_open_fn *fn, void *arg,
			 struct perf_event_attr *attr, pid_t pid, int cpu,
			 int group_fd)
{
	int fd;

	if (!fn)
		fn = perf_event_sys_open;
	fd = fn(attr, pid, cpu, group_fd, arg);
	if (fd < 0 && (errno == EACCES || errno == EPERM) &&
	    !attr->exclude_kernel) {
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		fd = fn(attr, pid, cpu, group_fd, arg);
	}
	return fd >= 0 ? fd : -errno;
}

static void attr_follow_exec(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
}

void perf_event_attr_counting(struct perf_event_attr *a)
{
	attr_follow_exec(a);
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_GROUP;
}

void perf_event_attr_sampling(struct perf_event_attr *a, int freq)
{
	attr_follow_exec(a);
	a->freq = 1;
	a->sample_freq = (uint64_t)freq;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* ---- why an open failed ---- */

void perf_event_sysctl(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *fp;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	fp = fopen(path, "re");
	if (!fp)
		return;
	if (!fgets(buf, (int)len, fp))
		snprintf(buf, len, "?");
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, len, "?");
	fclose(fp);
}

/*
 * Refused: at kernel.perf_event_paranoid 2 or lower a user may count and
 * sample the user space of their own processes, so above 2 the sysctl is
 * the reason; at 2 or lower something else is (a seccomp filter, a
 * security module), and only the capability helps.
 */
static enum pe_result denied(const struct pe_context *ctx,
			     const struct pe_sysctls *sys, struct error *e)
{
	const char *level = sys->paranoid;
	char *end;
	long v = strtol(level, &end, 10);

	if (end != level && *end == '\0' && v <= 2)
		error_set(e, "perf events are not permitted although the "
			  "sysctl kernel.perf_event_paranoid is %s (2 or "
			  "lower suffices): a seccomp filter or security "
			  "module forbids them (in a container, allow "
			  "perf_event_open), or grant CAP_PERFMON", level);
	else
		error_set(e, "perf events are not permitted: the sysctl "
			  "kernel.perf_event_paranoid is %s and %s a "
			  "program needs 2 or lower (sysctl -w "
			  "kernel.perf_event_paranoid=2), or grant the "
			  "capability CAP_PERFMON", level,
			  ctx->sampling ? "sampling" : "counting");
	return PE_DENIED;
}

static enum pe_result unsupported(const char *ev, struct error *e)
{
	if (strcasecmp(ev, "cpu-clock") == 0)
		error_set(e, "event '%s' is not supported on this machine",
			  ev);
	else
		error_set(e, "event '%s' is not supported on this machine "
			  "(a virtual machine often has no hardware "
			  "counters): try cpu-clock", ev);
	return PE_UNSUPPORTED;
}

enum pe_result perf_event_open_strerror_with(int err,
					     const struct perf_event_attr *attr,
					     const struct pe_context *ctx,
					     const struct pe_sysctls *sys,
					     struct error *e)
{
	const char *ev = ctx->event ? ctx->event : "?";
	long rate;

	(void)attr;
	switch (err) {
	case EACCES:
	case EPERM:
		return denied(ctx, sys, e);
	case ENOSYS:
		error_set(e, "no perf support in this kernel "
			  "(perf_event_open is missing)");
		return PE_NO_PERF;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return unsupported(ev, e);
	case EINVAL:
		rate = atol(sys->max_sample_rate);
		if (ctx->sampling && rate > 0 && ctx->freq > rate) {
			error_set(e, "sampling frequency %d is above the "
				  "sysctl kernel.perf_event_max_sample_rate "
				  "(%s)", ctx->freq, sys->max_sample_rate);
			return PE_FAILED;
		}
		/* fall through */
	case EBUSY:
	case E2BIG:
		if (!ctx->sampling)	/* a counter this PMU cannot take */
			return unsupported(ev, e);
		break;
	}
	if (ctx->cpu >= 0)
		error_errno(e, err, "cannot open perf event '%s' on cpu %d",
			    ev, ctx->cpu);
	else
		error_errno(e, err, "cannot open perf event '%s'", ev);
	return PE_FAILED;
}

enum pe_result perf_event_open_strerror(int err,
					const struct perf_event_attr *attr,
					const struct pe_context *ctx,
					struct error *e)
{
	struct pe_sysctls sys = { "?", "?" };

	/* Read only when the message needs them: a machine without
	 * hardware counters refuses each of the default set (ENOENT). */
	if (err == EACCES || err == EPERM)
		perf_event_sysctl("perf_event_paranoid", sys.paranoid,
				  sizeof(sys.paranoid));
	if (err == EINVAL)
		perf_event_sysctl("perf_event_max_sample_rate",
				  sys.max_sample_rate,
				  sizeof(sys.max_sample_rate));
	return perf_event_open_strerror_with(err, attr, ctx, &sys, e);
}

enum pe_result perf_event_other_cpu_error(const char *event,
					  struct error *e)
{
	error_set(e, "event '%s' is not supported on this machine (its CPU "
		  "has no such counter): try cpu-clock", event);
	return PE_UNSUPPORTED;
}

/* ---- event names ---- */

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
};

#define HW(x) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##x
#define SW(x) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##x

static const struct named generic_events[] = {
	{ "cycles", HW(CPU_CYCLES) }, { "cpu-cycles", HW(CPU_CYCLES) },
	{ "instructions", HW(INSTRUCTIONS) },
	{ "cache-references", HW(CACHE_REFERENCES) },
	{ "cache-misses", HW(CACHE_MISSES) },
	{ "branches", HW(BRANCH_INSTRUCTIONS) },
	{ "branch-instructions", HW(BRANCH_INSTRUCTIONS) },
	{ "branch-misses", HW(BRANCH_MISSES) },
	{ "bus-cycles", HW(BUS_CYCLES) }, { "ref-cycles", HW(REF_CPU_CYCLES) },
	{ "stalled-cycles-frontend", HW(STALLED_CYCLES_FRONTEND) },
	{ "idle-cycles-frontend", HW(STALLED_CYCLES_FRONTEND) },
	{ "stalled-cycles-backend", HW(STALLED_CYCLES_BACKEND) },
	{ "idle-cycles-backend", HW(STALLED_CYCLES_BACKEND) },
	{ "cpu-clock", SW(CPU_CLOCK) }, { "task-clock", SW(TASK_CLOCK) },
	{ "page-faults", SW(PAGE_FAULTS) }, { "faults", SW(PAGE_FAULTS) },
	{ "minor-faults", SW(PAGE_FAULTS_MIN) },
	{ "major-faults", SW(PAGE_FAULTS_MAJ) },
	{ "context-switches", SW(CONTEXT_SWITCHES) },
	{ "cs", SW(CONTEXT_SWITCHES) },
	{ "cpu-migrations", SW(CPU_MIGRATIONS) },
	{ "migrations", SW(CPU_MIGRATIONS) },
	{ "alignment-faults", SW(ALIGNMENT_FAULTS) },
	{ "emulation-faults", SW(EMULATION_FAULTS) },
};

/* perf's hw-cache aliases (tools/perf/util/evsel.c), indexed by id. */
static const char *const cache_names[][6] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i",
				      "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb",
				      "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};

static const char *const cache_ops[][6] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches",
					      "speculative-read",
					      "speculative-load" },
};

static const char *const cache_results[][6] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops",
						"access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};

/*
 * If *s starts with one of the aliases in table[0..rows) followed by '-'
 * or the end, return its row and step *s past it (and the '-'); else -1.
 * Longest alias first would matter only for aliases that prefix each other
 * at a '-' boundary, which perf's tables do not have.
 */
static int match_alias(const char **s, const char *const (*table)[6],
		       size_t rows)
{
	size_t r, a;

	for (r = 0; r < rows; r++) {
		for (a = 0; a < 6 && table[r][a]; a++) {
			size_t len = strlen(table[r][a]);
			const char *end = *s + len;

			if (strncasecmp(*s, table[r][a], len) != 0)
				continue;
			if (*end != '\0' && *end != '-')
				continue;
			*s = *end ? end + 1 : end;
			return (int)r;
		}
	}
	return -1;
}

/* perf's "<cache>[-<op>][-<result>]", op and result in either order. */
static bool resolve_cache(const char *name, struct perf_event_attr *attr)
{
	const char *s = name;
	int cache, op = -1, result = -1, k;

	cache = match_alias(&s, cache_names, ARRAY_SIZE(cache_names));
	if (cache < 0)
		return false;
	while (*s) {
		k = match_alias(&s, cache_ops, ARRAY_SIZE(cache_ops));
		if (k >= 0 && op < 0) {
			op = k;
			continue;
		}
		if (k >= 0)
			return false;
		k = match_alias(&s, cache_results, ARRAY_SIZE(cache_results));
		if (k < 0 || result >= 0)
			return false;
		result = k;
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	attr->type = PERF_TYPE_HW_CACHE;
	attr->config = (uint64_t)cache | (uint64_t)op << 8 |
		       (uint64_t)result << 16;
	return true;
}

/* perf's raw "rNNNN": r and 1 to 16 hex digits. */
static bool resolve_raw(const char *name, struct perf_event_attr *attr)
{
	size_t len = strlen(name);

	if (name[0] != 'r' || len < 2 || len > 17 ||
	    strspn(name + 1, "0123456789abcdefABCDEF") != len - 1)
		return false;
	attr->type = PERF_TYPE_RAW;
	attr->config = strtoull(name + 1, NULL, 16);
	return true;
}

/*
 * libpfm4 is loaded with dlopen and initialized on first need, not linked:
 * its event tables take a millisecond of relocations at every start of
 * yardstick, while most runs never look an event up by its libpfm4 name.
 * The table (util/dynlib.h) is the one static state of this file.
 */
#define PFM_FUNCTIONS(X)						\
	X(pfm_initialize) X(pfm_strerror) X(pfm_get_pmu_info)		\
	X(pfm_get_event_next) X(pfm_get_event_info)			\
	X(pfm_get_os_event_encoding)
static DYNLIB_TABLE(pfm_fns, PFM_FUNCTIONS) pfm;
static struct dynlib pfm_lib = DYNLIB(pfm, PFM_FUNCTIONS, "libpfm.so.4",
	"libpfm4", "libpfm4, for event names");

static bool pfm_ready(void)
{
	/* pfm_initialize returns at once when already initialized */
	struct error e;

	return !dynlib_load(&pfm_lib, &e) &&
	       pfm.pfm_initialize() == PFM_SUCCESS;
}

/*
 * Encode a libpfm4 name for user and kernel level, like perf does (the
 * retry in perf_event_open_attr drops kernel level when that is
 * refused). Returns a PFM_ERR_* code.
 */
static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	struct perf_event_attr tmp;
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(&tmp, 0, sizeof(tmp));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &tmp;
	arg.size = sizeof(arg);
	ret = pfm.pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	attr->type = tmp.type;
	attr->config = tmp.config;
	attr->config1 = tmp.config1;
	attr->config2 = tmp.config2;
	attr->exclude_user = tmp.exclude_user;
	attr->exclude_kernel = tmp.exclude_kernel;
	attr->exclude_hv = tmp.exclude_hv;
	return PFM_SUCCESS;
}

/*
 * Does libpfm4 know this event for any CPU model, present or not? name is
 * "[pmu::]EVENT[:umask...]"; only EVENT (and pmu, if given) are compared.
 */
static bool pfm_known_elsewhere(const char *name)
{
	const char *ev = strstr(name, "::");
	size_t pmu_len = ev ? (size_t)(ev - name) : 0;
	size_t ev_len;
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	int p, i;

	ev = ev ? ev + 2 : name;
	ev_len = strcspn(ev, ":");
	pfm_for_all_pmus(p) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm.pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS)
			continue;
		if (pmu_len && (strlen(pinfo.name) != pmu_len ||
				strncasecmp(pinfo.name, name, pmu_len) != 0))
			continue;
		for (i = pinfo.first_event; i != -1;
		     i = pfm.pfm_get_event_next(i)) {
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm.pfm_get_event_info(i, PFM_OS_NONE, &einfo)
			    != PFM_SUCCESS)
				continue;
			if (strlen(einfo.name) == ev_len &&
			    strncasecmp(einfo.name, ev, ev_len) == 0)
				return true;
		}
	}
	return false;
}

enum pe_result perf_event_resolve(const char *name,
				  struct perf_event_attr *attr,
				  struct error *e)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(generic_events); i++) {
		if (strcasecmp(name, generic_events[i].name) == 0) {
			attr->type = generic_events[i].type;
			attr->config = generic_events[i].config;
			return PE_OK;
		}
	}
	if (resolve_cache(name, attr) || resolve_raw(name, attr))
		return PE_OK;
	if (!*name || !pfm_ready()) {
		error_set(e, "unknown event '%s'", name);
		return PE_UNKNOWN_EVENT;
	}
	ret = pfm_encode(name, attr);
	if (ret == PFM_SUCCESS)
		return PE_OK;
	if (ret == PFM_ERR_NOTFOUND && pfm_known_elsewhere(name))
		return PE_UNSUPPORTED;
	if (ret == PFM_ERR_NOTFOUND)
		error_set(e, "unknown event '%s'", name);
	else
		error_set(e, "event '%s': %s", name, pfm.pfm_strerror(ret));
	return PE_UNKNOWN_EVENT;
}

/* ---- floating point events ---- */

/*
 * Intel (Broadwell on): FP_ARITH_INST_RETIRED counts instructions by width;
 * the SDM says each count is one computation per element and that
 * FM(N)ADD/SUB count twice, so count * lanes is flops with an FMA as two.
 * AMD Zen: the event counts flops themselves (a multiply-add as two, per
 * the PPR), so its weight is 1. The first list with any event this CPU's
 * libpfm4 tables encode wins; older Intel lacks the 512-bit umasks.
 */
static const struct pe_fp_event fp_intel[] = {
	{ "FP_ARITH_INST_RETIRED:SCALAR_SINGLE", 1 },
	{ "FP_ARITH_INST_RETIRED:SCALAR_DOUBLE", 1 },
	{ "FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE", 2 },
	{ "FP_ARITH_INST_RETIRED:128B_PACKED_SINGLE", 4 },
	{ "FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE", 4 },
	{ "FP_ARITH_INST_RETIRED:256B_PACKED_SINGLE", 8 },
	{ "FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE", 8 },
	{ "FP_ARITH_INST_RETIRED:512B_PACKED_SINGLE", 16 },
};

static const struct pe_fp_event fp_zen2[] = {	/* Zen 2 and later */
	{ "RETIRED_SSE_AVX_FLOPS:ANY", 1 },
};

static const struct pe_fp_event fp_zen1[] = {
	{ "RETIRED_SSE_AVX_OPERATIONS:SP_ADD_SUB_FLOPS:SP_MULT_FLOPS"
	  ":SP_DIV_FLOPS:SP_MULT_ADD_FLOPS:DP_ADD_SUB_FLOPS:DP_MULT_FLOPS"
	  ":DP_DIV_FLOPS:DP_MULT_ADD_FLOPS", 1 },
};

static const struct {
	const struct pe_fp_event *ev;
	size_t n;
} fp_lists[] = {
	{ fp_intel, ARRAY_SIZE(fp_intel) },
	{ fp_zen2, ARRAY_SIZE(fp_zen2) },
	{ fp_zen1, ARRAY_SIZE(fp_zen1) },
};

size_t perf_event_fp_discover(struct perf_event_attr *attrs, int *lanes,
			    size_t max)
{
	size_t l, i, n;

	if (!pfm_ready())
		return 0;
	for (l = 0; l < ARRAY_SIZE(fp_lists); l++) {
		n = 0;
		for (i = 0; i < fp_lists[l].n && n < max; i++) {
			memset(&attrs[n], 0, sizeof(attrs[n]));
			if (pfm_encode(fp_lists[l].ev[i].name, &attrs[n])
			    != PFM_SUCCESS)
				continue;
			lanes[n++] = fp_lists[l].ev[i].lanes;
		}
		if (n)
			return n;
	}
	return 0;
}


/* ---- reading groups ---- */

struct pe_scaled perf_event_scale(uint64_t count, uint64_t enabled,
				  uint64_t running)
{
	struct pe_scaled out;

	out.counted = running > 0;
	out.multiplexed = running > 0 && running < enabled;
	if (!out.counted)
		out.value = 0;
	else if (out.multiplexed)
		out.value = (double)count * ((double)enabled /
					     (double)running);
	else
		out.value = (double)count;
	return out;
}

struct pe_scaled perf_event_group_delta(const uint64_t *after,
					const uint64_t *before, size_t slot)
{
	size_t v = PE_READ_HEADER + slot;

	return perf_event_scale(after[v] - before[v], after[1] - before[1],
				after[2] - before[2]);
}

enum pe_result perf_event_read_group(int fd, uint64_t *buf, size_t nr,
				     struct error *e)
{
	size_t size = (PE_READ_HEADER + nr) * sizeof(uint64_t);
	ssize_t got = read(fd, buf, size);

	if (got < 0) {
		error_errno(e, errno, "cannot read perf counters");
		return PE_FAILED;
	}
	if ((size_t)got != size || buf[0] != nr) {
		error_set(e, "cannot read perf counters: short read of %zd "
			  "bytes", got);
		return PE_FAILED;
	}
	return PE_OK;
}
