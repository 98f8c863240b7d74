# yardstick run: what it measures, checked against fixtures of known
# behaviour. Timing bounds are loose: tests must not need a quiet machine.
. "$(dirname "$0")/lib.sh"

# --- counts: exactly N runs, warmups, prepare and cleanup -------------
t "--runs 7 --warmup 2 runs the command 9 times" sh -c '
	"$YS" run -q --runs 7 --warmup 2 --json "$T/c.json" -- "$YSFIX" count "$T/count" &&
	[ "$(wc -l < "$T/count")" -eq 9 ]'
t "the JSON has 7 values and 7 exit codes" py "
d = load('$T/c.json'); b = d['benchmarks'][0]
assert d['schema'] == 'yardstick/result/v1', d['schema']
assert d['kind'] == 'run'
assert len(b['metrics']['wall_time']['values']) == 7
assert b['exit_codes'] == [0] * 7
assert d['settings']['runs'] == 7 and d['settings']['warmup'] == 2"
t "default warm-up: one run, none with --runs 1 unless -w is given" sh -c '
	"$YS" run -q --no-store --runs 3 -- "$YSFIX" count "$T/w3" &&
	[ "$(wc -l < "$T/w3")" -eq 4 ] &&
	"$YS" run -q --no-store --runs 1 --json "$T/w1.json" -- "$YSFIX" count "$T/w1" &&
	[ "$(wc -l < "$T/w1")" -eq 1 ] &&
	grep -q "\"warmup\": *0" "$T/w1.json" &&
	"$YS" run -q --no-store --runs 1 -w 1 -- "$YSFIX" count "$T/w1w" &&
	[ "$(wc -l < "$T/w1w")" -eq 2 ]'
# the warm-up runs' wall times are kept apart: the first run (a warm-up)
# sleeps 0.3 s, the others do not
t "warm-up wall times kept apart in warmup_wall_time" sh -c '
	"$YS" run -q --runs 3 --warmup 2 --json "$T/w.json" -- sh -c "[ -e $T/cold ] || { touch $T/cold; sleep 0.3; }" &&
	"$YS" run -q --runs 2 --warmup 0 --json "$T/w0.json" -- "$YSFIX" exit 0 &&
	"$YS" run -q --runs 2 --warmup 1 --shell --json "$T/ws.json" "$YSFIX exit 0" &&
	python3 -c "
