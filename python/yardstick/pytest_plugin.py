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
run unchanged: with pytest-benchmark's `pedantic(...)` (its setup called
before each call, untimed; rounds as the epochs), `extra_info` and
`@pytest.mark.benchmark(...)` (group, min_rounds and disable_gc
honoured), its options --benchmark-only, --benchmark-skip and
--benchmark-disable, and the rest of its command line (pbcompat.py:
--benchmark-json, --benchmark-save, --benchmark-compare-fail ...).
"""
import gc
import json
import os
import re
import sys
import warnings

import pytest

import yardstick

from . import pbcompat


class _Session:
    def __init__(self, config):
        self.config = config
        self.results = []       # one result per measured test
        self.used_benchmark = 0  # tests asking for `benchmark`
        # --benchmark-disable: each function called once, not measured
        self.disabled = config.getoption("yardstick_benchmark_disable",
                                         False) and \
            not config.getoption("yardstick_pb_enable", False)
        self.tests = []         # per measured test: pbcompat's facts
        self.pb_report = []     # pbcompat.finish's, for the summary
        self.pb_entries = []    # pbcompat.entries', for the table

    def options(self, epochs=None, min_rounds=None):
        c = self.config
        if epochs is None:
            epochs = pbcompat.epochs_for(c, c.getoption("yardstick_epochs"),
                                         min_rounds)
        return yardstick._options(epochs, c.getoption("yardstick_min_time"),
                                  None,
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

    def __init__(self, session, node):
        self._session = session
        self._node = node
        self._name = node.nodeid
        marker = node.get_closest_marker("benchmark")
        # pytest-benchmark's marker options that yardstick honours; the
        # others are said to be ignored, not ignored unseen
        self._mark = dict(marker.kwargs) if marker else {}
        ignored = sorted(set(self._mark) - {"group", "min_rounds",
                                            "disable_gc"})
        if ignored:
            warnings.warn(pytest.PytestWarning(
                f"{self._name}: @pytest.mark.benchmark("
                f"{', '.join(ignored)}) ignored: yardstick's fixture "
                "honours group, min_rounds and disable_gc only (epochs of "
                "a tuned length: see docs/python.md)"))
        self.result = None      # the BenchResult once measured
        # pytest-benchmark's: what a test adds about itself; kept here,
        # not in the result (whose parameters are the benchmark's
        # identity)
        self.extra_info = {}
        # pytest-benchmark's Metadata once measured (stats["mean"],
        # stats.stats.max: pbcompat.Metadata), in seconds per call
        self.stats = None
        spec = getattr(node, "callspec", None)
        # pytest-benchmark's attributes of its fixture
        self.name = node.name
        self.fullname = node.nodeid
        self.group = self._mark.get("group")
        self.param = spec.id if spec else None
        self.params = spec.params if spec else None
        self.disabled = session.disabled

    @property
    def enabled(self):
        return not self.disabled

    def weave(self, *args, **kwargs):
        pytest.fail(_WEAVE, pytrace=False)

    def _measure(self, fn, target, epochs=None):
        if self.result is not None:
            raise RuntimeError(f"{self._name}: the fixture measures one "
                               "function per test")
        file, line = yardstick._where(fn)
        no_gc = bool(self._mark.get("disable_gc") or
                     self._session.config.getoption("yardstick_pb_disable_gc",
                                                    False))
        was = gc.isenabled()
        if no_gc:
            gc.disable()
        try:
            res = yardstick._run_one(
                self._name, target, file, line,
                self._session.options(epochs, self._mark.get("min_rounds")))
        finally:
            if no_gc and was:
                gc.enable()
        self._session.results.append(res)
        t = {"result": res, "name": self.name, "fullname": self.fullname,
             "group": self.group, "params": self.params,
             "param": self.param,
             "fixture": self,   # its extra_info as the test leaves it
             "disable_gc": no_gc,
             "min_time": self._session.config.getoption(
                 "yardstick_min_time")}
        self._session.tests.append(t)
        self.stats = pbcompat.metadata(t)
        self.result = yardstick.BenchResult(res)
        if self.result.warnings and any(w.startswith("failed:")
                                        for w in self.result.warnings):
            raise AssertionError(f"{self._name}: "
                                 f"{'; '.join(self.result.warnings)}")

    def __call__(self, fn, *args, **kwargs):
        if not self._session.disabled:
            self._measure(fn, yardstick._call_target(fn, args, kwargs))
        return fn(*args, **kwargs)

    def pedantic(self, target, args=(), kwargs=None, setup=None,
                 rounds=1, warmup_rounds=0, iterations=1):
        """pytest-benchmark's pedantic: setup(), when given, is called
        before each call, untimed, and may return the call's (args,
        kwargs); rounds are the epochs (over --epochs); the iterations
        per epoch are tuned as always and the tuning epochs are the
        warm-up, so iterations and warmup_rounds only are checked.
        Returns what target returns (one more call, after its setup)."""
        if not isinstance(rounds, int) or rounds < 1:
            raise ValueError("Must have positive int for `rounds`.")
        if not isinstance(iterations, int) or iterations < 1:
            raise ValueError("Must have positive int for `iterations`.")
        if not isinstance(warmup_rounds, int) or warmup_rounds < 0:
            raise ValueError("Must have positive int for `warmup_rounds`.")
        if setup is not None and iterations > 1:
            raise ValueError("Can't use more than 1 `iterations` with a "
                             "`setup` function.")
        args = tuple(args)
        kwargs = dict(kwargs) if kwargs else {}

        def prep():
            if setup is not None:
                given = setup()
                if given:
                    if args or kwargs:
                        raise TypeError("Can't use `args` or `kwargs` if "
                                        "`setup` returns the arguments.")
                    a, k = given
                    return tuple(a), dict(k) if k else None
            return args, kwargs or None

        t = (target, args, kwargs or None, prep if setup else None)
        if not self._session.disabled:
            self._measure(target, lambda values: t, rounds)
        a, k = prep()
        return target(*a, **(k or {}))


def _fixture(request):
    return BenchmarkFixture(request.config.stash[_session_key],
                            request.node)


ys_bench = pytest.fixture(name="ys_bench")(_fixture)


# pytest-benchmark's weave (aspectlib patching a function so that each
# of its calls inside the test is timed): refused with what to use
_WEAVE = ("benchmark.weave / benchmark_weave (pytest-benchmark's "
          "aspectlib weaving) is not taken by yardstick's plugin: "
          "measure the function itself with benchmark(fn, *args), or its "
          "calls inside a run with yardstick.zone and yardstick trace")


class _Compat:
    """`benchmark`, when pytest-benchmark does not provide it."""

    @pytest.fixture(name="benchmark")
    def benchmark(self, request):
        return _fixture(request)

    @pytest.fixture(name="benchmark_weave")
    def benchmark_weave(self, request):
        pytest.fail(_WEAVE, pytrace=False)


def configure(config):
    # pytest-benchmark's options, where the plugin took them
    if hasattr(config.option, "yardstick_pb_json"):
        pbcompat.check_options(config)
    config.stash[_session_key] = _Session(config)
    if not config.pluginmanager.hasplugin("benchmark"):
        config.pluginmanager.register(_Compat(), "yardstick-benchmark")
        # pytest-benchmark's marker, so that its tests run without an
        # unknown-mark warning (or an error under --strict-markers)
        config.addinivalue_line(
            "markers", "benchmark(...): pytest-benchmark's options of a "
            "test; yardstick's fixture honours group, min_rounds and "
            "disable_gc")


def write(config):
    """The merged result to --yardstick-json and YARDSTICK_BENCH_JSON (the
    latter, `yardstick bench`'s pipe, once per process)."""
    s = config.stash.get(_session_key, None)
    if s is None:
        return
    if not s.results:
        _why_nothing(config, s)
        if pbcompat.asked(config):
            sys.stderr.write("yardstick: not saving anything, no "
                             "benchmarks have been run\n")
        return
    merged = s.merged()
    text = json.dumps(merged, indent=1, allow_nan=False)
    for path in (config.getoption("yardstick_json"),
                 os.environ.get("YARDSTICK_BENCH_JSON")):
        if path:
            with open(path, "w") as f:
                f.write(text + "\n")
    s.pb_entries = pbcompat.entries(s.tests)
    pb_json = config.getoption("yardstick_pb_json", None)
    if pb_json:
        with open(pb_json, "w") as f:
            json.dump(pbcompat.document(s.pb_entries, merged), f, indent=4,
                      ensure_ascii=True, allow_nan=False)
            f.write("\n")
    s.pb_report = pbcompat.finish(config, merged)


def summary(terminalreporter):
    """What --benchmark-compare, --benchmark-compare-fail and
    --benchmark-save did, as yardstick printed it; a gate that failed
    ends the session as pytest-benchmark's regression does (exit status
    4), a store or a reference that failed likewise."""
    config = terminalreporter.config
    s = config.stash.get(_session_key, None)
    tr = terminalreporter
    # pytest-benchmark's table, where its options are the plugin's
    if s is not None and s.pb_entries and \
            hasattr(config.option, "yardstick_pb_sort"):
        tr.ensure_newline()
        for line in pbcompat.table(config, s.pb_entries):
            tr.write_line(line)
    if s is None or not s.pb_report:
        return
    tr.section("yardstick (pytest-benchmark's options)", sep="-")
    failed = []
    for what, rc, out, err in s.pb_report:
        if what == "nobaseline" or (what == "compare" and rc == 2):
            # pytest-benchmark's "Can't compare": a warning, unless a
            # check was asked for (then its usage error, below)
            err = f"yardstick: can't compare: {err.strip()}\n"
            if not config.getoption("yardstick_pb_compare_fail", None):
                rc = 0
        for line in (out + err).splitlines():
            tr.write_line(line)
        if rc:
            failed.append((what, rc))
    for what, rc in failed:
        if what == "gate" and rc == 1:
            raise pbcompat.PerformanceRegression(
                "Performance has regressed (yardstick gate: a check "
                "failed, above).")
    if failed and failed[0][0] == "nobaseline":
        raise pytest.UsageError("--benchmark-compare-fail requires valid "
                                "--benchmark-compare (no stored result to "
                                "compare with, above).")
    if failed:
        what, rc = failed[0]
        raise pytest.UsageError(f"yardstick {what} failed (exit status "
                                f"{rc}), above")


def _why_nothing(config, s):
    """Asked for a result (--yardstick-json, or run by yardstick bench)
    and none measured while pytest-benchmark holds the name `benchmark`:
    its tests were measured by pytest-benchmark, not here; say so, and
    the way out, rather than leave yardstick bench to guess."""
    asked = config.getoption("yardstick_json") or \
        os.environ.get("YARDSTICK_BENCH_JSON")
    if not asked or not s.used_benchmark or \
            not config.pluginmanager.hasplugin("benchmark"):
        return
    sys.stderr.write(
        "yardstick: no test used ys_bench: the fixture `benchmark` of "
        f"{s.used_benchmark} test(s) is pytest-benchmark's (installed "
        "and active), which measured them itself; add -p no:benchmark "
        "(or use ys_bench) to measure them with yardstick\n")


def count_benchmark_users(config, items):
    """How many of the tests to run (after -k, --filter) ask for the
    fixture `benchmark`."""
    s = config.stash.get(_session_key, None)
    if s is not None:
        s.used_benchmark = sum(
            "benchmark" in getattr(it, "fixturenames", ()) for it in items)


def only_or_skip(config, items):
    """--benchmark-only and --benchmark-skip (pytest-benchmark's): the
    tests that do not use a benchmark fixture, or those that do, are
    skipped with pytest-benchmark's reasons."""
    only = config.getoption("yardstick_benchmark_only", False)
    skip = config.getoption("yardstick_benchmark_skip", False)
    if only and skip:
        raise pytest.UsageError("Can't have both --benchmark-only and "
                                "--benchmark-skip options.")
    for it in items:
        uses = bool({"benchmark", "ys_bench"} &
                    set(getattr(it, "fixturenames", ())))
        if only and not uses:
            it.add_marker(pytest.mark.skip(
                reason="Skipping non-benchmark (--benchmark-only active)."))
        elif skip and uses:
            it.add_marker(pytest.mark.skip(
                reason="Skipping benchmark (--benchmark-skip active)."))


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
