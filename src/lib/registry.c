/*
 * The registry: ys_register (called from the constructors the
 * YS_BENCHMARK macros define, before main) appends; lib_registry_parse
 * reads each spec: "NAME=VALUES" parameters (util/paramscan.h, the syntax
 * of `run --param`), "threads=N[,M...]" and "group=NAME", separated by
 * ';'.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/lib_internal.h"
#include "util/strutil.h"

struct lib_registry lib_registry;

void ys_register(const char *name, ys_fn fn, const char *spec,
		 const char *file, int line)
{
	struct lib_registry *g = &lib_registry;
	struct lib_reg *r;

	g->regs = xgrow(g->regs, &g->cap, g->n + 1, sizeof(*g->regs));
	r = &g->regs[g->n++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name ? name : "");
	r->fn = fn;
	r->spec = xstrdup(spec ? spec : "");
	r->file = xstrdup(file ? file : "?");
	r->line = line;
}

void ys_register_data(const char *name, ys_fn fn, const char *spec,
		      const char *file, int line, void *data)
{
	ys_register(name, fn, spec, file, line);
	lib_registry.regs[lib_registry.n - 1].data = data;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* entry trimmed of blanks, malloc'd */
static char *trim(const char *p, size_t len)
{
	while (len && blank(*p)) {
		p++;
		len--;
	}
	while (len && blank(p[len - 1]))
		len--;
	return xstrndup(p, len);
}

static int parse_entry(struct lib_reg *r, const char *entry,
		       struct error *e)
{
	struct scan s;

	if (!strncmp(entry, "group=", 6)) {
		if (r->group)
			return error_set(e, "'group' given twice");
		if (!entry[6] || strchr(entry + 6, ','))
			return error_set(e, "'%s': a group is one name",
					 entry);
		r->group = xstrdup(entry + 6);
		return 0;
	}
	if (scan_parse(&s, entry, e)) {
		scan_free(&s);
		return -1;
	}
	for (size_t i = 0; i < r->nscans; i++)
		if (!strcmp(r->scans[i].name, s.name)) {
			error_set(e, "'%s' given twice", s.name);
			scan_free(&s);
			return -1;
		}
	if (!strcmp(s.name, "threads"))
		for (size_t i = 0; i < s.n; i++) {
			long t;

			if (parse_long(s.values[i], &t) || t < 1 || t > 1024) {
				error_set(e, "threads: '%s' is not a number "
					  "of threads (1 to 1024)",
					  s.values[i]);
				scan_free(&s);
				return -1;
			}
		}
	r->scans = xrealloc(r->scans, (r->nscans + 1) * sizeof(*r->scans));
	r->scans[r->nscans++] = s;
	return 0;
}

static int parse_spec(struct lib_reg *r, struct error *e)
{
	const char *p = r->spec;

	if (!r->fn)
		return error_set(e, "no function");
	if (!r->name[0])
		return error_set(e, "an empty name");
	for (;;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		char *entry = trim(p, len);
		int ret = 0;

		if (entry[0])
			ret = parse_entry(r, entry, e);
		free(entry);
		if (ret)
			return -1;
		if (!semi)
			return 0;
		p = semi + 1;
	}
}

int lib_registry_parse(struct error *e)
{
	for (size_t i = 0; i < lib_registry.n; i++) {
		struct lib_reg *r = &lib_registry.regs[i];
		struct error sub;

		if (parse_spec(r, &sub))
			return error_set(e, "benchmark '%s' (%s:%d): %s",
					 r->name, r->file, r->line, sub.msg);
	}
	return 0;
}
