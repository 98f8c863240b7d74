#!/bin/sh
# bench/attach_storm.sh YS: tests/fixtures/stormfix (100 threads started every
# 15 ms, each spinning 20 ms of its CPU, beside 1000 asleep) under
# `YS trace --pid`: each storm thread's samples per ms of its CPU time
# (/proc/self/task/TID/schedstat), and the tids named twice. From the
# top of a build tree (build/tests/fixtures/stormfix); scratch in /tmp.
rm -f ${TMPDIR:-/tmp}/ys-storm-sr ${TMPDIR:-/tmp}/ys-storm-sp
build/tests/fixtures/stormfix ${TMPDIR:-/tmp}/ys-storm-sr ${TMPDIR:-/tmp}/ys-storm-sp 1000 100 20 15 &
P=$!
while [ ! -e ${TMPDIR:-/tmp}/ys-storm-sr ]; do sleep 0.05; done
$1 trace --pid $P --no-store -o ${TMPDIR:-/tmp}/ys-storm-m.json 2>/dev/null
wait $P
python3 - ${TMPDIR:-/tmp}/ys-storm-m.json ${TMPDIR:-/tmp}/ys-storm-sp <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
n = {}
for e in t["traceEvents"]:
    if e.get("ph") == "i" and e.get("cat") == "sample":
        n[e["tid"]] = n.get(e["tid"], 0) + 1
names = [(e["pid"], e["tid"]) for e in t["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name"]
r = [n.get(int(a), 0) / (int(b) / 1e6) for a, b, c in (l.split() for l in open(sys.argv[2]))]
s = sorted(x for x in r if x > 0)
print("threads sampled", len(s), "of", len(r), "samples/CPU ms: min %.2f median %.2f max %.2f" % (s[0], s[len(s)//2], s[-1]),
      "over 1.25:", sum(x > 1.25 for x in s), "tids named twice:", len(names) - len(set(names)))
PY
