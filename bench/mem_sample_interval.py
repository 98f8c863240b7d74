#!/usr/bin/env python3
"""What `mem --sample` costs as a function of its interval, on one
bench/alloc_gen pattern: native, then `mem -q --no-store --sample N` for
each interval N given, ROUNDS rounds, in each all of them in a new random
order; CPU time of the process tree (RUSAGE_CHILDREN). Prints each one's
median CPU and its ratio to native's (median over the rounds of the
per-round ratios, min..max). With an interval so large that no call is
sampled (1 GiB), what is left is the fast path's cost: the interposed
call, the countdown and the exact counts; the difference to the default
interval is what the sampled calls cost (their stack walks and records,
the table of sampled blocks, the collector's replay).

    bench/mem_sample_interval.py BUILD ROUNDS SEED SCALE INTERVAL...
"""
import random
import statistics
import sys

from mem_sample_ab import cpu  # CPU of a child's process tree


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    build, rounds, seed, scale = argv[1], int(argv[2]), argv[3], argv[4]
    intervals = argv[5:]
    prog = [f"{build}/bench/alloc_gen", seed, scale, "/dev/null"]
    runs = {"native": prog}
    for n in intervals:
        runs[n] = [f"{build}/yardstick", "mem", "-q", "--no-store",
                   "--sample", n, "--"] + prog
    res = {k: [] for k in runs}
    for _ in range(rounds):
        for k in random.sample(list(runs), len(runs)):
            res[k].append(cpu(runs[k]))
    print(f"alloc_gen {seed} x{scale}, {rounds} rounds, CPU of the tree")
    for k, v in res.items():
        r = [a / b for a, b in zip(v, res["native"])]
        name = k if k == "native" else f"--sample {k}"
        print(f"  {name:20s} median {statistics.median(v):.3f} s  ratio"
              f" {statistics.median(r):.3f} ({min(r):.3f}..{max(r):.3f})")


if __name__ == "__main__":
    main(sys.argv)
