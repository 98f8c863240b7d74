/*
 * "Did you mean": the candidate nearest a mistyped word. Used by the
 * command table (`yardstick rnu`) and the options layer (`--rnus`).
 */
#ifndef YS_UTIL_SUGGEST_H
#define YS_UTIL_SUGGEST_H

#include <stddef.h>

/*
 * The optimal-string-alignment distance between a and b (insertions,
 * deletions, substitutions and transpositions of neighbours, each 1),
 * counted up to limit: any larger distance is returned as limit + 1.
 */
size_t suggest_distance(const char *a, const char *b, size_t limit);

/*
 * The candidate among cands[0..n) (NULL entries are passed over) that
 * word most likely meant, or NULL: the one at the smallest distance when
 * that is at most a third of word's length (at least 1, at most 3) and
 * no other is as near; else the only candidate that word is a prefix of
 * (`hist` for `history`).
 */
const char *suggest_closest(const char *word, const char *const *cands,
			    size_t n);

#endif
