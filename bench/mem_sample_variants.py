#!/usr/bin/env python3
# Several yardstick builds side by side under mem --sample 524288 on
# bench/alloc_gen seeds at ~TARGET s of native CPU (session 21: agent
# variants with parts of the fast path taken away). Edit `tools` and
# `gen` to name the builds.
#   bench/mem_sample_variants.py ROUNDS TARGET SEED...
import random, statistics, sys

from mem_sample_ab import cpu  # CPU of a child's process tree
gen = "/work/main/build/bench/alloc_gen"
tools = {"main": "/work/main/build/yardstick", "vb": "/tmp/s21/vb/build/yardstick", "vc": "/tmp/s21/vc/build/yardstick"}
rounds = int(sys.argv[1]); target = float(sys.argv[2]); seeds = sys.argv[3:]
scale = {}
for s in seeds:
    c = statistics.median(cpu([gen, s, "4", "/dev/null"]) for _ in range(3))
    scale[s] = max(1, round(4 * target / max(c, 1e-3)))
res = {(s, t): [] for s in seeds for t in ["native"] + list(tools)}
for _ in range(rounds):
    jobs = list(res)
    random.shuffle(jobs)
    for s, t in jobs:
        argv = [gen, s, str(scale[s]), "/dev/null"]
        if t != "native":
            argv = [tools[t], "mem", "-q", "--no-store", "--sample", "524288", "--"] + argv
        res[(s, t)].append(cpu(argv))
for s in seeds:
    n = res[(s, "native")]
    line = f"seed {s:>6} scale {scale[s]:4d} native {statistics.median(n):.3f}s"
    for t in tools:
        r = [a / b for a, b in zip(res[(s, t)], n)]
        line += f"  {t} {statistics.median(r):.3f} ({min(r):.3f}..{max(r):.3f}) min/min {min(res[(s,t)])/min(n):.3f}"
    print(line, flush=True)
