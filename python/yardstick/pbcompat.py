"""pytest-benchmark's command line, where pytest-benchmark is not active
and yardstick's plugin provides the fixture `benchmark`: what a CI
script written for it passes, taken and honoured through yardstick, or
refused with what to use instead, never accepted and ignored.

- --benchmark-json=PATH: pytest-benchmark's own JSON (machine_info,
  commit_info, benchmarks with their stats, datetime, version) from
  yardstick's measured epochs, one round per epoch (pbstats.py).
- --benchmark-save=NAME, --benchmark-autosave: the session's result
  saved into yardstick's store (`yardstick store copy FILE.json`).
- --benchmark-compare[=NUM|REF], --benchmark-compare-fail=EXPR...: the
  result compared with a stored one by yardstick's one judge: `yardstick
  compare`, and `yardstick gate` for the EXPRs (docs/python.md says how
  that differs from pytest-benchmark's point comparison).
- --benchmark-min-rounds, --benchmark-disable-gc, --benchmark-enable,
  --benchmark-warmup=on, --benchmark-save-data: honoured.
- the table pytest-benchmark prints at the end (pbtable.py), with its
  --benchmark-sort, --benchmark-group-by, --benchmark-columns and
  --benchmark-name.
- the others: refused, naming what to use (REFUSED below).

The store and the judge are the yardstick program's (found on PATH, or
$YARDSTICK_BIN), run as a user would run it: the package links
libyardstick only, which has neither.
"""
import argparse
import datetime
import decimal
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile

import pytest

from . import pbstats, pbtable

# pytest-benchmark's version whose JSON this writes (3.2 and 4.0 write
# the same keys)
SCHEMA_VERSION = "3.2.2"
# libyardstick's epochs when none are asked for (src/lib/cli.c)
LIB_DEFAULT_EPOCHS = 11
# pytest-benchmark's --benchmark-compare-fail fields that yardstick's
# judge tests (gate's statistics of time_per_op)
JUDGED_FIELDS = ("min", "max", "mean", "median")


class PerformanceRegression(pytest.UsageError):
    """pytest-benchmark's: raised from the terminal summary, so that the
    session ends as its does (exit status 4, 'ERROR: Performance has
    regressed.')."""


# option: (its add_option keywords, why it is refused and what to use)
REFUSED = {
    "--benchmark-min-time": (
        {"metavar": "SECONDS"},
        "yardstick tunes each epoch's iterations to a length of its own "
        "(1000 x the clock's resolution, at least 20 us); use "
        "--yardstick-min-time T for the least time of a whole test"),
    "--benchmark-max-time": (
        {"metavar": "SECONDS"},
        "yardstick measures a number of epochs, not up to a time; use "
        "--yardstick-epochs N (or --benchmark-min-rounds N), or "
        "--yardstick-min-time T for at least T"),
    "--benchmark-timer": (
        {"metavar": "FUNC"},
        "libyardstick times with CLOCK_MONOTONIC in C, around a loop of "
        "C calls; no Python timer can be put in its place"),
    "--benchmark-calibration-precision": (
        {"metavar": "NUM"},
        "yardstick tunes the iterations until an epoch lasts 1000 x the "
        "clock's resolution; it has no precision to set"),
    "--benchmark-warmup-iterations": (
        {"metavar": "NUM"},
        "yardstick's warm-up is its tuning epochs (not kept), as many "
        "as the tuning takes"),
    "--benchmark-storage": (
        {"metavar": "URI"},
        "the results go to yardstick's store: set YARDSTICK_STORE=PATH "
        "(a file, or a postgresql:// URL), or store = in yardstick.ini"),
    "--benchmark-netrc": (
        {"metavar": "FILE", "nargs": "?", "const": "~/.netrc"},
        "yardstick's store is a file or PostgreSQL, not elasticsearch: "
        "set YARDSTICK_STORE"),
    "--benchmark-verbose": (
        {"action": "store_true"},
        "the plugin has no diagnostics to add; run yardstick's commands "
        "(compare, gate, history) for the details"),
    "--benchmark-cprofile": (
        {"metavar": "COLUMN"},
        "profile with yardstick record -- python3 -m pytest ... (Python "
        "frames, without cProfile's cost)"),
    "--benchmark-histogram": (
        {"metavar": "FILENAME-PREFIX", "nargs": "?", "const": "1"},
        "yardstick report --history (or yardstick report FILE.json) "
        "draws the distributions and the history"),
    "--benchmark-csv": (
        {"metavar": "FILENAME", "nargs": "?", "const": "1"},
        "use --yardstick-json FILE, then yardstick export (CSV, and "
        "more), or --benchmark-json"),
}


