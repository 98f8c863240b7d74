/*
 * The counting of `yardstick roofline --count` (roofline_count.h): the
 * private VALGRIND_LIB that lets valgrind's launcher find ysflops (a link
 * to it and links to every file of the system's valgrind directory), the
 * totals every process wrote summed, the table of them, and the counted
 * work added to the timed result. See cmd/roofline_count.c for the run.
 */
#include "engine/roofline_count.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "result/metrics.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* The totals ysflops writes, by the keys it writes them under. */
enum {
	K_F64_S, K_F64_128, K_F64_256, K_F64_512,
	K_F32_S, K_F32_128, K_F32_256, K_F32_512,
	K_F16_S, K_F16_128, K_F16_256, K_F16_512,
	K_F64_FMA, K_F64_DIVSQRT, K_F32_FMA, K_F32_DIVSQRT,
	K_F16_FMA, K_F16_DIVSQRT,
	K_LOADED, K_STORED, K_INSNS, NKEYS
};

_Static_assert(NKEYS == sizeof(((struct roofline_counts *)0)->v) /
	       sizeof(uint64_t), "struct roofline_counts holds every key");

static const char *const key_names[NKEYS] = {
	"fp64_scalar", "fp64_128", "fp64_256", "fp64_512",
	"fp32_scalar", "fp32_128", "fp32_256", "fp32_512",
	"fp16_scalar", "fp16_128", "fp16_256", "fp16_512",
	"fp64_fma", "fp64_div_sqrt", "fp32_fma", "fp32_div_sqrt",
	"fp16_fma", "fp16_div_sqrt",
	"bytes_loaded", "bytes_stored", "instructions",
};


static uint64_t count_flops(const struct roofline_counts *c, int first)
{
	uint64_t sum = 0;

	for (int k = first; k < first + 4; k++)
		sum += c->v[k];
	return sum;
}

static uint64_t roofline_count_flops(const struct roofline_counts *c)
{
	return count_flops(c, K_F64_S) + count_flops(c, K_F32_S) +
	       count_flops(c, K_F16_S);
}

static uint64_t roofline_count_bytes(const struct roofline_counts *c)
{
	return c->v[K_LOADED] + c->v[K_STORED];
}

/* The directory of the system's valgrind that holds its core's files:
 * $VALGRIND_LIB when set, else where valgrind's prefix puts it. */
char *roofline_valgrind_libdir(const char *valgrind, struct error *e)
{
	const char *env = getenv("VALGRIND_LIB");
	char *real = realpath(valgrind, NULL), *prefix, *slash, *p;
	static const char *const rel[] = {
		"libexec/valgrind", "lib/x86_64-linux-gnu/valgrind",
		"lib/valgrind", "lib64/valgrind",
	};

	if (env && *env) {
		p = xasprintf("%s/vgpreload_core-amd64-linux.so", env);
		if (access(p, R_OK) == 0) {
			free(p);
			free(real);
			return xstrdup(env);
		}
		free(p);
		free(real);
		error_set(e, "VALGRIND_LIB: '%s' holds no "
			  "vgpreload_core-amd64-linux.so", env);
		return NULL;
	}
	prefix = xstrdup(real ? real : valgrind);
	free(real);
	/* PREFIX/bin/valgrind */
	for (int up = 0; up < 2; up++) {
		slash = strrchr(prefix, '/');
		if (slash)
			*slash = '\0';
	}
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		p = xasprintf("%s/%s/vgpreload_core-amd64-linux.so", prefix,
			      rel[i]);
		if (access(p, R_OK) == 0) {
			free(p);
			p = xasprintf("%s/%s", prefix, rel[i]);
			free(prefix);
			return p;
		}
		free(p);
	}
	error_set(e, "cannot find valgrind's files (vgpreload_core-amd64-"
		  "linux.so) under '%s': set VALGRIND_LIB to their directory",
		  prefix);
	free(prefix);
	return NULL;
}

/* The private VALGRIND_LIB: ysflops, and links to valgrind's files. */
int roofline_count_libdir(const char *dir, const char *tool, const char *vglib,
		       struct error *e)
{
	DIR *d = opendir(vglib);
	struct dirent *de;
	char *p, *t;
	int r = 0;

	if (!d)
		return error_errno(e, errno, "cannot open '%s'", vglib);
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, ROOFLINE_COUNT_TOOL_FILE))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		t = xasprintf("%s/%s", vglib, de->d_name);
		if (symlink(t, p))
			r = error_errno(e, errno, "cannot link '%s'", p);
		free(p);
		free(t);
	}
	closedir(d);
	if (r)
		return r;
	p = xasprintf("%s/%s", dir, ROOFLINE_COUNT_TOOL_FILE);
	t = realpath(tool, NULL);
	if (!t || symlink(t, p))
		r = error_errno(e, errno, "cannot link '%s'", p);
	free(p);
	free(t);
	return r;
}

void roofline_count_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

/* Add one process's totals (the file at path) to c. */
static int read_counts(const char *path, struct roofline_counts *c, struct error *e)
{
	char *data, *line, *save = NULL;
	bool end = false;

	if (file_read_all(path, &data, NULL, e))
		return -1;
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		uint64_t v;

		if (sscanf(line, "%63s %" SCNu64, key, &v) != 2)
			continue;
		if (!strcmp(key, "end"))
			end = true;
		for (int k = 0; k < NKEYS; k++)
			if (!strcmp(key, key_names[k]))
				c->v[k] += v;
	}
	free(data);
	c->processes++;
	if (!end)
		c->incomplete++;
	return 0;
}

