"""Tests as a pytest-benchmark user writes them, for its command-line
options taken by yardstick's plugin (tests/cli/python_pkg.sh): a
parametrized test, a group, extra_info, pedantic with an even number of
rounds. spin's length is scaled by $PB_SCALE (1 by default) and grows
by $PB_ADD seconds, so that a session can be made slower by design.
gc_seen records whether the garbage collector was on in a timed call."""
import gc
import os
import statistics
import time

import pytest

SCALE = float(os.environ.get("PB_SCALE", "1"))
ADD = float(os.environ.get("PB_ADD", "0"))
SEEN = os.environ.get("PB_GC_SEEN")


def spin(sec):
    end = time.perf_counter() + sec * SCALE + ADD
    while time.perf_counter() < end:
        pass


def work():
    if SEEN:
        with open(SEEN, "a") as f:
            f.write("1" if gc.isenabled() else "0")
    spin(0.0002)


@pytest.mark.parametrize("n", [1, 3])
def test_param(benchmark, n):
    benchmark.extra_info["n_twice"] = 2 * n
    assert benchmark(sum, range(n)) == n * (n - 1) // 2
    # pytest-benchmark's fixture attributes, and its stats after the call
    assert benchmark.name == f"test_param[{n}]" and benchmark.param == str(n)
    assert benchmark.params == {"n": n} and benchmark.group is None
    if benchmark.enabled:
        st = benchmark.stats
        data = st.stats.data
        assert st["mean"] == st.stats.mean == st.get("mean") == \
            statistics.mean(data), (st["mean"], data)
        assert st["rounds"] == len(data) and st["min"] == min(data)
        assert st.as_dict()["stats"]["median"] == statistics.median(data)
        assert st["extra_info"] == {"n_twice": 2 * n}


@pytest.mark.benchmark(group="spin")
def test_spin(benchmark):
    benchmark(work)


def test_pedantic_even(benchmark):
    assert benchmark.pedantic(sum, args=([1, 2],), rounds=6) == 3


@pytest.mark.benchmark(min_rounds=15, max_time=0.5)
def test_marked(benchmark):
    assert benchmark(len, "ab") == 2

