#!/bin/sh
# Start-up: whole processes of `yardstick --version` and of a one-run
# `yardstick run -q --runs 1 --no-store -- /bin/true`, for one or two
# yardstick binaries (before and after a change), against hyperfine's
# whole process doing the same (`hyperfine -N --runs 1 /bin/true`).
# Measured by hyperfine itself, all pinned to one CPU; prints the median
# and the minimum of the wall time of each, and the mean CPU time (user +
# system, its children's included), which a busy machine disturbs less.
# The binaries' helpers (yardstick-spawner) must be beside them.
#   bench/startup.sh [build/yardstick [OTHER/yardstick]] [RUNS] [CPU]
set -eu
a=$(realpath "${1:-build/yardstick}")
b=${2:-}
[ -z "$b" ] || b=$(realpath "$b")
runs=${3:-300}
cpu=${4:-1}
command -v hyperfine >/dev/null || { echo "hyperfine is missing (scripts/deps.sh bench)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
set -- "hyperfine -N --runs 1 /bin/true"
for ys in $a $b; do
	set -- "$@" "$ys --version" "$ys run -q --runs 1 --no-store -- /bin/true"
done
taskset -c "$cpu" hyperfine -N --warmup 20 --runs "$runs" --style none \
	--export-json "$dir/h.json" "$@" >/dev/null 2>&1
python3 - "$dir/h.json" "$runs" "$cpu" <<'PY'
import json, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
print(f"{sys.argv[2]} runs each pinned to CPU {sys.argv[3]}, whole processes: "
      "wall median / min, CPU mean")
for r in res:
    t = r["times"]
    cpu = r["user"] + r["system"]
    print(f"  {statistics.median(t)*1e3:6.2f} ms / {min(t)*1e3:6.2f} ms  "
          f"{cpu*1e3:6.2f} ms   {r['command']}")
PY
