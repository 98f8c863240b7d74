"""yardstick from Python: zones for `yardstick trace`, and benchmarks whose
results are yardstick results (kind "bench"), over libyardstick.

    import yardstick

    with yardstick.zone("preprocess"):      # a zone of the trace
        x = prepare(batch)

    @yardstick.benchmark(params={"batch": [1, 8, 32]})
    def infer(batch):                       # the setup: not timed
        x = make_input(batch)
        return lambda: model(x)             # the call that is timed

    r = yardstick.bench(model, x)           # one benchmark, now

Reference: docs/python.md.
"""
import atexit
import functools
import inspect
import itertools
import json
import os
import signal
import sys
import tempfile

from . import _native
from ._native import (async_begin, async_end, counter, mark, thread_name,
                      tracing, zone, zone_begin, zone_end, zone_text,
                      zone_value)

__all__ = ["zone", "zone_begin", "zone_end", "mark", "counter", "async_begin", "async_end",
           "async_span", "thread_name", "zone_text", "zone_value",
           "tracing", "bench", "benchmark", "register", "main",
           "BenchResult"]


def _decorate(name, fn):
    """The traced decorator of zone(name) (zone() alone: the function's
    qualified name): a C wrapper, with no Python frame of its own. A
    coroutine function's calls are async spans instead (named alike, one
    id per call): its awaits let other tasks of the thread run, whose
    zones would not nest inside it."""
    zname = name if name is not None else fn.__qualname__
    if inspect.isgeneratorfunction(fn):
        return _stepped(zname, fn)
    if inspect.isasyncgenfunction(fn):
        return _astepped(zname, fn)
    if not inspect.iscoroutinefunction(fn):
        return functools.update_wrapper(_native._zoned(zname, fn), fn)
    ids = itertools.count(1)

    @functools.wraps(fn)
    async def spanned(*args, **kwargs):
        i = next(ids)
        async_begin(zname, i)
        try:
            return await fn(*args, **kwargs)
        finally:
            async_end(zname, i)
    return spanned


def _stepped(zname, fn):
    """A generator function's decorator: each run of its body, from a
    resumption (next, send, throw) to the next yield or its end, is a
    zone. A call runs none of the body (it makes the generator), and a
    zone open across a yield would hold the consumer's code, whose zones
    would not nest inside it. Delegates as `yield from` does."""
    @functools.wraps(fn)
    def stepped(*args, **kwargs):
        gen = fn(*args, **kwargs)
        step, arg = gen.send, None
        while True:
            try:
                with zone(zname):
                    item = step(arg)
            except StopIteration as stop:
                return stop.value
            try:
                arg = yield item
                step = gen.send
            except GeneratorExit:
                gen.close()
                raise
            except BaseException as exc:    # thrown in: pass it on
                step, arg = gen.throw, exc
    return stepped


def _astepped(zname, fn):
    """An async generator function's decorator: each run of its body,
    from a resumption (anext, asend, athrow) to the next yield or its
    end, is an async span (one id per run: its awaits let other tasks of
    the thread run, as a coroutine's do)."""
    ids = itertools.count(1)

    @functools.wraps(fn)
    async def stepped(*args, **kwargs):
        agen = fn(*args, **kwargs)
        step, arg = agen.asend, None
        while True:
            i = next(ids)
            async_begin(zname, i)
            try:
                item = await step(arg)
            except StopAsyncIteration:
                return
            finally:
                async_end(zname, i)
            try:
                arg = yield item
                step = agen.asend
            except GeneratorExit:
                await agen.aclose()
                raise
            except BaseException as exc:    # thrown in: pass it on
                step, arg = agen.athrow, exc
    return stepped


_native._set_decorator(_decorate)


class async_span:
    """with async_span("request", rid): async_begin and async_end around
    the block (which may await: both happen on the thread that runs it)."""
    __slots__ = ("name", "id")

    def __init__(self, name, id):
        self.name, self.id = name, id

    def __enter__(self):
        async_begin(self.name, self.id)
        return self

    def __exit__(self, *exc):
        async_end(self.name, self.id)
        return False

    async def __aenter__(self):
        return self.__enter__()

    async def __aexit__(self, *exc):
        return self.__exit__(*exc)


# ---- benchmarks ----

_registry = []          # (name, spec, params, target, file, line)
_ran_registry = False
_last_rc = 0            # main()'s last exit status
_atexit_set = False


