#!/usr/bin/env python3
"""Two builds of yardstick's `mem` (the collector and its replay: each
build's own agent beside it) against each other and native, on any
PROGRAM: `mem -q --no-store`, ROUNDS rounds, the three in a new random
order each round. Prints each one's median CPU (user + system of the
process tree) as a multiple of native's, its wall median, and the
median of the per-round ratios B/A.

    bench/mem_collector_ab.py A/yardstick B/yardstick ROUNDS PROGRAM [ARGS...]
"""
import random
import statistics
import sys

from mem_agent_ab import run  # one process tree's CPU and wall time


def main(argv):
    if len(argv) < 5 or not argv[3].isdigit():
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    a, b, rounds, prog = argv[1], argv[2], int(argv[3]), argv[4:]
    res = {"native": [], "A": [], "B": []}
    for _ in range(rounds):
        order = list(res)
        random.shuffle(order)
        for k in order:
            ys = a if k == "A" else b
            res[k].append(run(prog if k == "native" else
                              [ys, "mem", "-q", "--no-store", "--"] + prog))
    native = statistics.median(c for c, _ in res["native"])
    for k, v in res.items():
        cpu = [c for c, _ in v]
        print("%-6s CPU %.3f s (%.3f..%.3f)  x%.2f native  wall %.3f s" %
              (k, statistics.median(cpu), min(cpu), max(cpu),
               statistics.median(cpu) / native,
               statistics.median(w for _, w in v)))
    print("per round B/A CPU: median %.3f" % statistics.median(
        bb[0] / aa[0] for aa, bb in zip(res["A"], res["B"])))


if __name__ == "__main__":
    main(sys.argv)
