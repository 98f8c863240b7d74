"""pytest-benchmark's weave, which yardstick's plugin refuses: both
tests fail (the fixture's at its setup), each saying why and what to
use (tests/cli/python_pkg.sh)."""
import time


def test_weave_fixture(benchmark_weave):
    pass


def test_weave_method(benchmark):
    benchmark.weave(time.sleep)
