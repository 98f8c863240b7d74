#!/usr/bin/env python3
"""Check a file against the rules of Chrome's Trace Event Format (the JSON
object form that chrome://tracing and ui.perfetto.dev load):

- a JSON object with a "traceEvents" array (or a bare array);
- every event has "ph" (a known phase), "name", integer "pid" and "tid",
  and a numeric "ts" >= 0 (metadata "M" may omit ts);
- "X" has "dur" >= 0; X events of one thread nest (a child ends before its
  parent); "B"/"E" pair per thread (every B has its E, no E without a B,
  an E's name, if any, is its B's);
- the synchronous events of each thread (B, E, X, i, I, C) come with
  non-decreasing timestamps;
- async "b"/"e" (and "n") carry "cat" and "id"; every b has an e of the same
  cat, name and id at or after it, and no e comes without its b;
- "C" has an "args" object of numbers; "i" has scope "s" in g/p/t if given;
- "M" is process_name/thread_name/... with args.name a string.

Usage: chrome_trace_check.py FILE  -- prints a JSON summary on success
(per thread: name, on-CPU µs from the "cpu" spans, those spans, zones as
[name, ts, dur, depth]), exits 1 with
the first broken rule otherwise."""
import json
import sys

SYNC = set("BEXiIC")
PHASES = SYNC | set("bneMsftPOND")


def fail(msg):
    print("chrome trace: " + msg, file=sys.stderr)
    sys.exit(1)


def main(path):
    doc = json.load(open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        fail("traceEvents is not an array")
    last_ts = {}
    stacks = {}
    xstack = {}
    async_open = {}
    names = {}
    oncpu = {}
    spans = {}
    zones = {}
    for k, e in enumerate(events):
        where = "event %d (%s)" % (k, json.dumps(e)[:200])
        if not isinstance(e, dict):
            fail(where + ": not an object")
        ph = e.get("ph")
        if ph not in PHASES:
            fail(where + ": unknown ph %r" % (ph,))
        if not isinstance(e.get("name"), str):
            fail(where + ": no name")
        for key in ("pid", "tid"):
            if not isinstance(e.get(key), int):
                fail(where + ": %s is not an integer" % key)
        th = (e["pid"], e["tid"])
        if ph == "M":
            if not isinstance(e.get("args", {}).get("name", ""), str):
                fail(where + ": metadata without args.name")
            if e["name"] == "thread_name":
                names[th] = e["args"]["name"]
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            fail(where + ": ts missing or negative")
        if ph in SYNC:
            if ts < last_ts.get(th, 0):
                fail(where + ": ts goes back on thread %s" % (th,))
            last_ts[th] = ts
        if ph == "B":
            stacks.setdefault(th, []).append(e["name"])
        elif ph == "E":
            st = stacks.get(th, [])
            if not st:
                fail(where + ": E without its B")
            b = st.pop()
            if e["name"] and e["name"] != b:
                fail(where + ": E of %r closes B %r" % (e["name"], b))
        elif ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                fail(where + ": X without dur >= 0")
            st = xstack.setdefault(th, [])
            while st and st[-1] <= ts:
                st.pop()
            if st and ts + dur > st[-1] + 1e-3:
                fail(where + ": X overlaps its parent's end on %s" % (th,))
            st.append(ts + dur)
            zones.setdefault(th, []).append(
                [e["name"], ts, dur, e.get("args", {}).get("depth")])
        elif ph in "bne":
            if "id" not in e or "cat" not in e:
                fail(where + ": async event without cat or id")
            key = (e["cat"], e["name"], str(e["id"]))
            if ph == "b":
                async_open.setdefault(key, []).append((ts, th))
            elif ph == "e":
                if not async_open.get(key):
                    fail(where + ": e without its b")
                bts, bth = async_open[key].pop()
                if ts < bts:
                    fail(where + ": e before its b")
                if e["cat"] == "cpu":
                    oncpu[bth] = oncpu.get(bth, 0) + ts - bts
                    spans.setdefault(bth, []).append([bts, ts])
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not all(
                    isinstance(v, (int, float)) for v in args.values()):
                fail(where + ": C without numeric args")
        elif ph in "iI":
            if e.get("s", "t") not in ("g", "p", "t"):
                fail(where + ": bad instant scope")
    for th, st in stacks.items():
        if st:
            fail("thread %s: B %r without its E" % (th, st[-1]))
    for key, st in async_open.items():
        if st:
            fail("async %s: b without its e" % (key,))
    out = {}
    for th in set(names) | set(oncpu) | set(zones):
        out["%d/%d" % th] = {"name": names.get(th), "oncpu_us": oncpu.get(th, 0),
                             "cpu": spans.get(th, []), "zones": zones.get(th, [])}
    print(json.dumps(out))


main(sys.argv[1])
