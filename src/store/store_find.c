/*
 * The newest result of a kind measured on a given machine (store_find),
 * on top of the public queries only (store_history, store_load_ref), so
 * that it works the same on every backend the store may have.
 */
#include "store/store.h"

#include "util/strutil.h"

#include <stdio.h>
#include <string.h>

static bool same_machine(const struct machine *x, const struct machine *y)
{
	return str_same(x->hostname, y->hostname) && str_same(x->cpu, y->cpu)
	       && x->cores == y->cores && x->memory_bytes == y->memory_bytes;
}

int store_find(struct store *s, const struct store_find_query *q,
	       struct result *r, long long *id, struct error *e)
{
	struct store_query hq = { .metric = q->metric,
				  .machine = q->machine->hostname };
	struct store_entry *en;
	size_t n;
	long long last = -1;
	int ret = store_history(s, &hq, &en, &n, e);

	if (ret)
		return ret;
	ret = 1;
	for (size_t i = 0; i < n && ret == 1; i++) {
		char ref[32];

		if (en[i].id == last || (q->candidate &&
					 !q->candidate(en[i].benchmark)))
			continue;
		last = en[i].id;
		snprintf(ref, sizeof(ref), "%lld", en[i].id);
		ret = store_load_ref(s, ref, r, e);
		if (ret)
			break;
		if (r->kind && !strcmp(r->kind, q->kind) &&
		    same_machine(&r->machine, q->machine)) {
			*id = en[i].id;
			ret = 0;
		} else {
			result_free(r);
			ret = 1;
		}
	}
	store_entries_free(en, n);
	return ret;
}
