"""@yardstick.zone() on functions, methods and coroutines, and zone_begin/
zone_end (tests/cli/python_pkg.sh runs it traced and untraced)."""
import yardstick, asyncio
@yardstick.zone()
def f(x, y=2):
    "doc"
    return x + y
class C:
    @yardstick.zone("meth")
    def m(self, a): return a * 2
@yardstick.zone()
async def co(): await asyncio.sleep(0.001); return 5
assert f(1) == 3 and f(1, y=5) == 6 and f.__name__ == "f" and f.__doc__ == "doc"
assert C().m(4) == 8
assert asyncio.run(co()) == 5
t = yardstick.zone_begin("manual"); yardstick.zone_end(t)
print("ok", yardstick.tracing(), type(f))
