# A real program for bench/python_vs_cprofile.sh: generate a CSV of sales
# rows, parse it back, clean and aggregate it, report the top groups.
#   python3 csvpipe.py [ROWS]
import csv
import io
import os
import random
import sys
import time
from collections import defaultdict

REGIONS = ["north", "south", "east", "west", "centre"]
PRODUCTS = ["p%03d" % i for i in range(200)]


def make_row(rnd, i):
    return [str(i), rnd.choice(REGIONS), rnd.choice(PRODUCTS),
            "%d" % rnd.randint(1, 20), "%.2f" % rnd.uniform(0.5, 400.0),
            "2024-%02d-%02d" % (rnd.randint(1, 12), rnd.randint(1, 28))]


def generate(n):
    rnd = random.Random(42)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["id", "region", "product", "qty", "price", "date"])
    for i in range(n):
        w.writerow(make_row(rnd, i))
    return out.getvalue()


def parse(text):
    r = csv.reader(io.StringIO(text))
    next(r)
    return [row for row in r]


def clean(row):
    rid, region, product, qty, price, date = row
    return (int(rid), region.strip().lower(), product, int(qty),
            float(price), tuple(int(x) for x in date.split("-")))


def clean_all(rows):
    return [clean(r) for r in rows]


def month_of(date):
    return "%04d-%02d" % (date[0], date[1])


def aggregate(rows):
    totals = defaultdict(float)
    counts = defaultdict(int)
    for rid, region, product, qty, price, date in rows:
        key = (region, month_of(date))
        totals[key] += qty * price
        counts[key] += 1
    return totals, counts


def top_groups(totals, counts, k):
    avg = {key: totals[key] / counts[key] for key in totals}
    return sorted(avg.items(), key=lambda kv: -kv[1])[:k]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    # CSVPIPE_TIMES=1: each phase's CPU time on stderr ("phase NAME S"),
    # the truth the profilers' shares are checked against
    times = os.environ.get("CSVPIPE_TIMES")
    t = time.process_time()

    def phase(name):
        nonlocal t
        if times:
            now = time.process_time()
            print("phase %s %.6f" % (name, now - t), file=sys.stderr)
            t = now
    text = generate(n)
    phase("generate")
    raw = parse(text)
    phase("parse")
    rows = clean_all(raw)
    phase("clean_all")
    totals, counts = aggregate(rows)
    phase("aggregate")
    best = top_groups(totals, counts, 5)
    print("rows %d groups %d best %s %.2f" % (len(rows), len(totals),
                                              best[0][0], best[0][1]))


if __name__ == "__main__":
    main()
