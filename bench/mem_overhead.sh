#!/bin/sh
# The cost of heap profiling: an allocation-heavy multithreaded program
# (bench/alloc_heavy.c: THREADS x PAIRS malloc/free pairs) run natively,
# under `yardstick mem` (every allocation traced, and --sample 524288),
# under heaptrack and under valgrind's massif, interleaved in one go. Whole
# processes are timed: yardstick's analysis and symbolization included,
# heaptrack's interpretation included (heaptrack_print is not), massif's
# output included. Then the peak heap of yardstick and heaptrack compared.
#   bench/mem_overhead.sh [build] [ROUNDS] [THREADS] [PAIRS]
set -eu
build=${1:-build}
rounds=${2:-5}
threads=${3:-2}
pairs=${4:-5000000}
ys=$build/yardstick
prog=$build/bench/alloc_heavy
for t in heaptrack heaptrack_print valgrind; do
	command -v $t >/dev/null || { echo "$t is missing (scripts/deps.sh bench)" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$prog" "$dir" "$rounds" "$threads" "$pairs" <<'PY'
import glob, json, os, random, re, statistics, subprocess, sys, time
ys, prog, d, rounds, threads, pairs = sys.argv[1:7]
rounds = int(rounds)
work = [prog, threads, pairs]
tools = {
    "native": work,
    "yardstick mem": [ys, "mem", "-q", "--no-store", "--json", f"{d}/exact.json", "--"] + work,
    "yardstick mem --sample 524288": [ys, "mem", "-q", "--no-store", "--sample", "524288",
                                      "--json", f"{d}/sampled.json", "--"] + work,
    "heaptrack": ["heaptrack", "-o", f"{d}/ht"] + work,
    "valgrind --tool=massif": ["valgrind", "--tool=massif", f"--massif-out-file={d}/massif.out"] + work,
}
times = {k: [] for k in tools}
for r in range(rounds):
    for k in random.sample(list(tools), len(tools)):
        if k == "heaptrack":
            for f in glob.glob(f"{d}/ht*"):
                os.remove(f)
        t0 = time.perf_counter()
        subprocess.run(tools[k], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[k].append(time.perf_counter() - t0)
base = statistics.median(times["native"])
print(f"{prog} {threads} {pairs}: {rounds} rounds interleaved, median wall time")
for k, v in times.items():
    m = statistics.median(v)
    print(f"  {k:32s} {m:7.3f} s  {m / base:6.2f}x native  (min/min {min(v) / min(times['native']):.2f}x)")

def metric(path, name):
    return json.load(open(path))["benchmarks"][0]["metrics"][name]["values"][0]

def heaptrack_peak(data):
    """heaptrack's peak, and the same without the memory that heaptrack's own
    preload library brings in: libstdc++'s emergency exception pool (72.7K),
    allocated at start-up in a C program that never loads libstdc++ itself."""
    out = subprocess.run(["heaptrack_print", "-p", "1", "-a", "0", "-t", "0", "-l", "0", data],
                         capture_output=True, text=True).stdout
    scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
    num = lambda v, u: float(v) * scale[u]
    total = num(*re.search(r"peak heap memory consumption: ([0-9.]+)([KMG]?)", out).groups())
    own = total
    for m in re.finditer(r"^([0-9.]+)([KMG]?)B? peak memory consumed over (\d+) calls from\n(?:.*\n){0,3}?\s+in (\S+)", out, re.M):
        if "libstdc++" in m.group(4):
            own -= num(m.group(1), m.group(2))
    return total, own

def peaks(threads, pairs):
    w = [prog, str(threads), str(pairs)]
    for f in glob.glob(f"{d}/pk*"):
        os.remove(f)
    subprocess.run(["heaptrack", "-o", f"{d}/pk"] + w, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total, own = heaptrack_peak(glob.glob(f"{d}/pk*")[0])
    subprocess.run([ys, "mem", "-q", "--no-store", "--json", f"{d}/pk.json", "--"] + w, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    y = metric(f"{d}/pk.json", "peak_heap")
    print(f"peak heap, {threads} thread(s) x {pairs}: yardstick {y:.0f} B; heaptrack {total:.0f} B, "
          f"{own:.0f} B without libstdc++'s pool that heaptrack itself loads: {100 * (y - own) / own:+.2f}%")

peaks(1, 2000000)
peaks(int(threads), int(pairs))
massif = max(int(x) for x in re.findall(r"mem_heap_B=(\d+)", open(f"{d}/massif.out").read()))
print(f"massif's largest snapshot {massif} B (its snapshots may miss the exact peak)")
print(f"yardstick --sample 524288 estimate {metric(f'{d}/sampled.json', 'peak_heap'):.0f} B")
print(f"allocations: yardstick {metric(f'{d}/exact.json', 'allocations'):.0f}, "
      f"temporary {metric(f'{d}/exact.json', 'temporary_allocations'):.0f}")
PY
