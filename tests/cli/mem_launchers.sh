# yardstick mem keeps what runs in front of the program apart from it
# (issue 30's leftovers, item 1): the program is the last image of the
# process yardstick started and every process that image started; the
# images before it (the pyenv shim, a wrapper script that execs, env,
# nice) and every process they started are launchers, named in one line
# and counted nowhere else. Checked against independent figures: the
# fixtures' own by-line sizes (sys.getsizeof, with PYTHONMALLOC=malloc),
# and mem of the same interpreter run directly, without the launchers.
# The real pyenv shim of this machine (~/.pyenv/shims/python3) when it is
# there, a wrapper script, sh -c with and without exec, multiprocessing.
. "$(dirname "$0")/lib.sh"
FIXD=$(cd "$(dirname "$0")/../fixtures/py" && pwd)
PY=/usr/bin/python3.11
SHIM=${PYENV_ROOT:-/root/.pyenv}/shims/python3
# meson's MALLOC_PERTURB_ makes PYTHONMALLOC=malloc runs take minutes
unset MALLOC_PERTURB_

# python3 "$C" FIXTURE.py EXPECT.json SPEEDSCOPE.json: every figure of
# EXPECT at the fixture's lines (mem_byline.py)
C=$(dirname "$0")/mem_byline.py

# metric FILE NAME: a metric's value in a result of kind mem
metric() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["benchmarks"][0]["metrics"][sys.argv[2]]["values"][0])' "$1" "$2"
}

# memfix NAME PROGRAM...: mem of PROGRAM... memfix.py, exact by line; the
# report in $T/NAME.report, the result in $T/NAME.result.json
memfix() {
	name=$1
	shift
	"$YS" mem --no-store --json "$T/$name.result.json" \
		-o "$T/$name.speedscope.json" -o "$T/$name.folded" -- "$@" \
		"$FIXD/memfix.py" "$T/$name.json" 2>"$T/$name.report" ||
		{ cat "$T/$name.report"; return 1; }
	python3 "$C" memfix.py "$T/$name.json" "$T/$name.speedscope.json" ||
		{ cat "$T/$name.report"; return 1; }
}

# no_launcher NAME WORD...: no frame, site or process of the launchers:
# none of the words in the report's sites and processes nor in the
# folded stacks
no_launcher() {
	name=$1
	shift
	for word in "$@"; do
		if grep -F -- "$word" "$T/$name.folded" | head -3 | grep -q .; then
			echo "'$word' in the folded stacks:"
			grep -F -- "$word" "$T/$name.folded" | head -3
			return 1
		fi
		if sed '/^  not counted: /d' "$T/$name.report" | grep -qF -- "$word"; then
			echo "'$word' in the report:"
			cat "$T/$name.report"
			return 1
		fi
	done
}

# close A B TOLERANCE: |A - B| <= TOLERANCE * B
close() {
	python3 -c 'import sys; a, b, t = map(float, sys.argv[1:]); print(a, b); sys.exit(abs(a - b) > t * b)' "$@"
}

# The real pyenv shim: a bash script that runs pyenv's helpers (about 40
# processes of bash, readlink, basename) and then execs the interpreter.
# Its figures are the interpreter's run directly: the allocations,
# bytes, peak and leaks within 0.5% (the shim's environment, PYENV_* and
# a longer PATH, is Python's to read at start: a few allocations of a
# few dozen bytes); the launchers named and counted in one line.
shim() {
	real=$(PYENV_VERSION= "$SHIM" -c 'import sys; print(sys.executable)') ||
		return 1
	memfix shim "$SHIM" && memfix direct "$real" || return 1
	no_launcher shim "[bash]" "[readlink]" "pyenv-" "xmalloc" || return 1
	grep -Eq "^  not counted: ([1-9][0-9]+) launcher processes and [0-9]+ images? the program's process exec'd away from \(.*bash: pyenv.*; [0-9,]+ allocations\); --all-processes to include$" \
		"$T/shim.report" || { cat "$T/shim.report"; return 1; }
	! grep -q "^processes" "$T/shim.report" || return 1
	for m in allocations bytes_allocated peak_heap leaked_bytes; do
		close "$(metric "$T/shim.result.json" $m)" \
		      "$(metric "$T/direct.result.json" $m)" 0.005 ||
			{ echo "$m differs"; return 1; }
	done
	# the size histogram: the program's alone, its sum the allocations
	python3 - "$T/shim.report" <<'PY'
import re, sys
rep = open(sys.argv[1]).read()
allocs = int(re.search(r"allocations +([\d,]+)", rep).group(1).replace(",", ""))
sizes = rep.split("allocation sizes")[1].split("\n\n")[0]
counts = [int(m.replace(",", "")) for m in re.findall(r"%\s+([\d,]+)", sizes)]
pct = [float(p) for p in re.findall(r"([\d.]+)%", sizes)]
print(allocs, sum(counts), sum(pct))
sys.exit(not (sum(counts) == allocs and 99 < sum(pct) < 101))
PY
}
if [ -x "$SHIM" ]; then
	t "pyenv shim: python3 memfix.py exact by line, its figures the interpreter's run directly, the launchers one line" shim
