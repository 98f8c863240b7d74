"""The pytest plugin (`pytest -p yardstick`): a fixture like
pytest-benchmark's, whose measurements are libyardstick's and whose
results are one yardstick result (kind "bench", one benchmark per test),
written where --yardstick-json says and, under `yardstick bench --
python3 -m pytest -p yardstick ...`, handed to yardstick bench (stored,
merged over processes, gated).

    def test_parse(ys_bench):            # or `benchmark`, below
        doc = ys_bench(parse, TEXT)      # returns parse(TEXT)
        assert doc["ok"]

The fixture is also named `benchmark` when pytest-benchmark is not
active (`pytest -p no:benchmark -p yardstick`), so that existing tests
run unchanged.
"""
import json
import os
import re
import sys

import pytest

import yardstick


class _Session:
    def __init__(self, config):
        self.config = config
        self.results = []       # one result per measured test

    def options(self):
        c = self.config
        return yardstick._options(c.getoption("yardstick_epochs"),
                                  c.getoption("yardstick_min_time"), None,
                                  not c.getoption("yardstick_no_alloc_count"))

    def merged(self):
        """The tests' results as one: the first's settings, machine and
        tool, every test's benchmark, the command pytest's."""
        out = dict(self.results[0])
        out["benchmarks"] = []
        for r in self.results:
            for b in r["benchmarks"]:
                b = dict(b)
                b["command"] = [sys.executable, "-m", "pytest"] + \
                    list(self.config.invocation_params.args)
                out["benchmarks"].append(b)
        out["comparisons"] = []
        return out


_session_key = pytest.StashKey[_Session]()


class BenchmarkFixture:
    """ys_bench(fn, *args, **kwargs): measure fn(*args, **kwargs) as
    yardstick.bench does, under the test's name; returns what fn returns
    (from one more call after the measurement)."""

    def __init__(self, session, name):
        self._session = session
        self._name = name
        self.result = None      # the BenchResult once measured

    def __call__(self, fn, *args, **kwargs):
        if self.result is not None:
            raise RuntimeError(f"{self._name}: the fixture measures one "
                               "function per test")
        file, line = yardstick._where(fn)
        res = yardstick._run_one(self._name,
                                 yardstick._call_target(fn, args, kwargs),
                                 file, line, self._session.options())
        self._session.results.append(res)
        self.result = yardstick.BenchResult(res)
        if self.result.warnings and any(w.startswith("failed:")
                                        for w in self.result.warnings):
            raise AssertionError(f"{self._name}: "
                                 f"{'; '.join(self.result.warnings)}")
        return fn(*args, **kwargs)


def _fixture(request):
    return BenchmarkFixture(request.config.stash[_session_key],
                            request.node.nodeid)


ys_bench = pytest.fixture(name="ys_bench")(_fixture)


class _Compat:
    """`benchmark`, when pytest-benchmark does not provide it."""

    @pytest.fixture(name="benchmark")
    def benchmark(self, request):
        return _fixture(request)


def configure(config):
    config.stash[_session_key] = _Session(config)
    if not config.pluginmanager.hasplugin("benchmark"):
        config.pluginmanager.register(_Compat(), "yardstick-benchmark")


def write(config):
    """The merged result to --yardstick-json and YARDSTICK_BENCH_JSON (the
    latter, `yardstick bench`'s pipe, once per process)."""
    s = config.stash.get(_session_key, None)
    if s is None or not s.results:
        return
    text = json.dumps(s.merged(), indent=1, allow_nan=False)
    for path in (config.getoption("yardstick_json"),
                 os.environ.get("YARDSTICK_BENCH_JSON")):
        if path:
            with open(path, "w") as f:
                f.write(text + "\n")


def select(config, items):
    """--filter REGEX: the tests whose node id matches, the others
    deselected (as -k does)."""
    pattern = config.getoption("yardstick_filter")
    if not pattern:
        return
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise pytest.UsageError(f"--filter: '{pattern}' is not a regular "
                                f"expression: {e}")
    keep = [it for it in items if rx.search(it.nodeid)]
    drop = [it for it in items if not rx.search(it.nodeid)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
