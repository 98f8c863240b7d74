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
#include <stdint.h>
#include <sys/types.h>

void live_add(pid_t pid, bool group);
void live_remove(pid_t pid);
size_t child_sweep_with(char *names, size_t size, bool grace,
			volatile sig_atomic_t *interrupt, int64_t *cpu_ns);

/*
 * The first stop (Ctrl-C, SIGTERM, SIGHUP to yardstick): the program gets
 * SIGINT, as from a terminal, and CHILD_STOP_GRACE_NS to end by itself
 * (Python's KeyboardInterrupt, its finally blocks, multiprocessing's
 * joins); then it is killed. What it left then gets child_sweep's
 * grace (multiprocessing's resource tracker unlinks the shared memory the
 * program forgot). A second stop kills everything at once (stop.c).
 * child_pass_stop sends the SIGINT: to the group of a child that has its
 * own (the terminal's reached only ours), to none else (the terminal's
 * reached it: a second one would interrupt its clean-up).
 */
#define CHILD_STOP_GRACE_NS (2000 * 1000000LL)
void child_pass_stop(pid_t pid, bool own_group);

/* For a child in our group when the stop did not reach the group (sent
 * to the keeper or to yardstick alone: stop_reached_group): SIGINT to it
 * and to every process below it still in our group, those a terminal's
 * Ctrl-C would have reached. */
void child_pass_stop_below(pid_t pid);

#endif
