# yardstick record: attribution on fixtures whose profile is known, every
# exporter's output validated, the diff, and the error paths.
. "$(dirname "$0")/lib.sh"
FX=$(dirname "$YSFIX")
export FX

# ± 10 points: the share moves with the host's scheduling (test_sampler.c
# says by how much); samples in the wrong function would give 25% or 0
t "two hot functions in a 3:1 ratio: 75% ± 10 points" sh -c '
	"$YS" record -q -o "$T/hot.folded" -- "$FX/hot" 1000 &&
	python3 -c "
a = b = 0
for line in open(\"$T/hot.folded\"):
    stack, n = line.rsplit(\" \", 1); f = stack.split(\";\")
    if \"hot_a\" in f: a += int(n)
    elif \"hot_b\" in f: b += int(n)
share = 100 * a / (a + b)
assert a + b > 700 and abs(share - 75) <= 10, (a, b, share)"'
# (-n 40: hot_a has no self time, and its row comes after every function
# with some; the loader and libc had eight such on a PVM guest, where a
# page fault is dear, which pushed it out of a top 10)
t "the report names the top functions and an Amdahl bound" sh -c '
	"$YS" record -n 40 -- "$FX/hot" 300 2> "$T/rep.txt" > "$T/rep.out" && [ ! -s "$T/rep.out" ] &&
	grep -q "hot_a" "$T/rep.txt" && grep -q "would be at most .*× faster" "$T/rep.txt" &&
	hz=$(sed -En "s/^[0-9]+ samples in .* of CPU \(([0-9]+) Hz effective\), 0 lost.*/\1/p" "$T/rep.txt") &&
	[ -n "$hz" ] && [ "$hz" -ge 500 ] && [ "$hz" -le 2000 ]'
# Two stripped libraries (60% and 40% of the work; unklib.c): in each, a
# third of it in the exported function (.dynsym names it) and two thirds
# in a static one without a symbol, named by its module and its start as
# the unwind table gives it: libunka.so+0xSTART, START spin's address in
# libunka.debug (the symbols kept apart before stripping: the truth).
# Never "[unknown in ...]", never merged across modules, an Amdahl line
# for each (each is one function). The shares are of CPU samples on a
# machine that may be busy (a fresh Debian root's sanitizer build saw
# 120 of 221 in libunkb's static code, 0.543 against 0.55): measured
# again up to 3 times; the names are checked every time.
stripped_libs() {
	"$YS" record -n 6 -o "$T/unk.folded" -o "$T/unk.speedscope.json" -- "$FX/unkfix" 1500 2>"$T/unk.txt" || { cat "$T/unk.txt"; return 1; }
	spin=$(nm "$FX/libunka.debug" | awk '$3 == "spin" { print $1 }')
	[ -n "$spin" ] || { echo "no spin in libunka.debug"; return 1; }
	python3 - "$T/unk.folded" "$T/unk.speedscope.json" "$T/unk.txt" "$spin" <<"PY"
import json, re, sys
n = {}
for line in open(sys.argv[1]):
    stack, v = line.rsplit(" ", 1)
    leaf = stack.split(";")[-1]
    n[leaf] = n.get(leaf, 0) + int(v)
spin_a = "libunka.so+0x%x" % int(sys.argv[4], 16)
b_static = [k for k in n if re.fullmatch(r"libunkb\.so\+0x[0-9a-f]+", k)]
assert len(b_static) == 1, n
a_s, a_e = n.get(spin_a, 0), n.get("unka_work", 0)
b_s, b_e = n[b_static[0]], n.get("unkb_work", 0)
a, b = a_s + a_e, b_s + b_e
print("#", spin_a, a_s, "unka_work", a_e, b_static[0], b_s, "unkb_work", b_e)
assert a + b > 300 and 0.5 <= a / (a + b) <= 0.7, n
assert 0.55 <= a_s / a <= 0.78 and 0.55 <= b_s / b <= 0.78, n
assert not [k for k in n if k.startswith("[unknown")], n
names = [f["name"] for f in json.load(open(sys.argv[2]))["shared"]["frames"]]
assert spin_a in names and "unka_work" in names and b_static[0] in names, names
rep = open(sys.argv[3]).read()
assert "if " + spin_a + " cost nothing" in rep, rep
assert "if [unknown" not in rep, rep
PY
}
t "stripped libraries: exports by .dynsym, static code as MODULE+0xSTART (its unwind table), never merged (retried 3x)" retry stripped_libs

# The same library with its symbols in a debug file where a build-id
# finds it (ROOT/.build-id/xx/rest.debug, as a Debian -dbgsym package
# puts it), ROOT given by YARDSTICK_DEBUG_DIR: spin by its name. The
# share is of CPU samples on a machine that may be busy (CI failed it once
# with both builds' suites running; its output was not kept): measured
# again up to 3 times, each try printing its counts.
debug_by_build_id() {
	id=$(readelf -n "$FX/libunka.so" | sed -n "s/.*Build ID: //p")
	[ ${#id} -ge 4 ] || { echo "no build id"; return 1; }
	sub=$(echo "$id" | cut -c1-2) rest=$(echo "$id" | cut -c3-)
	mkdir -p "$T/dbg/.build-id/$sub" &&
	cp "$FX/libunka.debug" "$T/dbg/.build-id/$sub/$rest.debug" &&
	YARDSTICK_DEBUG_DIR=$T/dbg "$YS" record -q -o "$T/dbg.folded" -- "$FX/unkfix" 800 || return 1
	python3 - "$T/dbg.folded" <<"PY"
import sys
n = {}
for line in open(sys.argv[1]):
    stack, v = line.rsplit(" ", 1)
    leaf = stack.split(";")[-1]
    n[leaf] = n.get(leaf, 0) + int(v)
a = n.get("spin", 0) + n.get("unka_work", 0)
print("#", n)
assert n.get("spin", 0) > 0.5 * a and a > 100, n
assert not [k for k in n if k.startswith("libunka.so+")], n
PY
}
t "a separate debug file found by build-id under YARDSTICK_DEBUG_DIR names the static function (retried 3x)" retry debug_by_build_id

# A stripped program whose debug file its .gnu_debuglink names (objcopy
# --add-gnu-debuglink, no build-id), found where libdwfl looks: beside it,
# in its .debug directory, under the debug root at its directory. The
# first run, with no debug file anywhere, caches the program's frames
# unnamed; a debug file put in each place since is read at the next run
# (the cache kept the unnamed frames, dlspin-less, before: a debug file
# installed by debuglink was never seen until the cache was deleted).
debuglink_since() {
	mkdir -p "$T/dl/bin" "$T/dl/root" && cat >"$T/dl/dlspin.c" <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void dlspin(long n)
{
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1;
	sink = x;
}
int main(int argc, char **argv) { dlspin(atol(argv[1])); return 0; }
C
	cc -O1 -g -Wl,--build-id=none -o "$T/dl/full" "$T/dl/dlspin.c" &&
	objcopy --only-keep-debug "$T/dl/full" "$T/dl/dlspin.debug" &&
	objcopy --strip-all --add-gnu-debuglink="$T/dl/dlspin.debug" \
		"$T/dl/full" "$T/dl/bin/dlspin" || return 1
	named() { # FOLDED: whether dlspin is named in most samples
		python3 - "$1" <<'PY'
import sys
n = {}
for line in open(sys.argv[1]):
    stack, v = line.rsplit(" ", 1)
    leaf = stack.split(";")[-1]
    n[leaf] = n.get(leaf, 0) + int(v)
tot = sum(n.values())
print("#", sorted(n.items(), key=lambda kv: -kv[1])[:3])
sys.exit(0 if n.get("dlspin", 0) > 0.5 * tot and tot > 20 else 1)
PY
	}
	run() { # NAME
		YARDSTICK_DEBUG_DIR=$T/dl/root XDG_CACHE_HOME=$T/dl/cache \
			"$YS" record -q -o "$T/dl/$1.folded" -- "$T/dl/bin/dlspin" 60000000
	}
	run none && ! named "$T/dl/none.folded" || { echo "named with no debug file"; return 1; }
	for where in bin bin/.debug "root$T/dl/bin"; do
		mkdir -p "$T/dl/$where" && cp "$T/dl/dlspin.debug" "$T/dl/$where/" &&
		run "$(echo "$where" | tr / _)" &&
		named "$T/dl/$(echo "$where" | tr / _).folded" || { echo "not named with the debug file in $where"; return 1; }
		rm "$T/dl/$where/dlspin.debug"
		run "gone_$(echo "$where" | tr / _)" &&
		! named "$T/dl/gone_$(echo "$where" | tr / _).folded" || { echo "named after the debug file left $where"; return 1; }
	done
}
t "a debug file a stripped program's .gnu_debuglink names, put beside it, in .debug or under the debug root after a run cached it unnamed, names it at the next run" debuglink_since

# Code that nothing names (no symbol, no unwind table: libunkc.so) is
# [unknown in libunkc.so], and no Amdahl bound is claimed for it: it may
# be many functions.
no_bound_for_unknown() {
	"$YS" record -n 5 -o "$T/nocfi.folded" -- "$FX/unkfix" nocfi 600 2>"$T/nocfi.txt" || { cat "$T/nocfi.txt"; return 1; }
	has "$T/nocfi.folded" "[unknown in libunkc.so]" &&
	has "$T/nocfi.txt" "[unknown in libunkc.so]" &&
	! grep -q "^if \[unknown" "$T/nocfi.txt" || { cat "$T/nocfi.txt"; return 1; }
}
t "code no symbol or unwind table names: [unknown in MODULE], with no Amdahl line" no_bound_for_unknown

# A loop of calls through the PLT: the stubs (.plt, after .init) are
# named unka_work_nop@plt, in the caller's module, from the relocation of the
# GOT slot each jumps through; never _init (the symbol before them).
# The same in .plt.sec (-z ibtplt: endbr64, then a bnd jmp) and in
# .plt.got (the function's address taken too); readelf says each section
# is there, so that the check is of the layout named. Where a timer's
# samples land in so short a loop depends on the processor: on an AMD EPYC
# the .plt.got stub held 0.4-0.9% of them (perf record agreed), the .plt
# one 2-33%; hence 600 M calls at 4999 Hz (~8,000 samples), and the stub
# asked for 8 of them, not a share.
plt_stubs() {
	fx=$1 sec=$2
	readelf -SW "$FX/$fx" | grep -q " $sec " || { echo "$fx has no $sec"; return 1; }
	"$YS" record -q -F 4999 -o "$T/plt.folded" -- "$FX/$fx" plt 600 || return 1
	python3 - "$T/plt.folded" <<"PY"
import sys
n, tot, init = {}, 0, []
for line in open(sys.argv[1]):
    stack, v = line.rsplit(" ", 1)
    fr = stack.split(";")
    n[fr[-1]] = n.get(fr[-1], 0) + int(v)
    tot += int(v)
    # a stub misnamed: _init called by the loop (a library's own _init,
    # which the loader runs at start-up, is no stub: one sample of
    # _dl_init;...;_init in a CI run)
    if fr[-1] == "_init" and "main" in fr:
        init.append(stack)
print("# " + ", ".join("%s %d" % kv for kv in sorted(n.items(), key=lambda kv: -kv[1])[:5]))
assert n.get("unka_work_nop@plt", 0) >= 8 and tot > 1000, n
assert not init, init[:3]
PY
}
for v in unkfix:.plt unkfix_ibt:.plt.sec unkfix_got:.plt.got; do
	t "PLT stubs in ${v#*:} named SYM@plt from the relocations, not _init (${v%%:*})" plt_stubs "${v%%:*}" "${v#*:}"
done

t "both threads of a two-thread program" sh -c '
	"$YS" record -q -o "$T/thr.folded" -- "$FX/threads" 300 &&
	grep -q "spin_one" "$T/thr.folded" && grep -q "spin_two" "$T/thr.folded"'
t "a child process that does the work" sh -c '
	"$YS" record -q -o "$T/fork.folded" -- "$FX/forker" 300 &&
	python3 -c "
t = c = 0
for line in open(\"$T/fork.folded\"):
    stack, n = line.rsplit(\" \", 1); t += int(n)
    if \"child_work\" in stack.split(\";\"): c += int(n)
assert t > 200 and c / t > 0.9, (c, t)"'
t "--call-graph dwarf: whole stacks without frame pointers" sh -c '
	"$YS" record -q -g dwarf -o "$T/nofp.folded" -- "$FX/nofp" 300 &&
	python3 -c "
t = w = 0
for line in open(\"$T/nofp.folded\"):
    stack, n = line.rsplit(\" \", 1); t += int(n)
    if \"main;level1;level2;leaf_spin\" in stack: w += int(n)
assert t > 200 and w / t > 0.9, (w, t)"'
t "--lines: file:line in the folded stacks" sh -c '
	"$YS" record -q --lines -o "$T/l.folded" -- "$FX/hot" 200 && grep -q "hot_a (hot.c:[0-9]*)" "$T/l.folded"'
t "the program's output passes through, its exit status is reported" sh -c '
	"$YS" record -q -- sh -c "echo passes-through; exec \"$FX/hot\" 100" > "$T/out.txt" && grep -qx passes-through "$T/out.txt" &&
	"$YS" record -q -- "$YSFIX" exit 3 2>"$T/st.err"; [ $? -eq 1 ] && grep -qx "yardstick record: the program exited with status 3" "$T/st.err"'
t "a crash: the profile up to it is written, the signal reported" sh -c '
	"$YS" record -q -o "$T/crash.folded" -- "$FX/hot" 300 segv 2>"$T/crash.err"; [ $? -eq 1 ] &&
	grep -qx "yardstick record: the program was killed by SIGSEGV; the profile covers it up to then" "$T/crash.err" &&
	grep -q "hot_a" "$T/crash.folded"'
t "Ctrl-C stops the program, and the profile is still written" sh -c '
	setsid "$YS" record -q -o "$T/int.folded" -- "$FX/hot" 20000 >/dev/null 2>"$T/int.err" &
	pid=$!
	# until hot has run 0.3 s of CPU (utime, in clock ticks, of the
	# process of the session setsid made that runs it: yardstick runs
	# below its keeper, util/keeper.h), at most a minute
	tck=$(getconf CLK_TCK); k=0
	while [ $k -lt 600 ]; do
		c=$(pgrep -s $pid -x hot | head -1)
		[ -n "$c" ] && [ "$(awk "{ print \$14 }" /proc/$c/stat 2>/dev/null || echo 0)" -ge $((tck * 3 / 10)) ] && break
		sleep 0.1; k=$((k + 1))
	done
	/bin/kill -s INT -- -$pid; wait $pid; rc=$?
	[ $rc -eq 130 ] && grep -q "stopped by SIGINT" "$T/int.err" && grep -q "hot_a" "$T/int.folded"'
t "the flame graph is XML with one frame per node, escaped" sh -c '
	"$YS" record -q --title "<a & b>" -o "$T/fg.svg" -- "$FX/hot" 300 &&
	python3 -c "
import xml.etree.ElementTree as ET
r = ET.parse(\"$T/fg.svg\").getroot()
text = open(\"$T/fg.svg\").read()
assert \"hot_a\" in text and \"&lt;a &amp; b&gt;\" in text
assert r.tag.endswith(\"svg\") and len(r.findall(\".//{http://www.w3.org/2000/svg}rect\")) >= 5"'
t "speedscope JSON: the schema and the totals" sh -c '
	"$YS" record -q -o "$T/p.speedscope.json" -o "$T/p2.folded" -- "$FX/hot" 300 &&
	python3 -c "
import json
d = json.load(open(\"$T/p.speedscope.json\"))
assert d[\"\$schema\"] == \"https://www.speedscope.app/file-format-schema.json\"
p = d[\"profiles\"][0]; assert p[\"type\"] == \"sampled\"
assert len(p[\"samples\"]) == len(p[\"weights\"])
total = sum(int(l.rsplit(\" \", 1)[1]) for l in open(\"$T/p2.folded\"))
assert sum(p[\"weights\"]) == total, (sum(p[\"weights\"]), total)
names = {f[\"name\"] for f in d[\"shared\"][\"frames\"]}; assert \"hot_a\" in names"'
t "pprof: a gzipped protobuf that decodes" sh -c '
	"$YS" record -q -o "$T/p.pb.gz" -- "$FX/hot" 300 &&
	python3 -c "
import gzip; b = gzip.open(\"$T/p.pb.gz\").read(); assert b\"hot_a\" in b and b\"samples\" in b" &&
	gunzip -c "$T/p.pb.gz" | protoc --decode_raw > "$T/p.txt"'
t "--diff: a differential flame graph of two folded profiles" sh -c '
	printf "main;a 75\nmain;b 25\n" > "$T/base.folded" && printf "main;a 50\nmain;b 50\n" > "$T/new.folded" &&
	"$YS" record --diff "$T/base.folded" "$T/new.folded" -o "$T/diff.svg" &&
	python3 -c "import xml.etree.ElementTree as ET; ET.parse(\"$T/diff.svg\")" && grep -q "+25.00 points" "$T/diff.svg"'
t "an output that cannot be written is found before the run" sh -c '
	"$YS" record -o /nonexistent-dir/p.svg -- "$YSFIX" count "$T/never" 2>"$T/o.err"; [ $? -eq 2 ] &&
	[ ! -e "$T/never" ] && grep -q "/nonexistent-dir/p.svg" "$T/o.err"'
# at 1 Hz: a program that exits at once uses about 1.3 ms of CPU, which
# at the default 999 Hz may hold a sample on a loaded machine (a clean
# clone's make test beside two busy loops: exit 0)
t "a program too brief for a sample: exit 1, said so, no empty profile" sh -c '
	"$YS" record -q -F 1 -o "$T/brief.folded" -- "$YSFIX" exit 0 2>"$T/brief.err"; rc=$?
	[ $rc -eq 1 ] || { echo "exit $rc"; cat "$T/brief.err"; exit 1; }
	grep -q "no samples: the program used .* ms of CPU time" "$T/brief.err" && [ ! -e "$T/brief.folded" ]'
# perf events cannot follow a program that changes credentials at its
# exec: set-user-ID to another user, set-group-ID, file capabilities, or
# one we cannot read; nor a script whose #! interpreter is one. As root
# here, the copies are run by nobody (setpriv), from a directory nobody
# can reach.
# (setpriv and setcap are installed by scripts/deps.sh test)
if [ "$(id -u)" -eq 0 ]; then
	S=$(mktemp -d /tmp/ys-suid-XXXXXX); chmod 755 "$S"; mkdir "$S/out"; chmod 777 "$S/out"
	export S
	for kind in suid sgid caps noread script env; do
		cp "$FX/hot" "$S/hot-$kind"; chmod 755 "$S/hot-$kind"
	done
	chmod 4755 "$S/hot-suid" "$S/hot-env"; chgrp 0 "$S/hot-sgid"; chmod 2755 "$S/hot-sgid"
	setcap cap_net_raw+ep "$S/hot-caps"; chmod 711 "$S/hot-noread"
	cp /bin/sh "$S/sh-suid"; chmod 4755 "$S/sh-suid"
	printf "#!%s\nexec \"\$@\"\n" "$S/sh-suid" > "$S/hot-script"; chmod 755 "$S/hot-script"
	for kind in suid sgid caps noread; do
		t "a $kind program: exit 3, saying why, nothing written" sh -c '
			setpriv --reuid=nobody --regid=nogroup --clear-groups "$YS" record -q -o "$S/out/'$kind'.folded" -- "$S/hot-'$kind'" 300 2>"$S/out/'$kind'.err"; rc=$?
			[ $rc -eq 3 ] || { echo "exit $rc"; cat "$S/out/'$kind'.err"; exit 1; }
			grep -q "cannot profile it: .*hot-'$kind'" "$S/out/'$kind'.err" && [ ! -e "$S/out/'$kind'.folded" ]'
	done
	t "a script whose #! interpreter is set-user-ID: exit 3, naming it" sh -c '
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$YS" record -q -- "$S/hot-script" "$FX/hot" 300 2>"$S/out/script.err"; rc=$?
		[ $rc -eq 3 ] && grep -q "sh-suid.* (the #! interpreter of .*hot-script.*) is set-user-ID" "$S/out/script.err"'
	# On a loaded machine a sample can land in env before its exec: the
	# profile then holds env's samples alone, never the set-user-ID
	# program's (its hot_a and hot_b); quiet, no sample at all (exit 3)
	t "a program that execs a set-user-ID one: none of its samples (exit 3, or env's alone under load)" retry sh -c '
		rm -f "$S/out/env.folded"
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$YS" record -q -o "$S/out/env.folded" -- env "$S/hot-env" 300 2>"$S/out/env.err"; rc=$?
		if [ $rc -eq 0 ]; then
			[ -e "$S/out/env.folded" ] && ! grep -q "hot_" "$S/out/env.folded" && exit 0
			echo "exit 0 with the program'"'"'s frames:"; cat "$S/out/env.folded"; exit 1
		fi
		[ $rc -eq 3 ] || { echo "exit $rc"; cat "$S/out/env.err"; exit 1; }
		grep -q "no samples, although the program used" "$S/out/env.err" && [ ! -e "$S/out/env.folded" ]'
	t "as root, a set-user-ID root program is profiled" sh -c '
		"$YS" record -q -o "$S/root.folded" -- "$S/hot-suid" 300 && grep -q hot_a "$S/root.folded"'
	rm -rf "$S"
fi
t "a program that does not exist: exit 2" expect_exit 2 "$YS" record -- no-such-prog-xyz
t "... naming it" has "$T/stderr" "no-such-prog-xyz"
t "an event this machine cannot sample: exit 3, pointing to cpu-clock" sh -c '
	"$YS" record -q -e cycles -- "$FX/hot" 100 2>"$T/cyc.err"; rc=$?
	[ $rc -eq 0 ] || { [ $rc -eq 3 ] && grep -q "cpu-clock" "$T/cyc.err"; }'
t "--diff: the subtitle names both files and says the colours once" sh -c '
	"$YS" record --diff "$T/base.folded" "$T/new.folded" -o "$T/sub.svg" &&
	line=$(grep "<text class=\"sub\" x=\"[0-9]*\" y=\"41\">" "$T/sub.svg") &&
	echo "$line" | grep -q "base.folded → .*new.folded; red grew, blue shrank against BASE (full colour at ±25.00 points)" &&
	[ $(echo "$line" | grep -o "red grew" | wc -l) -eq 1 ]'

# --diff draws an SVG alone: asked for folded, speedscope or pprof (by the
# name or --format) it wrote an SVG under that name; now exit 2, no file
t "--diff -o F.folded, .speedscope.json, .pb.gz, --format pprof: exit 2, nothing written" sh -c '
	for o in "-o $T/dd.folded" "-o $T/dd.speedscope.json" "-o $T/dd.pb.gz" "--format pprof -o $T/dd.out"; do
		"$YS" record --diff $o "$T/base.folded" "$T/new.folded" 2>"$T/dd.err"; rc=$?
		[ $rc -eq 2 ] || { echo "$o: exit $rc"; exit 1; }
		grep -q "^yardstick record: --diff draws an SVG flame graph, not the format -o .*dd\..* asks for" "$T/dd.err" || { cat "$T/dd.err"; exit 1; }
		[ ! -e "$T/dd.folded" ] && [ ! -e "$T/dd.speedscope.json" ] && [ ! -e "$T/dd.pb.gz" ] && [ ! -e "$T/dd.out" ] || { echo "$o: a file was written"; exit 1; }
	done
	"$YS" record --diff --format svg -o "$T/dd.out" "$T/base.folded" "$T/new.folded" &&
	head -c 5 "$T/dd.out" | grep -q "<?xml"'

t "a malformed folded file for --diff: exit 2 with file and line" sh -c '
	printf "main;a 1\nbroken line\n" > "$T/bad.folded" &&
	"$YS" record --diff "$T/bad.folded" "$T/new.folded" -o "$T/x.svg" 2>"$T/bad.err"; [ $? -eq 2 ] && grep -q "bad.folded.*line 2" "$T/bad.err"'
t "bad options: exit 2" sh -c '
	"$YS" record -F 0 -- true 2>/dev/null; [ $? -eq 2 ] && "$YS" record -g lbr -- true 2>/dev/null; [ $? -eq 2 ] &&
	"$YS" record -o x.unknown -- true 2>/dev/null; [ $? -eq 2 ] && "$YS" record 2>/dev/null; [ $? -eq 2 ]'
t "--idle: a sleep's 300 ms off the CPU under [idle], in sampling intervals" sh -c '
	"$YS" record --idle -q -o "$T/idle.folded" -- sleep 0.3 &&
	awk "/^\[idle\]/ { n += \$NF } END { exit !(n >= 290) }" "$T/idle.folded"'
t "help" sh -c '"$YS" help record | grep -q "call-graph"'
# A library unloaded (dlclose) and another loaded at its addresses: the
# samples before are the first one's. The libraries' functions spin 1:3
# (by iteration counts); the first was named by the second's symbols
# (100% second_lib_spin, 0 first_lib_spin) when every address was looked
# up in the last mappings. ± 10 points, the machine may be busy; both
# loads at one address is checked, else the case is not the one meant.
dlopen_reuse() {
	mkdir -p "$T/dl2" && cat >"$T/dl2/lib.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void NAME(long n)
{
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1;
	sink = x;
}
void entry(long n) { NAME(n); }
C
	cat >"$T/dl2/main.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	const char *libs[2] = { argv[2], argv[3] };
	long n = atol(argv[1]), mult[2] = { 1, 3 };
	for (int i = 0; i < 2; i++) {
		void *h = dlopen(libs[i], RTLD_NOW);
		void (*e)(long) = h ? (void (*)(long))dlsym(h, "entry") : NULL;
		if (!e)
			return 1;
		printf("%p\n", (void *)e);
		e(n * mult[i]);
		dlclose(h);
	}
	return 0;
}
C
	cc -O1 -g -fPIC -shared -DNAME=first_lib_spin -o "$T/dl2/liba.so" "$T/dl2/lib.c" &&
	cc -O1 -g -fPIC -shared -DNAME=second_lib_spin -o "$T/dl2/libb.so" "$T/dl2/lib.c" &&
	cc -O1 -g -o "$T/dl2/main" "$T/dl2/main.c" -ldl || return 1
	for g in fp dwarf; do
		"$YS" record -q -g $g -o "$T/dl2/$g.folded" -- "$T/dl2/main" 100000000 \
			"$T/dl2/liba.so" "$T/dl2/libb.so" >"$T/dl2/addr" || return 1
		[ "$(sort -u "$T/dl2/addr" | wc -l)" = 1 ] || { echo "# loaded at two addresses, not the case meant: $(cat "$T/dl2/addr")"; return 1; }
		python3 - "$T/dl2/$g.folded" <<'PY' || return 1
import sys
n = {}
for line in open(sys.argv[1]):
    stack, v = line.rsplit(" ", 1)
    leaf = stack.split(";")[-1]
    n[leaf] = n.get(leaf, 0) + int(v)
a, b = n.get("first_lib_spin", 0), n.get("second_lib_spin", 0)
print("#", sys.argv[1], a, b)
assert a + b > 200 and abs(100 * a / (a + b) - 25) <= 10, n
PY
	done
}
t "a library loaded where a dlclose'd one was: the samples before are the first one's, 1:3 (fp and dwarf; retried 3x)" retry dlopen_reuse
# A stack whose outer frames were not taken: with fp, one as deep as the
# kernel's callchain limit (perf_event_max_stack, 127); with dwarf, one
# deeper than the stack copy (16 KiB). The program spins 0.3 s in a
# shallow call and 0.3 s under 200 frames of 560 bytes (112 KiB). Each
# such stack was shown under its outermost frame, "deep", a root of its
# own beside main; it now ends in a [truncated] root, and the shallow
# half keeps its whole stack. Shares within 20 points of 50% (the clock
# divides the halves; the machine may be busy).
deep_cut() {
	mkdir -p "$T/cut" && cat >"$T/cut/deep.c" <<'C'
#include <string.h>
#include <time.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
__attribute__((noinline)) static unsigned spin(double until)
{
	unsigned x = 1;
	while (now() < until)
		for (int i = 0; i < 1000; i++)
			x = x * 1664525u + 1013904223u;
	return x;
}
__attribute__((noinline)) static unsigned deep(int d, double until)
{
	volatile char pad[512];
	memset((char *)pad, d, sizeof(pad));
	if (d == 0)
		return spin(until);
	return deep(d - 1, until) + pad[3];
}
__attribute__((noinline)) static unsigned shallow(double until)
{
	return spin(until);
}
int main(void)
{
	unsigned r = shallow(now() + 0.3);
	r += deep(200, now() + 0.3);
	return r == 7;
}
C
	cc -O2 -g -fno-omit-frame-pointer -o "$T/cut/deep" "$T/cut/deep.c" || return 1
	for g in fp dwarf; do
		"$YS" record -q -g $g -o "$T/cut/$g.folded" -- "$T/cut/deep" || return 1
		python3 - "$T/cut/$g.folded" <<'PY' || return 1
import sys
roots, total, cut, whole_shallow = {}, 0, 0, 0
for line in open(sys.argv[1]):
    stack, v = line.rsplit(" ", 1)
    f = stack.split(";")
    roots[f[0]] = roots.get(f[0], 0) + int(v)
    total += int(v)
    if f[0] == "[truncated]":
        assert f[-1] in ("spin", "deep", "memset", "clock_gettime", "__vdso_clock_gettime", "now") or "deep" in f, line
        cut += int(v)
    if "spin" in f and "deep" not in f and f[0] != "[truncated]":
        whole_shallow += int(v)
print("#", sys.argv[1], roots)
assert "deep" not in roots and "spin" not in roots, roots
assert total > 100 and abs(100 * cut / total - 50) <= 20, (cut, total)
assert abs(100 * whole_shallow / total - 50) <= 20, (whole_shallow, total)
PY
	done
	"$YS" trace -q -o "$T/cut/trace.json" -- "$T/cut/deep" || return 1
	python3 - "$T/cut/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
roots = {}
for e in ev:
    if e.get("ph") == "i" and "stack" in e.get("args", {}):
        r = e["args"]["stack"].split(";")[0]
        roots[r] = roots.get(r, 0) + 1
print("# trace roots", roots)
assert "deep" not in roots and roots.get("[truncated]", 0) > 20, roots
PY
}
t "a stack cut at the kernel's callchain limit (fp) or the stack copy's end (dwarf) ends in [truncated], not under a false root (retried 3x)" retry deep_cut
# A main thread that calls pthread_exit while another thread works: the
# program ends with that thread, not with the main one (the wall time was
# the main thread's, 0.001 s against 0.24 s of its worker's CPU time). The
# worker's CPU time is at most the wall time; a tenth off for the clocks.
pthread_exit_main() {
	build_pexit "$T/pe" || return 1
	"$YS" record -- "$T/pe/pexit" 2>"$T/pe/rep" >/dev/null || { cat "$T/pe/rep"; return 1; }
	head -1 "$T/pe/rep"
	sed -En '1s/^[0-9]+ samples in ([0-9.]+) s, ([0-9.]+) s of CPU.*/\1 \2/p' "$T/pe/rep" |
		awk '{ exit !(NF == 2 && $2 > 0.05 && $1 >= 0.9 * $2) }'
}
t "a main thread that called pthread_exit: the wall time runs to the last thread's end, at least its CPU time" pthread_exit_main
finish
