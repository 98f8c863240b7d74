"""bench/python_vs_timeit.sh: spin(3000) under pytest's `benchmark`
fixture, pytest-benchmark's or the yardstick plugin's."""
from spin import spin


def test_spin(benchmark):
    assert benchmark(spin, 3000) == spin(3000)