def add_options(g):
    """pytest-benchmark's options, into the plugin's group g."""
    g.addoption("--benchmark-json", dest="yardstick_pb_json",
                metavar="PATH",
                help="write pytest-benchmark's JSON (its schema, every "
                     "epoch a round, seconds) to PATH")
    g.addoption("--benchmark-save", dest="yardstick_pb_save",
                metavar="NAME",
                help="save the session's result into yardstick's store "
                     "(NAME is printed; the store numbers results)")
    g.addoption("--benchmark-autosave", action="store_true",
                dest="yardstick_pb_autosave",
                help="save the session's result into yardstick's store")
    g.addoption("--benchmark-save-data", action="store_true",
                dest="yardstick_pb_save_data",
                help="accepted: the store keeps every epoch anyway")
    g.addoption("--benchmark-compare", dest="yardstick_pb_compare",
                metavar="NUM|REF", nargs="?", const="latest",
                help="compare with the stored result NUM (an id), or a "
                     "yardstick reference (latest, the default; "
                     "@COMMIT, branch:NAME, FILE.json), by yardstick's "
                     "judge (yardstick compare)")
    g.addoption("--benchmark-compare-fail",
                dest="yardstick_pb_compare_fail", metavar="EXPR",
                nargs="+", action="extend",
                help="FIELD:N%% or FIELD:SECONDS, FIELD min, max, mean or "
                     "median: fail the session when the judge finds the "
                     "time per call's FIELD grew beyond it with "
                     "confidence (yardstick gate --max-increase "
                     "time_per_op.FIELD=...)")
    g.addoption("--benchmark-min-rounds", dest="yardstick_pb_min_rounds",
                metavar="NUM", type=int,
                help="at least NUM epochs per test (pytest-benchmark's "
                     "rounds are yardstick's epochs)")
    g.addoption("--benchmark-disable-gc", action="store_true",
                dest="yardstick_pb_disable_gc",
                help="the garbage collector off while a test is measured")
    g.addoption("--benchmark-enable", action="store_true",
                dest="yardstick_pb_enable",
                help="measure even with --benchmark-disable")
    g.addoption("--benchmark-warmup", dest="yardstick_pb_warmup",
                metavar="KIND", nargs="?", const="on",
                help="on: accepted (yardstick always warms up: its tuning "
                     "epochs); off and auto are refused")
    # the table's (pbtable.py), as pytest-benchmark's
    g.addoption("--benchmark-sort", dest="yardstick_pb_sort", metavar="COL",
                type=_argtype(pbtable.parse_sort), default="min",
                help="the table's order: min, max, mean, stddev, name or "
                     "fullname (default min)")
    g.addoption("--benchmark-group-by", dest="yardstick_pb_group_by",
                metavar="LABEL", type=_argtype(pbtable.parse_group_by),
                default="group",
                help="the table's groups: group, name, fullname, func, "
                     "fullfunc, param or param:NAME, or several with "
                     "commas (default group)")
    g.addoption("--benchmark-columns", dest="yardstick_pb_columns",
                metavar="LABELS", type=_argtype(pbtable.parse_columns),
                default=list(pbtable.COLUMNS),
                help="the table's columns, with commas: "
                     f"{', '.join(pbtable.COLUMNS)} (default all)")
    g.addoption("--benchmark-name", dest="yardstick_pb_name",
                metavar="FORMAT", type=_argtype(pbtable.parse_name),
                default="normal",
                help="the table's names: short, normal or long (default "
                     "normal)")
    for opt, (kw, why) in REFUSED.items():
        g.addoption(opt, dest=_dest(opt), default=None,
                    help=f"refused: {why}".replace("%", "%%"), **kw)


