"""Zones around functions of known CPU time (tests/cli/python_pkg.sh):
zone "a" around a_work and zone "b" around b_work, each 0.3 s of the
thread's CPU time, alternating 3 times. Under `yardstick trace`, the CPU
samples taken inside a zone's span must be in its function: the zones'
clock (libyardstick's CLOCK_MONOTONIC) and the samples' (perf's
use_clockid) are one time line."""
import time

import yardstick

CPU_S = 0.3


def spin(mod):
    t = time.thread_time()
    s = 0
    while time.thread_time() - t < CPU_S:
        for i in range(2000):
            s += i * i % mod
    return s


def a_work():
    return spin(7)


def b_work():
    return spin(5)


for _ in range(3):
    with yardstick.zone("a"):
        a_work()
    with yardstick.zone("b"):
        b_work()
