# yardstick mem against programs whose truth is known: tests/fixtures/
# heapgen.c plays a random allocation program chosen by a seed (threads,
# sizes, realloc chains, frees in any order and thread, each thread's
# first allocations) and writes what yardstick must find at its one
# allocation site, gen_call; each seed runs under yardstick mem (--unwind
# fp and dwarf by turns, --depth from 1 to 64, so that the stack records
# a thread's slot starts with have every length) and its result's figures are compared with the
# truth: allocations, bytes, temporaries, leaked blocks and bytes, the
# peak. A program of one thread allocates nothing else: its totals must
# be the truth exactly. With threads the totals also hold the C library's
# blocks for them: at least the truth, less than it plus LIBC_BYTES bytes
# and LIBC_BLOCKS blocks; and every fourth seed is run with its sites
# symbolized (which costs most of a run's time) and its figures at
# gen_call compared exactly, whatever the threads.
#
# MEM_DIFF_SEEDS (default 300, 60 in the sanitized build) programs from
# MEM_DIFF_FIRST (default 1), two at a time.
. "$(dirname "$0")/lib.sh"
HEAPFIX=${HEAPFIX:?HEAPFIX must name the heap fixture}
HEAPGEN=$(dirname "$HEAPFIX")/heapgen
# (300 took the sanitized build 97 s, the normal 25)
seeds_default=300
san_build && seeds_default=60
SEEDS=${MEM_DIFF_SEEDS:-$seeds_default}
FIRST=${MEM_DIFF_FIRST:-1}

C=$T/diff.py
cat > "$C" <<'PY'
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
ys, gen, d, first, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
LIBC_BYTES, LIBC_BLOCKS = 65536, 16
KINDS = {"allocations": "alloc_objects", "bytes": "alloc_space",
         "temporary": "temporary_objects", "leaked_blocks": "inuse_objects",
         "leaked_bytes": "inuse_space", "peak": "peak_space"}
TOTALS = {"allocations": "allocations", "temporary": "temporary_allocations",
          "bytes": "bytes_allocated", "leaked_blocks": "leaked_blocks",
          "leaked_bytes": "leaked_bytes", "peak": "peak_heap"}

def at_site(doc, kind):
    names = [f["name"] for f in doc["shared"]["frames"]]
    p = [p for p in doc["profiles"] if p["name"] == kind][0]
    return sum(w for s, w in zip(p["samples"], p["weights"])
               if s and names[s[-1]] == "gen_call")

def one(seed):
    h = seed * 2654435761 % 2 ** 32
    unwind = "fp" if h & 1 else "dwarf"
    depth = str((1, 2, 3, 4, 5, 6, 8, 64)[h >> 1 & 7])
    sites = h >> 4 & 3 == 0
    tr, ss, js = (f"{d}/{seed}.truth", f"{d}/{seed}.speedscope.json",
                  f"{d}/{seed}.json")
    p = subprocess.run([ys, "mem", "-q", "--no-store", "--unwind", unwind,
                        "--depth", depth]
                       + (["-o", ss] if sites else [])
                       + ["--json", js, "--", gen, str(seed), tr],
                       capture_output=True, text=True)
    if p.returncode or p.stderr:
        return f"seed {seed}: exit {p.returncode}: {p.stderr.strip()}"
    truth = dict((k, int(v)) for k, v in (l.split() for l in open(tr)))
    r = json.load(open(js))
    m = {k: v["values"][0] for k, v in r["benchmarks"][0]["metrics"].items()}
    errs = []
    if sites:
        doc = json.load(open(ss))
        for k, kind in KINDS.items():
            got = at_site(doc, kind)
            if got != truth[k]:
                errs.append(f"{kind} at gen_call {got}, truth {truth[k]}")
    for k, metric in TOTALS.items():
        margin = LIBC_BLOCKS if k in ("allocations", "temporary",
                                      "leaked_blocks") else LIBC_BYTES
        if truth["threads"] == 1:
            margin = 1
        if not 0 <= m[metric] - truth[k] < margin:
            errs.append(f"{metric} {m[metric]}, truth {truth[k]}")
    if r["settings"].get("trace") != "complete":
        errs.append("trace not complete")
    if errs:
        return (f"seed {seed} ({truth['threads']} threads, --unwind "
                f"{unwind} --depth {depth}): " + "; ".join(errs))
    for f in (tr, ss, js):
        subprocess.run(["rm", "-f", f])
    return None

with ThreadPoolExecutor(2) as ex:
    bad = [e for e in ex.map(one, range(first, first + n)) if e]
for e in bad:
    print(e)
print(f"{n} programs, {len(bad)} differ")
sys.exit(1 if bad else 0)
PY

t "$SEEDS random allocation programs (seeds $FIRST..): every figure as their truth" \
	python3 "$C" "$YS" "$HEAPGEN" "$T" "$FIRST" "$SEEDS"
finish