def _argtype(parse):
    """parse as an argparse type: its ValueError's words in pytest's
    usage error."""
    def typ(s):
        try:
            return parse(s)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e))
    typ.__name__ = parse.__name__
    return typ


def table(config, entries):
    """pytest-benchmark's table of the session's benchmarks."""
    return pbtable.lines(entries,
                         sort=config.getoption("yardstick_pb_sort"),
                         group_by=config.getoption("yardstick_pb_group_by"),
                         columns=config.getoption("yardstick_pb_columns"),
                         name_format=config.getoption("yardstick_pb_name"))


def _dest(opt):
    return "yardstick_pb_" + opt[len("--benchmark-"):].replace("-", "_")


def check_options(config):
    """Refuse what cannot be honoured, before a test runs: a usage error
    naming the option, why, and what to use instead."""
    for opt, (kw, why) in REFUSED.items():
        v = config.getoption(_dest(opt), None)
        if v is not None and v is not False:
            raise pytest.UsageError(f"{opt}: not taken by yardstick's "
                                    f"plugin: {why}")
    warm = config.getoption("yardstick_pb_warmup", None)
    if warm is not None and warm.lower().strip() not in ("on", "true",
                                                         "yes", ""):
        raise pytest.UsageError(
            f"--benchmark-warmup={warm}: yardstick always warms up (its "
            "tuning epochs, not kept) and cannot turn it off; leave the "
            "option out, or give --benchmark-warmup=on")
    if config.getoption("yardstick_benchmark_only", False) and \
            config.getoption("yardstick_benchmark_disable", False) and \
            not config.getoption("yardstick_pb_enable", False):
        # pytest-benchmark's: only the benchmarks, none measured
        raise pytest.UsageError("Can't have both --benchmark-only and "
                                "--benchmark-disable options.")
    n = config.getoption("yardstick_pb_min_rounds", None)
    if n is not None and n < 1:
        raise pytest.UsageError(f"--benchmark-min-rounds={n}: at least 1")
    checks(config)      # a bad EXPR is a usage error now, not at the end
    path = config.getoption("yardstick_pb_json", None)
    if path:
        # opened now, as pytest-benchmark's argparse.FileType does: a
        # path that cannot be written stops the session before its tests
        try:
            open(path, "w").close()
        except OSError as e:
            raise pytest.UsageError(f"--benchmark-json: cannot write "
                                    f"{path!r}: {e.strerror}")
    fail = config.getoption("yardstick_pb_compare_fail", None)
    if fail and config.getoption("yardstick_pb_compare", None) is None:
        raise pytest.UsageError("--benchmark-compare-fail requires valid "
                                "--benchmark-compare.")
    keeps = _saving(config) or \
        config.getoption("yardstick_pb_compare", None) is not None
    if keeps and os.environ.get("YARDSTICK_BENCH_JSON"):
        raise pytest.UsageError(
            "--benchmark-save, --benchmark-autosave and "
            "--benchmark-compare: under yardstick bench, which stores the "
            "processes' merged result and compares it itself: give "
            "yardstick bench --store, --baseline REF and --max-increase "
            "time_per_op.mean=5% instead")
    if keeps:
        _program()      # missing: said now, before the tests run


def asked(config):
    """Whether an option here asked for something written or kept."""
    return bool(config.getoption("yardstick_pb_json", None) or
                _saving(config) or
                config.getoption("yardstick_pb_compare", None) is not None)


def _saving(config):
    return bool(config.getoption("yardstick_pb_save", None) or
                config.getoption("yardstick_pb_autosave", False))


