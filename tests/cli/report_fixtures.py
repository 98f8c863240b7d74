#!/usr/bin/env python3
"""The results of tests/cli/report.sh, with numbers known in advance.

Usage: report_fixtures.py DIR  (writes DIR/run.json, scan.json, load.json, findmax.json,
mem.json, base.json, cand.json, hostile.json, big.json, hf.json, gb.json)
"""
import json, os, sys

d = sys.argv[1]
HOSTILE = ["</script><script>alert(1)</script>",
           "<img src=x onerror=alert(2)>", "q\"uo'te&amp;",
           "ctl\x01\x07\x1b[31m\u2028\u2029\u202eend"]


def result(kind, benchmarks, **top):
    r = {"schema": "yardstick/result/v1", "kind": kind,
         "created": "2026-11-22T10:00:00Z",
         "git": {"commit": "c0ffee" + "0" * 34, "branch": "main",
                 "dirty": False},
         "machine": {"hostname": "fixture", "os": "Linux", "cpu": "cpu",
                     "cores": 2, "memory_bytes": 0, "governor": None,
                     "virtualized": True},
         "settings": {"seed": 1, "bootstrap_resamples": 1000},
         "benchmarks": benchmarks}
    r.update(top)
    return r


def bench(name, metrics, **extra):
    b = {"name": name, "command": name.split(), "metrics": {
        m: {"unit": u, "values": v} for m, (u, v) in metrics.items()}}
    b.update(extra)
    return b


def dump(name, obj):
    json.dump(obj, open(os.path.join(d, name), "w"))


# run: alpha's wall times are 1..100 ms in order (median 50.5 ms, p99
# 99.01 ms, no outlier); beta's are 10 ms but a cold first run of 100 ms
# (one high outlier, run 1). alpha's 3 warm-up runs: 250 ms, one timed
# out, 120 ms: apart, not in the statistics.
alpha = [i / 1000 for i in range(1, 101)]
beta = [0.100] + [0.010] * 99
dump("run.json", result("run", [
    bench("alpha", {"wall_time": ("s", alpha),
                    "user_time": ("s", [v / 2 for v in alpha]),
                    "peak_rss": ("bytes", [1048576] * 100)},
          warmup_wall_time=[0.25, None, 0.12]),
    bench("beta", {"wall_time": ("s", beta),
                   "user_time": ("s", [v / 2 for v in beta]),
                   "peak_rss": ("bytes", [2097152] * 100)}),
]))

# scan: "sort {n}" for n = 100 ... 1600, wall time n * 10 us (medians
# exact: the 10 values of each are symmetric around it), fitted O(n).
ns = [100, 200, 400, 800, 1600]
models = ["O(1)", "O(log n)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)"]
dump("scan.json", result("run", [
    bench("sort %d" % n, {"wall_time": ("s", [
        n * 1e-5 * (1 + (k - 4.5) * 0.001) for k in range(10)])},
          parameters={"n": str(n)}) for n in ns],
    complexity=[{"name": "sort {n}", "parameter": "n",
                 "metric": "wall_time", "best": "O(n)",
                 "coefficient": 1e-5, "intercept": 0, "r2": 1,
                 "fits": [{"model": m, "coefficient": 1e-5 if m == "O(n)"
                           else 0, "intercept": 0,
                           "r2": 1 if m == "O(n)" else 0.5}
                          for m in models]}]))

# load: a sample of 1000 latencies of 1..1000 ms (p50 500.5 ms, p99
# 990.01 ms, p99.9 999.001 ms), uncorrected 0.5 of them, 5 seconds of
# throughput, 3 errors: 2 in the 2nd second, 1 in the 4th.
lat = [i / 1000 for i in range(1, 1001)]
dump("load.json", result("load", [
    bench("http://127.0.0.1/", {
        "latency": ("s", lat),
        "latency_uncorrected": ("s", [v / 2 for v in lat]),
        "throughput": ("requests/s", [100, 120, 90, 110, 100]),
        "error_rate": ("errors/s", [0, 2, 0, 1, 0]),
        "errors": ("count", [3])}, command=[])]))

# load --find-max: 5 steps (offered 50, 100, 200, 400, 300 requests/s, in
# the order measured), the first three met the objectives, the max and
# the knee found at 200 (achieved 199/s: the mean of its seconds), then
# the max_throughput benchmark.
steps = [(50, [50, 50], 0.010, "yes", None), (100, [100, 100], 0.010, "yes", None),
         (200, [198, 200], 0.012, "yes", "max knee"),
         (400, [200, 200], 0.5, "no", None), (300, [200, 200], 0.3, "no", None)]
