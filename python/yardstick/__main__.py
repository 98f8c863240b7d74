"""python3 -m yardstick FILE.py [OPTIONS]: run FILE.py's benchmarks
(@yardstick.benchmark, yardstick.register) with libyardstick's command
line (OPTIONS: --help lists them)."""
import os
import runpy
import sys

import yardstick


def _usage():
    print("usage: python3 -m yardstick FILE.py [OPTIONS]\n"
          "Run the benchmarks FILE.py registers (@yardstick.benchmark); "
          "OPTIONS are\nlibyardstick's: python3 -m yardstick FILE.py "
          "--help lists them.", file=sys.stderr)


def run(argv):
    if not argv or argv[0] in ("-h", "--help"):
        _usage()
        return 0 if argv else 2
    path = argv[0]
    if not os.path.isfile(path):
        print(f"yardstick: cannot read '{path}': no such file",
              file=sys.stderr)
        return 2
    sys.argv = [path] + argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    # the file's own main() (if __name__ == "__main__") runs them; else
    # they run here
    runpy.run_path(path, run_name="__main__")
    if yardstick._ran_registry:
        return yardstick._last_rc
    return yardstick.main(argv[1:])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
