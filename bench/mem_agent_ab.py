#!/usr/bin/env python3
"""mem's agent before and after a change, in one run: PROGRAM natively,
under `YS mem -q --no-store` with the agent built beside YS, and with
OLD_AGENT (YARDSTICK_HEAP_AGENT: another build's libyardstick-heap.so of
the same protocol), ROUNDS rounds alternating their order. Prints each
one's CPU (user + system of the process tree) median and spread, as a
multiple of native's, and its wall median.

    bench/mem_agent_ab.py YS OLD_AGENT ROUNDS PROGRAM [ARGS...]
"""
import os
import resource
import statistics
import subprocess
import sys
import time


def run(argv, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
            time.monotonic() - t0)


def main(argv):
    if len(argv) < 5 or not argv[3].isdigit():
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    ys, old, rounds, prog = argv[1], argv[2], int(argv[3]), argv[4:]
    res = {"native": [], "before": [], "after": []}
    for i in range(rounds):
        order = list(res) if i % 2 == 0 else list(reversed(list(res)))
        for k in order:
            if k == "native":
                res[k].append(run(prog))
                continue
            env = dict(os.environ)
            if k == "before":
                env["YARDSTICK_HEAP_AGENT"] = old
            res[k].append(run([ys, "mem", "-q", "--no-store", "--"] + prog,
                              env))
    nat = statistics.median(c for c, _ in res["native"])
    for k, v in res.items():
        cpu = [c for c, _ in v]
        print("  %-7s CPU %.3f s (%.3f..%.3f)  x%.2f native  wall %.3f s" % (
            k, statistics.median(cpu), min(cpu), max(cpu),
            statistics.median(cpu) / nat, statistics.median(w for _, w in v)))


if __name__ == "__main__":
    main(sys.argv)
