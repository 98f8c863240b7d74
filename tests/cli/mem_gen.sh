# yardstick mem against the truth of generated allocation patterns
# (bench/alloc_gen.c): three seeds never seen before, a new one each run
# (printed: `ALLOC_GEN SEED` makes the same pattern again), and the seeds
# of the held-out list (bench/mem_heldout.txt). The generator knows what
# each of its stacks allocated, how much, how many of its blocks were
# temporaries, what was live at the heap's peak and what leaked; every
# one of those figures must be yardstick's exactly, stack by stack (the
# speedscope output: a stack is its site's function and its frames of
# `descend`), and so their totals. The program's whole totals also hold
# the C library's own blocks (a thread's TLS, stdio's buffer): checked
# to be at least the generator's and less than it plus LIBC_BYTES and
# LIBC_BLOCKS.
. "$(dirname "$0")/lib.sh"
ALLOC_GEN=${ALLOC_GEN:?ALLOC_GEN must name bench/alloc_gen.c built}
LIBC_BYTES=65536
LIBC_BLOCKS=64
export ALLOC_GEN LIBC_BYTES LIBC_BLOCKS

CHECK=$T/check.py
cat > "$CHECK" <<'PY'
import json, os, sys

truth_path, result_path, profile_path = sys.argv[1:4]
kinds = {"allocations": "alloc_objects", "bytes": "alloc_space",
         "temporary": "temporary_objects", "peak": "peak_space",
         "leaked_blocks": "inuse_objects", "leaked_bytes": "inuse_space"}

def parse(words):
    return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}

truth, total = {}, None
for line in open(truth_path):
    w = line.split()
    if w[0] == "total":
        total = parse(w[1:])
    elif w[0] == "stack":
        truth[(w[1], int(w[2]))] = parse(w[3:])

# yardstick's stacks, by (leaf function, frames of descend)
d = json.load(open(profile_path))
names = [f["name"] for f in d["shared"]["frames"]]
got = {}
for p in d["profiles"]:
    kind = p["name"]
    for s, wgt in zip(p["samples"], p["weights"]):
        if not s:
            continue
        leaf = names[s[-1]]
        if leaf != "peak_block" and not leaf.startswith("site_"):
            continue
        depth = sum(1 for f in s if names[f].startswith("descend"))
        got.setdefault((leaf, depth), {}).setdefault(kind, 0)
        got[(leaf, depth)][kind] += wgt

bad = []
for key, want in sorted(truth.items()):
    have = got.get(key, {})
    for field, kind in kinds.items():
        if have.get(kind, 0) != want[field]:
            bad.append("%s depth %d %s: yardstick %s, truth %d" %
                       (key[0], key[1], field, have.get(kind, 0),
                        want[field]))
for key in got:
    if key not in truth:
        bad.append("stack %s depth %d not the generator's" % key)

m = {k: v["values"][0]
     for k, v in json.load(open(result_path))["benchmarks"][0]
                    ["metrics"].items()}
def within(metric, want, slack):
    v = m[metric]
    if not (want <= v < want + slack):
        bad.append("%s: yardstick %s, truth %d (+ the C library's, < %d)"
                   % (metric, v, want, slack))
lb, lk = int(os.environ["LIBC_BYTES"]), int(os.environ["LIBC_BLOCKS"])
within("peak_heap", total["peak"], lb)
within("allocations", total["allocations"], lk)
within("bytes_allocated", total["bytes"], lb)
within("temporary_allocations", total["temporary"], lk)
within("leaked_blocks", total["leaked_blocks"], lk)
within("leaked_bytes", total["leaked_bytes"], lb)
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
PY

# gen SEED: the pattern of SEED under mem, checked against its truth.
gen() {
	$YS mem -q --no-store --json "$T/$1.json" \
		-o "$T/$1.speedscope.json" -- \
		"$ALLOC_GEN" "$1" 1 "$T/$1.truth" >/dev/null &&
	head -1 "$T/$1.truth" &&
	python3 "$CHECK" "$T/$1.truth" "$T/$1.json" "$T/$1.speedscope.json"
}

# sampled SEED: the pattern of SEED under mem --sample 1024 with the
# throttle at 200 samples a second (its interval raised many times
# over): the totals the agent counts (allocations, bytes, temporaries)
# are still the truth's exactly, give or take the C library's blocks
sampled() {
	$YS mem -q --no-store --sample 1024 --sample-rate 200 \
		--json "$T/$1-s.json" -- "$ALLOC_GEN" "$1" 4 "$T/$1-s.truth" \
		>/dev/null &&
	python3 - "$T/$1-s.truth" "$T/$1-s.json" <<'PY'
import json, os, sys
total = [l.split() for l in open(sys.argv[1]) if l.startswith("total")][0][1:]
total = {total[i]: int(total[i + 1]) for i in range(0, len(total), 2)}
d = json.load(open(sys.argv[2]))
m = {k: v["values"][0] for k, v in d["benchmarks"][0]["metrics"].items()}
lb, lk = int(os.environ["LIBC_BYTES"]), int(os.environ["LIBC_BLOCKS"])
s = d["settings"]
print("# samples %d, raised %d, interval up to %d" %
      (s["samples"], s["samples_raised"], s["sample_interval_max"]))
for metric, key, slack in (("allocations", "allocations", lk),
                           ("bytes_allocated", "bytes", lb),
                           ("temporary_allocations", "temporary", lk)):
    assert total[key] <= m[metric] < total[key] + slack, \
        (metric, m[metric], total[key])
PY
}

# three seeds this test never saw: a new one each run
for k in 1 2 3; do
	seed=$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')
	echo "# new seed $seed (ALLOC_GEN $seed makes it again)"
	t "a new pattern (seed $seed): every stack's figures exact" gen "$seed"
	t "... sampled, its interval raised by the throttle: the counts exact" \
		sampled "$seed"
done

# the held-out patterns of bench/ (its benchmark's list), small here
for seed in $(sed -n 's/^seed \([0-9]*\).*/\1/p' \
	"$(dirname "$0")/../../bench/mem_heldout.txt"); do
	t "held-out pattern $seed: every stack's figures exact" gen "$seed"
done

# the check can fail: a truth one byte off is caught
t "a truth off by one byte is caught" sh -c '
	seed=7
	$YS mem -q --no-store --json "$T/off.json" -o "$T/off.speedscope.json" \
		-- "$ALLOC_GEN" $seed 1 "$T/off.truth" >/dev/null &&
	awk "/^stack site_/ && !done { \$7 = \$7 + 1; done = 1 } { print }" \
		"$T/off.truth" > "$T/off2.truth" &&
	! python3 "$CHECK" "$T/off2.truth" "$T/off.json" "$T/off.speedscope.json"'
finish
