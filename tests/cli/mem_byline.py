"""mem's figures by a Python fixture's line, against the fixture's own.

    python3 mem_byline.py FIXTURE.py EXPECT.json SPEEDSCOPE.json [REPORT]

Every figure of EXPECT ("allocated", "allocations", "temporary", "peak",
"leaked": {name: bytes or blocks}, the names' lines in EXPECT["lines"];
and EXPECT["tracemalloc_peak"], when there, against its "peak") is
checked at the
fixture's lines: the innermost FIXTURE.py frame of each stack of mem's
speedscope output. With REPORT (mem's terminal report), every pid of
EXPECT["pids"] must have a row among its processes. Prints what differs;
exits 1 then.
"""
import json
import re
import sys

fix, ex = sys.argv[1], json.load(open(sys.argv[2]))
doc = json.load(open(sys.argv[3]))
frames = doc["shared"]["frames"]
names = {v: k for k, v in ex["lines"].items()}
types = {"allocated": "alloc_space", "allocations": "alloc_objects",
         "temporary": "temporary_objects", "peak": "peak_space",
         "leaked": "inuse_space"}
bad = []
for cost, want in ex.items():
    if cost not in types:
        continue
    prof = [p for p in doc["profiles"] if p["name"] == types[cost]][0]
    got = {}
    for stack, w in zip(prof["samples"], prof["weights"]):
        for i in reversed(stack):	# leaf last
            f = frames[i]
            if f.get("file", "").endswith("/" + fix) and "line" in f:
                k = names.get(f["line"], "line %d" % f["line"])
                got[k] = got.get(k, 0) + w
                break
    for k, v in want.items():
        if got.get(k) != v:
            bad.append("%s at %s: got %s, want %s" % (cost, k, got.get(k), v))
tm = ex.get("tracemalloc_peak")
if tm and tm != ex["peak"]:
    bad.append("tracemalloc %s, getsizeof %s" % (tm, ex["peak"]))
if len(sys.argv) > 4:
    report = open(sys.argv[4]).read()
    pids = {int(p) for p in re.findall(r"^ +(\d+) +\d+ +[\d,]+ ", report, re.M)}
    bad += ["child %d not in the processes" % p for p in ex.get("pids", [])
            if p not in pids]
print("\n".join(bad))
sys.exit(1 if bad else 0)