else
	skip "pyenv shim: the interpreter's figures" "no pyenv shim here"
fi

# --all-processes: the launchers counted as before, every process listed
all_procs() {
	"$YS" mem --no-store --all-processes -- "$SHIM" -c pass \
		2>"$T/all.report" || return 1
	has "$T/all.report" "[bash]" &&
	! grep -q "not counted" "$T/all.report" &&
	np=$(sed -n 's/^processes (\([0-9]*\);.*/\1/p' "$T/all.report") &&
	[ "${np:-0}" -ge 10 ] || { cat "$T/all.report"; return 1; }
}
if [ -x "$SHIM" ]; then
	t "--all-processes: the shim's processes counted and listed" all_procs
else
	skip "--all-processes" "no pyenv shim here"
fi

# A wrapper script (its helpers: a command substitution, tr, date), then
# exec "$@"; env and nice in front; sh -c '...; exec': each exact by
# line, each launcher out of the sites and processes, and the figures
# those of python3.11 run directly.
cat > "$T/wrap.sh" <<'SH'
#!/bin/sh
x=$(echo hello | tr a-z A-Z)
date > /dev/null
exec "$@"
SH
chmod +x "$T/wrap.sh"
wrappers() {
	memfix plain "$PY" || return 1
	for w in wrap env sh; do
		case $w in
		wrap) memfix $w "$T/wrap.sh" "$PY" ;;
		env) memfix $w env nice "$PY" ;;
		sh) memfix $w sh -c 'ls / | sort >/dev/null; exec "$@"' sh "$PY" ;;
		esac || return 1
		no_launcher $w "[tr]" "[date]" "[ls]" "[sort]" "[env]" \
			"[nice]" "[dash]" || return 1
		has "$T/$w.report" "  not counted: " || return 1
		for m in allocations bytes_allocated peak_heap leaked_bytes; do
			close "$(metric "$T/$w.result.json" $m)" \
			      "$(metric "$T/plain.result.json" $m)" 0.005 ||
				{ echo "$w: $m differs"; return 1; }
		done
	done
}
t "a wrapper script, env nice, sh -c '...; exec': the program's figures alone" wrappers

