/*
 * "Did you mean": the nearest candidate by optimal string alignment
 * distance (Damerau's transpositions of neighbours count 1, so `rnu`
 * is 1 from `run`), with a unique prefix as the fall-back.
 */
#include "util/suggest.h"

#include <string.h>

#define SUGGEST_MAXLEN 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t suggest_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b);
	/* three rows of the dynamic programme: i-2, i-1, i */
	size_t rows[3][SUGGEST_MAXLEN + 1];

	if (la > SUGGEST_MAXLEN || lb > SUGGEST_MAXLEN)
		return limit + 1;
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		/* the rows rotate: row i is rows[i % 3] */
		size_t *cur = rows[i % 3], *prev = rows[(i + 2) % 3];
		size_t *prev2 = rows[(i + 1) % 3];
		size_t best;

		cur[0] = i;
		best = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
				      prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
			if (cur[j] < best)
				best = cur[j];
		}
		if (best > limit)
			return limit + 1;
	}
	return rows[la % 3][lb] > limit ? limit + 1 : rows[la % 3][lb];
}

const char *suggest_closest(const char *word, const char *const *cands,
			    size_t n)
{
	size_t len = strlen(word), limit = len / 3, best = (size_t)-1;
	const char *pick = NULL, *prefix = NULL;
	size_t nprefix = 0;
	int ties = 0;

	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (!cands[i])
			continue;
		d = suggest_distance(word, cands[i], limit);
		if (d < best) {
			best = d;
			pick = cands[i];
			ties = 0;
		} else if (d == best && strcmp(pick, cands[i])) {
			ties++;
		}
		if (len && !strncmp(cands[i], word, len) &&
		    (!prefix || strcmp(prefix, cands[i]))) {
			prefix = cands[i];
			nprefix++;
		}
	}
	if (pick && best <= limit && !ties)
		return pick;
	return nprefix == 1 ? prefix : NULL;
}
