"""The cost of one Python zone (bench/python_zones.sh): N iterations of a
loop with the zone (each form below), less the same loop without it,
over N. The loops of every form run interleaved, LOOPS times each, and
each form's best is kept: a busy machine's preemptions and migrations
fall on some loops of every form, not on all the loops of one. Prints
"FORM NS_PER_ZONE" lines.

The references, `with` on: contextlib.nullcontext() (the cheapest
context manager of the standard library); an object of a Python class
with empty __enter__ and __exit__ (a user's trivial context manager);
and the package's own no-op zone made beforehand (the floor of any
`with` in CPython 3.11: BEFORE_WITH's two lookups and two calls, no
zone() call)."""
import contextlib
import sys
import time

import yardstick

# short loops, many of them: a loop of 10,000 zones lasts 0.1-10 ms, so
# that on a busy machine some loops of each form run unpreempted (loops of
# 100,000 seldom did at a load of 25 on 2 cores: a `with` then measured
# 35 to 235 ns by the process)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
LOOPS = int(sys.argv[2]) if len(sys.argv) > 2 else 201


class Empty:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@yardstick.zone("deco")
def decorated():
    pass


def plain():
    pass


def timed(body):
    """A function timing N iterations of body (in its own code object,
    the names it uses as locals), in ns."""
    src = (f"def run(zone, yardstick, nc, empty, made, decorated, plain):\n"
           f" t = time.perf_counter_ns()\n"
           f" for _ in range({N}):\n"
           f"  {body}\n"
           f" return time.perf_counter_ns() - t\n")
    ns = {"time": time}
    exec(src, ns)
    args = (yardstick.zone, yardstick, contextlib.nullcontext(), Empty(),
            yardstick.zone("made"), decorated, plain)
    return lambda: ns["run"](*args)


forms = [
    ("with", "with zone('z'): pass", "pass"),
    ("with_attr", "with yardstick.zone('z'): pass", "pass"),
    ("begin_end", "yardstick.zone_end(yardstick.zone_begin('z'))", "pass"),
    ("decorator", "decorated()", "plain()"),
    ("mark", "yardstick.mark('m')", "pass"),
    ("ref_made_zone", "with made: pass", "pass"),
    ("ref_nullcontext", "with nc: pass", "pass"),
    ("ref_python_cm", "with empty: pass", "pass"),
]
loops = {b: timed(b) for _, a, base in forms for b in (a, base)}
best = dict.fromkeys(loops, float("inf"))
for _ in range(LOOPS):
    for body, run in loops.items():
        best[body] = min(best[body], run())
for name, body, base in forms:
    print(name, (best[body] - best[base]) / N)