def _seconds(text):
    """A number of seconds (pytest-benchmark's: 0.001, 1e-3) as gate
    reads a time: its decimal digits, every one kept, and 's'."""
    return format(decimal.Decimal(text.strip()), "f") + "s"


def checks(config):
    """--benchmark-compare-fail's EXPRs as gate's --max-increase specs:
    [(EXPR, SPEC)]. FIELD:N% is the change in % of the baseline's FIELD,
    FIELD:SECONDS the change in seconds (pytest-benchmark's two
    forms)."""
    out = []
    for expr in config.getoption("yardstick_pb_compare_fail", None) or ():
        field, sep, val = expr.partition(":")
        if not sep or not val:
            raise pytest.UsageError(f"--benchmark-compare-fail: cannot "
                                    f"read {expr!r}: FIELD:N% or "
                                    "FIELD:SECONDS (mean:5%, min:0.001)")
        if field in ("stddev", "iqr"):
            raise pytest.UsageError(
                f"--benchmark-compare-fail={expr}: yardstick's judge tests "
                "a change of the time per call's min, max, mean or median "
                f"(with its interval and p), not of its {field}; use "
                f"mean:{val} or median:{val}")
        if field not in JUDGED_FIELDS:
            raise pytest.UsageError(f"--benchmark-compare-fail={expr}: "
                                    f"no field {field!r} (min, max, mean, "
                                    "median)")
        try:
            if val.endswith("%"):
                num = float(val[:-1])
                spec = format(decimal.Decimal(val[:-1].strip()), "f") + "%"
            else:
                num = float(val)
                spec = _seconds(val)
        except (ValueError, decimal.InvalidOperation):
            num = -1
        if not num >= 0 or num != num or num == float("inf"):
            raise pytest.UsageError(f"--benchmark-compare-fail={expr}: "
                                    f"{val!r} is no percentage or number "
                                    "of seconds")
        out.append((expr, f"time_per_op.{field}={spec}"))
    return out


def epochs_for(config, epochs, marker_min_rounds=None):
    """The epochs of a test: at least --benchmark-min-rounds (or its
    marker's min_rounds), which pytest-benchmark's rounds are."""
    want = [n for n in (config.getoption("yardstick_pb_min_rounds", None),
                        marker_min_rounds) if n is not None]
    if not want:
        return epochs
    have = epochs if epochs is not None else LIB_DEFAULT_EPOCHS
    return max([have] + want)


# ---- the JSON ----

def _safe(obj):
    """pytest-benchmark's SafeJSONEncoder: what JSON cannot hold as its
    repr, marked."""
    return json.loads(json.dumps(obj, default=lambda o:
                                 f"UNSERIALIZABLE[{o!r}]"))


