#!/bin/sh
# The cost of a Python zone (python/yardstick, docs/python.md) on Debian's
# python3: `with yardstick.zone("z"): pass`, a call of a function under
# @yardstick.zone (less the same call undecorated) and a mark, untraced (no
# reader: the package's shared no-op zone; a decorator returns the
# function itself) and traced (under `yardstick trace`, with a zone buffer
# big enough for every zone). References, side by side: a `with` on
# contextlib.nullcontext(), on a Python class's empty context manager (a
# user's trivial one) and on a zone made beforehand (the floor of any
# `with` in CPython 3.11). ROUNDS rounds, each one process per mode; in a
# process every form's loop runs LOOPS times (traced at most 41, so that
# the zone buffer keeps every zone) interleaved with the others and its
# best is kept (bench/py/zone_cost.py); per form and mode the
# median and minimum over the rounds, ns per zone (begin + end).
#   bench/python_zones.sh [build] [ROUNDS] [N] [LOOPS]
set -eu
build=${1:-build}
rounds=${2:-7}
n=${3:-10000}
loops=${4:-201}
PYTHONPATH="$build/python"
export PYTHONPATH
python3 - "$build" "$rounds" "$n" "$(dirname "$0")/py/zone_cost.py" "$loops" <<'PY'
import statistics, subprocess, sys
build, rounds, n, script = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
loops = sys.argv[5]
py = "/usr/bin/python3"
res = {}
for r in range(rounds):
    modes = ["untraced", "traced"] if r % 2 == 0 else ["traced", "untraced"]
    for mode in modes:
        cmd = [py, script, n, loops]
        if mode == "traced":
            # every zone kept: at most 41 loops of each form (~4 M zones)
            cmd[-1] = str(min(int(loops), 41))
            cmd = [build + "/yardstick", "trace", "--no-store", "-F", "1",
                   "--zone-buffer", str(256 << 20),
                   "--max-events", "20000000", "--"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        if mode == "traced":
            assert " 0 zone events" in p.stderr, p.stderr[-2000:]
        for line in p.stdout.split("\n"):
            if line:
                form, ns = line.split()
                res.setdefault((form, mode), []).append(float(ns))
ver = subprocess.run([py, "-c", "import platform; print(platform.python_version())"],
                     capture_output=True, text=True).stdout.strip()
with open("/proc/loadavg") as f:
    load = f.read().split()[0]
print(f"{rounds} rounds of {n} zones per loop, best of {loops} interleaved "
      f"loops, {py} {ver}, load average {load} at the end")
print(f"{'form':16} {'mode':9} {'median ns':>10} {'min ns':>8}")
for (form, mode), v in sorted(res.items()):
    print(f"{form:16} {mode:9} {statistics.median(v):10.1f} {min(v):8.1f}")
PY
