"""@yardstick.zone() on a generator function (tests/cli/python_pkg.sh runs
it traced): each run of its body, to a yield or its end, is one zone of
the generator's name: 5 items of 10 ms of CPU each, then its end (6
zones); the consumer's 5 ms per item in zones of its own, not inside the
generator's. send, throw, close and the return value pass through."""
import time

import yardstick


def spin(sec):
    end = time.thread_time() + sec
    while time.thread_time() < end:
        pass


@yardstick.zone()
def batches(n):
    for i in range(n):
        spin(0.010)
        yield i
    return "done"


@yardstick.zone("consume")
def consume(i):
    spin(0.005)


assert [consume(b) or b for b in batches(5)] == [0, 1, 2, 3, 4]


@yardstick.zone("echo")
def echo():
    log = []
    try:
        while True:
            try:
                got = yield len(log)
                log.append(got)
            except KeyError as e:
                log.append(("caught", e.args[0]))
    finally:
        CLOSED.append(log)


CLOSED = []
g = echo()
assert next(g) == 0 and g.send("a") == 1
assert g.throw(KeyError("k")) == 2
g.close()
assert CLOSED == [["a", ("caught", "k")]], CLOSED


def outer():
    return (yield from batches(1))


gen = outer()
assert next(gen) == 0
try:
    next(gen)
except StopIteration as stop:
    assert stop.value == "done", stop.value
else:
    raise AssertionError("no StopIteration")
print("ok", yardstick.tracing())