def _git(*args):
    try:
        return subprocess.run(["git"] + list(args), capture_output=True,
                              text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def commit_info(result):
    """pytest-benchmark's commit_info from yardstick's git state of the
    result (the commit, branch, dirty), with the times of the commit."""
    g = result.get("git") or {}
    commit = g.get("commit")
    info = {"id": commit or "unversioned", "time": None,
            "author_time": None, "dirty": bool(g.get("dirty")),
            "project": os.path.basename(os.getcwd()),
            "branch": g.get("branch") or
            ("(detached head)" if commit else "(unknown)")}
    if commit:
        info["time"] = _git("show", "-s", "--pretty=format:%cI", commit)
        info["author_time"] = _git("show", "-s", "--pretty=format:%aI",
                                   commit)
        top = _git("rev-parse", "--show-toplevel")
        if top:
            info["project"] = os.path.basename(top)
    return info


def machine_info(result):
    m = result.get("machine") or {}
    return {
        "node": platform.node(),
        "processor": platform.processor(),
        "machine": platform.machine(),
        "python_compiler": platform.python_compiler(),
        "python_implementation": platform.python_implementation(),
        "python_implementation_version": platform.python_version(),
        "python_version": platform.python_version(),
        "python_build": list(platform.python_build()),
        "release": platform.release(),
        "system": platform.system(),
        "cpu": {"vendor_id": "unknown", "hardware": "unknown",
                "brand": m.get("cpu") or "unknown"},
    }


def entry(t):
    """One test's benchmark in pytest-benchmark's form: its rounds the
    result's epochs (time_per_op, seconds per call); None when it has
    none (a failed benchmark: pytest-benchmark leaves those out too)."""
    b = t["result"]["benchmarks"][0]
    m = b.get("metrics", {})
    data = [v for v in m.get("time_per_op", {}).get("values", [])
            if v is not None]
    if not data:
        return None
    its = sorted(v for v in m.get("iterations", {}).get("values", [])
                 if v is not None)
    st = pbstats.stats(data)
    st["data"] = data
    # each epoch runs the tuned iterations plus a random 0-20%, and each
    # value is its own epoch's time over its own iterations; the number
    # here is the middle epoch's, sorted (the upper middle of an even
    # count: one epoch's real count)
    st["iterations"] = int(its[len(its) // 2]) if its else 1
    return {
        "group": t["group"], "name": t["name"], "fullname": t["fullname"],
        "params": t["params"], "param": t["param"],
        "extra_info": t["fixture"].extra_info,
        "options": {"disable_gc": t["disable_gc"],
                    "timer": "CLOCK_MONOTONIC (libyardstick)",
                    "min_rounds": len(data), "max_time": None,
                    "min_time": t["min_time"], "warmup": True},
        "stats": st,
    }


def entries(tests):
    """The benchmarks of the measured tests, as entry() makes them."""
    return [e for e in map(entry, tests) if e is not None]


def document(benchmarks, result):
    """pytest-benchmark's JSON of the benchmarks (entries()); result is
    the session's merged yardstick result (its machine and git)."""
    return _safe({
        "machine_info": machine_info(result),
        "commit_info": commit_info(result),
        "benchmarks": benchmarks,
        # pytest-benchmark's utcnow().isoformat(), without the
        # deprecated call
        "datetime": datetime.datetime.now(datetime.timezone.utc)
        .replace(tzinfo=None).isoformat(),
        "version": SCHEMA_VERSION,
        "yardstick": {"version": (result.get("tool") or {}).get("version"),
                      "rounds": "epochs", "unit": "s"},
    })


class Stats:
    """pytest-benchmark's Stats of a measured test (`benchmark.stats.stats`
    in a test): the fields as attributes, data the rounds (epochs)."""
    fields = pbstats.FIELDS

    def __init__(self, st):
        for k in self.fields:
            setattr(self, k, st[k])
        self.data = list(st["data"])

    def __bool__(self):
        return bool(self.data)

    def as_dict(self):
        return {k: getattr(self, k) for k in self.fields}


class Metadata:
    """pytest-benchmark's Metadata (`benchmark.stats` in a test):
    stats["mean"], stats.get("mean"), stats.stats.mean, as its are."""

    def __init__(self, e):
        for k in ("name", "fullname", "group", "params", "param",
                  "extra_info", "options"):
            setattr(self, k, e[k])
        self.iterations = e["stats"]["iterations"]
        self.stats = Stats(e["stats"])

    def __bool__(self):
        return bool(self.stats)

    def __getitem__(self, key):
        try:
            return getattr(self.stats, key)
        except AttributeError:
            return getattr(self, key)

    def get(self, key, default=None):
        try:
            return getattr(self.stats, key)
        except AttributeError:
            return getattr(self, key, default)

    def as_dict(self, include_data=True):
        d = {k: getattr(self, k) for k in ("group", "name", "fullname",
                                            "params", "param", "extra_info",
                                            "options")}
        d["stats"] = self.stats.as_dict()
        if include_data:
            d["stats"]["data"] = list(self.stats.data)
        d["stats"]["iterations"] = self.iterations
        return d


def metadata(t):
    """A measured test's Metadata, or None (a failed benchmark)."""
    e = entry(t)
    return Metadata(e) if e is not None else None


# ---- the store and the judge, through the yardstick program ----

def _program():
    p = os.environ.get("YARDSTICK_BIN") or shutil.which("yardstick")
    if not p:
        raise pytest.UsageError(
            "--benchmark-save, --benchmark-autosave, --benchmark-compare: "
            "the yardstick program (its store and judge) is not on PATH; "
            "install yardstick, or set YARDSTICK_BIN to it")
    return p


def _run(argv):
    try:
        p = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        return 2, "", f"yardstick: cannot run {argv[0]!r}: {e}\n"
    return p.returncode, p.stdout, p.stderr


def _latest(ys, result):
    """pytest-benchmark's latest saved run, in yardstick's store: the
    newest result of kind bench that has a benchmark of this session
    (the store may hold other suites' results, and other kinds: its
    own `latest` is the newest of any). (id, None), or (None, why)."""
    names = {b["name"] for b in result["benchmarks"]}
    rc, so, se = _run([ys, "history", "--json", "-", "-n", "1000000"])
    if rc:
        return None, se.strip() or f"yardstick history: exit status {rc}"
    try:
        results = json.loads(so)["results"]
    except (ValueError, KeyError, TypeError):
        return None, "yardstick history: its JSON could not be read"
    for r in results:               # newest first
        if r.get("kind") == "bench" and names & {
                b.get("name") for b in r.get("benchmarks", [])}:
            return str(r["id"]), None
    return None, ("no stored result of kind bench has a benchmark of "
                  "this session")


def _saved(text):
    """store copy's line about the session's temporary file, as the
    commands that save say it: 'yardstick: saved as result N in STORE'."""
    m = re.match(r"copied 1 result from .* to (.*) as result (\d+)$",
                 text.strip())
    if m:
        return f"yardstick: saved as result {m[2]} in {m[1]}\n"
    m = re.match(r"copied 0 results from .* to (.*), skipped 1 already "
                 r"there \(result (\d+)\)$", text.strip())
    if m:
        return f"yardstick: already saved as result {m[2]} in {m[1]}\n"
    return text


def finish(config, result):
    """At the end of the session: compare (before the save, so that
    `latest` is the result saved before this session) and save. Returns
    [(title, exit status, text)] for the terminal summary; the caller
    raises when the gate failed."""
    ref = config.getoption("yardstick_pb_compare", None)
    save = _saving(config)
    if ref is None and not save:
        return []
    ys = _program()
    out = []
    fd, path = tempfile.mkstemp(prefix="yardstick-pytest-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(result, f, allow_nan=False)
        if ref is not None:
            ref = str(int(ref)) if ref.isdigit() else ref
            specs = checks(config)
            if ref == "latest":
                ref, why = _latest(ys, result)
                if ref is None:
                    out.append(("nobaseline", 2, "", why))
            if ref is None:
                pass
            elif specs:
                # the EXPRs are the checks: not the project's [gate]
                # thresholds of yardstick.ini, whose metrics (wall_time of
                # its run results) a bench result lacks (exit 2)
                argv = [ys, "gate", "--config", os.devnull, "--baseline",
                        ref, "--inconclusive", "pass", "--missing", "pass"]
                for _, spec in specs:
                    argv += ["--max-increase", spec]
                out.append(("gate", *_run(argv + [path])))
            else:
                out.append(("compare", *_run([ys, "compare", "-m",
                                              "time_per_op", ref, path])))
        if save:
            rc, so, se = _run([ys, "store", "copy", path])
            so = _saved(so)
            name = config.getoption("yardstick_pb_save", None)
            if rc == 0 and name:
                so += (f"(--benchmark-save={name}: the store numbers its "
                       "results and keeps no name: refer to it by its id, "
                       "or by @COMMIT)\n")
            out.append(("save", rc, so, se))
    finally:
        os.unlink(path)
    return out
