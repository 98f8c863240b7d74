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
    est = {b["name"]: b["real_time"] * scale[b["time_unit"]]
           for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"}
    return wall, est

def run_ys():
    t0 = time.monotonic()
    subprocess.run([f"{d}/ys", "--json", f"{d}/ys.json"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    doc = json.load(open(f"{d}/ys.json"))
    est = {b["name"]: b["metrics"]["time_per_op"]["median"] for b in doc["benchmarks"]}
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
            return f"{s * f:8.3f} {unit}"

print(f"{rounds} interleaved rounds; per kernel the median over the rounds of each program's estimate")
print(f"{'kernel':<10} {'gbench':>12} {'libyardstick':>12} {'ys/gb':>7}   spread (max/min of {rounds}): {'gbench':>7} {'ys':>7}")
ok = True
for k in kernels:
    g = [e[k] for _, e in runs["gbench"]]
    y = [e[k] for _, e in runs["libyardstick"]]
    gm, ym = statistics.median(g), statistics.median(y)
    gs = max(g) / min(g) if min(g) > 0 else float("inf")
    ys_ = max(y) / min(y) if min(y) > 0 else float("inf")
    ratio = ym / gm if gm > 0 else float("inf")
    # an empty loop costs nothing: both must say so (below 0.5 ns); a
    # ratio or a spread of two values near zero says nothing
    if k == "empty":
        verdict = "both <= 0.5 ns" if gm <= 0.5e-9 and ym <= 0.5e-9 else "NOT both <= 0.5 ns"
        ok &= verdict.startswith("both")
    else:
        agree = abs(ratio - 1) <= 0.05
        tighter = ys_ <= gs
        verdict = ("agree within 5%" if agree else "DIFFER by more than 5%") + \
                  ("; spread no larger" if tighter else "; spread LARGER")
        ok &= agree and tighter
    print(f"{k:<10} {fmt_t(gm):>12} {fmt_t(ym):>12} {ratio:7.3f}   {'':>27}{gs:7.3f} {ys_:7.3f}   {verdict}")
gw = [w for w, _ in runs["gbench"]]
yw = [w for w, _ in runs["libyardstick"]]
print(f"wall time of all four kernels: gbench median {statistics.median(gw):.3f} s (min {min(gw):.3f}), "
      f"libyardstick median {statistics.median(yw):.3f} s (min {min(yw):.3f}); "
      f"ratio ys/gb median {statistics.median(yw) / statistics.median(gw):.4f}, min {min(yw) / min(gw):.4f}")
wall_ok = statistics.median(yw) <= statistics.median(gw) / 10
print("wall time target (<= 1/10 of gbench's):", "met" if wall_ok else "NOT met")
print("all targets met" if ok and wall_ok else "some target NOT met (see above)")
PY
