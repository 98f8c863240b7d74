#!/bin/sh
# The cost of `yardstick roofline --count`'s counting: each workload run
# natively, under valgrind's own floor (--tool=none), under ysflops (the
# count) and under lackey --detailed-counts=yes (the anchor: valgrind's
# example tool, which counts ops per IR type), interleaved in random order
# each round; whole process timed, wall and CPU (user + system, from
# wait4: less disturbed by a busy machine). Then ysflops's counts against
# the designed ones (flopkern's kernels, matmul's 2·N³).
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
print(f"{rounds} interleaved rounds, whole process, seconds; slowdown = median (min) / native median (min); load average {os.getloadavg()[0]:.1f}")
for name, (w, want) in work.items():
    times = {k: [] for k in tools(w)}
    cpu = {k: [] for k in tools(w)}
    for r in range(rounds):
        for k in random.sample(list(times), len(times)):
            t0 = time.perf_counter()
            p = subprocess.Popen(tools(w)[k], env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            times[k].append(time.perf_counter() - t0)
            cpu[k].append(ru.ru_utime + ru.ru_stime)
            p.returncode = 0
            assert status == 0, (k, status)
    print(f"\n{name}")
    print(f"  {'mode':30} {'wall median':>11} {'min':>7} {'slowdown':>9} {'(min)':>7}"
          f"   {'CPU median':>10} {'min':>7} {'slowdown':>9} {'(min)':>7}")
    wb, wm = statistics.median(times["native"]), min(times["native"])
    cb, cm = statistics.median(cpu["native"]), min(cpu["native"])
    for k in times:
        v, c = times[k], cpu[k]
        print(f"  {k:30} {statistics.median(v):11.3f} {min(v):7.3f} "
              f"{statistics.median(v) / wb:8.1f}x {min(v) / wm:6.1f}x"
              f"   {statistics.median(c):10.3f} {min(c):7.3f} "
              f"{statistics.median(c) / cb:8.1f}x {min(c) / cm:6.1f}x")
    lk = "lackey --detailed-counts=yes"
    print(f"  ysflops / lackey: wall {statistics.median(times['ysflops']) / statistics.median(times[lk]):.2f} "
          f"(median), {min(times['ysflops']) / min(times[lk]):.2f} (min); "
          f"CPU {statistics.median(cpu['ysflops']) / statistics.median(cpu[lk]):.2f} (median), "
          f"{min(cpu['ysflops']) / min(cpu[lk]):.2f} (min)")
    print(f"  ysflops / --tool=none: CPU {statistics.median(cpu['ysflops']) / statistics.median(cpu['valgrind --tool=none']):.2f} (median)")
    c = counts(w)
    f = flops(c)
    line = f"  ysflops: {f} FLOPs, designed {want['flops']}: error {100 * (f - want['flops']) / want['flops']:+.4f}%"
    if "bytes" in want:
        b = c["bytes_loaded"] + c["bytes_stored"]
        line += f"; {b} bytes, designed {want['bytes']}: error {100 * (b - want['bytes']) / want['bytes']:+.3f}%"
    print(line)
PY
