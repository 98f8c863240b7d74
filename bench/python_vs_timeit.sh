#!/bin/sh
# A Python benchmark measured by yardstick's package against timeit and
# pytest-benchmark (Debian's python3-pytest-benchmark), on one workload
# (bench/py/spin.py: spin(3000), ~100 us): INVOCATIONS rounds, in each one
# invocation of every tool, the order rotated every round. Per tool: the
# value each invocation reports (yardstick: the median time_per_op;
# timeit: its best of 5 repeats; pytest-benchmark: its median), their
# median, their CV across the invocations (the precision a user sees
# between two runs of the same code), and the wall time of one invocation
# (median). `yardstick bench --processes 5` is the package's recipe for a
# verdict (5 processes in one invocation).
#   bench/python_vs_timeit.sh [build] [INVOCATIONS]
set -eu
build=$(cd "${1:-build}" && pwd)
inv=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
PYTHONPATH="$build/python:$here/py"
export PYTHONPATH
python3 - "$build" "$inv" "$here/py" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, time
build, inv, pydir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
py = "/usr/bin/python3"
tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "r.json")

def run(cmd):
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=pydir)
    wall = time.monotonic() - t
    if p.returncode:
        sys.exit(f"{cmd}: exit {p.returncode}\n{p.stderr[-3000:]}")
    return p, wall

def ys_value(path):
    r = json.load(open(path))
    return r["benchmarks"][0]["metrics"]["time_per_op"]["median"]

def yardstick():
    p, w = run([py, "-m", "yardstick", "spin.py", "--json", out])
    return ys_value(out), w

def yardstick_bench():
    p, w = run([build + "/yardstick", "bench", "--no-store", "--processes",
                "5", "--json", out, "--", py, "spin.py"])
    return ys_value(out), w

def timeit():
    p, w = run([py, "-m", "timeit", "-s", "from spin import spin",
                "spin(3000)"])
    # "2000 loops, best of 5: 96.3 usec per loop"
    num, unit = p.stdout.split(":")[1].split()[:2]
    scale = {"nsec": 1e-9, "usec": 1e-6, "msec": 1e-3, "sec": 1}[unit]
    return float(num) * scale, w

def pytest_benchmark():
    p, w = run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "test_spin.py", "--benchmark-json", out])
    return json.load(open(out))["benchmarks"][0]["stats"]["median"], w

def pytest_yardstick():
    p, w = run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                "no:benchmark", "-p", "yardstick", "test_spin.py",
                "--yardstick-json", out])
    return ys_value(out), w

tools = [("python3 -m yardstick", yardstick),
         ("yardstick bench --processes 5", yardstick_bench),
         ("python3 -m timeit", timeit),
         ("pytest-benchmark", pytest_benchmark),
         ("pytest -p yardstick", pytest_yardstick)]
res = {name: [] for name, _ in tools}
for r in range(inv):
    k = r % len(tools)
    for name, fn in tools[k:] + tools[:k]:
        res[name].append(fn())
print(f"{inv} invocations of each, interleaved; spin(3000) on {py}")
print(f"{'tool':32} {'median':>10} {'CV':>7} {'min':>10} {'max':>10} {'wall/inv':>9}")
for name, _ in tools:
    v = [x for x, _ in res[name]]
    w = [x for _, x in res[name]]
    cv = statistics.stdev(v) / statistics.mean(v) * 100
    print(f"{name:32} {statistics.median(v)*1e6:8.1f}us {cv:6.1f}% "
          f"{min(v)*1e6:8.1f}us {max(v)*1e6:8.1f}us {statistics.median(w):8.2f}s")
PY
