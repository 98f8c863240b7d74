#!/bin/sh
# The cost of `yardstick roofline --count`'s counting: each workload run
# natively, under valgrind's own floor (--tool=none), under ysflops (the
# count) and under lackey --detailed-counts=yes (the anchor: valgrind's
# example tool, which counts ops per IR type), interleaved in random order
# each round; whole process timed. Then ysflops's counts against the
# designed ones (flopkern's kernels, matmul's 2·N³).
#   bench/roofline_count.sh [build] [ROUNDS]
set -eu
build=${1:-build}
rounds=${2:-5}
kern=$build/tests/fixtures/flopkern
mm=$build/bench/matmul
tool=$build/ysflops-amd64-linux
command -v valgrind >/dev/null || { echo "valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
[ -x "$tool" ] || { echo "no $tool: build first" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# the private VALGRIND_LIB that roofline --count makes
mkdir "$dir/lib"
for f in /usr/libexec/valgrind/*; do ln -s "$f" "$dir/lib/"; done
ln -sf "$(realpath "$tool")" "$dir/lib/ysflops-amd64-linux"
python3 - "$kern" "$mm" "$dir" "$rounds" <<'PY'
import os, random, statistics, subprocess, sys, time, glob
kern, mm, d, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
n_mm = 384
work = {
    "flopkern fma64 2e7": ([kern, "fma64", "20000000"], {"flops": 8 * 20000000}),
    "flopkern scalar64 2e7": ([kern, "scalar64", "20000000"], {"flops": 2 * 20000000}),
    "flopkern triad 1e6": ([kern, "triad", "1000000"],
                           {"flops": 8 * 1000000, "bytes": 96 * 1000000}),
    f"matmul {n_mm} (-O3 -mavx2 -mfma)": ([mm, str(n_mm)], {"flops": 2 * n_mm ** 3}),
}
env = dict(os.environ, VALGRIND_LIB=d + "/lib")
def tools(w):
    return {
        "native": w,
        "valgrind --tool=none": ["valgrind", "--tool=none", "--vgdb=no"] + w,
        "ysflops": ["valgrind", "--tool=ysflops", "--vgdb=no", f"--ys-out={d}/c"] + w,
        "lackey --detailed-counts=yes": ["valgrind", "--tool=lackey", "--vgdb=no",
                                         "--detailed-counts=yes"] + w,
    }
def counts(w):
    for f in glob.glob(d + "/c.*"):
        os.unlink(f)
    subprocess.run(tools(w)["ysflops"], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c = {}
    for f in glob.glob(d + "/c.*"):
        for line in open(f):
            k, v = line.split()
            c[k] = c.get(k, 0) + int(v)
    return c
def flops(c):
    return sum(v for k, v in c.items() if k.startswith("fp") and
               not k.endswith(("fma", "div_sqrt")))
print(f"{rounds} interleaved rounds, whole process wall time (s); slowdown = median / native median")
for name, (w, want) in work.items():
    times = {k: [] for k in tools(w)}
    for r in range(rounds):
        for k in random.sample(list(times), len(times)):
            t0 = time.perf_counter()
            subprocess.run(tools(w)[k], check=True, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[k].append(time.perf_counter() - t0)
    base, bmin = statistics.median(times["native"]), min(times["native"])
    print(f"\n{name}")
    print(f"  {'mode':30} {'median':>8} {'min':>8} {'slowdown':>9} {'(min)':>7}")
    for k, v in times.items():
        print(f"  {k:30} {statistics.median(v):8.3f} {min(v):8.3f} "
              f"{statistics.median(v) / base:8.1f}x {min(v) / bmin:6.1f}x")
    ys, lk = statistics.median(times["ysflops"]), statistics.median(times["lackey --detailed-counts=yes"])
    print(f"  ysflops / lackey = {ys / lk:.2f} (median), "
          f"{min(times['ysflops']) / min(times['lackey --detailed-counts=yes']):.2f} (min)")
    c = counts(w)
    f = flops(c)
    line = f"  ysflops: {f} FLOPs, designed {want['flops']}: error {100 * (f - want['flops']) / want['flops']:+.4f}%"
    if "bytes" in want:
        b = c["bytes_loaded"] + c["bytes_stored"]
        line += f"; {b} bytes, designed {want['bytes']}: error {100 * (b - want['bytes']) / want['bytes']:+.3f}%"
    print(line)
PY
