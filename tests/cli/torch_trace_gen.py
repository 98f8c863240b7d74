"""Chrome traces of torch.profiler's shape (the legacy profiler's bare
array, or Kineto's object) with designed operators, for
tests/cli/torch_ops.sh:

  torch_trace_gen.py nested OUT [SCALE] [SEED]
      per thread (2), 200 steps of aten::linear (its duration d) holding
      aten::addmm (0.6 d) holding aten::empty (0.05 d), then aten::relu
      (0.2 d) beside it; d spread over 1000..1400 µs, all times of
      aten::addmm multiplied by SCALE (default 1); in Kineto's form with
      python_function and user_annotation events to ignore. Prints the
      expected self and total µs of each operator as JSON on stdout.
  torch_trace_gen.py big OUT MB
      a bare array of at least MB megabytes of small nested events.
"""
import json
import random
import sys


def nested(out, scale, seed):
    rnd = random.Random(seed)
    ev = []
    want = {}

    def add(name, ts, dur, tid, self_us):
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 7,
                   "tid": tid, "ts": ts, "dur": dur, "args": {}})
        w = want.setdefault(name, {"self_us": 0, "total_us": 0, "count": 0})
        w["self_us"] += self_us
        w["total_us"] += dur
        w["count"] += 1

    for tid in (1, 2):
        t = 1000
        for i in range(200):
            d = 1000 + rnd.randrange(401)
            mm = int(0.6 * d * scale)
            em = int(0.05 * d)
            relu = int(0.2 * d)
            lin = 10 + mm + 10 + relu + 10
            add("aten::linear", t, lin, tid, lin - mm - relu)
            add("aten::addmm", t + 10, mm, tid, mm - em)
            add("aten::empty", t + 12, em, tid, em)
            add("aten::relu", t + 10 + mm + 10, relu, tid, relu)
            ev.append({"ph": "X", "cat": "python_function", "name": "f",
                       "pid": 7, "tid": tid, "ts": t, "dur": lin})
            t += lin + 50
    rnd.shuffle(ev)  # order is not promised
    json.dump({"schemaVersion": 1, "deviceProperties": [{"name": "x"}],
               "traceEvents": ev, "traceName": out}, open(out, "w"))
    json.dump(want, sys.stdout)


def big(out, mb):
    one = ('{"name": "aten::conv2d", "ph": "X", "ts": %d, "dur": 90, '
           '"tid": 1, "pid": "CPU functions", "args": {}}, '
           '{"name": "aten::empty", "ph": "X", "ts": %d, "dur": 10, '
           '"tid": 1, "pid": "CPU functions", "args": {}}')
    with open(out, "w") as f:
        f.write("[")
        size, t, first = 0, 0, True
        while size < mb << 20:
            chunk = ",\n".join(one % (t + 100 * k, t + 100 * k + 5)
                               for k in range(1000))
            f.write(("" if first else ",\n") + chunk)
            first = False
            size += len(chunk)
            t += 100 * 1000
        f.write("]")
    print(2000 * (t // (100 * 1000)))   # the events written


if sys.argv[1] == "nested":
    nested(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0,
           int(sys.argv[4]) if len(sys.argv) > 4 else 1)
else:
    big(sys.argv[2], int(sys.argv[3]))
