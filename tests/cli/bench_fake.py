#!/usr/bin/env python3
# A fake libyardstick benchmark program for tests/cli/bench.sh: it writes
# a result (kind "bench") to $YARDSTICK_BENCH_JSON, or misbehaves as
# FAKE_MODE says. FAKE_SCALE multiplies every time; FAKE_ARGS, a file that
# receives its arguments, one a line.
import json, os, signal, subprocess, sys, time
mode = os.environ.get("FAKE_MODE", "ok")
scale = float(os.environ.get("FAKE_SCALE", "1"))
if os.environ.get("FAKE_ARGS"):
    open(os.environ["FAKE_ARGS"], "w").write("\n".join(sys.argv[1:]) + "\n")
print("the program's own table")
sys.stdout.flush()
path = os.environ.get("YARDSTICK_BENCH_JSON")
if mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
if mode in ("exit3", "exit4"):
    sys.exit(int(mode[4:]))
if mode == "hang":
    child = subprocess.Popen(["sleep", "300"])
    open(os.environ["FAKE_PID"], "w").write("%d\n" % child.pid)
    time.sleep(300)
if mode == "nojson":
    sys.exit(0)
out = open(path, "w")
if mode == "evil_schema":
    out.write('{"schema": "yardstick/result/v9\\u001b[31m", "benchmarks": []}')
    sys.exit(0)
if mode == "malformed":
    out.write('{"schema": "yardstick/result/v1", "kind": "bench", "benchmarks": [\n{"name": }')
    sys.exit(0)
if mode == "huge":
    chunk = " " * 65536
    for _ in range(10000):
        out.write(chunk)
    sys.exit(0)
def metric(unit, vals):
    return {"unit": unit, "values": vals}
def bench(name, t, params=None):
    ts = [t * scale * (1 + 0.01 * ((i * 7) % 5 - 2)) for i in range(20)]
    return {"name": name, "parameters": params or {}, "command": sys.argv,
            "metrics": {"time_per_op": metric("s", ts),
                        "bytes_per_second": metric("bytes/s", [4096 / x for x in ts]),
                        "flops_per_second": metric("flop/s", [512 / x for x in ts]),
                        "allocs_per_op": metric("count", [3] * 20),
                        "alloc_bytes_per_op": metric("bytes", [192] * 20)},
            "unsupported": ["cycles"], "warnings": []}
evil = "memcpy_avx\x1b[31m\u202e\r" if mode == "evil" else "memcpy_avx"
doc = {"schema": "yardstick/result/v1", "kind": "run" if mode == "kind_run" else "bench",
       "tool": {"name": "yardstick", "version": "0.1.0"},
       "settings": {"clock": "clock_gettime(CLOCK_MONOTONIC)", "clock_resolution": 1e-9,
                    "loop_overhead": 3e-10, "epochs": 20, "min_time": 0.01},
       "benchmarks": [] if mode == "empty" else
                     [bench("memcpy_naive", 180e-9, {"n": "4096"}),
                      bench(evil, 100e-9, {"n": "4096"})],
       "comparisons": [] if mode == "empty" else
                      [{"baseline": "memcpy_naive", "candidate": evil,
                        "metric": "time_per_op", "ratio": 0.5556,
                        "ratio_ci": [0.53, 0.58], "p_value": 1e-6, "verdict": "faster"}]}
json.dump(doc, out)
out.close()
if mode == "grandchild":
    # a process it started keeps the result pipe open: yardstick must
    # not wait for it
    subprocess.Popen(["sleep", "30"], close_fds=False)
