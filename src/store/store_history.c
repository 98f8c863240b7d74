/*
 * The history of a store that holds results of several kinds: each
 * (result, benchmark) shown once, under the first of a list of metrics it
 * has (the headline metrics, in the vocabulary's rank order), and what no
 * metric of the list covers counted by kind, so that a view can say what
 * it leaves out instead of dropping it silently.
 */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/strutil.h"

/* "id:benchmark", the identity of a row across sections; malloc'd. */
static char *row_key(const struct store_entry *en, size_t *len)
{
	size_t n = strlen(en->benchmark) + 32;
	char *k = xmalloc(n);

	*len = (size_t)snprintf(k, n, "%lld:%s", en->id, en->benchmark);
	return k;
}

/* Keep the entries of v not yet in seen (and add them to it); frees the
 * others. Returns the number kept, in their order. */
static size_t keep_unseen(struct store_entry *v, size_t n,
			  struct hashmap *seen)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *key = row_key(&v[i], &len);

		if (hashmap_get(seen, key, len)) {
			store_entry_clear(&v[i]);
		} else {
			hashmap_put(seen, key, len, &v[i], NULL);
			v[k++] = v[i];
		}
		free(key);
	}
	return k;
}

/* The count of each kind the sections leave out: totals minus shown. */
static void unshown(struct store_history_view *out,
		    struct store_kind_count *tot, size_t ntot)
{
	for (size_t s = 0; s < out->nsec; s++)
		for (size_t i = 0; i < out->sec[s].n; i++)
			for (size_t k = 0; k < ntot; k++)
				if (!strcmp(tot[k].kind, out->sec[s].v[i].kind)
				    && tot[k].n)
					tot[k].n--;
	out->unshown = tot;
	out->nunshown = ntot;
}

int store_history_view(struct store *s, const struct store_query *q,
		       const char *const *metrics,
		       struct store_history_view *out, struct error *e)
{
	struct store_query one = *q;
	struct store_kind_count *tot = NULL;
	struct hashmap seen;
	size_t ntot = 0, cap = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	hashmap_init(&seen);
	for (const char *const *m = metrics; *m && !ret; m++) {
		struct store_entry *v;
		size_t n;

		one.metric = *m;
		ret = store_history(s, &one, &v, &n, e);
		if (ret)
			break;
		n = keep_unseen(v, n, &seen);
		if (!n) {
			free(v);
			continue;
		}
		out->sec = xgrow(out->sec, &cap, out->nsec + 1,
				 sizeof(*out->sec));
		out->sec[out->nsec++] = (struct store_history_section){
			*m, v, n };
	}
	hashmap_free(&seen);
	/* with a limit, what is left out is the user's choice */
	if (!ret && !q->limit)
		ret = store_history_kinds(s, q, &tot, &ntot, e);
	if (ret) {
		store_history_view_free(out);
		return ret;
	}
	unshown(out, tot, ntot);
	return 0;
}

void store_history_view_free(struct store_history_view *v)
{
	for (size_t i = 0; i < v->nsec; i++)
		store_entries_free(v->sec[i].v, v->sec[i].n);
	free(v->sec);
	store_kind_counts_free(v->unshown, v->nunshown);
	memset(v, 0, sizeof(*v));
}
