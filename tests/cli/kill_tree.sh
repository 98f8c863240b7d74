# Nothing a program started outlives a yardstick killed with SIGKILL
# (util/keeper.h, measure/spawner_main.c): under every command that runs
# a program, for programs of every shape (a pipeline, workers, a setsid,
# a double fork into the background, orphans two levels down, processes
# that ignore the stop signals), with yardstick killed by its pid (as a
# CI timeout does) or its working process killed (as the OOM killer
# does). The case table is generated: commands x shapes x ways to die.
. "$(dirname "$0")/lib.sh"

# leaf: a process that writes its pid (and start time) to $KT_PIDS and
# sleeps 10 minutes
leaf=$T/leaf.sh
printf '#!/bin/sh\ntrap "" INT TERM HUP\n%s\nexec sleep 600\n' "$NOTE_PID" >"$leaf"
chmod +x "$leaf"

# shape NAME: the program's body; nleaves NAME: the pids it writes (its
# own top shell's included)
shape() {
	case $1 in
	pipeline) echo "$leaf | $leaf" ;;
	workers) echo "$leaf & $leaf & $leaf & wait" ;;
	setsid) echo "setsid $leaf & wait" ;;
	daemon) echo "( setsid $leaf & ) ; $leaf" ;;
	orphans) echo "( ( $leaf & ) & ) ; ( sh -c \"$leaf & exit 0\" ) ; $leaf" ;;
	esac
}
nleaves() {
	case $1 in
	pipeline) echo 3 ;; workers) echo 4 ;; setsid) echo 2 ;;
	daemon) echo 3 ;; orphans) echo 4 ;;
	esac
}

# cmdline CMD DIR: the yardstick command line of CMD writing into DIR
cmdline() {
	case $1 in
	run|run-nospawner) echo "run --runs 1 --warmup 0 --no-store --json $2/r.json --" ;;
	record) echo "record -o $2/p.folded --" ;;
	trace) echo "trace --no-store -o $2/t.json --" ;;
	mem) echo "mem --no-store --json $2/m.json --" ;;
	bench) echo "bench --processes 1 --no-store --json $2/b.json --" ;;
	roofline) echo "roofline --count --runs 1 --no-store --" ;;
	esac
}

# worker YS: yardstick's working process, the one the OOM killer would
# pick: the keeper's child named yardstick, else YS itself (run)
worker() {
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/"$c"/comm 2>/dev/null)" = yardstick ] &&
			{ echo "$c"; return; }
	done
	echo "$1"
}

# killed CMD SHAPE HOW: yardstick CMD on a program of SHAPE, killed with
# SIGKILL (HOW: pid, its pid; worker, its working process; group, its
# process group, yardstick started by setsid) once all the
# program's processes run: it exits 137, and within 30 s none of them is
# left (a loaded machine may take a moment to deliver the kills).
killed() {
	cmd=$1 sh=$2 how=$3
	d=$T/$cmd-$sh-$how
	mkdir -p "$d"
	KT_PIDS=$d/pids
	export KT_PIDS
	printf '#!/bin/sh\n%s\n%s\n' "$NOTE_PID" "$(shape "$sh")" >"$d/prog.sh"
	chmod +x "$d/prog.sh"
	if [ "$cmd" = run-nospawner ]; then
		YARDSTICK_SPAWNER=/nonexistent "$YS" $(cmdline "$cmd" "$d") "$d/prog.sh" \
			</dev/null >"$d/out" 2>"$d/err" &
	elif [ "$how" = group ]; then
		setsid "$YS" $(cmdline "$cmd" "$d") "$d/prog.sh" </dev/null >"$d/out" 2>"$d/err" &
	else
		"$YS" $(cmdline "$cmd" "$d") "$d/prog.sh" </dev/null >"$d/out" 2>"$d/err" &
	fi
	ys=$!
	want=$(nleaves "$sh")
	k=0
	while [ "$(cat "$d/pids" 2>/dev/null | wc -l)" -lt "$want" ] && [ $k -lt 600 ]; do
		sleep 0.05; k=$((k + 1))
	done
	if [ "$(cat "$d/pids" 2>/dev/null | wc -l)" -lt "$want" ]; then
		echo "the program never got its $want processes up"; cat "$d/err"
		kill -9 "$ys"; kill -9 $(alive "$d/pids") 2>/dev/null; return 1
	fi
	victim=$ys
	[ "$how" = worker ] && victim=$(worker "$ys")
	# group: its whole process group at once (timeout -s KILL does so)
	[ "$how" = group ] && victim=-$ys
	kill -9 "$victim"
	wait "$ys"
	rc=$?
	k=0
	while [ -n "$(alive "$d/pids")" ] && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
	left=$(alive "$d/pids")
	if [ -n "$left" ]; then
		echo "still running after yardstick was killed:"
		for p in $left; do ps -o pid=,ppid=,pgid=,sid=,args= -p "$p"; done
		kill -9 $left
		return 1
	fi
	[ "$rc" -eq 137 ] || { echo "exit $rc, expected 137"; cat "$d/err"; return 1; }
}

