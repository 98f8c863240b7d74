"""pytest-benchmark's statistics of a benchmark's rounds, defined as its
stats.Stats defines them (pytest-benchmark 3.2 and 4.0 agree), so that
the JSON of --benchmark-json holds the numbers pytest-benchmark would
compute from the same rounds. Here a round is one of yardstick's
epochs, its value the epoch's time per call in seconds.

The definitions a reader must know, all pytest-benchmark's:
- stddev is the sample standard deviation (n - 1), 0 for one round;
- q1 and q3: with an odd number of rounds, Wikipedia's "method 3"
  (weighted between two data); with an even number, "method 2" (the
  medians of the lower and upper halves); one round: that value;
- iqr_outliers counts the rounds beyond [q1 - 1.5 iqr, q3 + 1.5 iqr],
  stddev_outliers those beyond [mean - stddev, mean + stddev];
  outliers is "STDDEV_OUTLIERS;IQR_OUTLIERS";
- ld15iqr is the lowest datum at or above q1 - 1.5 iqr; hd15iqr the
  datum just above q3 + 1.5 iqr (the largest when none is: its
  bisect_right, kept as it is);
- total is the sum of the rounds' values, ops = rounds / total.

tests/cli/python_pkg.sh runs the same data through pytest-benchmark's
own Stats and compares every field.
"""
import statistics
from bisect import bisect_left, bisect_right

FIELDS = ("min", "max", "mean", "stddev", "rounds", "median", "iqr", "q1",
          "q3", "iqr_outliers", "stddev_outliers", "outliers", "ld15iqr",
          "hd15iqr", "ops", "total")


def _q1(s):
    n = len(s)
    if n == 1:
        return s[0]
    if n % 2:
        k, r = n // 4, n % 4
        if r == 1:
            return 0.25 * s[k - 1] + 0.75 * s[k]
        return 0.75 * s[k] + 0.25 * s[k + 1]
    return statistics.median(s[:n // 2])


def _q3(s):
    n = len(s)
    if n == 1:
        return s[0]
    if n % 2:
        k, r = n // 4, n % 4
        if r == 1:
            return 0.75 * s[3 * k] + 0.25 * s[3 * k + 1]
        return 0.25 * s[3 * k + 1] + 0.75 * s[3 * k + 2]
    return statistics.median(s[n // 2:])


def stats(data):
    """The fields of pytest-benchmark's Stats.as_dict() for data (a
    non-empty list of seconds), in its order."""
    if not data:
        raise ValueError("no rounds")
    s = sorted(data)
    n = len(data)
    mean = statistics.mean(data)
    sd = statistics.stdev(data) if n > 1 else 0
    q1, q3 = _q1(s), _q3(s)
    iqr = q3 - q1
    lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    iqr_out = sum(1 for v in data if v < lo or v > hi)
    sd_out = sum(1 for v in data if v < mean - sd or v > mean + sd)
    if n == 1:
        ld, hd = data[0], data[0]
    else:
        ld = s[bisect_left(s, lo)]
        pos = bisect_right(s, hi)
        hd = s[-1] if pos == n else s[pos]
    total = sum(data)
    return {
        "min": min(data), "max": max(data), "mean": mean, "stddev": sd,
        "rounds": n, "median": statistics.median(data), "iqr": iqr,
        "q1": q1, "q3": q3, "iqr_outliers": iqr_out,
        "stddev_outliers": sd_out, "outliers": f"{sd_out};{iqr_out}",
        "ld15iqr": ld, "hd15iqr": hd,
        "ops": n / total if total else 0, "total": total,
    }
