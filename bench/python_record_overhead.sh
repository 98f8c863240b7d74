#!/bin/sh
# What `yardstick record` costs a CPU-bound Python program at the default
# rate (issue 27: <= 1.10x wall), side by side with cProfile, on
# tests/fixtures/py/pyfix.py cpu (burn_a/burn_b, ~1 s of CPU), with record's
# parts taken away one at a time to see where its cost goes:
#   native                the program alone
#   record                the default (dwarf 16 KiB copies, the Python
#                         frames read at every sample, the reader woken at
#                         every sample at real-time priority if allowed)
#   record -g fp          the frames read, no stack copies nor unwinding
#   record --python off   stack copies and unwinding, no frames read, the
#                         reader woken in batches
#   cProfile              the standard library's deterministic profiler
# (py-spy is not packaged by Debian 12.) Per mode: the wall time, the
# program's own CPU (its process_time, bench/py/timed.py) and the whole
# tree's (yardstick's reader included: getrusage of the children), medians
# and minimums over ROUNDS rounds in random order, each over native's.
#   bench/python_record_overhead.sh [build/yardstick] [ROUNDS] [PYTHON]
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
python3 - "${1:-build/yardstick}" "${2:-7}" "${3:-/usr/bin/python3.11}" \
	"$here" "$dir" <<'PY'
import random, re, resource, statistics, subprocess, sys, time
ys, rounds, py, here, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
fix = here + "/../tests/fixtures/py/pyfix.py"
prog = [py, here + "/py/timed.py", "native", fix, "cpu"]
rec = [ys, "record", "-o", d + "/o.folded"]
modes = {
    "native": prog,
    "record": rec + ["--"] + prog,
    "record -g fp": rec + ["-g", "fp", "--"] + prog,
    "record --python off": rec + ["--python", "off", "--"] + prog,
    "cProfile": [py, here + "/py/timed.py", "cprofile", fix, "cpu"],
}
res = {m: {"wall": [], "cpu": [], "tree": []} for m in modes}
pyline = ""
for _ in range(rounds):
    ms = list(modes)
    random.shuffle(ms)
    for m in ms:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        p = subprocess.run(modes[m], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        wall = time.monotonic() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        tree = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        res[m]["wall"].append(wall)
        res[m]["cpu"].append(float(re.findall(r"^cpu ([0-9.]+)$", p.stderr, re.M)[-1]))
        res[m]["tree"].append(tree)
        if m == "record":
            pyline = next((l for l in p.stderr.split("\n") if l.startswith("python:")), "")
with open("/proc/loadavg") as f:
    load = f.read().split()[0]
print(f"pyfix cpu, {rounds} rounds in random order, {py}, load average {load} at the end")
print(f"{'mode':22} {'wall median/min':>18} {'x native':>13} | {'program CPU':>13} {'x native':>13} | {'all CPU':>13} {'x native':>13}")
def fmt(v):
    return f"{statistics.median(v):6.3f} {min(v):6.3f}"
for m in modes:
    cols = []
    for k in ("wall", "cpu", "tree"):
        v, n = res[m][k], res["native"][k]
        cols.append(f"{fmt(v):>13}  x{statistics.median(v) / statistics.median(n):.2f} x{min(v) / min(n):.2f}")
    print(f"{m:22} " + " | ".join(cols))
print("record's last run:", pyline)
PY
