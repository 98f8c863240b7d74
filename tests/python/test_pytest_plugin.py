"""A test file as a team has it, run by the pytest plugin
(tests/cli/python_pkg.sh): `benchmark` as pytest-benchmark names it."""


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_fib(benchmark):
    assert benchmark(fib, 12) == 144


def test_fib_small(ys_bench):
    assert ys_bench(fib, 8) == 21
    assert ys_bench.result.p50 is not None


def test_not_measured():
    assert fib(5) == 5
