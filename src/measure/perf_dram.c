/*
 * The memory controllers' traffic events, for the metric dram_bytes
 * (perf_event.h, perf_event_dram_discover): found as perf finds uncore
 * events, in sysfs — each PMU under SYSFS/bus/event_source/devices names
 * its type, the CPUs to open it on (one per socket or die: cpumask), the
 * bit fields of its config (format/) and its named events (events/NAME
 * "event=0x04,umask=0x03", with NAME.scale and NAME.unit).
 *
 * Known PMUs, in order of preference (the first family found is used, so
 * the same traffic is never counted twice):
 *   Intel servers: uncore_imc_N, events cas_count_read, cas_count_write
 *     (a CAS command moves one 64-byte line);
 *   Intel, free-running counters: uncore_imc_free_running_N (read,
 *     write; servers since Ice Lake) and uncore_imc_free_running or
 *     uncore_imc (data_read(s), data_write(s); client parts);
 *   AMD Zen 4 and later: amd_umc_N, event=0x0a with rdwrmask=1 (reads)
 *     and rdwrmask=2 (writes): CAS commands, 64 bytes each.
 * The bytes per count come from NAME.scale x NAME.unit where sysfs gives
 * them (Intel: 6.103515625e-5 MiB = 64 bytes), else 64.
 */
#include "measure/perf_event.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

/* One family of memory-controller PMUs and its events. */
struct dram_family {
	const char *prefix;		/* PMU names starting so */
	const char *exclude;		/* ... but not so (NULL: none) */
	const char *events[5];		/* sysfs event names, NULL-ended */
	const char *terms[3];		/* or, with no events, these terms
					 * (NULL-ended) */
};

static const struct dram_family families[] = {
	{ "uncore_imc_", "uncore_imc_free_running",
	  { "cas_count_read", "cas_count_write", NULL }, { NULL } },
	{ "uncore_imc_free_running_", NULL, { "read", "write", NULL },
	  { NULL } },
	{ "uncore_imc", NULL,
	  { "data_reads", "data_writes", "data_read", "data_write", NULL },
	  { NULL } },
	{ "amd_umc_", NULL, { NULL },
	  { "event=0x0a,rdwrmask=0x1", "event=0x0a,rdwrmask=0x2", NULL } },
};

/* Read the first line of DIR/NAME into buf; -1 if unreadable or empty. */
static int read_line(const char *dir, const char *name, char *buf,
		     size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "re");
	int ret = -1;

	free(path);
	if (!fp)
		return -1;
	if (fgets(buf, (int)len, fp)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf[0] ? 0 : -1;
	}
	fclose(fp);
	return ret;
}

/*
 * Put value into the bit ranges of a format ("config:0-7",
 * "config1:0-15", "config:0-7,32-35"): its low bits into the first
 * range, the next ones into the next. Returns -1 for a format it does
 * not know.
 */
static int apply_format(const char *fmt, unsigned long long value,
			struct perf_event_attr *attr)
{
	unsigned long long *field;
	const char *p;

	if (!strncmp(fmt, "config:", 7))
		field = (unsigned long long *)&attr->config;
	else if (!strncmp(fmt, "config1:", 8))
		field = (unsigned long long *)&attr->config1;
	else if (!strncmp(fmt, "config2:", 8))
		field = (unsigned long long *)&attr->config2;
	else
		return -1;
	p = strchr(fmt, ':') + 1;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p || lo > 63)
			return -1;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi > 63)
				return -1;
			p = end;
		}
		for (unsigned long b = lo; b <= hi; b++) {
			if (value & 1)
				*field |= 1ULL << b;
			value >>= 1;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return value ? -1 : 0;	/* bits left over: too large a value */
}

/* Encode "event=0x04,umask=0x03" with the PMU's format files. */
static int encode_terms(const char *pmu, const char *terms,
			struct perf_event_attr *attr)
{
	char *copy = xstrdup(terms), *term = copy, *next;
	char *fdir = xasprintf("%s/format", pmu);
	int ret = 0;

	for (; term && !ret; term = next) {
		char *eq, fmt[128], *end;
		unsigned long long v = 1;

		next = strchr(term, ',');
		if (next)
			*next++ = '\0';
		eq = strchr(term, '=');

		if (eq) {
			*eq = '\0';
			v = strtoull(eq + 1, &end, 0);
			if (end == eq + 1 || *end)
				ret = -1;
		}
		if (!ret && (read_line(fdir, term, fmt, sizeof(fmt)) ||
			     apply_format(fmt, v, attr)))
			ret = -1;
	}
	free(fdir);
	free(copy);
	return ret;
}

