"""The cost of one Python zone (bench/python_zones.sh): N iterations of a
loop with the zone (each form below), less the same loop without it,
over N; the best of 7 timings each. Prints "FORM NS_PER_ZONE" lines.
The references: a `with` on contextlib.nullcontext() (the cheapest
context manager of the standard library) and on an object of a Python
class with empty __enter__ and __exit__."""
import contextlib
import sys
import time

import yardstick

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200000


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


def timed(body, setup=""):
    """A function timing N iterations of body (in its own code object,
    the names it uses as locals)."""
    src = (f"def run(zone, yardstick, nc, empty, decorated, plain):\n"
           f" t = time.perf_counter_ns()\n"
           f" for _ in range({N}):\n"
           f"  {body}\n"
           f" return time.perf_counter_ns() - t\n")
    ns = {"time": time}
    exec(src, ns)
    args = (yardstick.zone, yardstick, contextlib.nullcontext(), Empty(),
            decorated, plain)
    return lambda: ns["run"](*args)


def best(f):
    return min(f() for _ in range(7))


forms = [
    ("with", "with zone('z'): pass", "pass"),
    ("begin_end", "yardstick.zone_end(yardstick.zone_begin('z'))", "pass"),
    ("decorator", "decorated()", "plain()"),
    ("mark", "yardstick.mark('m')", "pass"),
    ("ref_nullcontext", "with nc: pass", "pass"),
    ("ref_python_cm", "with empty: pass", "pass"),
]
for name, body, base in forms:
    print(name, (best(timed(body)) - best(timed(base))) / N)
