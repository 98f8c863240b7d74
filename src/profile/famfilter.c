/* One line of events per task (famfilter.h). */
#include "profile/famfilter.h"

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
	free(f->ids);
	free(f->fams);
	free(f->tasks);
	hashidx_free(&f->ix);
	memset(f, 0, sizeof(*f));
}

void famfilter_add(struct famfilter *f, uint64_t id, uint32_t fam)
{
	f->ids = xgrow(f->ids, &f->cap, f->n + 1, sizeof(*f->ids));
	f->fams = xgrow(f->fams, &f->capfams, f->n + 1, sizeof(*f->fams));
	f->ids[f->n] = id;
	f->fams[f->n++] = fam;
}

/* Insertion sort of ids with their families: the kernel numbers events
 * in the order they are opened, so they come sorted but for another
 * process's opens in between (none can be out of order: it is cheap). */
void famfilter_seal(struct famfilter *f)
{
	for (size_t i = 1; i < f->n; i++) {
		uint64_t id = f->ids[i];
		uint32_t fam = f->fams[i];
		size_t j = i;

		for (; j > 0 && f->ids[j - 1] > id; j--) {
			f->ids[j] = f->ids[j - 1];
			f->fams[j] = f->fams[j - 1];
		}
		f->ids[j] = id;
		f->fams[j] = fam;
	}
}

/* The family of event id, 0 when it is none of ours. */
static uint32_t family_of(const struct famfilter *f, uint64_t id)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->ids[lo] == id ? f->fams[lo] : 0;
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
	uint32_t fam = family_of(f, id);
	struct famfilter_task *t;

	if (!fam)
		return true;
	t = task_of(f, tid);
	if (t->fam == FAMFILTER_EXITED && exit) {
		f->dropped++;		/* the other family's EXIT */
		return false;
	}
	if (t->fam == 0 || t->fam == FAMFILTER_EXITED)
		t->fam = fam;
	if (t->fam != fam) {
		f->dropped++;
		return false;
	}
	if (exit)
		t->fam = FAMFILTER_EXITED;
	return true;
}
