#!/bin/sh
# The cost of a Python zone (python/yardstick, docs/python.md) on Debian's
# python3: `with yardstick.zone("z"): pass`, a call of a function under
# @yardstick.zone (less the same call undecorated) and a mark, untraced (no
# reader: the package's shared no-op zone; a decorator returns the
# function itself) and traced (under `yardstick trace`, with a zone buffer
# big enough for every zone). References: a `with` on
# contextlib.nullcontext() and on a Python class's empty context manager (the
# floor of a `with` in CPython). ROUNDS interleaved
# rounds; per form and mode the median and minimum over the rounds, ns per
# zone (begin + end).
#   bench/python_zones.sh [build] [ROUNDS] [N]
set -eu
build=${1:-build}
rounds=${2:-7}
n=${3:-100000}
PYTHONPATH="$build/python"
export PYTHONPATH
python3 - "$build" "$rounds" "$n" "$(dirname "$0")/py/zone_cost.py" <<'PY'
import statistics, subprocess, sys
build, rounds, n, script = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
py = "/usr/bin/python3"
res = {}
for r in range(rounds):
    modes = ["untraced", "traced"] if r % 2 == 0 else ["traced", "untraced"]
    for mode in modes:
        cmd = [py, script, n]
        if mode == "traced":
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
print(f"{rounds} rounds of {n} zones per loop, best of 7 loops, {py} "
      f"{sys.version.split()[0] if False else ''}".rstrip())
print(f"{'form':12} {'mode':9} {'median ns':>10} {'min ns':>8}")
for (form, mode), v in sorted(res.items()):
    print(f"{form:12} {mode:9} {statistics.median(v):10.1f} {min(v):8.1f}")
PY
