#!/bin/sh
# What a program leaves running when it ends, under record, trace and
# mem (util/child.c, child_sweep) and run (its spawner's sweep): some of
# it is made to end by itself just after the program, and must be let to.
#   - multiprocessing's spawn start method (and forkserver: its server
#     too): its resource tracker outlives
#     the program and, at its pipe's end of file, unlinks the shared
#     memory the program left. Killed at once (the old sweep), the
#     segment stayed in /dev/shm for good and yardstick warned of a
#     process "left running" (and run's next run failed on the segment
#     left). Now: no segment left, no warning, in record, trace, mem and
#     run;
#   - the class, without Python: a background process that ends just
#     after the program (not a stray: no warning, its work done); one
#     that ignores SIGTERM and ends 300 ms after it (done, and named); a
#     `sleep 300 &` (named, ended by SIGTERM: well under the 2 s grace);
#     one that ignores SIGTERM forever (named, killed after the grace).
# Timings are loose (a busy machine): the quiet time is 200 ms, the grace
# after SIGTERM 2 s; the checks that need a process to end within one of
# them are retried 3x.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3.11
SEG=ys-h27-leak-$$
export PY SEG
# some CPU for the shell, so that record has samples (no samples exits 1)
BUSY='i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done'
# in a background process of sh -c: wait until the shell has ended (and
# been reaped: a zombie still answers kill -0), 10 ms at a time
WAIT='while kill -0 $$ 2>/dev/null; do sleep 0.01; done'
export WAIT

cat >"$T/shm.py" <<'PY'
import multiprocessing as mp
import sys
from multiprocessing import shared_memory


def child(name):
    s = shared_memory.SharedMemory(name=name)
    s.buf[0] = 7
    s.close()


if __name__ == "__main__":
    mp.set_start_method(sys.argv[2] if len(sys.argv) > 2 else "spawn")
    s = shared_memory.SharedMemory(create=True, size=1 << 16, name=sys.argv[1])
    p = mp.Process(target=child, args=(sys.argv[1],))
    p.start()
    p.join()
    s.close()   # no unlink: the resource tracker unlinks it at the end
PY

# shm CMD...: yardstick CMD -- python3 shm.py leaves no segment and no
# warning of a process left running ($METHOD: the start method)
shm() {
	rm -f "/dev/shm/$SEG"
	"$YS" "$@" -- "$PY" "$T/shm.py" "$SEG" "${METHOD:-spawn}" \
		>"$T/shm.out" 2>"$T/shm.rep" ||
		{ cat "$T/shm.rep"; return 1; }
	if [ -e "/dev/shm/$SEG" ]; then
		rm -f "/dev/shm/$SEG"
		echo "the shared memory segment was left in /dev/shm"
		cat "$T/shm.rep"
		return 1
	fi
	! grep -q "left .* running" "$T/shm.rep" || { cat "$T/shm.rep"; return 1; }
}
t "record -- multiprocessing spawn: the resource tracker unlinks the shared memory (retried 3x)" \
	retry shm record -q -o "$T/shm.folded"
shm_forkserver() {
	METHOD=forkserver
	shm "$@"
	r=$?
	METHOD=spawn
	return $r
}
t "record -- multiprocessing forkserver: its server and tracker end by themselves (retried 3x)" \
	retry shm_forkserver record -q -o "$T/fs.folded"
t "trace -- multiprocessing spawn: the resource tracker unlinks the shared memory (retried 3x)" \
	retry shm trace --no-store -q -o "$T/shm.json"
t "mem -- multiprocessing spawn: the resource tracker unlinks the shared memory (retried 3x)" \
	retry shm mem -q -o "$T/shm.mem.folded"