def _value_map(params):
    """{name: {str(value): value}}: libyardstick names parameter values as
    strings; the setup gets back the Python values given."""
    out = {}
    for k, vals in params.items():
        if not isinstance(k, str) or not k.isidentifier():
            raise ValueError(f"parameter {k!r}: a name is an identifier")
        if isinstance(vals, (str, bytes)) or not hasattr(vals, "__iter__"):
            vals = [vals]
        m = {}
        for v in vals:
            s = str(v)
            if not s or any(c in s for c in ",;=") or s != s.strip():
                raise ValueError(f"parameter {k!r}: value {s!r} cannot be "
                                 "named (no ',', ';', '=' or edge blanks)")
            m[s] = v
        if not m:
            raise ValueError(f"parameter {k!r} has no values")
        out[k] = m
    return out


def _spec(valmap, group):
    parts = [f"{k}={','.join(m)}" for k, m in valmap.items()]
    if group:
        parts.append(f"group={group}")
    return ";".join(parts)


def _where(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return "?", 0
    return code.co_filename, code.co_firstlineno


def _setup_target(setup, valmap):
    """target(values) for a setup function: called once per instance and
    process, it returns the callable to time (with no arguments)."""
    cache = {}

    def target(values):
        if values not in cache:
            kwargs = {k: valmap[k][v] for k, v in zip(valmap, values)}
            fn = setup(**kwargs)
            if not callable(fn):
                raise TypeError(
                    f"benchmark {setup.__qualname__!r}: the decorated "
                    "function is the setup: it returns the callable to "
                    f"time, not {type(fn).__name__}")
            cache[values] = (fn, (), None)
        return cache[values]
    return target


def _call_target(fn, args, kwargs):
    t = (fn, tuple(args), dict(kwargs) if kwargs else None)
    return lambda values: t


def benchmark(name=None, params=None, group=None):
    """Register a benchmark: the decorated function is its setup, called
    with one value of each parameter (their cartesian product, as
    libyardstick's specs) once per process; it returns the callable that
    is timed. Benchmarks of one group run interleaved and are compared
    with the group's first. They run with yardstick.main() (or
    `python3 -m yardstick FILE.py`, or at the end of the script)."""
    valmap = _value_map(params or {})

    def deco(setup):
        bname = name or setup.__qualname__
        file, line = _where(setup)
        _registry.append((bname, _spec(valmap, group), tuple(valmap),
                          _setup_target(setup, valmap), file, line))
        _run_at_exit_for(setup)
        return setup
    if callable(name) and params is None and group is None:
        fn, name = name, None      # @yardstick.benchmark without ()
        return deco(fn)
    return deco


def register(name, fn, *args, group=None, **kwargs):
    """Register fn(*args, **kwargs) as a benchmark named name (no setup)."""
    file, line = _where(fn)
    _registry.append((name, _spec({}, group), (),
                      _call_target(fn, args, kwargs), file, line))
    _run_at_exit_for(fn)


def _run_at_exit_for(fn):
    """A script that registers benchmarks in __main__ and never calls
    main() has them run when it ends (`python3 FILE.py`)."""
    global _atexit_set
    if getattr(fn, "__module__", None) == "__main__" and not _atexit_set:
        atexit.register(_at_exit)
        _atexit_set = True


def _at_exit():
    if _ran_registry or not _registry:
        return
    try:
        rc = main()
    except KeyboardInterrupt:
        # Ctrl-C: end as an uncaught KeyboardInterrupt ends a program,
        # by SIGINT (an exception in an atexit callback is only printed,
        # and the program would exit 0)
        sys.stderr.write("KeyboardInterrupt\n")
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        os._exit(130)
    if rc:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)


def _argv0():
    main_mod = sys.modules.get("__main__")
    path = getattr(main_mod, "__file__", None) or "python"
    return os.path.basename(path)


def _register_all(entries):
    for name, spec, params, target, file, line in entries:
        _native.register(name, spec, params, target, file, line)


def main(argv=None):
    """Run the registered benchmarks as libyardstick's ys_main does, with
    its command line (argv: sys.argv[1:] by default; --help lists it):
    the table on stdout, the result with --json FILE or as `yardstick
    bench` asks (YARDSTICK_BENCH_JSON). Returns the exit status."""
    global _ran_registry, _last_rc
    _ran_registry = True
    if argv is None:
        argv = sys.argv[1:]
    if not _registry:
        print(f"{_argv0()}: no benchmark registered "
              "(@yardstick.benchmark)", file=sys.stderr)
        return 2
    _register_all(_registry)
    argv = list(argv)
    path, tmp = _json_path(argv)
    if tmp:
        argv += ["--json", tmp]
    try:
        rc = _last_rc = _native.run([_argv0()] + argv)
        if path and rc != 2 and "--list" not in argv:
            _print_calls(path)
    finally:
        if tmp:
            os.unlink(tmp)
    return rc


