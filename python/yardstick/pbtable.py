"""pytest-benchmark's table at the end of a session, from the same
benchmarks --benchmark-json writes (pbcompat.entry: a round per epoch),
with its options: --benchmark-sort, --benchmark-group-by,
--benchmark-columns, --benchmark-name. The layout is pytest-benchmark's
(a section per group, a time unit per group from its best, each value's
ratio to the column's best), so that a reader finds what they read
before; the numbers are yardstick's epochs through pbstats.
"""
COLUMNS = ("min", "max", "mean", "stddev", "median", "iqr", "outliers",
           "ops", "rounds", "iterations")
SORTS = ("min", "max", "mean", "stddev", "name", "fullname")
NAMES = ("short", "normal", "long")
TIMES = ("min", "max", "mean", "stddev", "median", "iqr")
LABELS = {"min": "Min", "max": "Max", "mean": "Mean", "stddev": "StdDev",
          "median": "Median", "iqr": "IQR", "outliers": "Outliers",
          "rounds": "Rounds", "iterations": "Iterations"}


def parse_sort(s):
    s = s.lower().strip()
    if s not in SORTS:
        raise ValueError(f"{s!r}: one of {', '.join(SORTS)}")
    return s


def parse_columns(s):
    cols = [c.strip() for c in s.lower().split(",")]
    bad = [c for c in cols if c not in COLUMNS]
    if bad:
        raise ValueError(f"no column {', '.join(bad)} (the columns: "
                         f"{', '.join(COLUMNS)})")
    return cols


def parse_name(s):
    s = s.lower().strip()
    if s not in NAMES:
        raise ValueError(f"{s!r}: one of {', '.join(NAMES)} (trial "
                         "names a stored run's source, which a session "
                         "of yardstick's has not)")
    return s


def parse_group_by(s):
    for g in s.split(","):
        if g not in ("group", "name", "fullname", "func", "fullfunc",
                     "param") and not g.startswith("param:"):
            raise ValueError(f"{g!r}: group, name, fullname, func, "
                             "fullfunc, param or param:NAME")
    return s


def _name(b, fmt):
    if fmt == "long":
        return b["fullname"]
    n = b["name"]
    if fmt == "short" and n.startswith("test_"):
        n = n[5:]
    return n


def _key(b, group_by):
    key = []
    for g in group_by.split(","):
        if g == "group":
            key.append(b["group"])
        elif g in ("name", "fullname"):
            key.append(b[g])
        elif g in ("func", "fullfunc"):
            key.append(b["fullname" if g == "fullfunc" else "name"]
                       .split("[")[0])
        elif g == "param":
            key.append(b["param"])
        else:
            p = g[len("param:"):]
            key.append(f"{p}={(b['params'] or {}).get(p)}")
    return " ".join(str(k) for k in key if k) or None


def groups(entries, group_by):
    out = {}
    for e in entries:
        b = dict(e, **e["stats"])
        out.setdefault(_key(b, group_by), []).append(b)
    by = "fullname" if "full" in group_by else "name"
    for bs in out.values():
        bs.sort(key=lambda b: b[by])   # then by --benchmark-sort, stably
    return sorted(out.items(), key=lambda kv: kv[0] or "")


def _time_unit(v):
    for unit, scale, below in (("n", 1e9, 1e-6), ("u", 1e6, 1e-3),
                               ("m", 1e3, 1)):
        if v < below:
            return unit, scale
    return "", 1.0


def _ops_unit(v):
    if v > 1e6:
        return "M", 1e-6
    if v > 1e3:
        return "K", 1e-3
    return "", 1.0


def _scale(best, v):
    if v == best:
        return " (1.0)"
    r = abs(v / best) if best else float("inf")
    if r > 1000:
        return " (inf)" if r == float("inf") else " (>1000.0)"
    return f" ({r:.2f})"


def lines(entries, sort="min", group_by="group", columns=COLUMNS,
          name_format="normal"):
    """The table's lines."""
    out = []
    for group, bs in groups(entries, group_by):
        bs.sort(key=lambda b: b[sort])
        solo = len(bs) == 1
        best = {p: min(b[p] for b in bs) for p in TIMES}
        best["ops"] = max(b["ops"] for b in bs)
        ref = bs[0]["min"] if sort in ("name", "fullname") else best[sort]
        unit, adj = _time_unit(ref)
        ounit, oadj = _ops_unit(min(b["ops"] for b in bs))
        pad = 0 if solo else 10
        labels = dict(LABELS, name=f"Name (time in {unit}s)",
                      ops=f"OPS ({ounit}ops/s)" if ounit else "OPS")
        cells = []
        for b in bs:
            row = {"name": _name(b, name_format)}
            for p in columns:
                if p in TIMES or p == "ops":
                    a = oadj if p == "ops" else adj
                    row[p] = (f"{b[p] * a:,.4f}",
                              _scale(best[p], b[p]) if pad else "")
                else:
                    row[p] = (str(b[p]), "")
            cells.append(row)
        w = {"name": 3 + max([len(labels["name"])] +
                             [len(r["name"]) for r in cells])}
        for p in columns:
            w[p] = 2 + max([len(labels[p])] + [len(r[p][0]) for r in cells])
        num = [p for p in columns if p in TIMES or p == "ops"]
        head = labels["name"].ljust(w["name"]) + "".join(
            labels[p].rjust(w[p]) + (" " * pad if p in num else "")
            for p in columns)
        title = f" benchmark{'' if group is None else f' {group!r}'}: " \
                f"{len(bs)} tests "
        out += [title.center(len(head), "-"), head, "-" * len(head)]
        for r in cells:
            out.append((r["name"].ljust(w["name"]) + "".join(
                r[p][0].rjust(w[p]) + (r[p][1].ljust(pad) if p in num
                                       else "")
                for p in columns)).rstrip())
        out += ["-" * len(head), ""]
    out += ["Legend:",
            "  Outliers: 1 Standard Deviation from Mean; 1.5 IQR "
            "(InterQuartile Range) from 1st Quartile and 3rd Quartile.",
            "  OPS: Operations Per Second, computed as 1 / Mean",
            "  (yardstick: a round is an epoch, its value the epoch's "
            "time per call)"]
    return out