# run (its spawner has a sweep of its own): three runs in a row, each
# unlinked by its tracker (the old sweep left the first run's segment,
# and the second run failed on it: FileExistsError)
run_shm() {
	rm -f "/dev/shm/$SEG"
	"$YS" run --no-store --runs 3 -- "$PY" "$T/shm.py" "$SEG" \
		>"$T/run.out" 2>"$T/run.rep" || { cat "$T/run.rep"; return 1; }
	if [ -e "/dev/shm/$SEG" ]; then
		rm -f "/dev/shm/$SEG"
		echo "the shared memory segment was left in /dev/shm"
		return 1
	fi
	! grep -q "left processes running" "$T/run.rep" || { cat "$T/run.rep"; return 1; }
}
t "run -- multiprocessing spawn, 3 runs: each run's tracker unlinks its shared memory (retried 3x)" \
	retry run_shm
run_stray() {
	"$YS" run --no-store --runs 2 -- sh -c "sleep 300 & $BUSY" \
		>"$T/rs.out" 2>"$T/rs.rep" || { cat "$T/rs.rep"; return 1; }
	# every run (the warm-up's too) left one
	grep -Eq "([2-9]) runs left processes running after the command ended \(\1 in all" "$T/rs.rep" ||
		{ cat "$T/rs.rep"; return 1; }
}
t "run: sleep 300 & is still named and ended, once per run" run_stray

# A background process that ends 10 ms after the program: its work done,
# and no warning.
soon() {
	rm -f "$T/soon"
	"$YS" record -q -o "$T/soon.folded" -- sh -c \
		"(eval \"\$WAIT\"; touch '$T/soon') & $BUSY; exit 0" 2>"$T/soon.rep" ||
		{ cat "$T/soon.rep"; return 1; }
	[ -e "$T/soon" ] && ! grep -q "left .* running" "$T/soon.rep" ||
		{ cat "$T/soon.rep"; return 1; }
}
t "record: a background process that ends by itself just after the program is let to (retried 3x)" \
	retry soon

# One that ignores SIGTERM and ends 300 ms after: done, and named.
cleanup() {
	rm -f "$T/clean"
	"$YS" record -q -o "$T/clean.folded" -- sh -c \
		"(trap '' TERM; eval \"\$WAIT\"; sleep 0.3; touch '$T/clean') & $BUSY; exit 0" \
		2>"$T/clean.rep" || { cat "$T/clean.rep"; return 1; }
	[ -e "$T/clean" ] &&
	grep -q "left 1 process running when it ended" "$T/clean.rep" ||
		{ cat "$T/clean.rep"; return 1; }
}
t "record: a leftover ignoring SIGTERM finishes its clean-up within the grace (retried 3x)" \
	retry cleanup

# sleep 300 &: named, and ended by SIGTERM, without the whole grace.
stray() {
	s=$(date +%s%N)
	"$YS" record -q -o "$T/stray.folded" -- sh -c "sleep 300 & $BUSY; exit 0" \
		2>"$T/stray.rep" || { cat "$T/stray.rep"; return 1; }
	ms=$((($(date +%s%N) - s) / 1000000))
	grep -q "left 1 process running when it ended.*: sleep (pid" "$T/stray.rep" ||
		{ cat "$T/stray.rep"; return 1; }
	# record's own start and report take well under a second
	[ "$ms" -lt 1800 ] || { echo "took $ms ms"; return 1; }
}
t "record: sleep 300 & is named and ended by SIGTERM, not after the grace (retried 3x)" \
	retry stray

# One that ignores SIGTERM forever: killed after the grace, named.
stubborn() {
	"$YS" record -q -o "$T/stub.folded" -- sh -c \
		"(trap '' TERM; exec sleep 300) & echo \$! >'$T/stub.pid'; $BUSY; exit 0" \
		2>"$T/stub.rep" || { cat "$T/stub.rep"; return 1; }
	pid=$(cat "$T/stub.pid")
	grep -q "left 1 process running when it ended.*(pid $pid)" "$T/stub.rep" &&
	! kill -0 "$pid" 2>/dev/null || { cat "$T/stub.rep"; return 1; }
}
t "record: a leftover ignoring SIGTERM forever is killed after the grace" stubborn

finish