/* Sum the files counts.PID.N the processes wrote in dir. */
int roofline_counts_read(const char *dir, struct roofline_counts *c,
			   struct error *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int r = 0;

	memset(c, 0, sizeof(*c));
	if (!d)
		return error_errno(e, errno, "cannot open '%s'", dir);
	while (r == 0 && (de = readdir(d))) {
		const char *s = de->d_name;
		char *p;

		if (strncmp(s, "counts.", 7))
			continue;
		p = xasprintf("%s/%s", dir, s);
		r = read_counts(p, c, e);
		free(p);
	}
	closedir(d);
	return r;
}

/* s with every '%' doubled: a path in valgrind's --log-file, which
 * expands %p and %q{VAR}. */
char *roofline_count_pct_escape(const char *s)
{
	char *out = xcalloc(2 * strlen(s) + 1, 1), *o = out;

	for (; *s; s++) {
		*o++ = *s;
		if (*s == '%')
			*o++ = '%';
	}
	return out;
}

void roofline_counts_print(FILE *fp, const struct roofline_counts *c, double secs,
			 const char *status)
{
	static const char *const prec[] = { "fp64", "fp32", "fp16" };
	static const char *const width[] = {
		"scalar", "128-bit", "256-bit", "512-bit"
	};
	uint64_t flops = roofline_count_flops(c), bytes = roofline_count_bytes(c);

	fprintf(fp, "Counted by ysflops (valgrind), %zu process%s, %.2f s "
		"under the tool%s\n", c->processes,
		plural_es(c->processes), secs, status);
	fprintf(fp, "  %-22s %" PRIu64 "\n", "FLOPs", flops);
	for (int p = 0; p < 3; p++)
		for (int w = 0; w < 4; w++) {
			uint64_t v = c->v[K_F64_S + p * 4 + w];
			char label[32];

			if (!v)
				continue;
			snprintf(label, sizeof(label), "%s %s", prec[p],
				 width[w]);
			fprintf(fp, "    %-20s %" PRIu64 "\n", label, v);
		}
	for (int p = 0; p < 3; p++) {
		uint64_t fma = c->v[K_F64_FMA + 2 * p];
		uint64_t ds = c->v[K_F64_DIVSQRT + 2 * p];
		char label[32];

		snprintf(label, sizeof(label), "%s FMA", prec[p]);
		if (fma)
			fprintf(fp, "    %-20s %" PRIu64 " lanes (2 FLOPs "
				"each, in the above)\n", label, fma);
		snprintf(label, sizeof(label), "%s div, sqrt", prec[p]);
		if (ds)
			fprintf(fp, "    %-20s %" PRIu64 " lanes (1 FLOP "
				"each, in the above)\n", label, ds);
	}
	fprintf(fp, "  %-22s %" PRIu64 "\n", "bytes loaded",
		c->v[K_LOADED]);
	fprintf(fp, "  %-22s %" PRIu64 "\n", "bytes stored",
		c->v[K_STORED]);
	if (bytes)
		fprintf(fp, "  %-22s %.4g FLOP/byte\n", "intensity",
			(double)flops / (double)bytes);
	fprintf(fp, "  %-22s %" PRIu64 "\n", "instructions", c->v[K_INSNS]);
}

void roofline_count_add_work(struct result *r,
			     const struct roofline_counts *c)
{
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		struct benchmark *b = &r->benchmarks[i];
		struct metric *wall = benchmark_find_metric(b, METRIC_WALL_TIME);
		struct metric *mf, *mb;
		size_t n = 0;

		if (wall)
			free(metric_measured(wall, &n));
		mf = benchmark_metric(b, METRIC_WORK_FLOPS, "flop");
		mb = benchmark_metric(b, METRIC_WORK_BYTES, "bytes");
		for (size_t k = 0; k < n; k++) {
			metric_push(mf, (double)roofline_count_flops(c));
			metric_push(mb, (double)roofline_count_bytes(c));
		}
	}
	result_set_str(r, METRIC_WORK_FLOPS, "counted: "
		       ROOFLINE_COUNT_TOOL);
	result_set_str(r, METRIC_WORK_BYTES, "counted: "
		       ROOFLINE_COUNT_TOOL);
	result_set_num(r, "counted_fp64_flops",
		       (double)count_flops(c, K_F64_S));
	result_set_num(r, "counted_fp32_flops",
		       (double)count_flops(c, K_F32_S));
	result_set_num(r, "counted_fp16_flops",
		       (double)count_flops(c, K_F16_S));
	result_set_num(r, "counted_fma_lanes", (double)(c->v[K_F64_FMA] +
		       c->v[K_F32_FMA] + c->v[K_F16_FMA]));
	result_set_num(r, "counted_bytes_loaded", (double)c->v[K_LOADED]);
	result_set_num(r, "counted_bytes_stored", (double)c->v[K_STORED]);
	result_set_num(r, "counted_instructions", (double)c->v[K_INSNS]);
}
