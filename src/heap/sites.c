/*
 * The allocation sites of a heap report as a profile: every site's return
 * addresses symbolized with the program's memory maps (the texts of
 * /proc/PID/maps the agent sent whenever new code was loaded).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/analyze.h"
#include "profile/rawstacks.h"
#include "util/strutil.h"

#define MAX_INLINE 16

static const struct sample_type heap_types[HEAP_NTYPES] = {
	[HEAP_T_ALLOC_OBJECTS] = { "alloc_objects", "count" },
	[HEAP_T_ALLOC_SPACE] = { "alloc_space", "bytes" },
	[HEAP_T_INUSE_OBJECTS] = { "inuse_objects", "count" },
	[HEAP_T_INUSE_SPACE] = { "inuse_space", "bytes" },
	[HEAP_T_TEMPORARY] = { "temporary_objects", "count" },
	[HEAP_T_PEAK_SPACE] = { "peak_space", "bytes" },
};

/* Feed the executable mappings of one maps text to the symtab. */
static void load_maps(struct symtab *sym, uint32_t pid, const char *text)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[4096 + 256], perms[8];
		unsigned long long start, stop, off, inode;
		int path_at = 0;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (sscanf(buf, "%llx-%llx %7s %llx %*s %llu %n", &start,
				   &stop, perms, &off, &inode, &path_at) == 5 &&
			    path_at && perms[2] == 'x' && buf[path_at] == '/')
				symtab_mmap(sym, pid, start, stop - start, off,
					    buf + path_at);
		}
		line += len;
		if (*line == '\n')
			line++;
	}
}

static int64_t round_value(double v)
{
	return (int64_t)(v + 0.5);
}

static void add_site(struct profile *p, struct stackframes *c,
		     const struct heap_site *s, uint32_t *ids, size_t max)
{
	int64_t v[HEAP_NTYPES];
	size_t depth;

	v[HEAP_T_ALLOC_OBJECTS] = round_value(s->allocations);
	v[HEAP_T_ALLOC_SPACE] = round_value(s->bytes);
	v[HEAP_T_INUSE_OBJECTS] = round_value(s->leaked_blocks);
	v[HEAP_T_INUSE_SPACE] = round_value(s->leaked_bytes);
	v[HEAP_T_TEMPORARY] = round_value(s->temporary);
	v[HEAP_T_PEAK_SPACE] = round_value(s->peak_bytes);
	depth = stackframes_ids(c, s->gen, s->ips, s->depth, true, 1, ids, max);
	profile_add(p, ids, depth, v);
}

void heap_profile(const struct heap_trace *t, const struct heap_report *r,
		  bool lines, const char *cache_dir, struct profile *p)
{
	struct symtab *sym = symtab_new(lines);
	size_t max = HEAP_MAX_DEPTH * MAX_INLINE;
	uint32_t *ids = xmalloc(max * sizeof(*ids));
	struct stackframes *c;

	symtab_use_cache(sym, cache_dir);
	profile_init(p, heap_types, HEAP_NTYPES);
	/* each program image's mappings under its own number as its pid */
	for (size_t i = 0; i < t->nmaps; i++)
		load_maps(sym, t->maps_gen[i], t->maps[i]);
	c = stackframes_new(sym, p, MAX_INLINE);
	for (size_t i = 0; i < r->nsites; i++)
		add_site(p, c, &r->sites[i], ids, max);
	stackframes_free(c);
	p->duration_ns = (int64_t)(t->duration * 1e9);
	free(ids);
	symtab_free(sym);
}
