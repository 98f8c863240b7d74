"""Designed workloads for the Python package's benchmarks
(tests/cli/python_pkg.sh). spin(n) is n iterations of one loop whose
every step does the same work (one int object for i past 256), so
spin(2n) is twice spin(n) up to the cost of one call (~0.1 us of
~60 us). WL_SCALE scales the work of `gated` (1.3: 30% slower). No
main(): `python3 workloads.py` runs them when the script ends."""
import os

import yardstick

N = 3000
SCALE = float(os.environ.get("WL_SCALE", "1"))


def spin(n):
    acc = 0
    for i in range(n):
        acc ^= i & 255
    return acc


@yardstick.benchmark(group="ratio")
def once():
    return lambda: spin(N)


@yardstick.benchmark(group="ratio")
def twice():
    return lambda: spin(2 * N)


@yardstick.benchmark
def gated():
    m = int(N * SCALE)
    return lambda: spin(m)


@yardstick.benchmark(params={"n": [1000, 2000]})
def scaled(n):
    return lambda: spin(n)