# (the sanitized build kills one of the two, in turn over the shapes, so
# that each command is still killed both ways: the 65 cases took it 168 s)
kt_shape=0
for cmd in run run-nospawner record trace mem bench roofline; do
	for sh in pipeline workers setsid daemon orphans; do
		kt_shape=$((kt_shape + 1))
		for how in pid worker; do
			# run without a keeper: its pid is its working process
			case $cmd:$how in run:worker) continue ;; esac
			if san_build && [ $cmd != run ]; then
				case $((kt_shape % 2)):$how in 0:pid|1:worker) continue ;; esac
			fi
			t "$cmd, a $sh program, SIGKILL to yardstick's $how: nothing left" \
				killed $cmd $sh $how
		done
	done
done
# run's spawner is in a process group of its own: a SIGKILL of yardstick's
# whole group leaves it to end the commands (with a keeper, the keeper
# dies too: docs/cmd/run.md says what escapes then)
for sh in pipeline daemon orphans; do
	t "run, a $sh program, SIGKILL to yardstick's whole process group: nothing left" \
		killed run $sh group
done

# ---- what the keeper keeps as it was ------------------------------------
# the exit code goes through, a stop signal sent to the pid goes on to
# yardstick, what a program leaves at its normal end is still named and
# given its grace (child_sweep)
busy='i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
t "record: the program's exit status comes back through the keeper" \
	sh -c '"$YS" record -o "$T/x.folded" -- sh -c "$1; exit 3" 2>"$T/x.err";
	[ $? -eq 1 ] && grep -q "the program exited with status 3" "$T/x.err"' sh "$busy"
t "record: the program's leftovers still named at its end" \
	sh -c '"$YS" record -o "$T/y.folded" -- sh -c "sleep 30 & $1" 2>"$T/y.err" >/dev/null &&
	grep -q "left 1 process running when it ended.*sleep (pid" "$T/y.err"' sh "$busy"
stopped() {
	KT_PIDS=$T/stop.pids
	export KT_PIDS
	"$YS" mem --no-store --json "$T/stop.json" -- "$leaf" </dev/null >"$T/stop.out" 2>"$T/stop.err" &
	ys=$!
	k=0
	while [ ! -s "$KT_PIDS" ] && [ $k -lt 600 ]; do sleep 0.05; k=$((k + 1)); done
	kill -TERM "$ys"
	wait "$ys"
	rc=$?
	[ "$rc" -eq 143 ] || { echo "exit $rc, expected 143"; cat "$T/stop.err"; return 1; }
	grep -q "stopped by SIGTERM" "$T/stop.err" || { cat "$T/stop.err"; return 1; }
	[ -z "$(alive "$KT_PIDS")" ] || { echo "left: $(alive "$KT_PIDS")"; return 1; }
}
t "mem: SIGTERM to the keeper's pid stops yardstick as before (143, partial)" stopped

# ---- the pid files themselves ----------------------------------------------
# alive names a process of the pid file that runs, and not the one that got
# its pid again (another start time) nor a thread of another process whose
# id is an old pid (kill(2) of it fails: ESRCH)
reused() {
	KT_PIDS=$T/reuse.pids
	rm -f "$KT_PIDS" "$KT_PIDS.wrong"
	sh -c "$NOTE_PID; exec sleep 30" &
	live=$!
	python3 -c 'import threading, time; threading.Thread(target=time.sleep, args=(30,)).start(); time.sleep(30)' &
	py=$!
	k=0
	while [ ! -s "$KT_PIDS" ] || [ "$(ls /proc/$py/task | wc -l)" -lt 2 ]; do
		sleep 0.05; k=$((k + 1)); [ $k -lt 200 ] || break
	done
	tid=$(ls /proc/$py/task | grep -vx "$py" | head -1)
	echo "$live 1" >>"$KT_PIDS.wrong"
	echo "$tid $(started "$tid")" >>"$KT_PIDS.wrong"
	got=$(alive "$KT_PIDS") wrong=$(alive "$KT_PIDS.wrong")
	kill "$live" "$py"
	[ "$got" = "$live" ] || { echo "alive: '$got', expected $live"; return 1; }
	[ -n "$tid" ] && [ -z "$wrong" ] || { echo "alive took '$wrong' (thread $tid)"; return 1; }
}
t "alive: a pid given again to another process, or a thread's id, is not the fixture's" reused

finish
