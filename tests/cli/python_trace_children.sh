#!/bin/sh
# trace: the zones of the processes a Python program starts, whatever
# the way (util/zonebuf.h, src/lib/zones.c). The zone buffer is handed
# down as a descriptor (YARDSTICK_TRACE_FD); Python's multiprocessing
# spawn and forkserver and subprocess (close_fds=True, its default)
# close it, so the workers' zones were lost without a word: 0 of 6 here.
# Now the environment also names the buffer by a path
# (YARDSTICK_TRACE_PATH=/proc/PID/fd/N), which a descendant that lost
# the descriptor opens. Each case has its count by design: a pool of 2
# maps work over 6 items, one zone each, under the parent's one zone.
. "$(dirname "$0")/lib.sh"
CLI=$(dirname "$0")
. "$CLI/pyenv.sh"

cat >"$T/zmp.py" <<'PY'
import multiprocessing as mp
import subprocess
import sys
import time

import yardstick


def work(i):
    with yardstick.zone("child_work"):
        t = time.thread_time()
        while time.thread_time() - t < 0.005:
            pass
    return i


if __name__ == "__main__":
    how = sys.argv[1]
    with yardstick.zone("parent_work"):
        if how == "subprocess":
            for i in range(6):
                subprocess.run([sys.executable, __file__, "child"], check=True)
        elif how == "child":
            work(0)
        else:
            mp.set_start_method(how)
            with mp.Pool(2) as p:
                assert sum(p.map(work, range(6))) == 15
PY

# zones HOW: trace zmp.py HOW; its zones are 1 parent_work (7 with
# subprocess: each child's own parent_work too) and 6 child_work
zones() {
	"$YS" trace --no-store -o "$T/$1.json" -- "$PYTHON" "$T/zmp.py" "$1" \
		>/dev/null 2>"$T/$1.rep" || { cat "$T/$1.rep"; return 1; }
	parents=1
	[ "$1" = subprocess ] && parents=7
	grep -Eq "^child_work +6 " "$T/$1.rep" &&
	grep -Eq "^parent_work +$parents " "$T/$1.rep" ||
		{ cat "$T/$1.rep"; return 1; }
}
t "trace: multiprocessing fork workers' zones, 6 of 6" zones fork
t "trace: multiprocessing spawn workers' zones, 6 of 6 (the descriptor closed)" zones spawn
t "trace: multiprocessing forkserver workers' zones, 6 of 6 (the descriptor closed)" zones forkserver
t "trace: subprocess (close_fds) children's zones, 6 of 6" zones subprocess

# A path that names no buffer (another file, no such file) leaves
# tracing off, as a wrong descriptor does.
t "a YARDSTICK_TRACE_PATH that names no buffer: tracing off" sh -c '
	YARDSTICK_TRACE_PATH=/proc/self/fd/0 "$PYTHON" -c "import yardstick; assert not yardstick.tracing()" </dev/null &&
	YARDSTICK_TRACE_PATH=/proc/1/fd/999999 "$PYTHON" -c "import yardstick; assert not yardstick.tracing()" &&
	YARDSTICK_TRACE_PATH=/etc/passwd "$PYTHON" -c "import yardstick; assert not yardstick.tracing()"'

finish
