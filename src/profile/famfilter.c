/* One line of events per task (famfilter.h). */
#include "profile/famfilter.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

#define FAMFILTER_EXITED UINT32_MAX

void famfilter_init(struct famfilter *f)
{
	memset(f, 0, sizeof(*f));
	hashidx_init(&f->ix);
}

void famfilter_free(struct famfilter *f)
{
	free(f->ev);
	free(f->tasks);
	hashidx_free(&f->ix);
	memset(f, 0, sizeof(*f));
}

void famfilter_add(struct famfilter *f, uint64_t id, uint32_t fam,
		   uint32_t owner)
{
	assert(fam != 0 && fam != FAMFILTER_EXITED);
	f->ev = xgrow(f->ev, &f->cap, f->n + 1, sizeof(*f->ev));
	f->ev[f->n++] = (struct famfilter_event){ id, fam, owner, false };
}

void famfilter_partial(struct famfilter *f, uint32_t fam)
{
	for (size_t i = f->n; i > 0 && f->ev[i - 1].fam == fam; i--)
		f->ev[i - 1].partial = true;
}

/* Insertion sort by id: the kernel numbers events in the order they are
 * opened, so they come sorted but for another process's opens in
 * between. */
void famfilter_seal(struct famfilter *f)
{
	for (size_t i = 1; i < f->n; i++) {
		struct famfilter_event e = f->ev[i];
		size_t j = i;

		for (; j > 0 && f->ev[j - 1].id > e.id; j--)
			f->ev[j] = f->ev[j - 1];
		f->ev[j] = e;
	}
}

/* Our event id, NULL when it is none of ours. */
static const struct famfilter_event *event_of(const struct famfilter *f,
					      uint64_t id)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->ev[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->ev[lo].id == id ? &f->ev[lo] : NULL;
}

static struct famfilter_task *task_of(struct famfilter *f, uint32_t tid)
{
	uint64_t h = hash_u64(tid), v;
	size_t pos;

	for (v = hashidx_first(&f->ix, h, &pos); v;
	     v = hashidx_next(&f->ix, h, &pos))
		if (f->tasks[v - 1].tid == tid)
			return &f->tasks[v - 1];
	f->tasks = xgrow(f->tasks, &f->captasks, f->ntasks + 1,
			 sizeof(*f->tasks));
	f->tasks[f->ntasks] = (struct famfilter_task){ .tid = tid };
	hashidx_add(&f->ix, h, ++f->ntasks);
	return &f->tasks[f->ntasks - 1];
}

bool famfilter_keep(struct famfilter *f, uint32_t tid, uint64_t id,
		    bool exit)
{
	const struct famfilter_event *ev = event_of(f, id);
	struct famfilter_task *t;

	if (!ev)
		return true;
	t = task_of(f, tid);
	if (t->fam == FAMFILTER_EXITED && exit) {
		f->dropped++;		/* the other family's EXIT */
		return false;
	}
	if (t->fam == 0 || t->fam == FAMFILTER_EXITED ||
	    (ev->fam != t->fam && ev->owner == tid && !t->own) ||
	    (ev->fam != t->fam && t->partial && !ev->partial)) {
		t->fam = ev->fam;
		t->own = ev->owner == tid;
		t->partial = ev->partial;
	}
	if (t->fam != ev->fam) {
		f->dropped++;
		return false;
	}
	if (exit)
		t->fam = FAMFILTER_EXITED;
	return true;
}
