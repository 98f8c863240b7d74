#!/bin/sh
# The cost of `yardstick mem` on a Python program: an allocation-heavy
# CPython workload (rows parsed into dicts of ints and strings, a tenth
# of them kept, every other object a temporary) run natively (with
# pymalloc, and with PYTHONMALLOC=malloc as mem runs it), under
# `yardstick mem` (every allocation traced with its Python frames; with
# --sample 524288; with --python off) and under tracemalloc (stdlib; 1
# frame, its default, and 64 frames, as deep as mem's native stacks).
# memray, the tool closest to mem on Python, is not in Debian (the only
# registry this project installs from), hence tracemalloc. And under
# heaptrack twice: as it runs by default (it sees pymalloc's large
# blocks only: objects are carved from arenas that CPython maps itself,
# which no malloc sees), and with PYTHONMALLOC=malloc, mem's job: every
# object traced. PYTHON must be the interpreter itself, not a launcher
# (a pyenv shim is a shell script that execs it, and heaptrack does not
# follow an exec: it would trace the shell). WORK=json runs
# bench/mem_programs.py's python3 workload instead of the rows;
# WORK=torch an ML inference job (import torch and torchvision, a
# ResNet-18 with random weights, ROWS forward passes of one 224x224
# image on one thread; the interpreter must have torch: Debian's
# /usr/bin/python3.11), with a row more, mem writing the symbolized
# flame graph a user reads (-o heap.svg). Whole
# processes are timed, yardstick's analysis and symbolization included:
# wall time, CPU time (user + system of the whole process tree, from
# wait4: less at the mercy of other jobs on a shared machine than wall
# time) and the largest RSS of any process of the tree (the tool's own
# included: yardstick's collector, heaptrack's); rounds interleaved in
# random order, medians and minimums reported.
#   bench/python_mem.sh [build] [ROUNDS] [ROWS] [PYTHON]
set -eu
build=${1:-build}
rounds=${2:-5}
rows=${3:-300000}
py=${4:-/usr/bin/python3.11}
ys=$build/yardstick
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
case $(head -c 2 "$py") in '#!') echo "$py is a script; give the interpreter (python3 -c 'import sys; print(sys.executable)')" >&2; exit 2;; esac
command -v heaptrack >/dev/null || { echo "heaptrack is missing (scripts/deps.sh bench)" >&2; exit 2; }
cat > "$dir/work.py" <<'PY'
import sys
if sys.argv[1] == "json":
    import json
    d = {str(i): [i, str(i) * 3, {'k': i}] for i in range(200000)}
    e = json.loads(json.dumps(d))
    print(len(sorted(e, key=lambda k: e[k][1])))
    sys.exit(0)


def parse(line):
    a, b, name, score = line.split(",")
    return {"id": int(a), "group": int(b), "name": name.strip(),
            "score": float(score)}


def main(n):
    kept = []
    for i in range(n):
        row = parse("%d,%d, name%d ,%d.5" % (i, i % 97, i, i % 1000))
        if i % 10 == 0:
            kept.append(row)
    print(len(kept), sum(r["group"] for r in kept))


if sys.argv[1].startswith("torch"):
    import torch
    import torchvision
    torch.set_num_threads(1)
    model = torchvision.models.resnet18(weights=None).eval()
    x = torch.rand(1, 3, 224, 224)
    with torch.inference_mode():
        for _ in range(int(sys.argv[1][5:])):
            y = model(x)
    print(int(y.argmax()))
    sys.exit(0)
main(int(sys.argv[1]))
PY
case ${WORK:-rows} in
json) rows=json ;;
torch) rows=torch$([ "$rows" = 300000 ] && echo 3 || echo "$rows") ;;
esac
python3 - "$ys" "$py" "$dir" "$rounds" "$rows" <<'PY'
import os, random, resource, statistics, subprocess, sys, time
ys, py, d, rounds, rows = sys.argv[1:6]
work = [py, f"{d}/work.py", rows]
mem = [ys, "mem", "-q", "--no-store", "--json", f"{d}/mem.json"]
tools = {
    "native (pymalloc)": (work, {}),
    "native, PYTHONMALLOC=malloc": (work, {"PYTHONMALLOC": "malloc"}),
    "yardstick mem": (mem + ["--"] + work, {}),
    "yardstick mem --sample 524288": (mem + ["--sample", "524288", "--"] + work, {}),
    "yardstick mem --python off": (mem + ["--python", "off", "--"] + work, {}),
    "tracemalloc (1 frame)": ([py, "-X", "tracemalloc=1"] + work[1:], {}),
    "tracemalloc (64 frames)": ([py, "-X", "tracemalloc=64"] + work[1:], {}),
    "heaptrack (pymalloc)": (["heaptrack", "-o", f"{d}/ht"] + work, {}),
    "heaptrack, PYTHONMALLOC=malloc": (["heaptrack", "-o", f"{d}/ht"] + work,
                                       {"PYTHONMALLOC": "malloc"}),
}
if rows.startswith("torch"):
    tools["yardstick mem -o heap.svg"] = (
        mem + ["-o", f"{d}/heap.svg", "--"] + work, {})
times = {k: [] for k in tools}
cpu = {k: [] for k in tools}
rss = {k: [] for k in tools}
for r in range(int(rounds)):
    for k in random.sample(list(tools), len(tools)):
        argv, env = tools[k]
        for f in os.listdir(d):
            if f.startswith("ht"):
                os.remove(f"{d}/{f}")
        t0 = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL,
                                 env=dict(os.environ, **env))
        _, status, ru = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        times[k].append(time.perf_counter() - t0)
        if child.returncode:
            sys.exit(f"{k}: {' '.join(argv)} exited with {child.returncode}")
        cpu[k].append(ru.ru_utime + ru.ru_stime)
        rss[k].append(ru.ru_maxrss / 1024)
for what, m in (("wall time", times), ("CPU time", cpu)):
    base = m["native (pymalloc)"]
    print(f"{' '.join(work)}: {rounds} rounds interleaved, {what}")
    for k, v in m.items():
        print(f"  {k:32s} median {statistics.median(v):7.3f} s "
              f"{statistics.median(v) / statistics.median(base):6.2f}x native  "
              f"min {min(v):7.3f} s {min(v) / min(base):6.2f}x")
print("largest RSS of a process of the tree, MiB (median)")
for k, v in rss.items():
    print(f"  {k:32s} {statistics.median(v):8.1f}")
PY
