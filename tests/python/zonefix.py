"""Zones of designed durations from Python (the package's zones, traced by
`yardstick trace` in tests/cli/python_pkg.sh). Each spin zone spins until
its start + its design; the program prints, per zone instance, what it
observed with CLOCK_MONOTONIC (time.monotonic_ns, the clock of the trace):
NAME INDEX START_NS DURATION_NS. --truth prints the design as JSON."""
import json
import sys
import threading
import time

import yardstick

# name: (thread, depth, designed ms each, count)
TRUTH = {
    "setup": ("MainThread", 0, None, 1),
    "parse": ("MainThread", 1, 20, 1),
    "load": ("MainThread", 1, 30, 1),
    "step": ("MainThread", 0, 5, 3),
    "work": ("worker-py", 0, 15, 2),
}
seen = []
lock = threading.Lock()


def spin(ms):
    end = time.monotonic_ns() + ms * 1_000_000
    while time.monotonic_ns() < end:
        pass


def observed(name, i, t0):
    with lock:
        seen.append((name, i, t0, time.monotonic_ns() - t0))


@yardstick.zone("step")
def step(ms):
    spin(ms)


def worker(done):
    yardstick.thread_name("worker-py")
    for i in range(2):
        with yardstick.zone("work"):
            t0 = time.monotonic_ns()
            spin(15)
            observed("work", i, t0)
    yardstick.async_end("request", 7)
    done.set()


def main():
    yardstick.thread_name("MainThread")
    yardstick.async_begin("request", 7)
    with yardstick.zone("setup"):
        t_setup = time.monotonic_ns()
        with yardstick.zone("parse"):
            t0 = time.monotonic_ns()
            spin(20)
            observed("parse", 0, t0)
        with yardstick.zone("load"):
            t0 = time.monotonic_ns()
            spin(30)
            observed("load", 0, t0)
        observed("setup", 0, t_setup)
    for i in range(3):
        t0 = time.monotonic_ns()
        step(5)
        observed("step", i, t0)
    for q in (3, 1, 4):
        yardstick.counter("queue", q)
    yardstick.mark("flushed", "all")
    done = threading.Event()
    th = threading.Thread(target=worker, args=(done,))
    th.start()
    th.join()
    for name, i, t0, ns in seen:
        print(name, i, t0, ns)


if __name__ == "__main__":
    if sys.argv[1:] == ["--truth"]:
        print(json.dumps(TRUTH))
    else:
        main()
