# Run a Python program (argv[2:]) as __main__, natively or under cProfile
# (argv[1]: native | cprofile), and print the CPU time this process used
# ("cpu SECONDS", time.process_time) to stderr at the end: the program's
# own cost, apart from whatever runs beside it (a profiler's own process).
import cProfile
import runpy
import sys
import time

mode, prog = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[2:]
if mode == "cprofile":
    prof = cProfile.Profile()
    prof.runcall(runpy.run_path, prog, run_name="__main__")
else:
    runpy.run_path(prog, run_name="__main__")
print("cpu %.6f" % time.process_time(), file=sys.stderr)
