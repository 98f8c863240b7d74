/*
 * Between child.c and child_left.c (util only): the table of the
 * children started here and not reaped (live_add when one starts,
 * live_remove when it is reaped), and the sweep of what they left, with
 * a grace (child_sweep's) or without: SIGKILL at once, and from the
 * moment *interrupt is set (NULL: never).
 */
#ifndef YS_UTIL_CHILD_LEFT_H
#define YS_UTIL_CHILD_LEFT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

void live_add(pid_t pid, bool group);
void live_remove(pid_t pid);
size_t child_sweep_with(char *names, size_t size, bool grace,
			volatile sig_atomic_t *interrupt);

#endif
