#!/bin/sh
# `yardstick mem` against heaptrack on programs nobody on the project wrote:
# sqlite3 building and querying a table, python3 building, serializing
# and sorting a dict, git walking this repository's history, and the C
# compiler compiling one of yardstick's own files. Whole
# processes timed (yardstick's replay and symbolization, heaptrack's
# interpretation), interleaved rounds in random order; prints the median of
# each and the ratios to native and between the two profilers.
#   bench/mem_workloads.sh [build] [ROUNDS]
set -eu
build=${1:-build}
rounds=${2:-5}
ys=$build/yardstick
for t in heaptrack sqlite3 python3 git cc; do
	command -v $t >/dev/null || { echo "$t is missing (scripts/deps.sh bench)" >&2; exit 2; }
done
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$src" "$dir" "$rounds" <<'PY'
import glob, os, random, statistics, subprocess, sys, time
ys, src, d, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, f"{src}/bench")
import mem_programs
workloads = mem_programs.programs(src, d)
def tools(w):
    return {
        "native": w,
        "yardstick mem": [ys, "mem", "-q", "--no-store", "--json", f"{d}/m.json", "--"] + w,
        "heaptrack": ["heaptrack", "-o", f"{d}/ht"] + w,
    }
print(f"{rounds} interleaved rounds, median wall time of whole processes")
for name, w in workloads.items():
    ts = tools(w)
    times = {k: [] for k in ts}
    for _ in range(rounds):
        for k in random.sample(list(ts), len(ts)):
            for f in glob.glob(f"{d}/ht*") + glob.glob(f"{d}/w.db"):
                os.remove(f)
            t0 = time.perf_counter()
            p = subprocess.run(ts[k], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if p.returncode:
                sys.exit(f"{ts[k]}: exit {p.returncode}: {p.stderr[-2000:]}")
            times[k].append(time.perf_counter() - t0)
    m = {k: statistics.median(v) for k, v in times.items()}
    print(f"  {name:10s} native {m['native']:.3f} s   yardstick mem {m['yardstick mem']:.3f} s "
          f"({m['yardstick mem'] / m['native']:.2f}x)   heaptrack {m['heaptrack']:.3f} s "
          f"({m['heaptrack'] / m['native']:.2f}x)   yardstick/heaptrack {m['yardstick mem'] / m['heaptrack']:.2f}")
PY
