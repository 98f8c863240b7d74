#!/bin/sh
# The Python package (python/yardstick, docs/python.md): zones seen by
# trace with their nesting, threads and durations against the program's own
# clock; benchmarks through bench(), the registry, `python3 -m yardstick`,
# `python3 FILE.py` under `yardstick bench --processes`; the 2x ratio of
# designed workloads; gate on a 30% slower variant and an identical one;
# the pytest plugin; bad input. PYTHON is the interpreter the package was
# built for (Debian's python3), YS_PYTHONPATH the package in the build tree.
. "$(dirname "$0")/lib.sh"
CLI=$(dirname "$0")
PYT=$(cd "$CLI/../python" && pwd)
. "$CLI/pyenv.sh"
export CLI PYT PYTHON PYTHONPATH

# ---- zones --------------------------------------------------------------

t "untraced: tracing() is false, every zone is one shared no-op, a decorator returns the function itself" "$PYTHON" -c '
import yardstick
assert not yardstick.tracing()
assert yardstick.zone("a") is yardstick.zone("b") is yardstick.zone()
def f(): return 3
assert yardstick.zone()(f) is f and yardstick.zone("x")(f) is f
with yardstick.zone("a"):
    yardstick.mark("m"); yardstick.counter("c", 1); yardstick.zone_text("t")
    yardstick.zone_value(5); yardstick.async_begin("r", 1); yardstick.async_end("r", 1)
    yardstick.thread_name("w")
'
t "a zone name that is not a str: TypeError naming the type" "$PYTHON" -c '
import yardstick
for call in (lambda: yardstick.zone(3), lambda: yardstick.mark(b"x"), lambda: yardstick.counter(None, 1)):
    try:
        call()
    except TypeError as e:
        assert "must be a str" in str(e), e
    else:
        raise AssertionError("accepted")
'

