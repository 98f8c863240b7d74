#!/bin/sh
# What `mem --sample` costs on held-out allocation patterns (issue 30,
# item 2: at most 1.5x native on a ~0.1 s program, 1.1x on a ~2 s one,
# with the interval 524288, the one bench/RESULTS.md has always used).
# The programs are bench/alloc_gen's (a pattern from a seed: threads,
# lifetimes, sizes, realloc share, sites, depth), its SCALE chosen per
# seed so that the native run takes about 0.1 s and 2 s of CPU (user +
# system); the seeds default to bench/mem_heldout.txt's. ROUNDS rounds,
# interleaved: in each, every (seed, length) runs natively and under
# `yardstick mem -q --no-store --sample 524288`, in random order; whole
# processes timed (wall, and CPU of the process tree). Prints per seed
# and length the median native CPU, and mem's CPU and wall as a multiple
# of native's: the median over the rounds of the per-round ratios and
# their spread (min..max), and the ratio of the least CPU times (min/min). With YS_BEFORE naming another yardstick (its
# agent beside it: main's build, say), it runs in the same rounds too,
# and its ratios are printed under it; BEFORE_ARGS are options it gets
# after --sample (YS_BEFORE=build/yardstick BEFORE_ARGS='--sample-rate 0':
# the same build without the throttle).
#   [YS_BEFORE=DIR/yardstick [BEFORE_ARGS=...]] bench/mem_sample_cost.sh [build] [ROUNDS] [GEN] [SEED...]
set -eu
build=${1:-build}
rounds=${2:-5}
gen=${3:-$build/bench/alloc_gen}
[ $# -gt 3 ] && shift 3 || set --
ys=$build/yardstick
for f in "$ys" "$gen"; do
	[ -x "$f" ] || { echo "no $f: build first (make)" >&2; exit 2; }
done
if [ $# -eq 0 ]; then
	set -- $(sed -n 's/^seed \([0-9]*\).*/\1/p' "$(dirname "$0")/mem_heldout.txt" 2>/dev/null)
fi
[ $# -gt 0 ] || { echo "no seeds: name them, or bench/mem_heldout.txt" >&2; exit 2; }
python3 - "$ys" "$gen" "$rounds" "${YS_BEFORE:-}" "${BEFORE_ARGS:-}" "$@" <<'PY'
import os, random, resource, statistics, subprocess, sys, time
ys, gen, rounds, before, before_args, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5].split(), sys.argv[6:]
tools = ("native", "mem", "before") if before else ("native", "mem")

def timed(argv):
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime

def native(seed, scale):
    return [gen, seed, str(scale), "/dev/null"]

def mem(seed, scale, binary=ys, extra=()):
    return [binary, "mem", "-q", "--no-store", "--sample", "524288", *extra, "--"] + native(seed, scale)

def argv_of(tool, seed, scale):
    if tool == "native":
        return native(seed, scale)
    return mem(seed, scale, ys, ()) if tool == "mem" else mem(seed, scale, before, before_args)

# the scale for ~0.1 s and ~2 s of CPU: from the median CPU of 3 runs at
# a scale of 4 (a run at scale 1 is mostly start-up)
lengths = {"0.1 s": 0.1, "2 s": 2.0}
scales = {}
for s in seeds:
    c = statistics.median(timed(native(s, 4))[1] for _ in range(3))
    for name, target in lengths.items():
        scales[(s, name)] = max(1, round(4 * target / max(c, 1e-3)))
res = {k: {t: [] for t in tools} for k in scales}
for _ in range(rounds):
    jobs = [(k, tool) for k in scales for tool in tools]
    for (s, name), tool in random.sample(jobs, len(jobs)):
        res[(s, name)][tool].append(timed(argv_of(tool, s, scales[(s, name)])))
print(f"{rounds} interleaved rounds; mem -q --no-store --sample 524288 against native;"
      " per round mem / native, median (min..max) over the rounds"
      + (f"; before: {before} {' '.join(before_args)}" if before else ""))
print(f"  {'seed':>6} {'length':>6} {'scale':>6} {'native CPU':>11}  {'CPU ratio':>22}  {'min/min':>7}  {'wall ratio':>22}")
worst = {(t, n): 0.0 for t in tools[1:] for n in lengths}
for (s, name), r in res.items():
    for tool in tools[1:]:
        cpu = [m[1] / n[1] for m, n in zip(r[tool], r["native"])]
        wall = [m[0] / n[0] for m, n in zip(r[tool], r["native"])]
        worst[(tool, name)] = max(worst[(tool, name)], statistics.median(cpu))
        head = (f"  {s:>6} {name:>6} {scales[(s, name)]:6d} {statistics.median(n[1] for n in r['native']):10.3f}s"
                if tool == "mem" else f"  {'before':>33}")
        # the least CPU of each over the rounds: what load adds, it
        # adds to each run, and the quietest runs keep least of it
        least = min(m[1] for m in r[tool]) / min(n[1] for n in r["native"])
        print(f"{head}  {statistics.median(cpu):6.3f} ({min(cpu):.3f}..{max(cpu):.3f})"
              f"  {least:7.3f}"
              f"  {statistics.median(wall):6.3f} ({min(wall):.3f}..{max(wall):.3f})")
for tool in tools[1:]:
    for name, target in (("0.1 s", 1.5), ("2 s", 1.1)):
        print(f"  {'' if tool == 'mem' else 'before, '}{name}: the worst seed's median CPU ratio"
              f" {worst[(tool, name)]:.3f} (target {target})")
PY
