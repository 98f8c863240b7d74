/*
 * An example for `yardstick mem`: count word frequencies in generated
 * text with a chained hash table. Its heap has a story: one node per
 * distinct word (live until the end, when most are freed — but the table
 * of buckets is forgotten: a leak), a temporary buffer per word lowered
 * to lower case and freed at once, and a table that doubles as it grows
 * (its old bucket arrays make the peak).
 *
 * usage: wordfreq [WORDS]   (default 200000)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	char *word;
	long count;
	struct node *next;
};

static struct node **table;
static size_t nbuckets = 64, nwords;

static unsigned long hash(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void grow(void)
{
	struct node **old = table;
	size_t n = nbuckets;

	nbuckets *= 2;
	table = calloc(nbuckets, sizeof(*table));
	for (size_t i = 0; i < n; i++) {
		for (struct node *e = old[i], *next; e; e = next) {
			next = e->next;
			e->next = table[hash(e->word) % nbuckets];
			table[hash(e->word) % nbuckets] = e;
		}
	}
	free(old);
}

static void add(const char *word)
{
	char *lower = strdup(word);	/* a temporary */
	struct node *e;

	for (char *p = lower; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (e = table[hash(lower) % nbuckets]; e; e = e->next)
		if (!strcmp(e->word, lower)) {
			e->count++;
			free(lower);
			return;
		}
	e = malloc(sizeof(*e));
	e->word = strdup(lower);
	e->count = 1;
	e->next = table[hash(lower) % nbuckets];
	table[hash(lower) % nbuckets] = e;
	free(lower);
	if (++nwords > nbuckets)
		grow();
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	unsigned long x = 88172645463325252ul;
	long distinct = 0;
	char word[16];

	table = calloc(nbuckets, sizeof(*table));
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Zipf-like: small numbers are frequent */
		snprintf(word, sizeof(word), "W%lu", (x % 1000) * (x % 97) / 7);
		add(word);
	}
	for (size_t i = 0; i < nbuckets; i++)
		for (struct node *e = table[i], *next; e; e = next) {
			next = e->next;
			free(e->word);
			free(e);
			distinct++;
		}
	printf("%ld words, %ld distinct\n", n, distinct);
	return 0;	/* table itself is never freed */
}
