# Every option that takes a number, with good and bad spellings of it:
# the list of options is generated from the option tables (`yardstick doc
# numbers`: a new option is covered on its own), the spellings from a
# table per type. A bad one is refused with exit 2 and a message quoting
# it; a good one is taken (`--help` after it then prints the help, exit
# 0). The options whose values hold numbers among other text (gate's
# thresholds, run's --pin, load's --segment and --start-at) are listed by
# hand at the end.
. "$(dirname "$0")/lib.sh"

"$YS" doc numbers >"$T/numbers" || { echo "Bail out! no 'doc numbers'"; exit 1; }

t "the list of options that take a number is not empty, and has each type" sh -c '
	for ty in count number duration size percent; do
		grep -q " $ty " "$T/numbers" || { echo "no $ty"; exit 1; }
	done
	[ "$(wc -l <"$T/numbers")" -ge 40 ]'

# spellings: one check per option, all its spellings in one Python run
# The sanitized build tries one (option, spelling) pair in 8, drawn with
# a fixed seed, so that each spelling is still tried on some options of
# its type: each of its runs costs the sanitizers' start and leak check
# (every pair, about 2,500 runs, took it 265 s)
python3 - "$YS" "$T/numbers" >"$T/cases" <<'PY'
import math, os, random, subprocess, sys
ys, listing = sys.argv[1], sys.argv[2]
SHARE = 1.0 if os.environ.get("YSB_SAN", "none") in ("", "none") else 0.125
pick = random.Random(1)

def tried():
    return pick.random() < SHARE
# refused by every type
NEVER = ["", " 5", "5 ", "\t5", "+5", "0x10", "0X10", "0x1p4", "inf", "-inf",
         "nan", "NaN", "infinity", "1e999", "5junk", "1,5", "0b1", "1e",
         "-", ".", "e5", "5..0", "1_000", "\u0663", "\uff15", "--5"]
BAD = {"count": NEVER + ["1.5", "5.0", "1e3", "99999999999999999999999"],
       "number": NEVER, "percent": NEVER + ["0x10%", "+5%", "inf%", " 5%"],
       "duration": NEVER + ["0x10ms", " 5ms", "+5ms", "infs", "5 ms", "1e999ns"],
       "size": NEVER + ["0x10k", "+4k", "infk", " 4k", "4 k"]}

def quoted(s):
    # the messages escape control characters (util/term's \xNN)
    return "'%s'" % "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f else c for c in s)

def fmt(v):
    return "%.6g" % v

def good(ty, lo, hi, x):
    if ty == "count":
        lo, hi, step = int(lo), int(hi), int(x)
        v = max(lo, step)
        v += (-v) % step
        out = [str(v), "0" + str(v)]
        if hi < 10 ** 7:
            out.append(str(hi - hi % step))
        return out
    if ty == "size":
        return ["4096", "4k", "4KiB", "1M", "1.5MiB"]
    lo, hi = float(lo), float(hi)
    if ty == "duration":
        lo = max(lo, 0.0)
        v = 0.5 if lo < 0.5 < hi else (lo + hi) / 2
        return [fmt(v), fmt(v) + "s", fmt(v * 1e3) + "ms", "%e" % v]
    if math.isinf(hi):
        v = lo + 1 if not math.isinf(lo) else 1.0
    else:
        v = (lo + hi) / 2
    out = [fmt(v), "%e" % v]
    if ty == "percent":
        out.append(fmt(v) + "%")
    return out

for line in open(listing):
    cmd, opt, ty, lo, hi, x = line.split()
    fails = []
    for s in good(ty, lo, hi, x):
        if not tried():
            continue
        r = subprocess.run([ys, cmd, opt, s, "--help"], capture_output=True, text=True)
        if r.returncode != 0:
            fails.append("good %r: exit %d: %s" % (s, r.returncode, r.stderr.strip()[:200]))
    for s in BAD[ty]:
        if not tried():
            continue
        r = subprocess.run([ys, cmd, opt, s, "--help"], capture_output=True, text=True)
        if r.returncode != 2 or quoted(s) not in r.stderr or opt not in r.stderr:
            fails.append("bad %r: exit %d: %s" % (s, r.returncode, r.stderr.strip()[:200]))
    print("%s %s %s\t%s" % (cmd, opt, ty, " | ".join(fails)))
PY

while IFS="$(printf '\t')" read -r what fails; do
	t "$what: good spellings taken, bad ones refused quoting them" sh -c '
		[ -z "$1" ] || { echo "$1" | tr "|" "\n"; exit 1; }' sh "$fails"
done <"$T/cases"

# ---- numbers inside an option's text (callbacks) ----------------------------
# refused CMD OPT VALUE BAD: yardstick CMD OPT VALUE exits 2 and quotes BAD
refused() {
	"$YS" "$1" "$2" "$3" --help >"$T/o" 2>"$T/e"
	rc=$?
	[ "$rc" -eq 2 ] && grep -qF "'$4'" "$T/e" || { echo "exit $rc:"; cat "$T/e"; return 1; }
}
taken() {
	"$YS" "$@" --help >/dev/null 2>"$T/e" || { cat "$T/e"; return 1; }
}
for o in --max-increase --max-decrease --limit; do
	for v in 0x10ms " 5ms" +5ms infms 0x10% "1e999%" nan%; do
		t "gate $o wall_time=$v: refused" refused gate $o "wall_time=$v" "wall_time=$v"
	done
	t "gate $o wall_time=15ms, 1.5e1ms, .5s: taken" \
		taken gate $o wall_time=15ms $o wall_time=1.5e1ms $o wall_time=.5s
done
t "gate --max-increase wall_time=5%, 0.5e1%: taken" \
	taken gate --max-increase wall_time=5% --max-increase wall_time=0.5e1%
for v in 0x1 " 1" +1 "1- 2" 1, "0,,1" 1-0x2; do
	t "run --pin '$v': refused" refused run --pin "$v" "$v"
done
t "run --pin 0,0-0: taken" taken run --pin 0,0-0
for v in " 1/4" "1/ 4" "1/+4" 0x1/4 1/0x4 "+1/4" 4/4; do
	t "load --segment '$v': refused" refused load --segment "$v" "$v"
done
t "load --segment 3/4: taken" taken load --segment 3/4

finish
