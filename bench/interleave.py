#!/usr/bin/env python3
"""Commands timed run by run, interleaved: each iteration runs every
command once, in a new random order, each a posix_spawn + waitpid timed
by the monotonic clock (stdout and stderr to /dev/null). Prints per
command the median, sigma, p90, p99 and max of its wall times (ms) and
how many runs took over twice its median. Unlike blocks of runs one
command after another (hyperfine's), a busy stretch of the machine falls
on every command alike.

    bench/interleave.py N CMD ARGS... [';;' CMD ARGS...]...
"""
import os
import random
import statistics
import sys
import time


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit():
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    n = int(argv[1])
    cmds, cur = [], []
    for a in argv[2:]:
        if a == ';;':
            cmds.append(cur)
            cur = []
        else:
            cur.append(a)
    if cur:
        cmds.append(cur)
    if not cmds or any(not c for c in cmds):
        sys.exit("interleave.py: an empty command")
    times = [[] for _ in cmds]
    null = os.open(os.devnull, os.O_WRONLY)
    acts = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
    for _ in range(n):
        order = list(range(len(cmds)))
        random.shuffle(order)
        for k in order:
            t0 = time.perf_counter_ns()
            pid = os.posix_spawnp(cmds[k][0], cmds[k], os.environ,
                                  file_actions=acts)
            os.waitpid(pid, 0)
            times[k].append((time.perf_counter_ns() - t0) / 1e6)
    print("%-60s %8s %7s %6s %6s %7s %s" % ("command", "median", "sigma",
          "p90", "p99", "max", "runs>2x"))
    for c, t in zip(cmds, times):
        t.sort()
        m = statistics.median(t)
        print("%-60s %8.3f %7.3f %6.2f %6.2f %7.2f %d" % (
            " ".join(c)[-60:], m, statistics.stdev(t) if len(t) > 1 else 0,
            t[int(.9 * len(t))], t[int(.99 * len(t))], t[-1],
            sum(x > 2 * m for x in t)))


if __name__ == "__main__":
    main(sys.argv)