def _json_path(argv):
    """Where the result will be, to read it back for the per-call table:
    (path, None) from --json FILE; (temporary, temporary) when nothing
    asks for it; (None, None) when it cannot be read back (stdout,
    `yardstick bench`'s pipe)."""
    for i, a in enumerate(argv):
        if a == "--json" and i + 1 < len(argv):
            v = argv[i + 1]
            return (None if v == "-" else v), None
        if a.startswith("--json="):
            v = a[len("--json="):]
            return (None if v == "-" else v), None
        if a in ("-h", "--help"):
            return None, None
    if os.environ.get("YARDSTICK_BENCH_JSON"):
        return None, None
    fd, tmp = tempfile.mkstemp(prefix="yardstick-", suffix=".json")
    os.close(fd)
    return tmp, tmp


def _fmt_time(v):
    if v is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if v >= scale:
            return f"{v / scale:.4g} {unit}"
    return f"{v * 1e9:.4g} ns"


def _print_calls(path):
    """Per benchmark: its first call, and its calls timed one by one."""
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError):
        return
    rows = []
    for b in result.get("benchmarks", []):
        m = b.get("metrics", {})
        c, first = m.get("call_time"), m.get("first_call_time")
        if not c:
            continue
        rows.append((b["name"], first and first.get("median"),
                     c.get("median"), c.get("p95"), c.get("p99"),
                     len(c.get("values", []))))
    if not rows:
        return
    w = max(len("calls timed one by one"), max(len(r[0]) for r in rows))
    print(f"\n{'calls timed one by one':{w}} {'first call':>11} "
          f"{'p50':>10} {'p95':>10} {'p99':>10} {'calls':>6}")
    for name, first, p50, p95, p99, n in rows:
        print(f"{name:{w}} {_fmt_time(first):>11} {_fmt_time(p50):>10} "
              f"{_fmt_time(p95):>10} {_fmt_time(p99):>10} {n:>6}")
    sys.stdout.flush()


class BenchResult:
    """What yardstick.bench measured: the result (kind "bench") as
    `result` (the parsed JSON), and the headline numbers in seconds."""

    def __init__(self, result):
        self.result = result
        b = result["benchmarks"][0]
        self.name = b["name"]
        self.warnings = b.get("warnings", [])
        self.metrics = b.get("metrics", {})

    def _stat(self, metric, key):
        m = self.metrics.get(metric)
        return None if m is None else m.get(key)

    @property
    def time_per_call(self):
        """the median of the epochs' time per call (time_per_op)"""
        return self._stat("time_per_op", "median")

    @property
    def p50(self):
        return self._stat("call_time", "median")

    @property
    def p95(self):
        return self._stat("call_time", "p95")

    @property
    def p99(self):
        return self._stat("call_time", "p99")

    @property
    def first_call(self):
        return self._stat("first_call_time", "median")

    @property
    def allocs_per_call(self):
        return self._stat("allocs_per_op", "median")

    def __repr__(self):
        def f(v):
            return "-" if v is None else f"{v * 1e9:.0f} ns"
        return (f"<BenchResult {self.name!r}: {f(self.time_per_call)} per "
                f"call, p50 {f(self.p50)} p95 {f(self.p95)} p99 "
                f"{f(self.p99)}, first call {f(self.first_call)}>")


def _run_one(name, target, file, line, options):
    """One benchmark now, its result parsed."""
    fd, path = tempfile.mkstemp(prefix="yardstick-", suffix=".json")
    os.close(fd)
    try:
        _native.register(name, "", (), target, file, line)
        rc = _native.run([_argv0(), "--json", path] + options)
        if rc == 2 or os.path.getsize(path) == 0:
            raise RuntimeError(f"benchmark {name!r}: libyardstick "
                               f"refused the options {options!r}")
        with open(path) as f:
            result = json.load(f)
    finally:
        os.unlink(path)
    return result


def _options(epochs, min_time, seed, alloc_count):
    opts = []
    if epochs is not None:
        opts += ["--epochs", str(int(epochs))]
    if min_time is not None:
        opts += ["--min-time", str(min_time)]
    if seed is not None:
        opts += ["--seed", str(int(seed))]
    if not alloc_count:
        opts += ["--no-alloc-count"]
    return opts


