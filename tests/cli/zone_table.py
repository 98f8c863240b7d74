"""The zone table of `yardstick trace`'s report (stderr), parsed: each
row's count and its durations, each cell a number and its unit ("850 ns",
"1.234 ms"), converted to seconds. For tests/cli/trace.sh."""

UNITS = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
CELLS = ("total", "self", "p50", "p95", "p99", "max")


def zone_rows(report):
    """{name: {"count": n, "total": s, ..., "cells": {key: (text, unit)}}}
    of the table that follows the "zones" heading."""
    rows, inside = {}, False
    for line in report.splitlines():
        if line.strip() == "zones":
            inside = True
            continue
        if not inside:
            continue
        f = line.split()
        if not f or f[0] == "zone":
            continue
        if len(f) != 2 + 2 * len(CELLS) + 1 or not f[1].isdigit():
            break
        row = {"count": int(f[1]), "cells": {}}
        for i, key in enumerate(CELLS):
            num, unit = f[2 + 2 * i], f[3 + 2 * i]
            assert unit in UNITS, (line, unit)
            row[key] = float(num) * UNITS[unit]
            row["cells"][key] = (num, unit)
        rows[f[0]] = row
    return rows
