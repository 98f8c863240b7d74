/* The program's processes followed by the symbolizer and CPython's frame
 * reader, for record and trace (follow.h). */
#include "engine/follow.h"

#include <signal.h>
#include <string.h>

#include "util/stop.h"

uint32_t follow_mmap(struct symtab *sym, struct pystacks *py,
		     const struct raw_mmap *m)
{
	uint32_t kept = 0;

	if (symtab_mmap_replaces(sym, m->pid, m->start, m->len, m->path))
		kept = symtab_keep(sym, m->pid);
	symtab_mmap(sym, m->pid, m->start, m->len, m->pgoff, m->path);
	if (py)
		pystacks_mmap(py, m->pid, m->path);
	return kept;
}

void follow_fork(struct symtab *sym, struct pystacks *py, uint32_t pid,
		 uint32_t ppid)
{
	if (pid == ppid)
		return;
	symtab_fork(sym, pid, ppid);
	if (py)
		pystacks_fork(py, pid, ppid);
}

enum sampler_result follow_sampler_run(struct sampler_opts *o,
				       char *const *argv,
				       const struct sampler_callbacks *cb,
				       struct sampler_stats *st,
				       struct error *e)
{
	struct sigaction ign, old_quit;
	enum sampler_result res;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &ign, &old_quit);
	o->interrupt = stop_flag();
	res = sampler_run(o, argv, cb, st, e);
	sigaction(SIGQUIT, &old_quit, NULL);
	return res;
}
