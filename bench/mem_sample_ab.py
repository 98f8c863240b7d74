#!/usr/bin/env python3
"""Two builds of yardstick against each other and native on one
bench/alloc_gen pattern: `mem -q --no-store --sample 524288`, ROUNDS
rounds, in each the three in a new random order; CPU time of the process
tree (RUSAGE_CHILDREN). Prints each one's median CPU and ratio to
native's, the medians of the per-round ratios, and of A - B. Run it from
where a user would (a git checkout or not: yardstick asks git's state
only where it is kept, which --no-store is not).

    bench/mem_sample_ab.py A/yardstick B/yardstick ROUNDS SCALE [SEED] [GEN]
"""
import random
import resource
import statistics
import subprocess
import sys


def cpu(argv):
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    a, b, rounds, scale = argv[1], argv[2], int(argv[3]), argv[4]
    seed = argv[5] if len(argv) > 5 else "41385"
    gen = argv[6] if len(argv) > 6 else "build/bench/alloc_gen"
    prog = [gen, seed, scale, "/dev/null"]
    mem = ["mem", "-q", "--no-store", "--sample", "524288", "--"]
    tools = {"native": prog, "A": [a] + mem + prog, "B": [b] + mem + prog}
    res = {k: [] for k in tools}
    for _ in range(rounds):
        order = list(tools)
        random.shuffle(order)
        for k in order:
            res[k].append(cpu(tools[k]))
    n = statistics.median(res["native"])
    for k in tools:
        m = statistics.median(res[k])
        print("%-6s median CPU %.4f s  ratio %.3f" % (k, m, m / n))
    ra = [x / y for x, y in zip(res["A"], res["native"])]
    rb = [x / y for x, y in zip(res["B"], res["native"])]
    d = statistics.median(x - y for x, y in zip(res["A"], res["B"]))
    print("per round: A/native median %.3f, B/native %.3f; A - B median "
          "%.4f s (%.1f%% of native)" % (statistics.median(ra),
                                          statistics.median(rb), d,
                                          100 * d / n))


if __name__ == "__main__":
    main(sys.argv)
