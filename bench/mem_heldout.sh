#!/bin/sh
# `yardstick mem` (exact mode) on the held-out allocation patterns of
# bench/mem_heldout.txt (bench/alloc_gen.c, seeds no tuning of mem's saw)
# and on four real programs (sqlite3, git log, python3, cc1: the same
# workloads as bench/mem_workloads.sh), side by side in one run with
# native, with mem's replay after the program's end
# (YARDSTICK_MEM_REPLAY=after, the way before issue 30) and with heaptrack.
# Whole processes, interleaved rounds in random order. Prints per
# program: the median wall time and CPU time (user + system of the whole
# process tree, wait4) with their spread (min-max over the rounds), each
# as a multiple of native, yardstick's CPU over heaptrack's, and the most
# bytes of records yardstick held at once with its stacks' store
# (YARDSTICK_MEM_TIMING).
#   bench/mem_heldout.sh [build] [ROUNDS] [SCALE]
# MEM_BEFORE=DIR/yardstick (another build, its agent beside it) puts its
# mem in the third column instead of the replay after the end: before
# and after a change, in one run. MEM_SEEDS="S1 S2 ..." runs those seeds
# instead of the list's; MEM_REAL="sqlite3,cc1 -O2" only those of the real
# programs (default all; "" none).
set -eu
build=${1:-build}
rounds=${2:-5}
scale=${3:-10}
ys=$build/yardstick
gen=$build/bench/alloc_gen
for t in heaptrack sqlite3 python3 git cc; do
	command -v $t >/dev/null || { echo "$t is missing (scripts/deps.sh bench)" >&2; exit 2; }
done
[ -x "$gen" ] || { echo "$gen is missing: ninja -C $build" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$gen" "$src" "$dir" "$rounds" "$scale" <<'PY'
import glob, os, random, re, statistics, subprocess, sys, time
ys, gen, src, d, rounds, scale = sys.argv[1:5] + [int(sys.argv[5]), sys.argv[6]]
seeds = re.findall(r"^seed (\d+)", open(f"{src}/bench/mem_heldout.txt").read(), re.M)
seeds = os.environ.get("MEM_SEEDS", "").split() or seeds
before = os.environ.get("MEM_BEFORE")
sys.path.insert(0, f"{src}/bench")
import mem_programs
programs = {f"gen {s} x{scale}": [gen, s, scale, "/dev/null"] for s in seeds}
real = mem_programs.programs(src, d)
if "MEM_REAL" in os.environ:
    keep = [n for n in os.environ["MEM_REAL"].split(",") if n]
    real = {n: real[n] for n in keep}
if "python3" in real:
    real["python3 objects"] = real["python3"]	# mem_programs.HEAPTRACK_ENV
programs.update(real)
def tools(name, w):
    m = [ys, "mem", "-q", "--no-store", "--json", f"{d}/m.json", "--"] + w
    return {"native": (w, {}), "mem": (m, {"YARDSTICK_MEM_TIMING": "1"}),
            "mem after": ([before] + m[1:], {"YARDSTICK_MEM_TIMING": "1"}) if before
                         else (m, {"YARDSTICK_MEM_REPLAY": "after",
                                   "YARDSTICK_MEM_TIMING": "1"}),
            # it hangs at times where it fails: a minute at most
            "heaptrack": (["timeout", "60", "heaptrack", "-o", f"{d}/ht"] + w,
                          mem_programs.HEAPTRACK_ENV.get(name, {}))}
def run(argv, env):
    for f in glob.glob(f"{d}/ht*") + glob.glob(f"{d}/w.db"):
        os.remove(f)
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=dict(os.environ, **env), text=True)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    # heaptrack 1.4 fails on some patterns (its interpreter throws
    # std::bad_alloc): said so, not counted
    if status or "bad_alloc" in err:
        if "heaptrack" in argv:
            return None
        sys.exit(f"{argv}: status {status}: {err[-2000:]}")
    # the records and the stacks' store (a build before the store: the
    # records alone, its stacks among them)
    held = (re.search(r"([0-9.]+) MiB in all", err) or
            re.search(r"at most ([0-9.]+) MiB of records held", err))
    return wall, ru.ru_utime + ru.ru_stime, float(held.group(1)) if held else None
def fmt(v, base):
    if not v:
        return f"{'failed':>22s}"
    return f"{statistics.median(v) / base:6.2f}x ({min(v) / base:5.2f}-{max(v) / base:5.2f})"
print(f"{rounds} interleaved rounds; whole processes; median (min-max) as a multiple of native's median")
print(f"  {'program':16s} {'':4s} {'native':>8s}  {'mem':>22s}  {'mem before' if before else 'mem, replay after':>22s}  "
      f"{'heaptrack':>22s}  mem/heaptrack  held MiB (after)")
for name, w in programs.items():
    ts = tools(name, w)
    res = {k: [] for k in ts}
    for _ in range(rounds):
        for k in random.sample(list(ts), len(ts)):
            if k == "heaptrack" and res[k] and res[k][0] is None:
                res[k].append(None)	# failed in the first round: no more
                continue
            res[k].append(run(*ts[k]))
    for col, what in ((0, "wall"), (1, "cpu")):
        v = {k: [r[col] for r in res[k] if r] for k in res}
        base = statistics.median(v["native"])
        ratio = (f"{statistics.median(v['mem']) / statistics.median(v['heaptrack']):13.2f}"
                 if v["heaptrack"] else f"{'-':>13s}")
        line = (f"  {name if col == 0 else '':16s} {what:4s} {base:7.3f}s  {fmt(v['mem'], base)}  "
                f"{fmt(v['mem after'], base)}  {fmt(v['heaptrack'], base)}  {ratio}")
        if col == 0:
            held = [r[2] for r in res["mem"] if r[2] is not None]
            if len(v["heaptrack"]) < rounds:
                print(f"  ({name}: heaptrack failed {rounds - len(v['heaptrack'])} of {rounds} runs)")
            after = [r[2] for r in res["mem after"] if r[2] is not None]
            if held:
                line += f"  {max(held):7.1f} ({max(after):.1f})"
        print(line, flush=True)
PY
