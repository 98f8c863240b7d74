#!/bin/sh
# What `yardstick mem`'s report costs after a PyTorch program ends: the
# sites symbolized and their Python frames put in (YARDSTICK_MEM_TIMING's
# "symbolize"), and the whole command's wall time, against heaptrack's
# whole job (its run, then heaptrack_print's report of the same trace),
# rounds interleaved in random order, medians and min..max.
# Programs: a small MLP's inferences (torch), ResNet-18's
# (torchvision, bench/py/torch_resnet_loop.py) and bench/mem_programs.py's
# python3 program (json and a sort, no torch).
# With BEFORE, another build directory's yardstick runs in the same
# rounds (the version before a change).
#   bench/mem_report_cost.sh [build] [ROUNDS] [BEFORE]
set -eu
build=${1:-build}
rounds=${2:-5}
before=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
for f in "$build/yardstick" ${before:+"$before/yardstick"}; do
	[ -x "$f" ] || { echo "no $f: build first (make)" >&2; exit 2; }
done
command -v heaptrack >/dev/null || { echo "heaptrack is not installed (apt-get install heaptrack)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/mlp.py" <<'PY'
import torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                        torch.nn.Linear(512, 10))
x = torch.randn(64, 256)
with torch.no_grad():
    for _ in range(50):
        y = m(x)
print(y.shape)
PY
/usr/bin/python3 - "$build/yardstick" "$before" "$dir" "$rounds" "$here" <<'PY'
import os, random, re, statistics, subprocess, sys, time
ys, before, d, rounds, here = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, here)
from mem_programs import programs
py = "/usr/bin/python3"
progs = {
    "torch MLP": [py, f"{d}/mlp.py"],
    "ResNet-18": [py, f"{here}/py/torch_resnet_loop.py", "plain", "64", "3"],
    "python3": [py if a == "python3" else a for a in programs(os.path.dirname(here), d)["python3"]],
}
tools = {"mem": os.path.abspath(ys)}
if before:
    tools["mem before"] = os.path.abspath(os.path.join(before, "yardstick"))
env = dict(os.environ, YARDSTICK_MEM_TIMING="1")
res = {}
for r in range(rounds):
    jobs = [(p, t) for p in progs for t in list(tools) + ["heaptrack", "native"]]
    random.shuffle(jobs)
    for p, t in jobs:
        argv = progs[p]
        t0 = time.perf_counter()
        sym = None
        if t == "native":
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        elif t == "heaptrack":
            out = f"{d}/ht"
            subprocess.run(["heaptrack", "-o", out] + argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            t1 = time.perf_counter()
            trace = [f for f in os.listdir(d) if f.startswith("ht.")][0]
            subprocess.run(["heaptrack_print", f"{d}/{trace}"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            sym = time.perf_counter() - t1
            os.unlink(f"{d}/{trace}")
        else:
            e = subprocess.run([tools[t], "mem", "--no-store", "--"] + argv, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, check=True).stderr
            sym = float(re.search(r"symbolize ([0-9.]+) s", e).group(1))
        wall = time.perf_counter() - t0
        res.setdefault((p, t), []).append((wall, sym))
def fmt(v):
    return f"{statistics.median(v):7.2f} ({min(v):.2f}..{max(v):.2f})"
print(f"{rounds} rounds; wall s, median (min..max); report: mem's symbolize, heaptrack's heaptrack_print")
for p in progs:
    for t in list(tools) + ["heaptrack", "native"]:
        v = res[(p, t)]
        line = f"  {p:10s} {t:11s} wall {fmt([w for w, _ in v])}"
        if v[0][1] is not None:
            line += f"   report {fmt([s for _, s in v])}"
        print(line)
PY