def bench(fn, *args, name=None, epochs=None, min_time=None, seed=None,
          alloc_count=True, **kwargs):
    """Measure fn(*args, **kwargs) now, as libyardstick measures a
    benchmark (warm-up while tuning the iterations, then epochs; the first
    call timed apart; calls timed one by one for p50/p95/p99; the
    interpreter's allocations per call). Prints the table; returns a
    BenchResult."""
    if not callable(fn):
        raise TypeError(f"bench(): {type(fn).__name__!r} is not callable")
    bname = name or getattr(fn, "__qualname__", None) or repr(fn)
    file, line = _where(fn)
    result = _run_one(bname, _call_target(fn, args, kwargs), file, line,
                      _options(epochs, min_time, seed, alloc_count))
    return BenchResult(result)


# ---- pytest (`pytest -p yardstick`, or with no -p from the installed
# entry point, group pytest11): the hooks here, the fixture in
# pytest_plugin.py, which imports pytest only when pytest loads us ----

def _asked_for(args):
    """Whether pytest's arguments ask for the plugin: -p yardstick."""
    return any((a == "-p" and b == "yardstick") or a == "-pyardstick"
               for a, b in zip(args, args[1:] + [""]))


def _short_options():
    """Whether the plugin takes `yardstick bench`'s own option names
    (--epochs, --min-time, --filter) besides its --yardstick-* ones: when
    run by `yardstick bench`, which passes them on, or asked for (-p
    yardstick, on the command line or in PYTEST_ADDOPTS); not when pytest
    loaded it from the installed entry point for every session, where a
    project's conftest may have options of those names."""
    import shlex
    if os.environ.get("YARDSTICK_BENCH_JSON"):
        return True
    try:
        addopts = shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    except ValueError:
        addopts = []
    return _asked_for(list(sys.argv[1:])) or _asked_for(addopts)


def _benchmark_options_free(pluginmanager):
    """Whether pytest-benchmark's own options are free to take: it is
    blocked (-p no:benchmark) or not installed; else it adds them."""
    import importlib.util
    return pluginmanager.is_blocked("benchmark") or \
        importlib.util.find_spec("pytest_benchmark") is None


def pytest_addoption(parser, pluginmanager):
    g = parser.getgroup("yardstick", "yardstick benchmarks (ys_bench)")
    short = _short_options()

    def names(*n):
        return n if short else n[:1]
    g.addoption("--yardstick-json", dest="yardstick_json", metavar="FILE",
                help="write the tests' benchmarks as one yardstick result "
                     "(kind bench) to FILE")
    g.addoption(*names("--yardstick-epochs", "--epochs"),
                dest="yardstick_epochs", type=int, metavar="N",
                help="measured epochs per test (default 11)")
    g.addoption(*names("--yardstick-min-time", "--min-time"),
                dest="yardstick_min_time", metavar="T",
                help="at least T measured per test (0.5, 200ms)")
    g.addoption(*names("--yardstick-filter", "--filter"),
                dest="yardstick_filter", metavar="REGEX",
                help="only the tests whose node id matches (Python's "
                     "re.search)")
    g.addoption("--yardstick-no-alloc-count", action="store_true",
                dest="yardstick_no_alloc_count",
                help="do not count the interpreter's allocations")
    # pytest-benchmark's selection options, where it does not take them,
    # so that a CI command line written for it runs unchanged
    if _benchmark_options_free(pluginmanager):
        g.addoption("--benchmark-only", action="store_true",
                    dest="yardstick_benchmark_only",
                    help="only the tests that use the fixture benchmark "
                         "or ys_bench (the others skipped), as "
                         "pytest-benchmark's")
        g.addoption("--benchmark-skip", action="store_true",
                    dest="yardstick_benchmark_skip",
                    help="skip the tests that use the fixture benchmark "
                         "or ys_bench, as pytest-benchmark's")
        g.addoption("--benchmark-disable", action="store_true",
                    dest="yardstick_benchmark_disable",
                    help="call each benchmarked function once, untimed: "
                         "nothing measured, as pytest-benchmark's")
        from . import pbcompat
        pbcompat.add_options(g)


def pytest_collection_modifyitems(session, config, items):
    from . import pytest_plugin
    pytest_plugin.select(config, items)
    pytest_plugin.only_or_skip(config, items)


def pytest_collection_finish(session):
    from . import pytest_plugin
    pytest_plugin.count_benchmark_users(session.config, session.items)


def pytest_configure(config):
    from . import pytest_plugin
    config.pluginmanager.register(pytest_plugin, "yardstick-fixtures")
    pytest_plugin.configure(config)


def pytest_sessionfinish(session, exitstatus):
    from . import pytest_plugin
    pytest_plugin.write(session.config)


def pytest_terminal_summary(terminalreporter):
    from . import pytest_plugin
    pytest_plugin.summary(terminalreporter)
