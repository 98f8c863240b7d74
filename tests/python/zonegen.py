"""@yardstick.zone() on a generator function (tests/cli/python_pkg.sh runs
it traced): each run of its body, to a yield or its end, is one zone of
the generator's name: 5 items of 10 ms of CPU each, then its end (6
zones); the consumer's 5 ms per item in zones of its own, not inside the
generator's. send, throw, close and the return value pass through. An
async generator function's runs are async spans: 3 items of 10 ms, then
its end (4 spans)."""
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

# an async generator function: each run of its body an async span
import asyncio                                          # noqa: E402


@yardstick.zone("agen")
async def abatches(n):
    for i in range(n):
        await asyncio.sleep(0.001)
        spin(0.010)
        yield i


@yardstick.zone("aecho")
async def aecho():
    log = []
    try:
        while True:
            try:
                got = yield len(log)
                log.append(got)
            except KeyError as e:
                log.append(("caught", e.args[0]))
    finally:
        ACLOSED.append(log)


ACLOSED = []


async def amain():
    assert [b async for b in abatches(3)] == [0, 1, 2]
    g = aecho()
    assert await g.asend(None) == 0 and await g.asend("a") == 1
    assert await g.athrow(KeyError("k")) == 2
    await g.aclose()
    assert ACLOSED == [["a", ("caught", "k")]], ACLOSED


asyncio.run(amain())
print("ok", yardstick.tracing())
