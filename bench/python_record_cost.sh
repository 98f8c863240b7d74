#!/bin/sh
# Where `yardstick record`'s cost to a Python program comes from: the
# program's own CPU time (bench/py/timed.py's process_time) on the CSV
# pipeline, natively and under record with one part of its work changed
# at a time: the default (dwarf, 16 KiB stack copies, the reader woken
# at every sample), 4 KiB stack copies, frame pointers (no stack copy),
# and --python off (no Python reads, no prompt wake-up) with dwarf and
# with frame pointers. Rounds interleaved in random order; medians and
# minimums (the machine is shared).
#   bench/python_record_cost.sh [build/yardstick] [ROUNDS] [PYTHON]
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "${1:-build/yardstick}" "${3:-/usr/bin/python3.11}" \
	"$(cd "$(dirname "$0")" && pwd)" "${2:-7}" "$dir" <<'PY'
import random, re, statistics, subprocess, sys
ys, py, here, rounds, d = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
prog = [py, here + "/py/timed.py", "native", here + "/py/csvpipe.py", "200000"]
rec = [ys, "record", "-q", "-o", d + "/o.folded"]
modes = {
    "native": prog,
    "default (dwarf 16K, prompt)": rec + ["--"] + prog,
    "dwarf 4K, prompt": rec + ["--stack-size", "4096", "--"] + prog,
    "fp, prompt": rec + ["-g", "fp", "--"] + prog,
    "python off, dwarf 16K": rec + ["--python", "off", "-g", "dwarf", "--"] + prog,
    "python off, fp": rec + ["--python", "off", "--"] + prog,
}
t = {m: [] for m in modes}
for _ in range(rounds):
    ms = list(modes)
    random.shuffle(ms)
    for m in ms:
        r = subprocess.run(modes[m], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        t[m].append(float(re.findall(r"^cpu ([0-9.]+)$", r.stderr, re.M)[-1]))
c0 = t["native"]
for m in modes:
    c = t[m]
    print(f"{m:<30} cpu median {statistics.median(c):6.3f} min {min(c):6.3f}"
          f" (x{statistics.median(c) / statistics.median(c0):.3f},"
          f" x{min(c) / min(c0):.3f})")
PY
