#!/bin/sh
# yardstick report on 100 benchmarks of 1000 runs each (the issue's size
# case, tests/cli/report_fixtures.py's big.json): the page's size, the
# time to write it, and the time headless Chromium takes from navigation
# to the load event (tests/cli/browser.py), ROUNDS rounds each; the
# median and the minimum, since the machine is shared.
# Usage: bench/report_size.sh [BUILD_DIR] [ROUNDS]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
rounds=${2:-5}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
python3 "$here/tests/cli/report_fixtures.py" "$t"
i=0
while [ $i -lt "$rounds" ]; do
	python3 -c "
import subprocess, sys, time
s = time.monotonic()
subprocess.run(sys.argv[1:], check=True)
print('write', time.monotonic() - s)" "$build/yardstick" report "$t/big.json" -o "$t/big.html" >> "$t/times"
	timeout 120 python3 "$here/tests/cli/browser.py" "$t/big.html" |
		python3 -c "import json, sys; print('open', json.load(sys.stdin)['load_ms'] / 1000)" >> "$t/times"
	i=$((i + 1))
done
echo "page: $(wc -c < "$t/big.html") bytes"
python3 - "$t/times" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    k, x = line.split()
    v.setdefault(k, []).append(float(x))
for k, xs in v.items():
    print("%-6s median %.3f s  min %.3f s  (%d rounds)" % (k, statistics.median(xs), min(xs), len(xs)))
PY
