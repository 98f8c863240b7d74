"""Tests written for pytest-benchmark (pedantic, extra_info, its marker),
run by the yardstick plugin with `-p no:benchmark -p yardstick`
(tests/cli/python_pkg.sh). The designed durations: make_args spins 1 ms
(not timed), target 100 us (timed)."""
import time

import pytest

made = {"args": 0, "calls": 0}


def spin(sec):
    end = time.perf_counter() + sec
    while time.perf_counter() < end:
        pass


def make_args():
    made["args"] += 1
    spin(0.001)
    return ([1],), {}           # a fresh list for each call


def target(lst):
    made["calls"] += 1
    spin(0.0001)
    return lst.pop()            # IndexError if a list were used twice


def test_pedantic_setup(benchmark):
    assert benchmark.pedantic(target, setup=make_args, rounds=3) == 1
    assert made["args"] == made["calls"] > 3, made


def test_pedantic_args(benchmark):
    assert benchmark.pedantic(sum, args=([1, 2, 3],), rounds=4,
                              iterations=10, warmup_rounds=1) == 6


def test_pedantic_bad(benchmark):
    with pytest.raises(ValueError):
        benchmark.pedantic(target, setup=make_args, iterations=2)
    with pytest.raises(ValueError):
        benchmark.pedantic(target, rounds=0)


@pytest.mark.benchmark(group="g", min_rounds=5)
def test_extra_info_marked(benchmark):
    benchmark.extra_info["batch"] = 8
    assert benchmark(len, "abc") == 3
    assert benchmark.extra_info == {"batch": 8}
