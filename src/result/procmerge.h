/*
 * One benchmark program's results from several processes, merged into one
 * result (`bench --processes`): every metric's values in the order the
 * processes ran, each with the process that measured it (struct
 * metric.process), so that a judge can take the process, not the epoch,
 * as the unit: a process shifts as a whole with the CPU it lands on.
 */
#ifndef YS_RESULT_PROCMERGE_H
#define YS_RESULT_PROCMERGE_H

#include "result/result.h"
#include "util/error.h"

/*
 * Move the result of one process (part, left empty) into into, its values
 * marked as measured by process. The first part (into empty: no
 * benchmark) becomes into, with its settings, machine, comparisons and
 * fits; a later one adds its values to the benchmarks of the same name
 * (its settings are dropped: they are the first's, but for the
 * calibration each process made for itself), and a benchmark only it ran
 * is added. Unsupported metrics and warnings are joined, each once.
 * Returns 0, or -1 with a message naming the process when a metric comes
 * in another unit than before (into then holds the values merged so far).
 * A later process's warning is added unless one says the same up to its
 * first number ("unstable: time_per_op varies by 8.9%" is said once).
 */
int result_merge_process(struct result *into, struct result *part,
			 unsigned process, struct error *e);

/*
 * After the last part: the setting "processes" (nprocesses), the
 * summaries of the merged values, and the group comparisons of the first
 * process made again over every process's values (same pairs, metric,
 * seed and resamples). The complexity fits stay the first process's.
 * With one process, the values carry no process ids (all in one).
 */
void result_merge_finish(struct result *r, unsigned nprocesses);

#endif
