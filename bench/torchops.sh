#!/bin/sh
# record's operator frames against torch.profiler on ResNet-18 (issue 28,
# item 3): the top-5 operators by self time, their shares of all
# operators' self time side by side (record: a sample belongs to the
# innermost aten:: frame of its stack, among the samples in any
# operator under the loop's Python frame; torch: key_averages()' self CPU time), and what each tool
# costs the inference loop (its wall time: plain, under torch.profiler,
# under yardstick record), in interleaved rounds.
# Usage: bench/torchops.sh [YARDSTICK] [SIDE] [INFERENCES] [ROUNDS]
set -eu
YS=${1:-build/yardstick}
SIDE=${2:-96}
N=${3:-8}
ROUNDS=${4:-3}
PY=/usr/bin/python3
LOOP=$(dirname "$0")/py/torch_resnet_loop.py
W=$(mktemp -d /tmp/ys-torchops-XXXXXX)
trap 'rm -rf "$W"' EXIT
export YARDSTICK_STORE=$W/store.db

for r in $(seq "$ROUNDS"); do
	taskset -c 1 "$PY" "$LOOP" plain "$SIDE" "$N" | sed 's/^/plain /' >>"$W/times"
	taskset -c 1 "$PY" "$LOOP" profile "$SIDE" "$N" "$W/trace.json" "$W/ka.json" |
		sed 's/^/torch.profiler /' >>"$W/times"
	taskset -c 1 "$YS" record -q -o "$W/rec.folded" -- "$PY" "$LOOP" plain "$SIDE" "$N" |
		sed 's/^/yardstick record /' >>"$W/times"
done
"$PY" - "$W/times" "$W/ka.json" "$W/rec.folded" "$SIDE" "$N" "$ROUNDS" <<'PY'
import json, statistics, sys
times, ka, folded, side, n, rounds = sys.argv[1:7]
by = {}
for line in open(times):
    tool, t = line.rsplit(" loop ", 1)
    by.setdefault(tool, []).append(float(t.split()[0]))
print("ResNet-18, %sx%s input, %s inferences a loop, 1 thread, %s rounds "
      "interleaved, all on CPU 1" % (side, side, n, rounds))
base = statistics.median(by["plain"])
print("%-18s %12s %12s %8s" % ("loop under", "median (s)", "min (s)", "ratio"))
for tool in ("plain", "torch.profiler", "yardstick record"):
    v = by[tool]
    print("%-18s %12.3f %12.3f %7.3fx" % (tool, statistics.median(v), min(v),
                                          statistics.median(v) / base))
ka = json.load(open(ka))
tot = sum(v["self_us"] for v in ka.values())
ops, all_ops = {}, 0
for line in open(folded):
    st, c = line.rsplit(" ", 1)
    fr = st.split(";")
    if not any(f.startswith("loop (torch_resnet_loop.py:") for f in fr):
        continue  # the import, the model's construction, the warm-up
    fr = [f for f in fr if f.startswith("aten::")]
    if fr:
        ops[fr[-1]] = ops.get(fr[-1], 0) + int(c)
        all_ops += int(c)
print("\ntop-5 operators by self time: share of all operators' self time "
      "(torch.profiler, last round) and of the samples in an operator "
      "(yardstick record, last round: %d samples in the loop)" % all_ops)
print("%-32s %16s %18s" % ("operator", "key_averages()", "yardstick record"))
for k in sorted(ka, key=lambda k: -ka[k]["self_us"])[:5]:
    print("%-32s %15.2f%% %17.2f%%" % (k, 100 * ka[k]["self_us"] / tot,
                                       100 * ops.get(k, 0) / max(all_ops, 1)))
rest = sorted(ops, key=lambda k: -ops[k])[:5]
print("record's own top 5: " + ", ".join("%s %.2f%%" % (k, 100 * ops[k] / all_ops) for k in rest))
PY
