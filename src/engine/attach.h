/*
 * A process running already, attached to by the engines of `record
 * --pid` and `trace --pid` (one helper for both): whether it is there and
 * may be sampled, whether it (or a descendant) runs CPython, its name,
 * and the sampler run on it under the signal policy of an attached
 * command (util/stop.h: a stop ends the sampling, never the process).
 */
#ifndef YS_ENGINE_ATTACH_H
#define YS_ENGINE_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/sampler.h"
#include "util/error.h"

/*
 * Whether process pid exists and is ours to sample (kill(pid, 0)).
 * Returns 0, 2 with e set for no such process, 3 for another user's
 * (perf events on it need the right to ptrace it).
 */
int attach_check(uint32_t pid, struct error *e);

/* Whether process pid or, with children, one of the descendant processes
 * it has now runs CPython (a shell or a launcher may start Python
 * workers): its C stacks have no frame pointers. */
bool attach_runs_python(uint32_t pid, bool children);

struct zb_map;
/*
 * The zone buffer (util/zonebuf.h) process pid or, with children, a
 * descendant holds, into m (read-only): one a `yardstick trace` made and
 * handed to the program it started (YARDSTICK_TRACE_FD), found as an
 * open descriptor of the process linking to the buffer's memfd
 * (/proc/PID/fd/N), else as a mapping of it (/proc/PID/map_files/, which
 * needs CAP_CHECKPOINT_RESTORE or root). libyardstick maps a buffer only
 * at the program's start, when one is handed to it: a process started
 * otherwise has none, and none can be given to it later. Returns the
 * pid whose buffer was taken, 0 when none was found.
 */
uint32_t attach_zone_buffer(uint32_t pid, bool children, struct zb_map *m);

/* The name of process pid (/proc/PID/comm), malloc'd; "?" when gone. */
char *attach_name(uint32_t pid);

/*
 * sampler_attach of pid for duration seconds (0: until a stop or its
 * exit), o->interrupt set to the stop flag: Ctrl-C and SIGTERM end the
 * sampling as the duration does, and what came is kept. Returns as
 * sampler_attach.
 */
enum sampler_result attach_sampler_run(struct sampler_opts *o, uint32_t pid,
				       double duration,
				       const struct sampler_callbacks *cb,
				       struct sampler_stats *st,
				       struct error *e);

#endif