/* Bytes one count of event name of pmu stands for: scale x unit, or 64. */
static int event_bytes(const char *pmu, const char *name)
{
	char *edir = xasprintf("%s/events", pmu), *sname, *uname;
	char buf[64];
	double scale = 0, per = 64;

	sname = xasprintf("%s.scale", name);
	uname = xasprintf("%s.unit", name);
	if (read_line(edir, sname, buf, sizeof(buf)) == 0)
		scale = strtod(buf, NULL);
	if (scale > 0 && read_line(edir, uname, buf, sizeof(buf)) == 0) {
		if (!strcmp(buf, "MiB"))
			per = scale * 1048576;
		else if (!strcmp(buf, "MB"))
			per = scale * 1e6;
		else if (!strcmp(buf, "KiB"))
			per = scale * 1024;
		else if (!strcmp(buf, "B") || !strcmp(buf, "bytes"))
			per = scale;
		else
			per = 0;	/* a unit of something else */
	}
	free(edir);
	free(sname);
	free(uname);
	/* whole bytes only: lanes are integers */
	if (per < 1 || per > 1 << 20 || fabs(per - round(per)) > 1e-6)
		return 0;
	return (int)round(per);
}

/* The CPUs of a cpumask list ("0", "0,18", "0-1"): up to max. */
static size_t mask_cpus(const char *pmu, int *cpus, size_t max)
{
	char buf[256], *p = buf;
	size_t n = 0;

	if (read_line(pmu, "cpumask", buf, sizeof(buf)))
		return 0;
	while (*p && n < max) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			return 0;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return 0;
			p = end;
		}
		for (long c = lo; c <= hi && n < max; c++)
			cpus[n++] = (int)c;
		if (*p == ',')
			p++;
		else if (*p)
			return 0;
	}
	return n;
}

/* Add the events of family f found on PMU pmu (a directory) to out. */
static size_t add_pmu(const struct dram_family *f, const char *pmu,
		      struct pe_dram_event *out, size_t n, size_t max)
{
	char buf[64], *end, *edir = xasprintf("%s/events", pmu);
	int cpus[64];
	size_t ncpus = mask_cpus(pmu, cpus, 64);
	long type;

	if (read_line(pmu, "type", buf, sizeof(buf)))
		goto out_free;
	type = strtol(buf, &end, 10);
	if (*end || type <= 0 || !ncpus)
		goto out_free;
	const char *const *names = f->events[0] ? f->events : f->terms;

	for (size_t i = 0; names[i]; i++) {
		const char *name = names[i];
		struct perf_event_attr attr;
		char terms[256];
		int bytes = 64;

		memset(&attr, 0, sizeof(attr));
		attr.type = (uint32_t)type;
		if (f->events[0]) {
			if (read_line(edir, name, terms, sizeof(terms)))
				continue;
			bytes = event_bytes(pmu, name);
		} else {
			snprintf(terms, sizeof(terms), "%s", name);
		}
		if (!bytes || encode_terms(pmu, terms, &attr))
			continue;
		for (size_t k = 0; k < ncpus && n < max; k++) {
			out[n].attr = attr;
			out[n].cpu = cpus[k];
			out[n].bytes = bytes;
			snprintf(out[n].name, sizeof(out[n].name), "%s/%s/",
				 strrchr(pmu, '/') + 1, name);
			n++;
		}
	}
out_free:
	free(edir);
	return n;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

size_t perf_event_dram_discover(const char *sysfs, struct pe_dram_event *out,
				size_t max)
{
	char *dir = xasprintf("%s/bus/event_source/devices",
			      sysfs ? sysfs : "/sys");
	struct dirent **ents = NULL;
	int nents = scandir(dir, &ents, NULL, by_name);
	size_t n = 0;

	for (size_t fi = 0; fi < sizeof(families) / sizeof(families[0]) &&
	     !n; fi++) {
		const struct dram_family *f = &families[fi];

		for (int i = 0; i < nents; i++) {
			const char *name = ents[i]->d_name;
			char *pmu;

			if (strncmp(name, f->prefix, strlen(f->prefix)) ||
			    (f->exclude && !strncmp(name, f->exclude,
						    strlen(f->exclude))))
				continue;
			pmu = xasprintf("%s/%s", dir, name);
			n = add_pmu(f, pmu, out, n, max);
			free(pmu);
		}
	}
	for (int i = 0; i < nents; i++)
		free(ents[i]);
	free(ents);
	free(dir);
	return n;
}

void perf_event_attr_system_wide(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->disabled = 0;	/* counting from the open on: a run's value
				 * is a difference of readings */
	a->inherit = 0;
	a->enable_on_exec = 0;
	a->exclude_kernel = 0;	/* uncore PMUs refuse the exclude bits */
	a->exclude_hv = 0;
	a->exclude_user = 0;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_GROUP;
}