# Generated chains of launchers (seed printed): 1 to 4 layers drawn from
# env, nice, the wrapper script, sh -c with helpers then exec, a chain of
# two execs; each chain's figures python3.11's run directly.
seed=${MEM_LAUNCH_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "# launcher chains: seed $seed (MEM_LAUNCH_SEED=$seed to repeat)"
chains() {
	python3 - "$seed" "$T/wrap.sh" >"$T/chains" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
layers = ["env", "nice -n 1", sys.argv[2],
          "sh -c 'cat /dev/null | wc -c >/dev/null; exec \"$@\"' sh",
          "sh -c 'exec env \"$@\"' sh"]
for _ in range(4):
    print(" ".join(rng.choice(layers) for _ in range(rng.randint(1, 4))))
PY
	i=0
	while read -r chain; do
		i=$((i + 1))
		echo "# chain $i: $chain"
		eval "memfix chain$i $chain \"\$PY\"" || return 1
		has "$T/chain$i.report" "  not counted: " || return 1
		! grep -q "^processes" "$T/chain$i.report" || return 1
		for m in allocations bytes_allocated peak_heap leaked_bytes; do
			close "$(metric "$T/chain$i.result.json" $m)" \
			      "$(metric "$T/plain.result.json" $m)" 0.005 ||
				{ echo "chain $i: $m differs"; return 1; }
		done
	done <"$T/chains"
}
t "generated chains of launchers: the program's figures alone" chains

# A program that re-execs itself (heapfix execself: 5 blocks of 999
# bytes before its exec) is one program: its image before the exec is
# counted, behind a wrapper script too, whose sh is not.
reexec() {
	for how in plain wrapped; do
		set -- "$HEAPFIX" execself
		[ $how = wrapped ] && set -- "$T/wrap.sh" "$@"
		"$YS" mem --no-store --json "$T/rx-$how.json" \
			-o "$T/rx-$how.folded" --cost allocations -- "$@" \
			2>"$T/rx-$how.report" || return 1
		grep -q "before_exec 5$" "$T/rx-$how.folded" ||
			{ cat "$T/rx-$how.folded"; return 1; }
	done
	! grep -q "not counted" "$T/rx-plain.report" &&
	grep -q "not counted: .*(sh: wrap.sh" "$T/rx-wrapped.report" &&
	[ "$(metric "$T/rx-plain.json" allocations)" = \
	  "$(metric "$T/rx-wrapped.json" allocations)" ] ||
		{ cat "$T/rx-wrapped.report"; return 1; }
}
t "a program that re-execs itself: its image before the exec counted, the wrapper's not" reexec

# What the user ran on purpose stays counted: sh -c 'a | b' (no exec)
# counts both sides, python3.11 exact by line in the pipe, sort listed.
pipeline() {
	"$YS" mem --no-store -o "$T/pipe.speedscope.json" -- sh -c \
		'"$0" "$1" "$2" | sort >/dev/null' "$PY" "$FIXD/memfix.py" \
		"$T/pipe.json" 2>"$T/pipe.report" || return 1
	python3 "$C" memfix.py "$T/pipe.json" "$T/pipe.speedscope.json" &&
	! grep -q "not counted" "$T/pipe.report" &&
	grep -q "  sort (forked)$" "$T/pipe.report" &&
	grep -q " python3.11 .*(forked)$" "$T/pipe.report" ||
		{ cat "$T/pipe.report"; return 1; }
}
t "sh -c 'a | b': both counted, python exact by line, sort listed" pipeline

# A real multiprocessing program behind the shim: the children it
# spawns and forks are the program's (started by its final image), each
# exact by line and listed; the shim's helpers are not.
mp() {
	mode=$1
	"$YS" mem --no-store -o "$T/mp-$mode.speedscope.json" -- "$SHIM" \
		"$FIXD/memchildren.py" "$T/mp-$mode.json" "$mode" 3 \
		2>"$T/mp-$mode.report" || return 1
	python3 "$C" memchildren.py "$T/mp-$mode.json" \
		"$T/mp-$mode.speedscope.json" || { cat "$T/mp-$mode.report"; return 1; }
	python3 - "$T/mp-$mode.json" "$T/mp-$mode.report" <<'PY'
import json, re, sys
ex = json.load(open(sys.argv[1]))
rep = open(sys.argv[2]).read()
pids = {int(p) for p in re.findall(r"^ +(\d+) +\d+ +[\d,]+ ", rep, re.M)}
missing = [p for p in ex["pids"] if p not in pids]
n = int(re.search(r"^processes \((\d+);", rep, re.M).group(1))
# the program and its children; the resource tracker and spawn's
# forkserver-less helpers at most 2 more: no shim helper among them
ok = not missing and len(ex["pids"]) + 1 <= n <= len(ex["pids"]) + 3
rest = re.sub(r"^  not counted: .*\n", "", rep, flags=re.M)
ok = ok and "[bash]" not in rest and "readlink" not in rest
ok = ok and re.search(r"^  not counted: \d+ launcher processes", rep, re.M)
print("missing", missing, "processes", n, "children", len(ex["pids"]))
sys.exit(not ok)
PY
}
if [ -x "$SHIM" ]; then
	t "multiprocessing fork behind the shim: children counted, helpers not" mp fork
	t "multiprocessing spawn behind the shim: children counted, helpers not" mp spawn
else
	skip "multiprocessing fork behind the shim" "no pyenv shim here"
	skip "multiprocessing spawn behind the shim" "no pyenv shim here"
fi

finish
