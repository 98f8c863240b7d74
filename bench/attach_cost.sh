#!/bin/sh
# bench/attach_cost.sh YS [BASE]: the cost of `record --pid`'s attach to a
# process of 4000 threads asleep (tests/fixtures/stormfix, its storm a
# thread a second): `YS record --pid P --duration 0.05`, 9 times, its CPU
# time (user + system, s: the events opened, one per thread and CPU, and
# the threads' lists) and wall time, the medians; with BASE, BASE's too,
# interleaved run by run (the threads asleep give no sample: record exits
# 1, said so; its time is what counts). From the top of a build tree;
# scratch in /tmp.
d=${TMPDIR:-/tmp}
rm -f $d/ys-cost-ready
build/tests/fixtures/stormfix $d/ys-cost-ready $d/ys-cost-rep 4000 0 0.05 1000 &
P=$!
while [ ! -e $d/ys-cost-ready ]; do sleep 0.05; done
for i in 1 2 3 4 5 6 7 8 9; do
	for ys in "$@"; do
		/usr/bin/time -f "$ys %U %S %e" -o $d/ys-cost-t "$ys" record \
			--pid $P --duration 0.05 -o $d/ys-cost.folded 2>/dev/null
		tail -n 1 $d/ys-cost-t
	done
done | python3 -c '
import sys
r = {}
for l in sys.stdin:
    ys, u, s, e = l.split()
    r.setdefault(ys, []).append((float(u) + float(s), float(e)))
for ys, v in r.items():
    cpu = sorted(x[0] for x in v)
    wall = sorted(x[1] for x in v)
    print("%s: CPU median %.3f s (min %.3f, max %.3f), wall median %.3f s" %
          (ys, cpu[len(cpu) // 2], cpu[0], cpu[-1], wall[len(wall) // 2]))
'
kill $P
wait $P 2>/dev/null
:
