#!/usr/bin/python3
"""
The one judge, differentially: generated pairs of result files with known
effects, each judged by `compare`, `gate` and `report --baseline`, which
must give the same estimate, interval, p and verdict (they call one
judge; docs/statistics.md), and checked against an independent
computation: Harrell-Davis estimates from SciPy, the exact permutation p
of small samples enumerated here, the interval's coverage of a known
ratio, and a gate of many checks holding its family-wise false-alarm rate
on null pairs under Holm (and not without it: the check can fail).

    judge_diff.py YS WORKDIR [--seed N] [--pairs N] [--null-gates N]

Prints its seed first (`seed N`: rerun with --seed N), one line per
failed check, and a summary; exits 1 when a check failed. Seeded: the
same seed makes the same files and the same verdicts.
"""
import argparse
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys

import numpy as np
from scipy import stats as sst

STATS = ["median", "p90", "p95", "p99"]
QUANT = {"median": 0.5, "p90": 0.9, "p95": 0.95, "p99": 0.99}
NOISE = 0.02
failures = []
counted = {"pairs": 0, "exact p": 0, "estimates": 0}


def fail(case, what):
    failures.append("%s: %s" % (case, what))
    print("FAIL %s: %s" % (case, what), flush=True)


def result(values, metric="wall_time", unit="s", name="b"):
    return {"schema": "yardstick/result/v1", "kind": "run",
            "benchmarks": [{"name": name, "metrics": {
                metric: {"unit": unit, "values": [float(v) for v in values]}}}]}


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def run(ys, args, ok=(0, 1)):
    p = subprocess.run([ys] + args, capture_output=True, text=True)
    if p.returncode not in ok:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                                p.stderr.strip()))
    return p


# ---- the cases: (name, baseline values, candidate values, true change
# of every quantile or None when unknown) ----

def lognorm(rng, n, scale=0.010):
    return scale * rng.lognormal(0, 0.3, n)


def cases(rng, pairs):
    out = []
    for i in range(pairs):
        kind = ["null", "ratio", "shift", "heavy", "ties", "small", "equal",
                "zeros", "outlier", "big"][i % 10]
        n1, n2 = int(rng.integers(8, 41)), int(rng.integers(8, 41))
        if kind == "null":
            out.append((kind, lognorm(rng, n1), lognorm(rng, n2), 0.0))
        elif kind == "ratio":
            r = float(rng.choice([1.05, 1.2, 0.8]))
            out.append((kind, lognorm(rng, n1), r * lognorm(rng, n2), r - 1))
        elif kind == "shift":
            out.append((kind, lognorm(rng, n1), lognorm(rng, n2) + 0.002,
                        None))
        elif kind == "heavy":
            a = 0.001 * (1 + rng.pareto(1.5, n1))
            b = 0.001 * (1 + rng.pareto(1.5, n2)) * float(rng.choice([1, 1.5]))
            out.append((kind, a, b, None))
        elif kind == "ties":
            a = 0.001 * rng.integers(1, 5, n1)
            b = 0.001 * (rng.integers(1, 5, n2) + int(rng.integers(0, 2)))
            out.append((kind, a, b, None))
        elif kind == "small":
            m1, m2 = int(rng.integers(2, 8)), int(rng.integers(2, 8))
            if rng.integers(0, 2):     # tied, as counts are
                out.append((kind, 0.001 * rng.integers(1, 4, m1),
                            0.001 * rng.integers(1, 5, m2), None))
            else:
                out.append((kind, lognorm(rng, m1),
                            float(rng.choice([1, 1.5])) * lognorm(rng, m2),
                            None))
        elif kind == "equal":
            c = float(rng.choice([0.5, 0.6]))
            out.append((kind, np.full(n1, 0.5), np.full(n2, c), c / 0.5 - 1))
        elif kind == "zeros":
            b = np.zeros(n2)
            if rng.integers(0, 2):
                b[: int(rng.integers(1, n2))] = 1e-6
            out.append((kind, np.zeros(n1), b, None))
        elif kind == "outlier":
            a, b = lognorm(rng, n1), lognorm(rng, n2)
            b[int(rng.integers(0, n2))] *= 1e6
            out.append((kind, a, b, None))
        else:
            n = 10000
            r = float(rng.choice([1.0, 1.01]))
            out.append((kind, lognorm(rng, n), r * lognorm(rng, n), r - 1))
    return out


# ---- reading what each command says ----

def nn(v):
    """JSON's null (not a number) as NaN."""
    if isinstance(v, list):
        return [nn(x) for x in v]
    return float("nan") if v is None else v


def compare_json(ys, base, cand):
    p = run(ys, ["compare", "-q", "--json", "-", base, cand], ok=(0,))
    rows = json.loads(p.stdout)["comparisons"]
    assert len(rows) == 1, rows
    r = rows[0]
    out = {"median": {"base": nn(r["baseline"]["median"]),
                      "cand": nn(r["candidate"]["median"]),
                      "change": nn(r["change"]), "ci": nn(r["change_ci"]),
                      "p": nn(r["p_value"]), "p_adj": nn(r["p_adjusted"]),
                      "verdict": r["verdict"], "approx": r["approximate"]}}
    for pc in r["percentiles"]:
        out[pc["stat"]] = {"base": nn(pc["baseline"]),
                           "cand": nn(pc["candidate"]),
                           "change": nn(pc["change"]), "ci": nn(pc["change_ci"]),
                           "p": nn(pc["p_value"]), "p_adj": nn(pc["p_adjusted"]),
                           "verdict": pc["verdict"],
                           "approx": pc["approximate"]}
    return out


def thresholds():
    t = []
    for s in STATS:
        t += ["--max-increase", "wall_time.%s=2%%" % s,
              "--max-decrease", "wall_time.%s=2%%" % s]
    return t


ATTR = re.compile(r'([a-z-]+)="([^"]*)"')


def num(s):
    return float(s) if s != "" else float("nan")


def report_html(ys, base, cand, path):
    run(ys, ["report", "--baseline", base, cand, "-o", path] + thresholds(),
        ok=(0,))
    html = open(path, encoding="utf-8").read()
    rows = re.findall(r'<tr class="frow[^>]*>', html)
    assert len(rows) == 1, rows
    row = dict(ATTR.findall(rows[0]))
    checks = []
    for span, text in re.findall(r'(<span class="check[^>]*>)([^<]*)</span>',
                                 html):
        a = dict(ATTR.findall(span))
        m = re.match(r"wall_time\.(\w+)=2%: (\w+)", text)
        kind = "increase" if ("--max-increase" in text) else None
        checks.append((m.group(1), a, m.group(2)))
    return row, checks


GATE_HEAD = re.compile(r"^(FAIL|pass|incon\S*|missing)\s+b: max (increase|"
                       r"decrease) wall_time\.(\w+)=2%")
GATE_NUM = re.compile(r"^\s+(\w+): .*, change (\S+) \[(\S+), (\S+)\]"
                      r"(?:, (p [<=] [0-9.]+))?(?: \(adjusted (p [<=] [0-9.]+)\))?")


def gate_text(ys, base, cand):
    p = run(ys, ["gate", "--baseline", base, cand] + thresholds())
    checks, cur = {}, None
    for line in p.stdout.splitlines():
        h = GATE_HEAD.match(line)
        if h:
            cur = (h.group(3), h.group(2))
            checks[cur] = {"verdict": h.group(1).lower()}
            continue
        m = GATE_NUM.match(line)
        if m and cur:
            checks[cur].update(change=m.group(2), lo=m.group(3),
                               hi=m.group(4), p=m.group(5), p_adj=m.group(6))
    return p.returncode, checks


# ---- independent computations ----

def hd(x, q):
    """Harrell-Davis, from SciPy."""
    x = np.asarray(x, float)
    if len(x) == 1:
        return float(x[0])
    return float(sst.mstats.hdquantiles(x, prob=[q])[0])


def fmt_p(p):
    if p is None or not math.isfinite(p):
        return None
    return "p < 0.001" if p < 0.001 else "p = %.3f" % p


def pct(v):
    """A relative change as gate prints it."""
    if v is None or not math.isfinite(v):
        return None
    if abs(v) >= 1e4:
        return "%+.3g%%" % (100 * v)
    return "%+.1f%%" % (0.0 if abs(v) < 5e-4 else 100 * v)


def hd_weights(m, q):
    """Harrell-Davis's weights of m order statistics, those below 1e-5 of
    the largest dropped from both ends and the rest summing to 1, as the
    test's statistic has them (src/stats/shift.c, weights_init)."""
    if m == 1:
        return np.array([1.0])
    a, b = (m + 1) * q, (m + 1) * (1 - q)
    w = np.diff(sst.beta.cdf(np.arange(m + 1) / m, a, b))
    small = w < 1e-5 * w.max()
    first = 0
    while first < m - 1 and small[first]:
        first += 1
    last = m - 1
    while last > first and small[last]:
        last -= 1
    w[:first] = 0
    w[last + 1:] = 0
    return w / w.sum()


def exact_p(base, cand, q, thr, up):
    """The one-sided permutation p of docs/statistics.md, every labelling
    counted: the candidate moved back by the threshold, pooled, p the share
    of labellings whose (studentized) statistic is at least the observed
    one. Only for small samples (the exact method)."""
    base, cand = np.sort(base), np.sort(cand)
    if up:
        hi, lo = cand / (1 + thr), base
    else:
        hi, lo = base * (1 - thr), cand
    nh, nl = len(hi), len(lo)
    pool = np.concatenate([hi, lo])
    wh, wl = hd_weights(nh, q), hd_weights(nl, q)
    student = min(nh, nl) * min(q, 1 - q) >= 3

    def stat(h, l):
        h, l = np.sort(h), np.sort(l)
        eh, el = wh @ h, wl @ l
        if not student:
            return eh - el
        v = max(wh @ (h * h) - eh * eh, 0) + max(wl @ (l * l) - el * el, 0)
        d = eh - el
        return d / math.sqrt(v) if v > 0 else (math.inf if d > 0 else
                                                -math.inf if d < 0 else 0)

    t0 = stat(hi, lo)
    count = total = 0
    idx = range(len(pool))
    for comb in itertools.combinations(idx, nh):
        mask = np.zeros(len(pool), bool)
        mask[list(comb)] = True
        t = stat(pool[mask], pool[~mask])
        total += 1
        count += t >= t0 or (math.isfinite(t0) and t >= t0 - 1e-9 * abs(t0))
    return count / total


# ---- the checks of one pair ----

def same(a, b):
    return (a == b) or (isinstance(a, float) and isinstance(b, float)
                        and math.isnan(a) and math.isnan(b))


def check_pair(ys, wd, i, kind, a, b, truth, cover):
    case = "pair %d (%s, n=%d/%d)" % (i, kind, len(a), len(b))
    base, cand = os.path.join(wd, "b%d.json" % i), os.path.join(wd, "c%d.json" % i)
    write(base, result(a))
    write(cand, result(b))
    counted["pairs"] += 1
    cj = compare_json(ys, base, cand)
    row, rchecks = report_html(ys, base, cand, os.path.join(wd, "r%d.html" % i))
    grc, gchecks = gate_text(ys, base, cand)
    med = cj["median"]
    # compare and report's forest row: one judgement, bit for bit
    for key, want in (("data-ratio", 1 + med["change"]),
                      ("data-lo", 1 + med["ci"][0]),
                      ("data-hi", 1 + med["ci"][1]),
                      ("data-p", med["p"]), ("data-p-adjusted", med["p_adj"])):
        got = num(row.get(key, ""))
        want = float(want)
        if not same(got, want) and not (math.isinf(want) and got != got):
            fail(case, "report's median %s %r, compare's %r" % (key, got, want))
    if row.get("data-verdict") != med["verdict"]:
        fail(case, "report says %s, compare %s" % (row.get("data-verdict"),
                                                   med["verdict"]))
    # report's gate checks (gate_evaluate) against compare's statistics
    seen = {}
    for stat, attrs, verdict in rchecks:
        seen.setdefault(stat, []).append((attrs, verdict))
    for s in STATS:
        c = cj[s]
        got = seen.get(s, [])
        if len(got) != 2:
            fail(case, "report has %d checks of %s" % (len(got), s))
            continue
        for attrs, verdict in got:
            for key, want in (("data-change", c["change"]),
                              ("data-lo", c["ci"][0]),
                              ("data-hi", c["ci"][1])):
                if not same(num(attrs[key]), float(want)):
                    fail(case, "%s: the gate's %s %s, compare's %r" %
                         (s, key, attrs[key], want))
        # the check in the change's direction has compare's p
        ps = [num(attrs["data-p"]) for attrs, _ in got]
        if not math.isnan(c["p"]) and not any(same(p, c["p"]) for p in ps):
            fail(case, "%s: compare's p %r is none of the gate's %r" %
                 (s, c["p"], ps))
        # verdicts: slower exactly when the increase check fails
        inc = gchecks.get((s, "increase"), {}).get("verdict")
        dec = gchecks.get((s, "decrease"), {}).get("verdict")
        v = c["verdict"]
        want_inc = "fail" if v == "slower" else "inconclusive" \
            if v == "inconclusive" else "pass"
        want_dec = "fail" if v == "faster" else "inconclusive" \
            if v == "inconclusive" else "pass"
        if (inc, dec) != (want_inc, want_dec):
            fail(case, "%s: compare says %s, gate's checks %s/%s" %
                 (s, v, inc, dec))
        # gate's printed numbers are compare's, formatted
        g = gchecks.get((s, "increase" if not c["change"] < 0
                         else "decrease"), {})
        # (a change from 0 is printed in words: "none (0 → 0)")
        if v != "inconclusive" and g and c["base"] != 0:
            if g.get("change") != pct(c["change"]) and \
               math.isfinite(c["change"]):
                fail(case, "%s: gate prints change %s, compare's is %r" %
                     (s, g.get("change"), c["change"]))
            if g.get("p") != fmt_p(c["p"]):
                fail(case, "%s: gate prints %s, compare's p is %r" %
                     (s, g.get("p"), c["p"]))
        # independent: the estimates are SciPy's Harrell-Davis
        for side, x in (("base", a), ("cand", b)):
            want = hd(x, QUANT[s])
            counted["estimates"] += 1
            # weights below 1e-5 of the largest are dropped
            # (docs/statistics.md): within 1e-4 of the range
            tol = 1e-4 * float(np.max(x) - np.min(x)) + 1e-12 * abs(want)
            if abs(c[side] - want) > tol:
                fail(case, "%s %s: %r, SciPy's Harrell-Davis %r" %
                     (s, side, c[side], want))
        # the interval holds the estimate
        lo, hi, ch = c["ci"][0], c["ci"][1], c["change"]
        lo = -math.inf if math.isnan(lo) else lo
        hi = math.inf if math.isnan(hi) else hi
        if math.isfinite(ch) and not lo <= ch <= hi:
            fail(case, "%s: change %r outside its interval [%r, %r]" %
                 (s, ch, lo, hi))
        # a known ratio: the interval's coverage, counted
        if truth is not None and not c["approx"] and v != "inconclusive":
            cover.setdefault(s, [0, 0])
            cover[s][1] += 1
            cover[s][0] += lo - 1e-12 <= truth <= hi + 1e-12
        # independent: the exact permutation p of small samples
        if kind == "small" and v != "inconclusive" and not math.isnan(c["p"]):
            up = ch >= 0
            want = exact_p(a, b, QUANT[s], NOISE, up)
            counted["exact p"] += 1
            if abs(want - c["p"]) > 1e-9:
                fail(case, "%s: p %r, the exact p enumerated here %r" %
                     (s, c["p"], want))
    if grc != (1 if any(v.get("verdict") != "pass"
                        for v in gchecks.values()) else 0):
        fail(case, "gate exit %d for verdicts %r" % (grc, gchecks))