import json
b = json.load(open(\"$T/w.json\"))[\"benchmarks\"][0]
w = b[\"warmup_wall_time\"]
assert len(w) == 2 and w[0] >= 0.3 and len(b[\"metrics\"][\"wall_time\"][\"values\"]) == 3, b
assert \"warmup_wall_time\" not in json.load(open(\"$T/w0.json\"))[\"benchmarks\"][0]
ws = json.load(open(\"$T/ws.json\"))[\"benchmarks\"][0][\"warmup_wall_time\"]
assert len(ws) == 1 and ws[0] >= 0, ws"'
t "--prepare runs before every run, warmups included" sh -c '
	"$YS" run -q --runs 4 --warmup 1 --prepare "echo p >> $T/prep" -- "$YSFIX" exit 0 &&
	[ "$(wc -l < "$T/prep")" -eq 5 ]'
t "--cleanup runs once after each command's runs" sh -c '
	"$YS" run -q --runs 3 --cleanup "echo c >> $T/clean" "$YSFIX exit 0" "$YSFIX sleep 1" &&
	[ "$(wc -l < "$T/clean")" -eq 2 ]'
t "adaptive: at least --min-runs" sh -c '
	"$YS" run -q --min-runs 12 --min-time 0 --warmup 0 -- "$YSFIX" count "$T/ad" &&
	[ "$(wc -l < "$T/ad")" -eq 12 ]'
t "adaptive: at most --max-runs" sh -c '
	"$YS" run -q --min-runs 2 --max-runs 5 --min-time 100 --warmup 0 -- "$YSFIX" count "$T/mx" &&
	[ "$(wc -l < "$T/mx")" -eq 5 ]'
t "adaptive: runs until --min-time is reached" sh -c '
	"$YS" run -q --min-runs 1 --min-time 0.2 --warmup 0 --json "$T/mt.json" -- "$YSFIX" sleep 20 &&
	python3 -c "
import json; v = json.load(open(\"$T/mt.json\"))[\"benchmarks\"][0][\"metrics\"][\"wall_time\"][\"values\"]
assert sum(v) >= 0.2 and sum(v) - v[-1] < 0.2, (len(v), sum(v))"'

# --- interleaving ------------------------------------------------------
t "interleaved by default: rounds run each command once" sh -c '
	"$YS" run -q --runs 6 --warmup 0 "sh -c \"echo a >> $T/il\"" "sh -c \"echo b >> $T/il\"" &&
	python3 -c "
s = open(\"$T/il\").read().split()
assert len(s) == 12, s
for r in range(6): assert sorted(s[2*r:2*r+2]) == [\"a\", \"b\"], s
assert s != [\"a\"] * 6 + [\"b\"] * 6"'
t "--order sequential runs all of one command first" sh -c '
	"$YS" run -q --runs 5 --warmup 0 --order sequential "sh -c \"echo a >> $T/sq\"" "sh -c \"echo b >> $T/sq\"" &&
	[ "$(tr -d "\n" < "$T/sq")" = aaaaabbbbb ]'

# --- what is measured --------------------------------------------------
t "wall time of a 30 ms sleep" sh -c '
	"$YS" run -q --runs 5 --json "$T/s.json" -- "$YSFIX" sleep 30 &&
	python3 -c "
import json; b = json.load(open(\"$T/s.json\"))[\"benchmarks\"][0]; m = b[\"metrics\"]
assert 0.030 <= m[\"wall_time\"][\"median\"] < 60, m[\"wall_time\"]
assert m[\"user_time\"][\"median\"] + m[\"system_time\"][\"median\"] < 0.02
assert m[\"wall_time\"][\"min\"] <= m[\"wall_time\"][\"median\"] <= m[\"wall_time\"][\"max\"]
for k in [\"mean\",\"stddev\",\"min\",\"max\",\"median\",\"mad\",\"p90\",\"p95\",\"p99\",\"mean_ci\",\"median_ci\",\"outliers\"]:
    assert k in m[\"wall_time\"], k
lo, hi = m[\"wall_time\"][\"median_ci\"]; assert lo <= m[\"wall_time\"][\"median\"] <= hi"'
t "peak RSS is per run: 64 MiB then a small command" sh -c '
	"$YS" run -q --runs 3 --order sequential --json "$T/rss.json" "$YSFIX touch 64" "$YSFIX exit 0" &&
	python3 -c "
import json; d = json.load(open(\"$T/rss.json\"))
big, small = [b[\"metrics\"][\"peak_rss\"] for b in d[\"benchmarks\"]]
assert big[\"min\"] >= 64 * 2**20, big
assert small[\"max\"] < 16 * 2**20, small
assert d[\"benchmarks\"][0][\"metrics\"][\"minor_faults\"][\"min\"] >= 16384"'
# Peak RSS from the spawner: a command's own, not yardstick's. Before it,
# everything below yardstick's peak (~6 MiB) reported yardstick's peak.
FIXDIR=$(dirname "$YSFIX")
export FIXDIR
# yardstick's own peak, read by --prepare: the first ancestor named
# yardstick (the spawner, perhaps a shell, are in between).
cat > "$T/hwm.sh" <<'EOF'
#!/bin/sh
p=$$
while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != yardstick ]; do
	p=$(awk '/^PPid:/ { print $2 }' /proc/$p/status)
done
[ "$p" -gt 1 ] && awk '/^VmHWM:/ { print $2 }' /proc/$p/status >> "$1"
EOF
chmod +x "$T/hwm.sh"
# Its own: what GNU time (a small parent) reports for it, and below
# yardstick's own peak (which, with the libraries loaded on first need, is
# only a few MiB itself).
t "peak RSS of a command as small as true is its own, below yardstick's" sh -c '
	"$YS" run -q --runs 3 --warmup 0 --prepare "$T/hwm.sh $T/hwm" --json "$T/small.json" -- "$YSFIX" exit 0 &&
	hwm=$(sort -n "$T/hwm" | tail -1) && [ -n "$hwm" ] &&
	ref=$(for i in 1 2 3; do /usr/bin/time -f %M "$YSFIX" exit 0 2>&1; done | sort -n | sed -n 2p) &&
	python3 -c "
import json; m = json.load(open(\"$T/small.json\"))[\"benchmarks\"][0][\"metrics\"][\"peak_rss\"]
hwm, ref = $hwm * 1024, $ref * 1024
assert None not in m[\"values\"], m
assert 0.25 * 2**20 < m[\"max\"] < 3 * 2**20, m
assert m[\"max\"] < hwm, (m, hwm)
assert abs(m[\"median\"] - ref) <= max(0.25 * ref, 512 * 1024), (m, ref)"'
t "peak RSS of a program touching 2 MiB: 2 MiB and its start-up" sh -c '
	"$YS" run -q --runs 3 --json "$T/two.json" -- "$FIXDIR/rssfix" 2 &&
	python3 -c "
import json; m = json.load(open(\"$T/two.json\"))[\"benchmarks\"][0][\"metrics\"][\"peak_rss\"]
assert 2 * 2**20 <= m[\"min\"] <= m[\"max\"] < 3.5 * 2**20, m"'
t "a program smaller than the spawner: peak RSS not measured, and said so" sh -c '
	"$FIXDIR/tinyfix"; [ $? -ne 77 ] || exit 0
	"$YS" run --runs 3 --json "$T/tiny.json" -- "$FIXDIR/tinyfix" >/dev/null 2>"$T/tiny.err" &&
	grep -q "peak RSS not measured in 3 of 3 runs: it is at most [0-9]* KiB" "$T/tiny.err" &&
	python3 -c "
import json; b = json.load(open(\"$T/tiny.json\"))[\"benchmarks\"][0]
assert b[\"metrics\"][\"peak_rss\"][\"values\"] == [None] * 3, b[\"metrics\"][\"peak_rss\"]
assert b[\"metrics\"][\"wall_time\"][\"n\"] == 3"'
t "no spawner: a warning, and peak RSS below yardstick's own not measured" sh -c '
	YARDSTICK_SPAWNER=/nonexistent "$YS" run -q --runs 2 --order sequential --json "$T/nosp.json" "$YSFIX exit 0" "$YSFIX touch 64" 2>"$T/nosp.err" &&
	grep -q "warning: YARDSTICK_SPAWNER: cannot execute .*/nonexistent" "$T/nosp.err" &&
	python3 -c "
import json; small, big = json.load(open(\"$T/nosp.json\"))[\"benchmarks\"]
assert small[\"metrics\"][\"peak_rss\"][\"values\"] == [None] * 2, small[\"metrics\"][\"peak_rss\"]
assert any(\"peak RSS not measured\" in w for w in small[\"warnings\"])
assert big[\"metrics\"][\"peak_rss\"][\"min\"] >= 64 * 2**20"'
t "user time of a 100 ms spin" sh -c '
	"$YS" run -q --runs 3 --json "$T/spin.json" -- "$YSFIX" spin 100 &&
	python3 -c "
import json; m = json.load(open(\"$T/spin.json\"))[\"benchmarks\"][0][\"metrics\"]
assert m[\"user_time\"][\"median\"] + m[\"system_time\"][\"median\"] >= 0.09, m[\"user_time\"]"'
t "counters: task clock and page faults of the child and its children" sh -c '
	"$YS" run -q --runs 3 -e task-clock,page-faults,cycles,instructions,flops --json "$T/ctr.json" -- "$YSFIX" fork-touch 32 &&
	python3 -c "
import json; b = json.load(open(\"$T/ctr.json\"))[\"benchmarks\"][0]; m = b[\"metrics\"]
assert m[\"page_faults\"][\"min\"] >= 8192, m[\"page_faults\"]
assert m[\"page_faults\"][\"max\"] < 8192 + 4000, m[\"page_faults\"]
assert 0 < m[\"task_clock\"][\"median\"] <= m[\"wall_time\"][\"median\"] * 1.5
for c in [\"cycles\", \"instructions\", \"flops\"]:
    assert (c in m and m[c][\"min\"] > 0) or c in b[\"unsupported\"], c
for c in b[\"unsupported\"]: assert c not in m or not m[c][\"values\"], c"'
# perf counters cannot follow a program that changes credentials at its
# exec (the kernel stops them there): set-user-ID to another user,
# set-group-ID, file capabilities, one we cannot read, a script whose #!
# interpreter is one — named unsupported with the reason, not reported
# as the near-zero counts they would show. As root here, the copies are
# run by nobody (setpriv), from a directory nobody can reach.
# (setpriv and setcap are installed by scripts/deps.sh test)
if [ "$(id -u)" -eq 0 ]; then
	S=$(mktemp -d /tmp/ys-suid-XXXXXX); chmod 755 "$S"; mkdir "$S/out"; chmod 777 "$S/out"
	export S
	for kind in suid sgid caps noread env; do
		cp "$YSFIX" "$S/ysfix-$kind"; chmod 755 "$S/ysfix-$kind"
	done
	chmod 4755 "$S/ysfix-suid" "$S/ysfix-env"; chgrp 0 "$S/ysfix-sgid"; chmod 2755 "$S/ysfix-sgid"
	setcap cap_net_raw+ep "$S/ysfix-caps"; chmod 711 "$S/ysfix-noread"
	cp /bin/sh "$S/sh-suid"; chmod 4755 "$S/sh-suid"
	printf "#!%s\nexec \"\$@\"\n" "$S/sh-suid" > "$S/ysfix-script"; chmod 755 "$S/ysfix-script"
	for kind in suid sgid caps noread script; do
		arg=; [ $kind = script ] && arg=$YSFIX
		t "counters of a $kind program: unsupported, with the reason" sh -c '
			setpriv --reuid=nobody --regid=nogroup --clear-groups "$YS" run -q --no-store --runs 2 -e task-clock --json "$S/out/'$kind'.json" -- "$S/ysfix-'$kind'" '$arg' touch 8 &&
			python3 -c "
import json; b = json.load(open(\"$S/out/'$kind'.json\"))[\"benchmarks\"][0]; m = b[\"metrics\"]
for c in [\"task_clock\"]:
    assert c in b[\"unsupported\"] and c not in m, (c, b[\"unsupported\"], list(m))
assert m[\"minor_faults\"][\"min\"] >= 2048, m[\"minor_faults\"]
w = [x for x in b[\"warnings\"] if x.startswith(\"perf counters cannot follow this command: \")]
assert w and (\"ysfix-'$kind'\" in w[0] or \"sh-suid\" in w[0]), b[\"warnings\"]"'
	done
	t "counters of a command that execs a set-user-ID program: unsupported, seen after the runs" sh -c '
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$YS" run -q --no-store --runs 3 -e task-clock --json "$S/out/env.json" -- env "$S/ysfix-env" spin 20 &&
		python3 -c "
import json; b = json.load(open(\"$S/out/env.json\"))[\"benchmarks\"][0]; m = b[\"metrics\"]
assert \"task_clock\" in b[\"unsupported\"] and \"task_clock\" not in m, b
assert any(\"its task clock counted\" in x for x in b[\"warnings\"]), b[\"warnings\"]"'
	t "as root, a set-user-ID root program is counted" sh -c '
		"$YS" run -q --runs 2 -e page-faults --json "$S/root.json" -- "$S/ysfix-suid" touch 8 &&
		python3 -c "
import json; b = json.load(open(\"$S/root.json\"))[\"benchmarks\"][0]
assert b[\"metrics\"][\"page_faults\"][\"min\"] >= 2048, b"'
	rm -rf "$S"
fi
t "hardware paths on an emulated PMU: IPC per run, flops, no unsupported" sh -c '
	YARDSTICK_EMULATE_PMU=1 "$YS" run -q --runs 4 --json "$T/emu.json" -- "$YSFIX" touch 8 &&
	python3 -c "
import json; b = json.load(open(\"$T/emu.json\"))[\"benchmarks\"][0]; m = b[\"metrics\"]
assert b[\"unsupported\"] == [], b[\"unsupported\"]
cy, ins = m[\"cycles\"][\"values\"], m[\"instructions\"][\"values\"]
assert len(cy) == len(ins) == 4
assert m[\"ipc\"][\"values\"] == [i / c for i, c in zip(ins, cy)], m[\"ipc\"]
assert m[\"flops\"][\"values\"] == [5 * i for i in ins], m[\"flops\"]
assert min(ins) >= 2048 and m[\"ipc\"][\"unit\"] == \"ratio\"
assert any(\"emulated\" in w for w in b[\"warnings\"])"'
t "default counters: not page faults, context switches, cpu migrations, which -e names" sh -c '
	"$YS" run -q --no-store --runs 2 --json "$T/dflt.json" -- "$YSFIX" touch 8 &&
	"$YS" run -q --no-store --runs 2 -e page-faults,context-switches,cpu-migrations --json "$T/dflt2.json" -- "$YSFIX" touch 8 &&
	python3 -c "
import json; b = json.load(open(\"$T/dflt.json\"))[\"benchmarks\"][0]; m = b[\"metrics\"]
hw = [c for c in [\"cycles\", \"instructions\", \"branches\", \"branch_misses\", \"cache_references\", \"cache_misses\", \"flops\"] if c in m]
assert (\"task_clock\" in m) == bool(hw), list(m)
assert \"task_clock\" not in b[\"unsupported\"], b[\"unsupported\"]
for c in [\"page_faults\", \"context_switches\", \"cpu_migrations\"]:
    assert c not in m and c not in b[\"unsupported\"], (c, list(m))
assert m[\"minor_faults\"][\"min\"] >= 2048
m = json.load(open(\"$T/dflt2.json\"))[\"benchmarks\"][0][\"metrics\"]
assert list(m)[8:] == [\"page_faults\", \"context_switches\", \"cpu_migrations\"], list(m)
assert m[\"page_faults\"][\"min\"] >= 2048, m[\"page_faults\"]"'
# The first per-task perf event on a machine with none open waits for the
# kernel to switch its scheduler hooks on (5-20 ms against a 1 ms
# command): where no hardware event opens, the defaults open nothing, not
# even the hold of those hooks (measure/counters.c). Every
# perf_event_open that succeeds is seen by strace.
t "default counters: no perf event at all where no hardware counter opens" sh -c '
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=perf_event_open -o "$T/pe.trace" \
		"$YS" run -q --no-store --runs 2 --json "$T/pe.json" -- "$YSFIX" exit 0 &&
	python3 -c "
import json, re
b = json.load(open(\"$T/pe.json\"))[\"benchmarks\"][0]; m = b[\"metrics\"]
calls = [l for l in open(\"$T/pe.trace\") if \"perf_event_open(\" in l]
opened = [l for l in calls if re.search(r\"= [0-9]+\\s*$\", l)]
assert calls, \"strace saw no perf_event_open\"
if \"cycles\" in b[\"unsupported\"] and \"instructions\" in b[\"unsupported\"]:
    assert not opened, opened
    assert \"task_clock\" not in m, list(m)
    assert all(\"PERF_TYPE_HARDWARE\" in l or \"type=0,\" in l for l in calls), calls
else:
    assert opened and \"task_clock\" in m, (opened, list(m))"'
t "--events picks events" sh -c '
	"$YS" run -q --runs 2 --events task-clock,page-faults --json "$T/ev.json" -- "$YSFIX" exit 0 &&
	python3 -c "
import json; m = json.load(open(\"$T/ev.json\"))[\"benchmarks\"][0][\"metrics\"]
assert \"task_clock\" in m and \"page_faults\" in m and \"context_switches\" not in m, list(m)"'
t "--no-counters measures rusage only" sh -c '
	"$YS" run -q --runs 2 --no-counters --json "$T/nc.json" -- "$YSFIX" exit 0 &&
	python3 -c "
import json; m = json.load(open(\"$T/nc.json\"))[\"benchmarks\"][0][\"metrics\"]
assert \"task_clock\" not in m and \"peak_rss\" in m"'

# --- several commands: names, comparison --------------------------------
# A busy machine adds to every run, never takes away: the bounds are the
# sleeps themselves, and the verdict needs only the slow runs to be slower.
t "comparison: 10 ms vs 200 ms sleep is slower" sh -c '
	"$YS" run --runs 10 -n fast -n slow --json "$T/cmp.json" "$YSFIX sleep 10" "$YSFIX sleep 200" > "$T/cmp.txt" &&
	/usr/bin/python3 -c "
import json; d = json.load(open(\"$T/cmp.json\")); c = d[\"comparisons\"][0]
from scipy.stats.mstats import hdquantiles
fast, slow = [float(hdquantiles(b[\"metrics\"][\"wall_time\"][\"values\"], [0.5])[0]) for b in d[\"benchmarks\"]]
assert c[\"baseline\"] == \"fast\" and c[\"candidate\"] == \"slow\" and c[\"metric\"] == \"wall_time\"
assert c[\"verdict\"] == \"slower\", c
assert fast >= 0.010 and slow >= 0.200, (fast, slow)
# the estimate of the judge: the ratio of the Harrell-Davis medians, by SciPy
assert abs(c[\"ratio\"] - slow / fast) <= 1e-9 * c[\"ratio\"], (c, slow / fast)
assert c[\"ratio_ci\"][0] <= c[\"ratio\"] <= c[\"ratio_ci\"][1]
# beyond every relabelling; one comparison, two tests: Holm doubles p
assert c[\"p_value\"] < 0.002 and c[\"p_adjusted\"] == min(1, 2 * c[\"p_value\"]), c" && grep -q "'"'"'slow'"'"' is .*× slower than '"'"'fast'"'"'" "$T/cmp.txt"'
t "--reference and --compare-metric" sh -c '
	"$YS" run -q --runs 12 -n a -n b --reference b --compare-metric peak_rss --json "$T/ref.json" "$YSFIX sleep 1" "$YSFIX touch 32" &&
	python3 -c "
import json; cs = json.load(open(\"$T/ref.json\"))[\"comparisons\"]
assert {(c[\"baseline\"], c[\"candidate\"], c[\"metric\"]) for c in cs} == {(\"b\",\"a\",\"wall_time\"),(\"b\",\"a\",\"peak_rss\")}, cs
assert [c for c in cs if c[\"metric\"] == \"peak_rss\"][0][\"verdict\"] == \"faster\""'

# --- scans ------------------------------------------------------------
t "--param list: one benchmark per value, {n} replaced" sh -c '
	"$YS" run -q --runs 2 --param n=1,2,3 --name "s{n}" --json "$T/p.json" "$YSFIX sleep {n}" &&
	python3 -c "
import json; bs = json.load(open(\"$T/p.json\"))[\"benchmarks\"]
assert [b[\"name\"] for b in bs] == [\"s1\", \"s2\", \"s3\"], bs
assert [b[\"parameters\"] for b in bs] == [{\"n\": \"1\"}, {\"n\": \"2\"}, {\"n\": \"3\"}]
assert bs[2][\"command\"] == [\"$YSFIX\", \"sleep\", \"3\"]"'
t "--param integers above 2^53 stay exact, from the range to the names and the commands" sh -c '
	"$YS" run -q --runs 1 --warmup 0 --param k=9007199254740993:9007199254740995 --json "$T/big.json" "$YSFIX echo {k}" &&
	python3 -c "
import json; bs = json.load(open(\"$T/big.json\"))[\"benchmarks\"]
assert [b[\"parameters\"][\"k\"] for b in bs] == [\"9007199254740993\", \"9007199254740994\", \"9007199254740995\"], bs
assert len({b[\"name\"] for b in bs}) == 3 and not any(\"#\" in b[\"name\"] for b in bs), [b[\"name\"] for b in bs]
"'
t "--param geometric range and cartesian product" sh -c '
	"$YS" run -q --runs 1 --warmup 0 --param n=1:16:*2 --param m=a,b --json "$T/g.json" "$YSFIX echo {n}{m}" &&
	python3 -c "
import json; bs = json.load(open(\"$T/g.json\"))[\"benchmarks\"]
got = [(b[\"parameters\"][\"n\"], b[\"parameters\"][\"m\"]) for b in bs]
assert got == [(n, m) for n in [\"1\",\"2\",\"4\",\"8\",\"16\"] for m in \"ab\"], got"'
t "complexity fit of a linear scan: O(n), 1 ms per step" sh -c '
	"$YS" run --runs 5 --warmup 1 --param ms=10:160:30 --json "$T/fit.json" "$YSFIX sleep {ms}" > "$T/fit.txt" &&
	python3 -c "
import json; f = json.load(open(\"$T/fit.json\"))[\"complexity\"][0]
assert f[\"parameter\"] == \"ms\" and f[\"best\"] == \"O(n)\", f
assert 0.0009 < f[\"coefficient\"] < 0.0013, f
assert f[\"r2\"] > 0.95, f" && grep -q "O(n)" "$T/fit.txt"'

t "equal names made unique: -n a -n a, one command twice, a scan whose name does not vary" sh -c '
	"$YS" run -q --runs 1 --warmup 0 -n a -n a --json "$T/u1.json" "$YSFIX exit 0" "$YSFIX sleep 1" &&
	"$YS" run -q --runs 1 --warmup 0 --json "$T/u2.json" "$YSFIX exit 0" "$YSFIX exit 0" &&
	"$YS" run -q --runs 1 --warmup 0 -n f -P n=1,2,2 --json "$T/u3.json" "$YSFIX sleep {n}" &&
	python3 -c "
import json; names = lambda f: [b[\"name\"] for b in json.load(open(\"$T/\" + f))[\"benchmarks\"]]
assert names(\"u1.json\") == [\"a\", \"a #2\"], names(\"u1.json\")
assert names(\"u2.json\") == [\"$YSFIX exit 0\", \"$YSFIX exit 0 #2\"], names(\"u2.json\")
assert names(\"u3.json\") == [\"f [n=1]\", \"f [n=2]\", \"f [n=2] #2\"], names(\"u3.json\")
c = json.load(open(\"$T/u1.json\"))[\"comparisons\"][0]; assert (c[\"baseline\"], c[\"candidate\"]) == (\"a\", \"a #2\"), c" &&
	"$YS" run -q --runs 1 --warmup 0 -n a -n a --reference "a #2" --json "$T/u4.json" "$YSFIX exit 0" "$YSFIX exit 0" &&
	python3 -c "
import json; c = json.load(open(\"$T/u4.json\"))[\"comparisons\"][0]; assert c[\"baseline\"] == \"a #2\", c"'

# --- --shell, --input, output --------------------------------------------
t "--shell subtracts the shell's start-up from a command slower than it" sh -c '
	"$YS" run -q --runs 5 --shell --json "$T/sh.json" "$YSFIX sleep 50" &&
	python3 -c "
import json; d = json.load(open(\"$T/sh.json\")); b = d[\"benchmarks\"][0]; m = b[\"metrics\"]
ov = d[\"settings\"][\"shell_overhead_wall\"]; assert ov > 0, ov
assert b[\"command\"][:2] == [\"/bin/sh\", \"-c\"]
w = m[\"wall_time\"]
assert w[\"shell_startup\"] == ov and w[\"shell_subtracted\"] == 1, w
assert all(v >= 0 and v + ov >= 0.050 for v in w[\"values\"]), w
for k in [\"user_time\", \"system_time\"]:
    assert m[k][\"shell_subtracted\"] in (0, 1) and min(m[k][\"values\"]) >= 0, m[k]"'
# Before, 29 of 50 runs of a command this fast were clamped to 0 s, with
# no word. Now: a metric with a run below the shell alone keeps the shell's
# time (no 0), with a warning; or, should every run have been slower than
# the shell's median, it is subtracted and no value is below 0.
t "--shell: a command no slower than the shell's start-up is not reported as 0 s" sh -c '
	"$YS" run --runs 50 --shell --json "$T/sh0.json" ":" >/dev/null 2>"$T/sh0.err" &&
	python3 -c "
import json; b = json.load(open(\"$T/sh0.json\"))[\"benchmarks\"][0]; w = b[\"metrics\"][\"wall_time\"]
v = w[\"values\"]
assert 0 not in v and w[\"median\"] > 0, w
ov = w[\"shell_startup\"]
if w[\"shell_subtracted\"] == 0:
    assert min(v) > 0 and min(v) < ov, (v, ov)
    assert any(x.startswith(\"wall_time includes the shell\") for x in b[\"warnings\"]), b[\"warnings\"]
    assert \"wall_time includes the shell\" in open(\"$T/sh0.err\").read()
else:
    assert w[\"shell_subtracted\"] == 1 and min(v) >= 0, w"'
t "--input feeds a file as stdin" sh -c '
	echo data > "$T/in" && "$YS" run -q --runs 3 --input "$T/in" -- "$YSFIX" cat'
t "--show-output lets output through" sh -c '
	"$YS" run -q --runs 2 --warmup 0 --show-output -- "$YSFIX" echo hello-out | grep -c hello-out | grep -qx 2'
t "output is discarded by default" sh -c '
	! "$YS" run -q --runs 2 -- "$YSFIX" echo hello-out | grep -q hello-out'
t "--csv: one row per run with every metric" sh -c '
	"$YS" run -q --runs 4 --param n=1,2 --csv "$T/r.csv" "$YSFIX sleep {n}" &&
	python3 -c "
import csv; rows = list(csv.DictReader(open(\"$T/r.csv\")))
assert len(rows) == 8, len(rows)
assert rows[0][\"n\"] == \"1\" and rows[-1][\"n\"] == \"2\"
assert all(float(r[\"wall_time\"]) > 0 for r in rows) and \"peak_rss\" in rows[0]"'
t "--markdown: a summary table" sh -c '
	"$YS" run -q --runs 3 --markdown "$T/r.md" -n "a|b" "$YSFIX exit 0" && grep -q "a\\\\|b" "$T/r.md" && grep -q "^|" "$T/r.md"'
t "--json - writes the result to stdout" sh -c '
	"$YS" run -q --runs 2 --json - -- "$YSFIX" exit 0 | python3 -c "import json,sys; assert json.load(sys.stdin)[\"schema\"] == \"yardstick/result/v1\""'
t "--json - without -q: the table goes to stderr, stdout stays JSON" sh -c '
	"$YS" run --runs 2 --json - -- "$YSFIX" exit 0 2>"$T/tbl.txt" | python3 -c "import json,sys; json.load(sys.stdin)" &&
	grep -q "wall time" "$T/tbl.txt"'
t "warnings go to stderr, the table to stdout" sh -c '
	"$YS" run --runs 3 -- "$YSFIX" exit 0 >"$T/o.txt" 2>"$T/e.txt" &&
	grep -q "wall time" "$T/o.txt" && ! grep -q "warning" "$T/o.txt" && grep -q "^warning: .*only 3 runs" "$T/e.txt"'
t "no colour codes when not on a terminal" sh -c '
	"$YS" run --runs 2 -- "$YSFIX" exit 0 > "$T/plain.txt" && ! grep -q "$(printf "\033")" "$T/plain.txt"'
t "the table shows time and memory with units" sh -c '
	"$YS" run --runs 3 -- "$YSFIX" sleep 5 > "$T/tab.txt" && grep -q "wall time .* ms" "$T/tab.txt" && grep -q "peak rss .*iB" "$T/tab.txt"'
t "a progress bar with an ETA on a terminal, none when piped" sh -c '
	env -u YARDSTICK_NO_PROGRESS script -qec "\"$YS\" run --runs 30 -- \"$YSFIX\" sleep 10" /dev/null > "$T/tty.txt" &&
	grep -q "ETA" "$T/tty.txt" &&
	env -u YARDSTICK_NO_PROGRESS "$YS" run -q --runs 3 -- "$YSFIX" exit 0 2> "$T/notty.txt" && ! grep -q ETA "$T/notty.txt"'
t "the table is in colour on a terminal, unless NO_COLOR is set" sh -c '
	env -u NO_COLOR script -qec "\"$YS\" run --runs 2 -- \"$YSFIX\" exit 0" /dev/null > "$T/col.txt" &&
	grep -q "$(printf "\033")\[1m" "$T/col.txt" &&
	NO_COLOR=1 script -qec "\"$YS\" run --runs 2 -- \"$YSFIX\" exit 0" /dev/null > "$T/nocol.txt" &&
	! grep -q "$(printf "\033")\[1m" "$T/nocol.txt"'
t "more than 4 benchmarks: one line each; --details: full tables" sh -c '
	"$YS" run --runs 2 --param n=1:5 "$YSFIX sleep {n}" > "$T/sum.txt" && grep -q "^benchmark  *runs" "$T/sum.txt" &&
	[ "$(grep -c "^Benchmark " "$T/sum.txt")" -eq 0 ] &&
	"$YS" run --runs 2 --details --param n=1:5 "$YSFIX sleep {n}" > "$T/det.txt" && [ "$(grep -c "^Benchmark " "$T/det.txt")" -eq 5 ]'
t "--pin runs the command on the given CPUs only" sh -c '
	"$YS" run -q --runs 2 --warmup 0 --pin 0 --show-output -- "$YSFIX" affinity > "$T/pin.txt" &&
	[ "$(sort -u "$T/pin.txt")" = 0 ] &&
	"$YS" run -q --runs 1 --warmup 0 --show-output -- "$YSFIX" affinity > "$T/nopin.txt" &&
	[ "$(cat "$T/nopin.txt")" = "$("$YSFIX" affinity)" ]'
t "a warning when runs are too few for p99" sh -c '
	"$YS" run --runs 3 -- "$YSFIX" exit 0 2>&1 | grep -q "p99 needs at least 100 runs"'
t "-q shows no table, so not the warning about its p99: in the JSON only" sh -c '
	"$YS" run -q --runs 1 --no-store --json "$T/q1.json" -- "$YSFIX" exit 0 2>"$T/q1.err" &&
	[ ! -s "$T/q1.err" ] && grep -q "p99 needs at least 100 runs" "$T/q1.json"'

# A name with ESC, BEL, CR, a C1 CSI and a right-to-left override: escaped
# in the table, the warnings and --markdown.
hostile_run() {
	name=$(printf 'a\033]0;title\007\r\302\233\342\200\256<img src=x onerror=alert(1)>')
	"$YS" run --runs 2 --warmup 0 --details --markdown "$T/h.md" -n "$name" -n "$name" \
		"$YSFIX exit 0" "$YSFIX exit 0" > "$T/h.out" 2>&1 || return 1
	no_controls "$T/h.out" "$T/h.md" && ! grep -q "<img" "$T/h.md" &&
	grep -qF 'Benchmark 2: a\x1b]0;title\x07\x0d\x9b\u202e<img src=x onerror=alert(1)> #2' "$T/h.out" &&
	grep -qF "warning: 'a\x1b]0;title" "$T/h.out"
}
t "outside text escaped in the table, warnings and --markdown" hostile_run
t "--markdown of a scan has the complexity fit" sh -c '
	"$YS" run -q --runs 3 --warmup 0 -n "s {ms}" --param ms=10:40:10 --markdown "$T/fit.md" "$YSFIX sleep {ms}" &&
	grep -q "^| Benchmark | Parameter | Metric | Best fit | b | a | R² |$" "$T/fit.md" &&
	grep -Eq "^\| s \{ms\} \| ms \| wall\\\\_time \| O\(" "$T/fit.md"'
# --- git status is asked while the runs go on, not after them ----------
# A git of our own answers `status` by leaving a mark (and a changed file);
# the measured command waits for the mark: were git asked only after the
# runs, the command would give up (after 20 s) and fail.
git_during_runs() {
	mkdir -p "$T/gd/bin" && (cd "$T/gd" && git init -q -b main &&
		git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one) || return 1
	real=$(command -v git)
	printf '#!/bin/sh\ncase "$1" in status) : > "%s/gd/asked"; echo " M f";; *) exec "%s" "$@";; esac\n' \
		"$T" "$real" > "$T/gd/bin/git" && chmod +x "$T/gd/bin/git" || return 1
	(cd "$T/gd" && PATH="$T/gd/bin:$PATH" "$YS" run -q --runs 1 --warmup 0 --json "$T/gd.json" -- \
		sh -c 'i=0; while [ ! -e asked ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; [ -e asked ]') &&
	python3 -c "
import json; g = json.load(open('$T/gd.json'))['git']
assert g['dirty'] is True and len(g['commit']) == 40, g"
}
t "git status is asked while the runs go on, and its answer recorded" git_during_runs
# A Ctrl-C (to the whole process group, as a terminal sends it) while git
# is still answering: yardstick stops the runs, keeps what was measured,
# and git, in a group of its own, still gives its answer.
git_after_ctrl_c() {
	rm -f "$T/gd/asked" "$T/gd/n"
	real=$(command -v git)
	printf '#!/bin/sh\ncase "$1" in status) : > "%s/gd/asked"; sleep 1; echo " M f";; *) exec "%s" "$@";; esac\n' \
		"$T" "$real" > "$T/gd/bin/git" || return 1
	(cd "$T/gd" && PATH="$T/gd/bin:$PATH" exec setsid "$YS" run -q --runs 3 --warmup 0 --json "$T/gi.json" -- \
		sh -c 'n=$(cat n 2>/dev/null || echo 0); echo $((n + 1)) > n; [ "$n" -lt 1 ] || sleep 30') &
	pid=$!
	i=0
	while { [ ! -e "$T/gd/asked" ] || [ "$(cat "$T/gd/n" 2>/dev/null)" != 2 ]; } && [ $i -lt 400 ]; do
		sleep 0.05; i=$((i + 1))
	done
	python3 -c "import os, signal, sys; os.killpg(int(sys.argv[1]), signal.SIGINT)" "$pid"
	wait $pid
	[ $? -eq 130 ] && python3 -c "
import json; d = json.load(open('$T/gi.json')); g = d['git']
assert g['dirty'] is True, g
assert len(d['benchmarks'][0]['metrics']['wall_time']['values']) == 1, d"
}
t "a Ctrl-C while git answers: the runs stop, git's answer is recorded" git_after_ctrl_c
# `git status` stats every tracked file (milliseconds of CPU in a large
# checkout): every command that runs a program asks it only where the
# state is kept, the result stored or written as a result file. Our git
# leaves a mark when asked; without --json and with --no-store, none.
git_only_when_kept() {
	real=$(command -v git)
	printf '#!/bin/sh\ncase "$1" in status) : > "%s/gd/asked"; echo " M f";; *) exec "%s" "$@";; esac\n' \
		"$T" "$real" > "$T/gd/bin/git" || return 1
	fake=$(cd "$(dirname "$0")" && pwd)/bench_fake.py
	for cmd in "run -q --runs 1 --warmup 0" "mem -q" "trace -q" "bench -q --processes 1"; do
		case $cmd in bench*) prog=$fake;; *) prog="$YSFIX sleep 1";; esac
		for keep in no yes; do
			rm -f "$T/gd/asked" "$T/gk.json"
			json=; [ $keep = yes ] && json="--json $T/gk.json"
			(cd "$T/gd" && PATH="$T/gd/bin:$PATH" "$YS" $cmd --no-store $json -- $prog) \
				>/dev/null 2>"$T/gk.err" || { echo "$cmd: failed"; cat "$T/gk.err"; return 1; }
			if [ $keep = no ]; then
				[ ! -e "$T/gd/asked" ] || { echo "$cmd: git status asked, nothing keeps it"; return 1; }
			else
				[ -e "$T/gd/asked" ] || { echo "$cmd --json: git status not asked"; return 1; }
				python3 -c "
import json, sys; g = json.load(open('$T/gk.json'))['git']
assert g['dirty'] is True and len(g['commit']) == 40, (sys.argv[1], g)" "$cmd" || return 1
			fi
		done
	done
}
t "git status only where the state is kept (run, mem, trace, bench): not with --no-store alone, asked and recorded with --json" git_only_when_kept
# An undefined {placeholder} with --param is an error naming it (it
# would run the same command for every value, silently)
t "--param: an undefined {m} in a command is refused, naming it" sh -c '
	"$YS" run --runs 1 --param n=1,2 "echo {m}" 2>"$T/ph.err"; [ $? -eq 2 ] &&
	grep -q "command 1: '"'"'{m}'"'"' is not a --param (the parameters are n)" "$T/ph.err"'
t "... in a --name, and in a word after --" sh -c '
	"$YS" run --runs 1 --param n=1,2 -n "x{nn}" "echo {n}" 2>"$T/ph.err"; [ $? -eq 2 ] &&
	grep -q "name 1: '"'"'{nn}'"'"'" "$T/ph.err" &&
	"$YS" run --runs 1 --param n=1,2 -- echo "{n}" "{k}" 2>"$T/ph.err"; [ $? -eq 2 ] &&
	grep -q "word 3: '"'"'{k}'"'"'" "$T/ph.err"'
t "... while braces that are no placeholder stay literal" sh -c '
	"$YS" run -q --runs 1 --no-store --param n=1,2 "awk '"'"'BEGIN{x=1; print {n}}'"'"'" 2>"$T/ph.err"'
t "-q still says the id the result was saved as" sh -c '
	"$YS" run -q --runs 1 true 2>"$T/q.err" >"$T/q.out" &&
	grep -qx "yardstick: saved as result [0-9]*" "$T/q.err" && [ ! -s "$T/q.out" ]'
t "the same warning of many benchmarks is said once, naming them" sh -c '
	"$YS" run --runs 3 --no-store --param n=1,2,3,4 "true {n}" 2>"$T/w.err" >/dev/null &&
	[ "$(grep -c "only 3 runs" "$T/w.err")" = 1 ] &&
	grep -q "^warning: all 4 benchmarks: only 3 runs" "$T/w.err"'
finish