def step(rate, tput, lat, met, found):
    p = {"offered_rate": str(rate), "slo_met": met, "holds": "1"}
    if found:
        p["found"] = found
    return bench("http://127.0.0.1/ @ %d/s" % rate, {
        "latency": ("s", [lat] * 99 + [lat * 2]),
        "throughput": ("requests/s", tput),
        "errors": ("count", [0])}, command=[], parameters=p)
dump("findmax.json", result("load", [step(*s) for s in steps] + [
    bench("http://127.0.0.1/", {"max_throughput": ("requests/s", [199])},
          command=[])]))

# mem: one value each, and a timeline of 10 intervals of 0.1 s: the heap
# 128 KiB more each, its peak of 1 MiB ending at 0.8 s, then back to
# 4 KiB; RSS 2 MiB, then 3 MiB, not sampled in the 5th interval.
heap = [131072 * k for k in range(1, 9)] + [65536, 4096]
dump("mem.json", result("mem", [
    bench("heapfix", {"peak_heap": ("bytes", [1048576]),
                      "leaked_bytes": ("bytes", [4096]),
                      "allocations": ("count", [1000])},
          timeline={"t": [k / 10 for k in range(1, 11)], "heap": heap,
                    "rss": [2097152] * 4 + [None] + [3145728] * 5})]))

# compare: against base, "slow" is 1.5 times slower, "same" the same and
# "fast" twice as fast (each value scaled: the ratio of medians exact).
base_vals = [0.010 + 0.002 * i / 49 for i in range(50)]
dump("base.json", result("run", [
    bench(n, {"wall_time": ("s", base_vals)}) for n in
    ("slow", "same", "fast")]))
dump("cand.json", result("run", [
    bench(n, {"wall_time": ("s", [v * f for v in base_vals])}) for n, f in
    (("slow", 1.5), ("same", 1), ("fast", 0.5))]))

# hostile text in every field a page shows
h = result("run", [
    bench(s, {"wall_time": ("s", alpha[:10]), s: (s, alpha[:10])},
          parameters={s: s}, warnings=[s], unsupported=[s])
    for s in HOSTILE])
h["git"] = {"commit": HOSTILE[0], "branch": HOSTILE[1], "dirty": True}
h["machine"]["hostname"] = HOSTILE[2]
h["machine"]["cpu"] = HOSTILE[3]
dump("hostile.json", h)
dump("hostile_base.json", h)

# 100 benchmarks of 1000 runs, with the metrics `run` measures without
# perf counters
big = []
for b in range(100):
    vals = [0.001 * (1 + ((i * 7919 + b * 104729) % 1000) / 5000)
            for i in range(1000)]
    big.append(bench("bench number %d" % b, {
        "wall_time": ("s", vals), "user_time": ("s", [v / 2 for v in vals]),
        "system_time": ("s", [v / 4 for v in vals]),
        "peak_rss": ("bytes", [1048576 + (i % 17) * 4096
                               for i in range(1000)]),
        "minor_faults": ("count", [70 + i % 5 for i in range(1000)]),
        "major_faults": ("count", [0] * 1000),
        "voluntary_switches": ("count", [1 + i % 3 for i in range(1000)]),
        "involuntary_switches": ("count", [i % 2 for i in range(1000)])}))
dump("big.json", result("run", big))

# a load's sample of 100,000 latencies, a spike every 5000th
lat = [0.001 * (1 + ((i * 7919) % 1000) / 1000) + (0.01 if i % 5000 == 0
                                                    else 0)
       for i in range(100000)]
dump("bigload.json", result("load", [
    bench("http://127.0.0.1/", {"latency": ("s", lat),
                                "throughput": ("requests/s", [100] * 60)},
          command=[])]))

# hyperfine's --export-json and Google Benchmark's --benchmark_out
json.dump({"results": [{"command": "sleep 0.01", "times": alpha[:20],
                        "exit_codes": [0] * 20}]},
          open(os.path.join(d, "hf.json"), "w"))
# hyperfine --parameter-scan n: no fit in the file, n * 10 us each
json.dump({"results": [{"command": "sort %d" % n, "parameters": {"n": str(n)},
                        "times": [n * 1e-5 * (1 + (k - 4.5) * 0.001)
                                  for k in range(10)],
                        "exit_codes": [0] * 10} for n in ns]},
          open(os.path.join(d, "hfscan.json"), "w"))
json.dump({"context": {"date": "2026-11-22T10:00:00+00:00",
                       "host_name": "gb", "num_cpus": 2},
           "benchmarks": [{"name": "BM_x", "run_name": "BM_x",
                           "run_type": "iteration", "repetitions": 3,
                           "repetition_index": i, "family_index": 0,
                           "per_family_instance_index": 0,
                           "iterations": 1000, "real_time": t,
                           "cpu_time": t, "time_unit": "ns"}
                          for i, t in enumerate([100, 110, 120])]},
          open(os.path.join(d, "gb.json"), "w"))
