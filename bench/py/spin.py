"""The workload of bench/python_vs_timeit.sh: spin(3000), about 100 us of
pure-Python loop, as a yardstick benchmark (python3 -m yardstick
spin.py) and importable by timeit and pytest."""
import yardstick


def spin(n):
    acc = 0
    for i in range(n):
        acc ^= i & 255
    return acc


@yardstick.benchmark
def spin3000():
    return lambda: spin(3000)