# the cost of an untraced zone (issue 27: <= 100 ns per `with
# yardstick.zone("x"):`), measured as bench/python_zones.sh does: loops of
# 10,000 zones, each form's best of 201 interleaved loops; also against
# references of the same process, which a busy machine slows alike: within
# 25 ns of a `with` on a zone made beforehand (the floor of any `with`: the
# zone() call is all that is left to the package) and at most half of a
# `with` on an empty Python context manager
t "untraced zone: <= 100 ns a with, <= 25 ns above any with's floor, <= half an empty Python context manager's (retried 3x)" retry sh -c '
	"$PYTHON" "$CLI/../../bench/py/zone_cost.py" 10000 201 >"$T/zc" || exit 1
	awk "{ v[\$1] = \$2 } END {
		print v[\"with\"], v[\"ref_made_zone\"], v[\"ref_python_cm\"]
		exit !(v[\"with\"] <= 100 && v[\"with\"] <= v[\"ref_made_zone\"] + 25 &&
		       v[\"with\"] <= v[\"ref_python_cm\"] / 2 && v[\"decorator\"] <= 10)
	}" "$T/zc"'

# zonefix.py's zones (spins of designed length) against what the program
# measured with CLOCK_MONOTONIC, the trace's clock: each within 200 us,
# plus the time its thread was off the CPU inside it (the machine is
# shared: the trace's own on-CPU spans say how long); never shorter than
# designed; nesting and threads as written; the async span from the main
# thread to the worker; the counter's values; the mark.
t "zones from Python: nesting, threads, durations against the program's clock (200 us + off-CPU), async span, counter" retry sh -c '
	"$PYTHON" "$PYT/zonefix.py" --truth >"$T/ztruth.json" &&
	"$YS" trace --no-store -o "$T/pz.json" -- "$PYTHON" "$PYT/zonefix.py" >"$T/pz.obs" 2>"$T/pz.err" || { cat "$T/pz.err"; exit 1; }
	python3 "$CLI/chrome_trace_check.py" "$T/pz.json" >"$T/pz.sum" || exit 1
	python3 - "$T/ztruth.json" "$T/pz.obs" "$T/pz.sum" "$T/pz.json" <<"PY"
import json, sys
truth = json.load(open(sys.argv[1]))
obs = {}
for l in open(sys.argv[2]):
    name, i, t0, ns = l.split()
    obs[(name, int(i))] = (int(t0) / 1e3, int(ns) / 1e3)
summ = json.load(open(sys.argv[3]))
zones = {}
for th, v in summ.items():
    for name, ts, dur, depth in v["zones"]:
        off = dur - sum(max(0, min(b, ts + dur) - max(a, ts)) for a, b in v["cpu"])
        zones.setdefault(name, []).append((v["name"], ts, dur, depth, off))
for name, (thread, depth, ms, count) in truth.items():
    got = sorted(zones.get(name, []), key=lambda z: z[1])
    assert len(got) == count, (name, got)
    for i, (th, ts, dur, d, off) in enumerate(got):
        assert th == thread, (name, th)
        assert d == depth, (name, d)
        o0, od = obs[(name, i)]
        # the zone and the observation differ by the cost of a zone and a
        # clock reading (about a microsecond), unless the thread was off
        # the CPU between them
        assert abs(ts - o0) <= 200 + off, (name, i, ts, o0, off)
        assert abs(dur - od) <= 200 + off, (name, i, dur, od, off)
        if ms is not None:
            assert dur >= ms * 1000 - 200, (name, i, dur, ms)
(_, s0, sd, _, _), = zones["setup"]
(_, p0, pd, _, _), = zones["parse"]
(_, l0, ld, _, _), = zones["load"]
assert s0 <= p0 and p0 + pd <= l0 and l0 + ld <= s0 + sd, (zones["setup"], zones["parse"], zones["load"])
ev = json.load(open(sys.argv[4]))["traceEvents"]
tid = {v["name"]: int(k.split("/")[1]) for k, v in summ.items() if v["name"]}
b = [e for e in ev if e["ph"] == "b" and e["name"] == "request"]
e = [e for e in ev if e["ph"] == "e" and e["name"] == "request"]
assert len(b) == 1 and len(e) == 1 and b[0]["id"] == e[0]["id"], (b, e)
assert b[0]["tid"] == tid["MainThread"] and e[0]["tid"] == tid["worker-py"], (b, e)
q = [c["args"]["queue"] for c in ev if c["ph"] == "C" and c["name"] == "queue"]
assert q == [3, 1, 4], q
assert any(x.get("name") == "flushed" and x["ph"] in ("i", "I") for x in ev)
PY'

# the zones' clock and the samples' agree (issue 27): of the CPU samples
# with Python frames inside a zone "a" span, >= 90% are in a_work, and of
# those in a_work >= 90% fall inside an "a" span; the same for "b"
# (zonealign.py: 0.3 s of CPU each, alternating; a skew of 30 ms between
# the two clocks would move 10% of a zone's samples to the other)
t "zones line up with the Python frames of the samples (>= 90% both ways, zone a/a_work, b/b_work)" sh -c '
	"$YS" trace -q --no-store -o "$T/al.json" -- "$PYTHON" "$PYT/zonealign.py" || exit 1
	python3 - "$T/al.json" <<"PY"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
zones = [(e["name"], e["ts"], e["ts"] + e["dur"]) for e in ev
         if e["ph"] == "X" and e.get("cat") == "zone"]
samples = [(e["ts"], e["args"]["stack"].split(";")) for e in ev
           if e["ph"] == "i" and e.get("cat") == "sample"]
assert sorted(z for z, _, _ in zones) == ["a"] * 3 + ["b"] * 3, zones
def zone_at(ts):
    return next((z for z, t0, t1 in zones if t0 <= ts <= t1), None)
def fn_of(stack):
    fns = {f.split(" (zonealign.py:")[0] for f in stack if " (zonealign.py:" in f}
    return "a" if "a_work" in fns else "b" if "b_work" in fns else "-" if fns else None
for z in "ab":
    inz = [fn_of(st) for ts, st in samples if zone_at(ts) == z]
    inz = [f for f in inz if f is not None]
    infn = [zone_at(ts) for ts, st in samples if fn_of(st) == z]
    assert len(inz) >= 100 and len(infn) >= 100, (z, len(inz), len(infn))
    share = inz.count(z) / len(inz)
    back = infn.count(z) / len(infn)
    print(z, len(inz), round(share, 3), len(infn), round(back, 3))
    assert share >= 0.9 and back >= 0.9, (z, share, back)
PY'
t "@zone on a function, a method (bound), a coroutine (an async span), zone_begin/zone_end: traced and untraced" sh -c '
	"$PYTHON" "$PYT/zonedeco.py" | grep -qx "ok False <class .function.>" &&
	"$YS" trace --no-store -F 1 -o "$T/zd.json" -- "$PYTHON" "$PYT/zonedeco.py" >"$T/zd.out" 2>"$T/zd.err" &&
	grep -qx "ok True <class .yardstick.ZonedFunction.>" "$T/zd.out" &&
	python3 -c "
import json
ev = json.load(open(\"$T/zd.json\"))[\"traceEvents\"]
x = [e[\"name\"] for e in ev if e[\"ph\"] == \"X\" and e[\"name\"] in (\"f\", \"meth\", \"manual\")]
assert sorted(x) == [\"f\", \"f\", \"manual\", \"meth\"], x
co = [e[\"ph\"] for e in ev if e[\"name\"] == \"co\"]
assert co == [\"b\", \"e\"], co
" || { cat "$T/zd.err"; exit 1; }'

# a decorated generator function: its call runs none of its body, so
# one zone around the call timed nothing (1 zone of 0.5 us for 50 ms of
# work); each run of its body to a yield is a zone, as consume's are
t "@yardstick.zone() on a generator: each step a zone (6, >= 50 ms), the consumer's zones apart; send/throw/close/return pass through; an async generator's steps async spans (4, >= 30 ms)" sh -c '
	"$PYTHON" "$PYT/zonegen.py" | grep -qx "ok False" &&
	"$YS" trace --no-store -F 1 -o "$T/zg.json" -- "$PYTHON" "$PYT/zonegen.py" >"$T/zg.out" 2>"$T/zg.err" &&
	grep -qx "ok True" "$T/zg.out" &&
	python3 -c "
import json
ev_all = json.load(open(\"$T/zg.json\"))[\"traceEvents\"]
ev = [e for e in ev_all if e[\"ph\"] == \"X\"]
b = sorted((e[\"ts\"], e[\"ts\"] + e[\"dur\"]) for e in ev if e[\"name\"] == \"batches\")
c = sorted((e[\"ts\"], e[\"ts\"] + e[\"dur\"]) for e in ev if e[\"name\"] == \"consume\")
assert len(b) == 6 + 2 and len(c) == 5, (len(b), len(c))
assert sum(e - s for s, e in b[:6]) >= 50000, b
# no consume zone inside a batches zone
assert not any(bs <= cs and ce <= be for bs, be in b for cs, ce in c), (b, c)
assert sum(1 for e in ev if e[\"name\"] == \"echo\") == 3  # next, send, throw
ag = [e for e in ev_all if e[\"name\"] == \"agen\"]
assert [e[\"ph\"] for e in ag] == [\"b\", \"e\"] * 4, [e[\"ph\"] for e in ag]
assert sum(e[\"ts\"] * (1 if e[\"ph\"] == \"e\" else -1) for e in ag) >= 30000, ag
assert sum(1 for e in ev_all if e[\"name\"] == \"aecho\") == 2 * 3
" || { cat "$T/zg.err"; exit 1; }'

# ---- bench() ------------------------------------------------------------

# alloc(k) allocates a list of k slots (its object, and its array when
# k > 0), a range and its iterator, and k objects: 3 with k = 0, k + 4
# else; alloc(20) makes exactly 10 more than alloc(10) whatever the
# interpreter's own bookkeeping
t "bench(): first call apart, p50 <= p95 <= p99, allocations per call exact to the object (3, 14, 24)" sh -c '"$PYTHON" -c "$1" >/dev/null' - '
import yardstick
def alloc(k):
    l = [None] * k
    for i in range(k):
        l[i] = object()
    return l
r0 = yardstick.bench(alloc, 0, epochs=5)
r10 = yardstick.bench(alloc, 10, epochs=5)
r20 = yardstick.bench(alloc, 20, epochs=5)
for r in (r0, r10, r20):
    assert r.first_call is not None and r.first_call > 0, r
    assert 0 < r.p50 <= r.p95 <= r.p99, r
    assert r.result["kind"] == "bench"
    assert r.allocs_per_call == int(r.allocs_per_call), r.allocs_per_call
assert r0.allocs_per_call == 3 and r10.allocs_per_call == 14, (r0.allocs_per_call, r10.allocs_per_call)
assert r20.allocs_per_call - r10.allocs_per_call == 10, (r10.allocs_per_call, r20.allocs_per_call)
m = r20.result["benchmarks"][0]["metrics"]
assert m["frees_per_op"]["median"] >= 20, m["frees_per_op"]
assert yardstick.bench(alloc, 3, epochs=3, alloc_count=False).allocs_per_call is None
'

t "bench(): an exception in the function fails the benchmark, naming it" sh -c '
	"$PYTHON" -c "
import yardstick
r = yardstick.bench(lambda: 1 / 0, name=\"div\", epochs=3)
assert any(\"raised ZeroDivisionError: division by zero\" in w for w in r.warnings), r.warnings
assert r.time_per_call is None
" >/dev/null 2>"$T/err"'

# ---- the registry: python3 -m yardstick, python3 FILE.py ----------------

# The group's epochs run interleaved (once, twice, twice, once ...), so a
# disturbance of the machine falls on both alike: the ratio of their
# medians is 2.0 within 5% (and the check is retried when the machine
# disturbed it anyway).
t "a group of designed workloads (2x the work): ratio 2.0 +- 5% (python3 -m yardstick)" retry sh -c '
	"$PYTHON" -m yardstick "$PYT/workloads.py" --filter "^(once|twice)$" --epochs 21 --json "$T/ratio.json" >"$T/o" 2>"$T/e" || { cat "$T/e"; exit 1; }
	python3 -c "
import json
r = json.load(open(\"$T/ratio.json\"))
c, = r[\"comparisons\"]
assert c[\"baseline\"] == \"once\" and c[\"candidate\"] == \"twice\", c
assert 1.9 <= c[\"ratio\"] <= 2.1, c
print(c[\"ratio\"])
"'
t "parameters name the benchmarks; --list lists them" sh -c '
	"$PYTHON" -m yardstick "$PYT/workloads.py" --list >"$T/list" &&
	grep -qx "scaled \[n=1000\]" "$T/list" && grep -qx "scaled \[n=2000\]" "$T/list" && grep -qx once "$T/list"'
t "python3 FILE.py under yardstick bench --processes 3: one merged result, stored" sh -c '
	"$YS" bench --processes 3 --store "$T/pb.db" --json "$T/pb.json" -- "$PYTHON" "$PYT/workloads.py" --filter "^scaled" >"$T/o" 2>"$T/e" || { cat "$T/e"; exit 1; }
	python3 -c "
import json
r = json.load(open(\"$T/pb.json\"))
assert r[\"kind\"] == \"bench\" and r[\"settings\"][\"processes\"] == 3, r[\"settings\"]
names = [b[\"name\"] for b in r[\"benchmarks\"]]
assert names == [\"scaled [n=1000]\", \"scaled [n=2000]\"], names
m = r[\"benchmarks\"][0][\"metrics\"]
assert sorted(set(m[\"time_per_op\"][\"process\"])) == [0, 1, 2], m[\"time_per_op\"]
assert len(m[\"first_call_time\"][\"values\"]) == 3, m[\"first_call_time\"]
assert len(m[\"call_time\"][\"values\"]) >= 15 and \"allocs_per_op\" in m, sorted(m)
" && "$YS" history --store "$T/pb.db" >"$T/h" && grep -q "scaled \[n=2000\]" "$T/h"'

# bench prints the calls timed one by one (call_time's p50, p95, p99 and
# count) and the first call (first_call_time's median over the processes)
# as `python3 -m yardstick` does: the figures a gate on call_time.p99
# judges were in the result only (pb.json above)
t "bench: the calls timed one by one and the first call, as the result holds them" sh -c '
	python3 - "$T/o" "$T/pb.json" <<"PY"
import json, re, sys
out = open(sys.argv[1]).read().split("\n")
r = json.load(open(sys.argv[2]))
scale = {"s": 1, "ms": 1e-3, "\u00b5s": 1e-6, "ns": 1e-9}
def secs(v, u):
    return float(v) * scale[u]
i = [k for k, l in enumerate(out) if l.startswith("calls timed one by one")]
assert i, out
for b in r["benchmarks"]:
    row = [l for l in out[i[0] + 1:] if l.startswith(b["name"] + " ")]
    assert row, (b["name"], out)
    f = re.findall(r"([0-9.]+) (s|ms|\u00b5s|ns)", row[0][len(b["name"]):])
    n = int(row[0].split()[-1])
    m = b["metrics"]
    want = [m["first_call_time"]["median"], m["call_time"]["median"],
            m["call_time"]["p95"], m["call_time"]["p99"]]
    got = [secs(v, u) for v, u in f]
    assert len(got) == 4 and n == len(m["call_time"]["values"]), (row, n)
    for g, w in zip(got, want):
        assert abs(g - w) <= 1e-3 * w, (row, want)
PY'

# gate: OLD and NEW run alternately (OLD NEW NEW OLD ...), 30 processes
# each. On this shared 2-core machine (load 25-35 while it was written) a
# whole process of this workload measures anywhere from 93 to 164 us (its
# epochs agree within a few %): processes are the unit, so the gate's test
# is over 30 a side, and its threshold 5% (a check fails only when the
# increase is beyond it and significant: an identical build passes at p
# ~0.5-0.9). The 30% slower variant fails it; a run the machine disturbed
# too much to tell is retried.
retry5() {
	for try in 1 2 3 4 5; do
		"$@" && return 0
		echo "# measurement $try disturbed, measuring again"
	done
	return 1
}
printf '#!/bin/sh\nexec "$PYTHON" "$PYT/workloads.py" "$@"\n' >"$T/old"
printf '#!/bin/sh\nWL_SCALE=1.3 exec "$PYTHON" "$PYT/workloads.py" "$@"\n' >"$T/slow"
chmod +x "$T/old" "$T/slow"
cp "$T/old" "$T/same"
t "gate: an identical Python benchmark passes --max-increase time_per_op=5% and allocs_per_op=1% (30 processes a side)" retry sh -c '
	"$YS" bench --no-store --processes 30 --max-increase allocs_per_op=1% --baseline-program "$T/old" --max-increase time_per_op=5% -- "$T/same" --filter "^gated$" >"$T/o" 2>"$T/e" || { cat "$T/o" "$T/e"; exit 1; }
	grep -q "^pass *gated" "$T/o"'
# (its power at load 30 on 2 cores was about 1 in 3 per attempt with 20
# processes a side, the process-to-process spread being the machine's:
# bench/RESULTS.md; so 30 a side and up to 5 attempts)
t "gate: a 30% slower variant fails it on time_per_op: exit 1" retry5 sh -c '
	"$YS" bench --no-store --processes 30 --baseline-program "$T/old" --max-increase time_per_op=5% -- "$T/slow" --filter "^gated$" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc -eq 1 ] && grep -q "^FAIL.*gated" "$T/o" || { echo "exit $rc"; grep -A1 "^pass\|^FAIL" "$T/o"; exit 1; }'
# the same variant by its allocations, which the machine cannot disturb:
# spin(n) makes one int object per i past 256, so 30% more work is 32.7%
# more allocations per call, in every process
t "gate: the 30% slower variant fails --max-increase allocs_per_op=10% (exact: +32.7%)" sh -c '
	"$YS" bench --no-store --processes 6 --baseline-program "$T/old" --max-increase allocs_per_op=10% -- "$T/slow" --filter "^gated$" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc -eq 1 ] && grep -q "^FAIL.*gated" "$T/o" && grep -q "allocs_per_op .*+32.7%" "$T/o" || { echo "exit $rc"; cat "$T/o"; exit 1; }'

# ---- pytest -------------------------------------------------------------

t "pytest -p yardstick: the tests pass, their benchmarks in --yardstick-json (one per fixture use)" sh -c '
	cd "$T" && "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --yardstick-json "$T/pt.json" --yardstick-epochs 5 "$PYT/test_pytest_plugin.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	grep -q "3 passed" "$T/o" &&
	python3 -c "
import json
r = json.load(open(\"$T/pt.json\"))
names = [b[\"name\"].split(\"::\")[-1] for b in r[\"benchmarks\"]]
assert names == [\"test_fib\", \"test_fib_small\"], names
assert r[\"kind\"] == \"bench\"
assert all(b[\"metrics\"][\"time_per_op\"][\"median\"] > 0 for b in r[\"benchmarks\"])
"'
t "yardstick bench -- python3 -m pytest -p yardstick: stored, 2 processes merged, gated against itself" sh -c '
	cd "$T" && "$YS" bench --processes 2 --store "$T/pt.db" -- "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick "$PYT/test_pytest_plugin.py" >"$T/o" 2>"$T/e" || { cat "$T/o" "$T/e"; exit 1; }
	grep -q "saved as result 1" "$T/e" &&
	"$YS" history --store "$T/pt.db" --json "$T/x.json" >/dev/null 2>"$T/xe" || { cat "$T/xe"; exit 1; }
	python3 -c "
import json
r, = json.load(open(\"$T/x.json\"))[\"results\"]
bs = r[\"benchmarks\"]
names = sorted((b if isinstance(b, str) else b[\"name\"]).split(\"::\")[-1] for b in bs)
assert names == [\"test_fib\", \"test_fib_small\"], bs
" && "$YS" gate --store "$T/pt.db" --baseline 1 --inconclusive pass --max-increase time_per_op=1000% 1 >"$T/g"'
t "pytest --filter (as yardstick bench passes it): only the matching tests" sh -c '
	cd "$T" && "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --filter "small" --epochs 3 --yardstick-json "$T/pf.json" "$PYT/test_pytest_plugin.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	grep -q "1 passed, 2 deselected" "$T/o"'

# tests written for pytest-benchmark: pedantic's setup runs before each
# call, untimed, with fresh arguments (a list each call pops: a reused one
# would raise), its rounds are the epochs; extra_info and the marker
# (under --strict-markers) are accepted
t "pytest-benchmark's pedantic(setup=, rounds=), extra_info, @pytest.mark.benchmark: pass; the setup untimed, rounds the epochs" sh -c '
	cd "$T" && "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --strict-markers -W error::pytest.PytestUnknownMarkWarning --yardstick-json "$T/pc.json" "$PYT/test_pytest_compat.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	grep -q "4 passed" "$T/o" &&
	python3 -c "
import json
bs = {b[\"name\"].split(\"::\")[-1]: b[\"metrics\"] for b in json.load(open(\"$T/pc.json\"))[\"benchmarks\"]}
assert sorted(bs) == [\"test_extra_info_marked\", \"test_pedantic_args\", \"test_pedantic_setup\"], sorted(bs)
m = bs[\"test_pedantic_setup\"]
assert m[\"time_per_op\"][\"n\"] == 3, m[\"time_per_op\"][\"n\"]
# 100 us timed, the 1 ms setup not: far below 1.1 ms even on a busy machine
assert 90e-6 < m[\"time_per_op\"][\"median\"] < 600e-6, m[\"time_per_op\"][\"median\"]
assert 90e-6 < m[\"call_time\"][\"median\"] < 600e-6, m[\"call_time\"][\"median\"]
assert bs[\"test_pedantic_args\"][\"time_per_op\"][\"n\"] == 4
"'

# pytest-benchmark's own selection options, given where it is not
# active (they were "unrecognized arguments", so a CI line written for it
# failed): --benchmark-only skips the test without a fixture,
# --benchmark-skip the two with one, --benchmark-disable calls each
# function once, untimed (nothing measured: no result), as
# pytest-benchmark does; both at once is a usage error.
cat > "$T/test_sel.py" <<'EOF'
import os
CALLS = os.path.join(os.path.dirname(__file__), "sel_calls")
def work():
    with open(CALLS, "a") as f:
        f.write("x")
    return 7
def test_a(benchmark):
    assert benchmark(work) == 7
def test_b(ys_bench):
    assert ys_bench(work) == 7
def test_plain():
    assert work() == 7
EOF
t "pytest --benchmark-only / --benchmark-skip / --benchmark-disable without pytest-benchmark: as pytest-benchmark's" sh -c '
	cd "$T" || exit 1
	run() { rm -f "$T/sel_calls" "$T/sel.json"; "$PYTHON" -m pytest -q -rs -p no:cacheprovider -p no:benchmark -p yardstick --epochs 3 "$@" "$T/test_sel.py" > "$T/o" 2>&1; }
	run --benchmark-only || { cat "$T/o"; exit 1; }
	grep -q "2 passed, 1 skipped" "$T/o" && grep -q "Skipping non-benchmark (--benchmark-only active)" "$T/o" || { cat "$T/o"; exit 1; }
	run --benchmark-skip || { cat "$T/o"; exit 1; }
	grep -q "1 passed, 2 skipped" "$T/o" && grep -q "Skipping benchmark (--benchmark-skip active)" "$T/o" || { cat "$T/o"; exit 1; }
	run --benchmark-disable --yardstick-json "$T/sel.json" || { cat "$T/o"; exit 1; }
	grep -q "3 passed" "$T/o" && [ "$(cat "$T/sel_calls")" = xxx ] && [ ! -e "$T/sel.json" ] || { cat "$T/o"; cat "$T/sel_calls"; exit 1; }
	run --benchmark-only --benchmark-skip; [ $? -eq 4 ] && grep -q "both --benchmark-only and --benchmark-skip" "$T/o" || { cat "$T/o"; exit 1; }'

# pytest-benchmark's --benchmark-json, where it is not active: its own
# schema, each of yardstick's epochs a round (seconds per call), every
# statistic as pytest-benchmark's Stats computes it from the same data
# (pbstats.py against pytest_benchmark.stats.Stats, field by field, on
# the file's rounds and on designed data of 1 to 41 rounds), the rounds
# the --yardstick-json result's time_per_op values; and pytest-benchmark's
# own CLI (pytest-benchmark compare) reads the file without a warning.
# test_param asserts on the fixture's pytest-benchmark attributes and on
# benchmark.stats after the call (its mean that of its rounds).
t "pytest --benchmark-json: pytest-benchmark's schema; every stat equal to pytest-benchmark's Stats of the same rounds; the marker's min_rounds honoured, max_time warned of; pytest-benchmark compare reads it" sh -c '
	cd "$T" && "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --yardstick-epochs 7 --benchmark-json "$T/pb.json" --yardstick-json "$T/pbys.json" "$PYT/test_pb_options.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	grep -q "5 passed" "$T/o" && grep -q "test_marked: @pytest.mark.benchmark(max_time) ignored" "$T/o" || { cat "$T/o"; exit 1; }
	"$PYTHON" - "$T/pb.json" "$T/pbys.json" <<"PY" || exit 1
import json, math, random, sys
from pytest_benchmark.stats import Stats
from yardstick import pbstats
doc = json.load(open(sys.argv[1]))
ys = {b["name"]: b["metrics"] for b in json.load(open(sys.argv[2]))["benchmarks"]}
assert {"machine_info", "commit_info", "benchmarks", "datetime", "version"} <= set(doc), sorted(doc)
assert {"node", "machine", "python_version", "cpu", "system", "release"} <= set(doc["machine_info"])
assert {"id", "time", "dirty", "project", "branch"} <= set(doc["commit_info"])
def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=0)
def check(got, data):
    ref = Stats()
    for v in data:
        ref.update(v)
    want = ref.as_dict()
    assert set(got) >= set(want), (sorted(got), sorted(want))
    for k, v in want.items():
        assert same(got[k], v), (k, got[k], v, data)
bs = {b["fullname"].split("::")[-1]: b for b in doc["benchmarks"]}
assert sorted(bs) == ["test_marked", "test_param[1]", "test_param[3]", "test_pedantic_even", "test_spin"], sorted(bs)
rounds = {"test_pedantic_even": 6, "test_marked": 15}
for short, b in bs.items():
    assert set(b) >= {"group", "name", "fullname", "params", "param", "extra_info", "options", "stats"}, sorted(b)
    st = b["stats"]
    assert set(st) == set(Stats.fields) | {"data", "iterations"}, sorted(st)
    # the rounds are the epochs: the values yardstick measured, in seconds
    assert st["data"] == ys[b["fullname"]]["time_per_op"]["values"], short
    assert st["rounds"] == len(st["data"]) == rounds.get(short, 7), (short, st["rounds"])
    assert st["iterations"] >= 1 and st["iterations"] in ys[b["fullname"]]["iterations"]["values"]
    check(st, st["data"])
    assert b["name"] == short
assert bs["test_param[3]"]["params"] == {"n": 3} and bs["test_param[3]"]["param"] == "3"
assert bs["test_param[3]"]["extra_info"] == {"n_twice": 6}
assert bs["test_spin"]["group"] == "spin" and bs["test_param[1]"]["group"] is None
# 200 us designed, in seconds: no less, and whatever preemptions a
# machine at a load of 40 adds to a median of 7, below 50 ms
assert 190e-6 < bs["test_spin"]["stats"]["median"] < 0.05, bs["test_spin"]["stats"]
# designed data: ties, odd and even counts, outliers on both sides
rng = random.Random(7)
for n in range(1, 42):
    for _ in range(5):
        data = [rng.choice([1e-3, 2e-3, rng.uniform(1e-3, 3e-3), rng.expovariate(100)]) for _ in range(n)]
        check(pbstats.stats(data), data)
PY
	"$PYTHON" -m pytest_benchmark compare "$T/pb.json" >"$T/cmp" 2>&1 || { cat "$T/cmp"; exit 1; }
	! grep -qi "failed to load\|error" "$T/cmp" && grep -q "test_spin" "$T/cmp" && grep -q "test_pedantic_even" "$T/cmp" || { cat "$T/cmp"; exit 1; }'

# Every option of pytest-benchmark's (its own `pytest --help`) is one the
# plugin takes where pytest-benchmark is not active: honoured, or refused
# with what to use instead (exit 4, pytest's usage error), never accepted
# and ignored.
t "every pytest-benchmark option is taken; the ones yardstick cannot honour refused (exit 4) saying what to use" sh -c '
	cd "$T" || exit 1
	opts() { "$PYTHON" -m pytest -p no:cacheprovider "$@" --help 2>&1 | sed -n "s/^  *\(--benchmark-[a-z-]*[a-z]\).*/\1/p" | sort -u; }
	opts >"$T/pbopts" && opts -p no:benchmark -p yardstick >"$T/ysopts" &&
	[ "$(wc -l <"$T/pbopts")" -ge 25 ] && comm -23 "$T/pbopts" "$T/ysopts" >"$T/missing" && [ ! -s "$T/missing" ] || { echo missing:; cat "$T/missing"; exit 1; }
	for o in --benchmark-min-time=0.1 --benchmark-max-time=1 --benchmark-timer=time.time --benchmark-calibration-precision=10 \
		--benchmark-warmup-iterations=10 --benchmark-storage=file://x --benchmark-netrc --benchmark-verbose \
		--benchmark-cprofile=tottime --benchmark-histogram --benchmark-csv; do
		"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick "$o" "$PYT/test_pb_options.py" >"$T/o" 2>&1; rc=$?
		[ $rc -eq 4 ] && grep -q -- "${o%%=*}: not taken by yardstick.s plugin: ..*" "$T/o" && ! grep -q passed "$T/o" || { echo "$o: exit $rc"; cat "$T/o"; exit 1; }
	done
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --benchmark-warmup=off "$PYT/test_pb_options.py" >"$T/o" 2>&1; [ $? -eq 4 ] && grep -q "cannot turn it off" "$T/o" || { cat "$T/o"; exit 1; }
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --benchmark-compare-fail=stddev:5% --benchmark-compare "$PYT/test_pb_options.py" >"$T/o" 2>&1; [ $? -eq 4 ] && grep -q "not of its stddev; use mean:5% or median:5%" "$T/o" || { cat "$T/o"; exit 1; }
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --benchmark-compare-fail=mean:5% "$PYT/test_pb_options.py" >"$T/o" 2>&1; [ $? -eq 4 ] && grep -q "requires valid --benchmark-compare" "$T/o" || { cat "$T/o"; exit 1; }
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --benchmark-only --benchmark-disable "$PYT/test_pb_options.py" >"$T/o" 2>&1; [ $? -eq 4 ] && grep -q "both --benchmark-only and --benchmark-disable" "$T/o" || { cat "$T/o"; exit 1; }
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick "$PYT/test_pb_weave.py" >"$T/o" 2>&1; [ $? -eq 1 ] && grep -q "1 failed, 1 error" "$T/o" &&
	[ "$(grep -c "benchmark.weave / benchmark_weave (pytest-benchmark.s aspectlib weaving) is not taken by yardstick.s plugin: measure the function itself" "$T/o")" -ge 2 ] || { cat "$T/o"; exit 1; }'

# pytest-benchmark's table at the end of the session (the plugin printed
# none), with --benchmark-sort, --benchmark-group-by, --benchmark-columns
# and --benchmark-name: each row's numbers are those pytest-benchmark's
# own table shows for the same JSON (`pytest-benchmark compare` with the
# same options), in the same order and unit.
t "the session ends with pytest-benchmark's table; --benchmark-sort/-columns/-group-by/-name honoured, its numbers those of pytest-benchmark compare on the JSON" sh -c '
	cd "$T" || exit 1
	for opts in "--benchmark-sort=name --benchmark-columns=min,median,rounds --benchmark-name=short" \
		"--benchmark-sort=mean --benchmark-group-by=func --benchmark-columns=max,stddev,iqr,outliers,ops,iterations"; do
		"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --yardstick-epochs 5 $opts --benchmark-json "$T/tb.json" "$PYT/test_pb_options.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
		"$PYTHON" -m pytest_benchmark compare $(echo $opts | sed "s/--benchmark-/--/g") "$T/tb.json" >"$T/ref" 2>&1 || { cat "$T/ref"; exit 1; }
		"$PYTHON" - "$T/o" "$T/ref" <<"PY" || exit 1
import re, sys
def rows(path):
    out, head = [], None
    for line in open(path):
        if line.startswith("Name (time in"):
            head = line.split()
        elif head and re.match(r"^\S+\s+[\d,]+\.\d{4}", line):
            toks = line.split()
            out.append((toks[0], head, toks[1:]))
    return out
got, want = rows(sys.argv[1]), rows(sys.argv[2])
assert got and len(got) == len(want) == 5, (got, want)
for (gn, gh, g), (wn, wh, w) in zip(got, want):
    assert gn == wn and gh == wh, (gn, wn, gh, wh)
    assert g == w, (gn, g, w)
print(len(got), "rows alike")
PY
	done
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --benchmark-sort=foo "$PYT/test_pb_options.py" >"$T/o" 2>&1; [ $? -eq 4 ] && grep -q "one of min, max, mean, stddev, name, fullname" "$T/o" || { cat "$T/o"; exit 1; }'

# The options honoured: --benchmark-min-rounds (at least N epochs; the
# marker's min_rounds too), --benchmark-disable-gc (the collector off in
# every timed call), --benchmark-enable over --benchmark-disable,
# --benchmark-warmup=on.
t "--benchmark-min-rounds 13: 13 rounds; --benchmark-disable-gc: gc off in every timed call; --benchmark-enable overrides --benchmark-disable" sh -c '
	cd "$T" && rm -f "$T/gcseen" && PB_GC_SEEN="$T/gcseen" "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --benchmark-min-rounds 13 --benchmark-disable-gc --benchmark-warmup=on --benchmark-json "$T/mr.json" -k "spin or param" "$PYT/test_pb_options.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	"$PYTHON" -c "
import json
bs = json.load(open(\"$T/mr.json\"))[\"benchmarks\"]
assert len(bs) == 3 and all(b[\"stats\"][\"rounds\"] == 13 for b in bs), [b[\"stats\"][\"rounds\"] for b in bs]
assert all(b[\"options\"][\"disable_gc\"] is True for b in bs)
seen = open(\"$T/gcseen\").read()
# the timed calls with the collector off; the last, untimed call (whose
# value the fixture returns) after the measurement, with it on again
assert len(seen) > 13 and set(seen[:-1]) == {\"0\"} and seen[-1] == \"1\", seen[:50]
" || exit 1
	rm -f "$T/gcseen" && PB_GC_SEEN="$T/gcseen" "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --yardstick-epochs 3 -k spin --benchmark-json "$T/gc.json" "$PYT/test_pb_options.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	grep -q 1 "$T/gcseen" && ! grep -q 0 "$T/gcseen" || { echo "gc seen: $(head -c 40 "$T/gcseen")"; exit 1; }
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --yardstick-epochs 3 --benchmark-disable --benchmark-enable -k spin --benchmark-json "$T/en.json" "$PYT/test_pb_options.py" >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	[ -s "$T/en.json" ]'

# --benchmark-autosave / --benchmark-save into yardstick's store (the
# yardstick program on PATH), --benchmark-compare[=NUM] by `yardstick
# compare`, --benchmark-compare-fail by `yardstick gate` (the one judge):
# an identical session passes mean:50%; one 3x slower by design (600 us
# for 200 us) fails min:50%, ending the session with pytest-benchmark's
# own exit status for a regression (measured here, with pytest-benchmark
# active on the same tests); 2 ms more per call fails min:0.001 (seconds,
# through the judge), an identical one passes it. Sessions of 9 epochs,
# each one call of 200 us, which a preemption on this busy machine makes
# milliseconds: with 3 or 4 of the 9 so, the judge rightly finds no sure
# change of the mean or even the median (p = 0.027 seen for +236%), so
# the slower session is checked on its min, which no preemption lowers;
# a session the machine disturbed too much is measured again.
pb_store() (
	export YARDSTICK_STORE="$T/pbs.db" PATH="$(cd "$(dirname "$YS")" && pwd):$PATH"
	rm -rf "$T/pbs.db"* "$T/pbown" "$T/pbproj" && mkdir -p "$T/pbown" "$T/pbproj" && cd "$T/pbproj" || return 1
	# a project's yardstick.ini whose gate thresholds are its run
	# results': not the checks of --benchmark-compare-fail (it made the
	# gate exit 2: the bench result has no wall_time)
	printf "[gate]\nmax-increase = wall_time.p99=15ms\n" >yardstick.ini
	# (the file first: --benchmark-compare-fail takes every word after it)
	run() { "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --yardstick-epochs 9 -k spin "$PYT/test_pb_options.py" "$@" >"$T/o" 2>&1; }
	# pytest-benchmark's own exit status for a regression
	"$PYTHON" -m pytest -q -p no:cacheprovider --benchmark-storage="file://$T/pbown" --benchmark-autosave --benchmark-max-time=0.05 -k spin "$PYT/test_pb_options.py" >"$T/o" 2>&1 || { cat "$T/o"; return 1; }
	PB_SCALE=3 "$PYTHON" -m pytest -q -p no:cacheprovider --benchmark-storage="file://$T/pbown" --benchmark-compare --benchmark-compare-fail=mean:50% --benchmark-max-time=0.05 -k spin "$PYT/test_pb_options.py" >"$T/o" 2>&1; want=$?
	[ $want -ne 0 ] && grep -q "Performance has regressed" "$T/o" || { echo "pytest-benchmark: exit $want"; cat "$T/o"; return 1; }
	# nothing stored yet: a warning, as pytest-benchmark; with a check,
	# its usage error
	run --benchmark-compare || { cat "$T/o"; return 1; }
	has "$T/o" "yardstick: can't compare: yardstick history: no yardstick store at '$T/pbs.db'" || return 1
	run --benchmark-compare --benchmark-compare-fail=mean:5%; [ $? -eq 4 ] && has "$T/o" "requires valid --benchmark-compare" || { cat "$T/o"; return 1; }
	run --benchmark-autosave || { cat "$T/o"; return 1; }
	has "$T/o" "yardstick: saved as result 1 in $T/pbs.db" || return 1
	# another suite's result, newer (the store's own latest): the
	# comparison takes the newest result of kind bench with these tests
	"$YS" run -q --runs 2 --warmup 0 -n other -- "$YSFIX" exit 0 >/dev/null 2>&1 || return 1
	run --benchmark-compare --benchmark-compare-fail=mean:50% --benchmark-save=again || { cat "$T/o"; return 1; }
	grep -q "^pass .*test_spin: max increase time_per_op.mean=50%" "$T/o" && has "$T/o" "yardstick: saved as result 3 in $T/pbs.db" && ! grep -q "could not be made" "$T/o" &&
	has "$T/o" "(--benchmark-save=again: the store numbers its results and keeps no name" || { cat "$T/o"; return 1; }
	PB_SCALE=3 run --benchmark-compare=1 --benchmark-compare-fail=min:50%; rc=$?
	[ $rc -eq $want ] && grep -q "^FAIL .*test_spin: max increase time_per_op.min=50%" "$T/o" && has "$T/o" "Performance has regressed" || { echo "exit $rc, pytest-benchmark's $want"; cat "$T/o"; return 1; }
	PB_ADD=0.002 run --benchmark-compare=0001 --benchmark-compare-fail min:1e-3; rc=$?
	[ $rc -eq $want ] && grep -q "^FAIL .*test_spin: max increase time_per_op.min=0.001s" "$T/o" || { echo "exit $rc"; cat "$T/o"; return 1; }
	run --benchmark-compare=1 --benchmark-compare-fail min:0.001 || { cat "$T/o"; return 1; }
	grep -q "^pass .*test_spin: max increase time_per_op.min=0.001s" "$T/o" || { cat "$T/o"; return 1; }
	run --benchmark-compare || { cat "$T/o"; return 1; }
	grep -q "test_spin" "$T/o" && has "$T/o" "time_per_op" && ! grep -q "^FAIL" "$T/o" || { cat "$T/o"; return 1; }
	[ "$("$YS" history --json - 2>/dev/null | "$PYTHON" -c "import json,sys; print(len(json.load(sys.stdin)[\"results\"]))")" = 3 ] || { "$YS" history; return 1; }
)
t "--benchmark-autosave/--benchmark-save into the store; --benchmark-compare(-fail) by yardstick's judge: mean:50% passes identical, min:50% fails 3x slower with pytest-benchmark's exit status; min:0.001 in seconds" retry pb_store

t "--benchmark-save under yardstick bench: refused (yardstick bench stores and compares the merged result)" sh -c '
	cd "$T" && YARDSTICK_BENCH_JSON="$T/x.json" "$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --benchmark-autosave -k spin "$PYT/test_pb_options.py" >"$T/o" 2>&1; [ $? -eq 4 ] && grep -q "under yardstick bench" "$T/o" || { cat "$T/o"; exit 1; }'

# pytest-benchmark installed and active (no -p no:benchmark): its
# `benchmark` measured the tests and yardstick had no result to give;
# yardstick bench said only "is it a benchmark program built with
# libyardstick?". The plugin names the cause and the way out.
t "pytest-benchmark active, a result asked for, none measured: the plugin says the fixture was pytest-benchmark's and to add -p no:benchmark" sh -c '
	cd "$T" && "$PYTHON" -m pytest -q -p no:cacheprovider -p yardstick -k "pedantic_args or extra_info" --yardstick-json "$T/none.json" "$PYT/test_pytest_compat.py" >"$T/o" 2>"$T/e" || { cat "$T/o" "$T/e"; exit 1; }
	grep -q "2 passed" "$T/o" && [ ! -e "$T/none.json" ] &&
	grep -q "yardstick: no test used ys_bench: the fixture .benchmark. of 2 test(s) is pytest-benchmark.s .*add -p no:benchmark" "$T/e" || { cat "$T/o" "$T/e"; exit 1; }
	"$PYTHON" -m pytest -q -p no:cacheprovider -p yardstick -k "pedantic_args" "$PYT/test_pytest_compat.py" >"$T/o" 2>"$T/e" && ! grep -q "no test used" "$T/e"'

# Ctrl-C while a benchmark runs: the interpreter raises KeyboardInterrupt
# in the benchmarked function, which failed only that benchmark ("raised
# KeyboardInterrupt") while the others ran on, each to its end (and a
# pytest session went on to the next test). Now the batch stops and
# KeyboardInterrupt reaches the caller. The driver sends SIGINT once the
# first benchmark has begun (its marker file), SIGINT not ignored.
t "Ctrl-C during python3 -m yardstick FILE.py and python3 FILE.py: the remaining benchmarks not run, KeyboardInterrupt raised (exit by SIGINT)" sh -c '
	cat >"$T/kb.py" <<"PY"
import os, time, yardstick
def spin():
    if not os.path.exists(os.environ["KB_MARK"]):
        open(os.environ["KB_MARK"], "w").close()
    t = time.perf_counter() + 0.001
    while time.perf_counter() < t:
        pass
for n in ("a", "b", "c", "d"):
    yardstick.register(n, spin)
PY
	KB_MARK="$T/kb.mark" python3 -c "
import os, signal, subprocess, sys, time
# python3 -m yardstick FILE.py, and python3 FILE.py (run at its exit)
for pre in ([\"-m\", \"yardstick\"], []):
    if os.path.exists(os.environ[\"KB_MARK\"]):
        os.unlink(os.environ[\"KB_MARK\"])
    p = subprocess.Popen([sys.argv[1]] + pre + [sys.argv[2] + \"/kb.py\", \"--min-time\", \"2\"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    end = time.time() + 120
    while not os.path.exists(os.environ[\"KB_MARK\"]) and time.time() < end:
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    out = p.communicate()[0].decode()
    assert p.returncode == -signal.SIGINT, (pre, p.returncode, out)
    assert out.rstrip().endswith(\"KeyboardInterrupt\"), out
    for n in \"bcd\":
        assert \"warning: \" + repr(n) + \": failed: not run: interrupted\" in out, out
" "$PYTHON" "$T"'

# ---- bad input ----------------------------------------------------------

t "python3 -m yardstick on a missing file: exit 2, named" sh -c '
	"$PYTHON" -m yardstick "$T/none.py" 2>"$T/e"; [ $? -eq 2 ] && grep -q "cannot read .*none.py" "$T/e"'
t "a file without benchmarks: exit 2, said" sh -c '
	echo "x = 1" >"$T/empty.py" && "$PYTHON" -m yardstick "$T/empty.py" 2>"$T/e"; [ $? -eq 2 ] && grep -q "no benchmark registered" "$T/e"'
t "a parameter value that cannot be named: ValueError naming it" "$PYTHON" -c '
import yardstick
try:
    yardstick.benchmark(params={"n": ["1,2"]})
except ValueError as e:
    assert "'"'"'1,2'"'"'" in str(e), e
else:
    raise AssertionError("accepted")
'
t "a setup that returns no callable, a benchmark that raises: exit 1, each named, the others measured" sh -c '
	cat >"$T/bad.py" <<"PY"
import yardstick
@yardstick.benchmark
def nocall():
    return 3
@yardstick.benchmark
def raises():
    return lambda: {}["k"]
@yardstick.benchmark
def fine():
    return lambda: None
PY
	"$PYTHON" -m yardstick "$T/bad.py" --epochs 3 --json "$T/bad.json" >"$T/o" 2>"$T/e"; [ $? -eq 1 ] &&
	python3 -c "
import json
r = json.load(open(\"$T/bad.json\"))
w = {b[\"name\"]: b[\"warnings\"] for b in r[\"benchmarks\"]}
assert any(\"returns the callable to time, not int\" in x for x in w[\"nocall\"]), w
assert any(\"raised KeyError\" in x for x in w[\"raises\"]), w
assert r[\"benchmarks\"][2][\"metrics\"][\"time_per_op\"][\"median\"] >= 0
"'

# ---- installed --------------------------------------------------------

# meson install (what `make install` runs) into a scratch root: the
# package lands in the interpreter's site-packages (dist-packages on
# Debian), its extension finds libyardstick in the library directory (its
# run path; here LD_LIBRARY_PATH stands for the scratch root), and it
# imports and measures from there, the build tree out of the path
t "meson install: the package in the interpreter's site-packages, importable from there" sh -c '
	meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$T/dest" >"$T/install.log" 2>&1 || { tail -20 "$T/install.log"; exit 1; }
	pkg="$T/dest$PY_INSTALL_DIR/yardstick"
	for f in __init__.py __main__.py pytest_plugin.py pbcompat.py pbstats.py pbtable.py; do [ -f "$pkg/$f" ] || { echo "no $pkg/$f"; exit 1; }; done
	ls "$pkg"/_native*.so >/dev/null || exit 1
	readelf -d "$pkg"/_native*.so | grep -q "R.*PATH.*\[$YS_LIBDIR\]" || { readelf -d "$pkg"/_native*.so | grep -i path; exit 1; }
	cd "$T" && PYTHONPATH="$T/dest$PY_INSTALL_DIR" LD_LIBRARY_PATH="$T/dest$YS_LIBDIR" "$PYTHON" -c "
import yardstick
assert yardstick.__file__.startswith(\"$T/dest\"), yardstick.__file__
r = yardstick.bench(sum, [1, 2, 3], epochs=3)
assert r.time_per_call > 0, r
" >/dev/null'

# installed, pytest loads the plugin from its entry point (the
# .dist-info's entry_points.txt, group pytest11) with no -p: the fixture
# is there and the result stored; a project's conftest may have options
# named as yardstick bench's short ones (--epochs), which the plugin then
# leaves to it; -p yardstick beside the entry point loads it once
t "installed: pytest alone (no -p) loads the plugin from its pytest11 entry point, stores the result, leaves --epochs to a conftest" sh -c '
	site="$T/dest$PY_INSTALL_DIR"
	grep -qx "yardstick = yardstick" "$site"/yardstick-*.dist-info/entry_points.txt || exit 1
	mkdir -p "$T/proj" && cp "$PYT/test_pytest_plugin.py" "$T/proj/" &&
	printf "def pytest_addoption(parser):\n    parser.addoption(\"--epochs\", type=int, default=1)\n" >"$T/proj/conftest.py" &&
	cd "$T/proj" && export PYTHONPATH="$site" LD_LIBRARY_PATH="$T/dest$YS_LIBDIR" &&
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark --epochs 2 --yardstick-json "$T/ep.json" --yardstick-epochs 3 test_pytest_plugin.py >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	grep -q "3 passed" "$T/o" &&
	"$PYTHON" -c "
import json
r = json.load(open(\"$T/ep.json\"))
names = [b[\"name\"].split(\"::\")[-1] for b in r[\"benchmarks\"]]
assert names == [\"test_fib\", \"test_fib_small\"], names
assert r[\"kind\"] == \"bench\"
" &&
	rm "$T/proj/conftest.py" &&
	"$PYTHON" -m pytest -q -p no:cacheprovider -p no:benchmark -p yardstick --epochs 3 --yardstick-json "$T/ep2.json" test_pytest_plugin.py >"$T/o" 2>&1 || { cat "$T/o"; exit 1; }
	grep -q "3 passed" "$T/o" && [ -s "$T/ep2.json" ]'

finish