def null_gates(ys, wd, rng, gates, benches=5, alpha=0.05):
    """A gate of 2 x benches x 2 checks on null pairs: the share of gates
    failing anywhere, with Holm and without."""
    fam = {"holm": 0, "none": 0}
    for g in range(gates):
        docs = []
        for _ in range(2):
            bs = []
            for k in range(benches):
                n = int(rng.integers(10, 31))
                bs.append({"name": "b%d" % k, "metrics": {"wall_time": {
                    "unit": "s", "values": [float(v) for v in lognorm(rng, n)]}}})
            docs.append({"schema": "yardstick/result/v1", "kind": "run",
                         "benchmarks": bs})
        base, cand = os.path.join(wd, "nb.json"), os.path.join(wd, "nc.json")
        write(base, docs[0])
        write(cand, docs[1])
        t = []
        for s in ("median", "p90"):
            t += ["--max-increase", "wall_time.%s=0%%" % s,
                  "--max-decrease", "wall_time.%s=0%%" % s]
        for corr in fam:
            p = run(ys, ["gate", "-q", "--alpha", str(alpha), "--correction",
                         corr, "--baseline", base, cand] + t)
            fam[corr] += p.returncode == 1
    return fam


def binom_upper(n, p, tail=1e-4):
    """The smallest k with P(X > k) < tail for X ~ Binomial(n, p)."""
    return int(sst.binom.isf(tail, n, p))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ys")
    ap.add_argument("workdir")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--null-gates", type=int, default=200)
    o = ap.parse_args()
    seed = o.seed if o.seed is not None else random.SystemRandom().randrange(2**31)
    print("seed %d" % seed, flush=True)
    rng = np.random.default_rng(seed)
    cover = {}
    for i, (kind, a, b, truth) in enumerate(cases(rng, o.pairs)):
        try:
            check_pair(o.ys, o.workdir, i, kind, a, b, truth, cover)
        except Exception as ex:  # a command that failed, said as a check
            fail("pair %d (%s)" % (i, kind), "%s: %s" % (type(ex).__name__, ex))
    print("pairs judged by compare, gate and report: %d; estimates against "
          "SciPy: %d; p against the enumeration: %d" %
          (counted["pairs"], counted["estimates"], counted["exact p"]))
    for s, (hit, n) in sorted(cover.items()):
        # 95% intervals: fewer hits than Binomial(n, 0.95) gives 1 time in
        # 10,000 is a failure
        low = n - binom_upper(n, 0.05)
        print("coverage of the known change, %s: %d of %d (at least %d)" %
              (s, hit, n, low))
        if hit < low:
            fail("coverage", "%s: %d of %d intervals hold the true change" %
                 (s, hit, n))
    if o.null_gates:
        alpha, g = 0.05, o.null_gates
        fam = null_gates(o.ys, o.workdir, rng, g, alpha=alpha)
        lim = binom_upper(g, alpha)
        print("null gates failing anywhere (20 checks, alpha %g): holm %d "
              "of %d (at most %d), none %d" % (alpha, fam["holm"], g, lim,
                                               fam["none"]))
        if fam["holm"] > lim:
            fail("family", "Holm: %d of %d null gates failed" % (fam["holm"], g))
        # without the correction 20 checks fail far more often: the
        # measure can tell a family that does not hold alpha
        if fam["none"] <= fam["holm"]:
            fail("family", "without correction %d of %d null gates failed, "
                 "no more than with Holm" % (fam["none"], g))
    print("%d failed checks (seed %d)" % (len(failures), seed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
