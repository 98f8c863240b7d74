/*
 * The collection of `yardstick mem` (mem_run.h): the program run with the
 * heap agent preloaded (heap/collect.h), its trace replayed into the
 * report (heap/analyze.h) and, when wanted, its allocation sites
 * symbolized into a profile (heap/sites.c).
 */
#include "engine/mem_run.h"

#include <stdlib.h>
#include <string.h>

#include "measure/spawn.h"
#include "profile/symbolize.h"
#include "profile/symcache.h"
#include "util/monoclock.h"
#include "util/stop.h"
#include "util/strutil.h"

int mem_prepare(struct mem_plan *p, char **path, struct error *e)
{
	const char *why;

	if (spawn_resolve_program(p->argv[0], path, e))
		return 2;
	why = heap_unpreloadable(*path, &p->own_malloc);
	if (why) {
		error_set(e, "cannot trace '%s': %s", *path, why);
		return 2;
	}
	p->ho.agent = heap_find_agent(e);
	if (!p->ho.agent || heap_address_room(&p->as_limit, e))
		return 2;
	/* libdw, for the sites (see mem_collect), loaded before the run */
	if (p->sites && symtab_load(e))
		return 3;
	return 0;
}

int mem_collect(struct mem_run *m, struct mem_plan *p, const char *path,
		struct error *e)
{
	double t0, t1, c1;

	m->p = p;
	p->ho.python = p->python;
	p->ho.interrupt = stop_flag();
	if (heap_collect(&p->ho, path, p->argv, &m->trace, e))
		return -1;
	m->trace.all_processes = p->all_processes;
	t0 = monoclock_s();
	heap_analyze(&m->trace, &m->rep);
	t1 = monoclock_s();
	c1 = monoclock_thread_cpu_s();
	/* the sites are symbolized for the report and the -o outputs only:
	 * most of the cost of a short run (libc's debug information) */
	if (p->sites) {
		char *cache = symcache_dir();

		heap_profile(&m->trace, &m->rep, p->lines, cache, &m->prof);
		free(cache);
	}
	m->replay_s = t1 - t0;
	m->symbolize_s = monoclock_s() - t1;
	m->symbolize_cpu_s = monoclock_thread_cpu_s() - c1;
	m->prof.command = argv_join(p->argv);
	return 0;
}
