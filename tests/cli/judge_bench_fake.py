#!/usr/bin/python3
# A libyardstick program's stand-in for tests/cli/judge_diff.sh: its result
# (kind bench) holds the values of $FAKE_VALUES, a JSON list, in every process.
import json, os
v = json.load(open(os.environ["FAKE_VALUES"]))
doc = {"schema": "yardstick/result/v1", "kind": "bench",
       "settings": {"epochs": len(v)},
       "benchmarks": [{"name": "f", "metrics": {
           "time_per_op": {"unit": "s", "values": v},
           "allocs_per_op": {"unit": "count", "values": [3] * len(v)}}}]}
json.dump(doc, open(os.environ["YARDSTICK_BENCH_JSON"], "w"))
