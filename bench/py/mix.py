# Accuracy under fast switching (bench/python_vs_cprofile.sh): spin (pure
# Python) and squeeze (zlib.compress, native) alternate about every
# millisecond, so a Python stack read late belongs to the other one: the
# share of libz samples not under squeeze is the rate of wrong frames.
import sys
import zlib

DATA = bytes(range(256)) * 200


def spin():
    s = 0
    for i in range(4000):
        s += i * i % 7
    return s


def squeeze():
    return len(zlib.compress(DATA, 9))


def main():
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 1000):
        spin()
        squeeze()


main()
