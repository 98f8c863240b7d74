#!/bin/sh
# libyardstick against Google Benchmark on the same kernels
# (bench/micro_kernels.h: an empty loop, an integer hash, a memcpy of
# 4 KiB, a sort of 1000 ints), each tool with its own defaults: one C++
# program with Google Benchmark (micro_gbench.cc), one C program with
# libyardstick (micro_ys.c), both built here with the same compiler flags.
# ROUNDS interleaved rounds (the order of the two flipped every round);
# each round runs each program once, whole, and times it. Prints per
# kernel the median per-iteration time of each (over the rounds) and
# their ratio, the spread of each program's estimate over the rounds
# (max/min), and the wall time to finish all four kernels.
#   bench/libyardstick_vs_gbench.sh [build] [ROUNDS]
# Needs libbenchmark-dev and g++ (scripts/deps.sh bench).
set -eu
build=${1:-build}
rounds=${2:-10}
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
[ -f /usr/include/benchmark/benchmark.h ] ||
	{ echo "Google Benchmark is missing (scripts/deps.sh bench)" >&2; exit 2; }
[ -f "$build/libyardstick.so" ] ||
	{ echo "no $build/libyardstick.so: build first (make)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
flags="-O2 -I$src/bench -I$src/include"
g++ $flags -o "$dir/gbench" "$src/bench/micro_gbench.cc" -lbenchmark -lpthread
cc $flags -o "$dir/ys" "$src/bench/micro_ys.c" -L"$build" \
	-Wl,-rpath,"$build" -lyardstick_main -lyardstick -lm -lpthread
python3 - "$dir" "$rounds" <<'PY'
import json, os, statistics, subprocess, sys, time
d, rounds = sys.argv[1], int(sys.argv[2])
kernels = ["empty", "hash", "memcpy_4k", "sort_1000"]

def run_gbench():
    t0 = time.monotonic()
    out = subprocess.run([f"{d}/gbench", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    wall = time.monotonic() - t0
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    est = {}
    for b in json.loads(out)["benchmarks"]:
        f = scale[b["time_unit"]]
        est[b["name"]] = {"real": b["real_time"] * f, "cpu": b["cpu_time"] * f}
    return wall, est

def run_ys():
    t0 = time.monotonic()
    subprocess.run([f"{d}/ys", "--json", f"{d}/ys.json"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    doc = json.load(open(f"{d}/ys.json"))
    est = {b["name"]: {"op": b["metrics"]["time_per_op"]["median"]}
           for b in doc["benchmarks"]}
    return wall, est

runs = {"gbench": [], "libyardstick": []}
for r in range(rounds):
    order = [("gbench", run_gbench), ("libyardstick", run_ys)]
    if r % 2:
        order.reverse()
    for name, fn in order:
        runs[name].append(fn())

def fmt_t(s):
    for unit, f in (("s", 1), ("ms", 1e3), ("us", 1e6), ("ns", 1e9), ("ps", 1e12)):
        if abs(s) * f >= 1 or unit == "ps":
            return f"{s * f:.3f} {unit}"

def col(tool, k, key):
    return [e[k][key] for _, e in runs[tool]]

def spread(v):
    return max(v) / min(v) if min(v) > 0 else float("inf")

print(f"{rounds} interleaved rounds, each program run whole once a round. gbench: real_time")
print("(its headline: time the process was preempted included) and cpu_time; libyardstick:")
print("time_per_op (the median of its epochs; the cost of starting and stopping its clock")
print("subtracted, not its loop's: as gbench). Per kernel the median over the rounds of")
print("each run's estimate, and the minimum (the least disturbed run). Agreement: ys op /")
print("gb cpu, of the medians and of the minimums, each within 5%; spread = max/min of the")
print("rounds' estimates, libyardstick's time_per_op against the smaller of gbench's two.")
print()
print(f"{'kernel':<10} {'gb real':>11} {'gb cpu':>11} {'ys op':>11} {'op/cpu':>7}"
      f" {'min gb cpu':>11} {'min ys op':>11} {'op/cpu':>7}   {'spread gb real':>14} {'gb cpu':>6} {'ys op':>6}")
ok = True
verdicts = []
for k in kernels:
    gr, gc = col("gbench", k, "real"), col("gbench", k, "cpu")
    yo = col("libyardstick", k, "op")
    med = {n: statistics.median(v) for n, v in (("gr", gr), ("gc", gc), ("yo", yo))}
    mn = {n: min(v) for n, v in (("gc", gc), ("yo", yo))}
    sp = {n: spread(v) for n, v in (("gr", gr), ("gc", gc), ("yo", yo))}
    rmed = med["yo"] / med["gc"] if med["gc"] > 0 else float("inf")
    rmin = mn["yo"] / mn["gc"] if mn["gc"] > 0 else float("inf")
    print(f"{k:<10} {fmt_t(med['gr']):>11} {fmt_t(med['gc']):>11} {fmt_t(med['yo']):>11}"
          f" {rmed:7.3f} {fmt_t(mn['gc']):>11} {fmt_t(mn['yo']):>11} {rmin:7.3f}"
          f"   {sp['gr']:14.3f} {sp['gc']:6.3f} {sp['yo']:6.3f}")
    # an empty loop costs nothing: both must say so (at most 0.5 ns);
    # a ratio or a spread of two numbers near zero says nothing
    if k == "empty":
        good = med["gc"] <= 0.5e-9 and med["yo"] <= 0.5e-9
        verdicts.append(f"  {k}: " + ("both at most 0.5 ns" if good else "NOT both at most 0.5 ns"))
    else:
        agree_med, agree_min = abs(rmed - 1) <= 0.05, abs(rmin - 1) <= 0.05
        tight = sp["yo"] <= min(sp["gr"], sp["gc"])
        good = agree_med and agree_min and tight
        verdicts.append(f"  {k}: medians " + ("agree" if agree_med else "DIFFER") +
                        f" ({100 * (rmed - 1):+.1f}%), minimums " + ("agree" if agree_min else "DIFFER") +
                        f" ({100 * (rmin - 1):+.1f}%) within 5%; spread " +
                        ("no larger than gbench's" if tight else "LARGER than gbench's"))
    ok &= good
print()
print("\n".join(verdicts))
gw = [w for w, _ in runs["gbench"]]
yw = [w for w, _ in runs["libyardstick"]]
wr = statistics.median(yw) / statistics.median(gw)
print(f"  wall time of all four kernels: gbench median {statistics.median(gw):.3f} s (min {min(gw):.3f}),"
      f" libyardstick median {statistics.median(yw):.4f} s (min {min(yw):.4f}); ys/gb {wr:.4f}"
      f" (1/{1 / wr:.0f}): " + ("target met" if wr <= 0.1 else "target NOT met"))
print("all targets met" if ok and wr <= 0.1 else "some target NOT met (see above)")
PY
