/*
 * The mapping of /proc/self/maps that holds an address, read in pieces
 * of any size: the agent reads a thread's stack bounds from it where
 * pthread_getattr_np may not be called (agent_first.h: inside that very
 * call, which holds the thread's lock), with system calls into a buffer
 * of its own (no stdio, no allocation, no lock). Included by the agent
 * and by its fuzz target (tests/fuzz/fuzz_stack_maps.c); no state but the
 * caller's.
 *
 * A line is "START-END PERMS OFFSET DEV INODE [PATH]", START and END in
 * hexadecimal. A line that does not start so is passed over; one longer
 * than MAPS_LINE is read for its addresses, and its path is not
 * "[stack]".
 */
#ifndef YS_HEAP_STACK_MAPS_H
#define YS_HEAP_STACK_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAPS_LINE 160

struct maps_find {
	uintptr_t addr;		/* the address looked for */
	/* the mapping [lo, hi) that holds it (hi 0: none does), the end of
	 * the mapping listed before it (0: none), and whether it is the main
	 * thread's stack (its path "[stack]") */
	uintptr_t lo, hi, below;
	bool stack;
	/* the line being read */
	char line[MAPS_LINE];
	size_t len;
	bool cut;		/* longer than line */
	uintptr_t last_end;	/* the end of the last mapping read */
};

static inline void maps_find_init(struct maps_find *f, uintptr_t addr)
{
	memset(f, 0, sizeof(*f));
	f->addr = addr;
}

/* A hexadecimal number of 1 to 16 digits at s[*i], ended by end: *v. */
static inline bool maps_hex(const char *s, size_t n, size_t *i, char end,
			    uintptr_t *v)
{
	size_t k = 0;

	*v = 0;
	for (; *i < n && k < 17; (*i)++, k++) {
		char c = s[*i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			break;
		*v = (*v << 4) | d;
	}
	if (k == 0 || k > 16 || *i >= n || s[*i] != end)
		return false;
	(*i)++;
	return true;
}

/* Whether the line's last field is "[stack]". */
static inline bool maps_is_stack(const char *s, size_t n)
{
	static const char name[] = "[stack]";
	size_t k = sizeof(name) - 1;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n > k && !memcmp(s + n - k, name, k) &&
	       (s[n - k - 1] == ' ' || s[n - k - 1] == '\t');
}

static inline void maps_line(struct maps_find *f)
{
	uintptr_t lo, hi;
	size_t i = 0;

	if (!maps_hex(f->line, f->len, &i, '-', &lo) ||
	    !maps_hex(f->line, f->len, &i, ' ', &hi) || hi <= lo)
		return;
	if (!f->hi && f->addr >= lo && f->addr < hi) {
		f->lo = lo;
		f->hi = hi;
		f->below = f->last_end;
		f->stack = !f->cut && maps_is_stack(f->line, f->len);
	}
	f->last_end = hi;
}

static inline void maps_feed(struct maps_find *f, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			maps_line(f);
			f->len = 0;
			f->cut = false;
		} else if (f->len < MAPS_LINE) {
			f->line[f->len++] = buf[i];
		} else {
			f->cut = true;
		}
	}
}

/* The end of the text: a last line without its newline. */
static inline void maps_finish(struct maps_find *f)
{
	if (f->len)
		maps_line(f);
	f->len = 0;
}

#endif
