/*
 * libFuzzer target of the result reader: any bytes must give either a
 * result or an error message naming the file — never a crash, a leak or
 * undefined behaviour. It reaches the imports of Google Benchmark and
 * hyperfine too (seeds of both in corpus/json, their keys in json.dict). A result that reads must write and read back to the
 * same per-run values.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "result/compare.h"
#include "result/result.h"

static void check_roundtrip(const struct result *r)
{
	char tmp[] = "/tmp/ys-fuzz-XXXXXX";
	int t = mkstemp(tmp);
	struct result back;
	struct error e;

	if (t < 0)
		return;
	close(t);
	if (result_write_json(r, tmp, &e))
		abort();
	if (result_read_json(&back, tmp, &e))
		abort();
	unlink(tmp);
	if (back.nbenchmarks != r->nbenchmarks)
		abort();
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *a = &r->benchmarks[i];
		const struct benchmark *b = &back.benchmarks[i];

		if (a->nmetrics != b->nmetrics)
			abort();
		for (size_t k = 0; k < a->nmetrics; k++) {
			if (a->metrics[k].n != b->metrics[k].n)
				abort();
			for (size_t j = 0; j < a->metrics[k].n; j++)
				if (memcmp(&a->metrics[k].values[j],
					   &b->metrics[k].values[j],
					   sizeof(double)))
					abort();
		}
	}
	result_free(&back);
}

/* What every reader guarantees: metric values are NaN (not measured) or
 * within [0, 1e30]; an import's benchmark names are unique. */
static void check_invariants(const struct result *r)
{
	bool imported = false;

	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, "imported_from"))
			imported = true;
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t k = 0; k < b->nmetrics; k++)
			for (size_t j = 0; j < b->metrics[k].n; j++) {
				double v = b->metrics[k].values[j];

				if (!isnan(v) && !(v >= 0 && v <= 1e30))
					abort();
			}
		for (size_t j = 0; imported && j < i; j++)
			if (!strcmp(r->benchmarks[j].name, b->name))
				abort();
	}
}

/* The one judge on a result against itself: the same values on both
 * sides are never "slower" or "faster", and every interval holds its
 * estimate; a refusal (one identity twice) has a message. */
static void check_judged(const struct result *r)
{
	struct compare_opts o;
	struct compare_report rep;
	struct error e;

	compare_opts_init(&o);
	if (compare_results(r, r, &o, &rep, &e)) {
		if (!e.msg[0])
			abort();
		return;
	}
	for (size_t i = 0; i < rep.n; i++) {
		const struct metric_cmp *c = &rep.rows[i];

		if (c->verdict != CMP_UNCHANGED &&
		    c->verdict != CMP_INCONCLUSIVE)
			abort();
		if (isfinite(c->change) && (c->change < c->change_ci[0] ||
					    c->change > c->change_ci[1]))
			abort();
	}
	compare_report_free(&rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct result r;
	struct error e;
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (result_read_json(&r, path, &e) == 0) {
		check_invariants(&r);
		check_roundtrip(&r);
		check_judged(&r);
		result_free(&r);
	} else if (!strstr(e.msg, path)) {
		abort();	/* every error names the file */
	}
	close(fd);
	return 0;
}
