/*
 * What the engines of record and trace do with the sampler's mmap and
 * fork records (profile/sampler.h's callbacks): the symbolizer and, with
 * --python, CPython's frame reader follow the program's processes. One
 * helper for both engines, which kept a copy each.
 */
#ifndef YS_ENGINE_FOLLOW_H
#define YS_ENGINE_FOLLOW_H

#include <stdint.h>

#include "profile/pystacks.h"
#include "profile/sampler.h"
#include "profile/symbolize.h"

/* A mapping m of the program's: into sym, and py (NULL: --python off).
 * Returns 0, or when m takes the place of another file's mapping (a
 * library unloaded, another at its addresses) the id that keeps m->pid's
 * mappings before it (symtab_keep): the caller moves the process's
 * samples so far there, so that they are named by the file they ran. */
uint32_t follow_mmap(struct symtab *sym, struct pystacks *py,
		     const struct raw_mmap *m);

/* A fork of process ppid into pid: pid starts with its parent's maps in
 * sym and py. A new thread (pid == ppid) changes neither. */
void follow_fork(struct symtab *sym, struct pystacks *py, uint32_t pid,
		 uint32_t ppid);

/*
 * sampler_run of the program argv as record and trace run it: Ctrl-\ is
 * for the program (it resets SIGQUIT before its exec) and ignored here
 * meanwhile; Ctrl-C, SIGTERM stop it (util/stop.h, o->interrupt set to
 * the stop flag): yardstick stays to drain the buffers and write what
 * came, marked partial. Returns as sampler_run.
 */
enum sampler_result follow_sampler_run(struct sampler_opts *o,
				       char *const *argv,
				       const struct sampler_callbacks *cb,
				       struct sampler_stats *st,
				       struct error *e);

#endif
