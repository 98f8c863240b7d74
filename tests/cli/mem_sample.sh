# yardstick mem --sample: the exact counts of sampled mode where they can
# be lost. The agent counts each thread's allocations in the thread's own
# memory and publishes them to the segment on a sampled call and at the
# ends (agent_sample.h, counts_publish_all): a thread's exit, a fork
# child's, an exec, the process's exit or _exit. heapcount
# (tests/fixtures/heapcount.c) never reaches a sample at 1 GiB: its
# designed counts in four size classes arrive only through those ends,
# and must be exact, and every total (allocations, frees, temporaries,
# bytes, the size histogram) that of exact mode.
. "$(dirname "$0")/lib.sh"
HEAPCOUNT=${HEAPCOUNT:?HEAPCOUNT must name the counting fixture}
HEAPHAND=${HEAPHAND:?HEAPHAND must name the hand-over fixture}
HEAPPAGES=${HEAPPAGES:?HEAPPAGES must name the many-stacks fixture}

# report.py TEXT JSON: the totals and the size histogram of mem's report
# (its text on stdout, and bytes_allocated from its JSON), as one line
cat > "$T/report.py" <<'PY'
import json, re, sys
text, js = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
m = js["benchmarks"][0]["metrics"]
num = lambda s: int(s.replace(",", ""))
a = re.search(r"allocations +([\d,]+) .*, ([\d,]+) freed\)", text)
t = re.search(r"temporary +([\d,]+) ", text)
sizes = text.split("\nallocation sizes", 1)[1].split("\n\n", 1)[0]
rows = re.findall(r"^  (\S.*?) +[\d.]+% +([\d,]+) ", sizes, re.M)
out = {"allocations": num(a.group(1)), "frees": num(a.group(2)),
       "temporary": num(t.group(1)),
       "bytes": int(m["bytes_allocated"]["values"][0]),
       "sizes": {r: num(n) for r, n in rows}}
print(json.dumps(out, sort_keys=True))
PY

# designed.py REPORT END: heapcount END's designed counts are in REPORT
cat > "$T/designed.py" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read())
want = {"512 B - 1 KiB": 14, "2 KiB - 4 KiB": 120, "16 KiB - 32 KiB": 40,
        "32 KiB - 64 KiB": 30, "64 KiB - 128 KiB": 30}
if sys.argv[2] == "exec":
    want["4 KiB - 8 KiB"] = 5
for k, v in want.items():
    assert r["sizes"].get(k) == v, "%s: %s blocks, designed %d" % (k, r["sizes"].get(k), v)
# the C library's own blocks come on top, never below
assert r["frees"] >= 194, "frees %d < 194" % r["frees"]
assert r["temporary"] >= 48, "temporaries %d < 48" % r["temporary"]
assert r["bytes"] >= 14 * 1000 + 120 * 3000 + 40 * 20000 + 30 * 40000 + 30 * 100000, r["bytes"]
PY

# counts MODE END: mem's counts of heapcount END, exact or sampled
counts() {
	if [ "$1" = sampled ]; then
		set -- "$2" --sample 1073741824
	else
		set -- "$2"
	fi
	end=$1
	shift
	"$YS" mem --no-store "$@" --json "$T/c.json" -- "$HEAPCOUNT" "$end" \
		>"$T/c.txt" 2>&1 &&
	python3 "$T/report.py" "$T/c.txt" "$T/c.json"
}

# Exact mode's "freed" is of the blocks it saw allocated, sampled mode's
# every free the program made: the same number, an exec included (the
# agent's own lookup of the exec function freed glibc's dlerror buffer,
# counted as the program's in sampled mode: 2 more frees per exec).
ends() {
	counts exact "$1" >"$T/exact-$1" &&
	counts sampled "$1" >"$T/sampled-$1" &&
	python3 "$T/designed.py" "$T/exact-$1" "$1" &&
	python3 "$T/designed.py" "$T/sampled-$1" "$1" &&
	{ cmp -s "$T/exact-$1" "$T/sampled-$1" ||
		{ echo "exact:   $(cat "$T/exact-$1")"
		  echo "sampled: $(cat "$T/sampled-$1")"; false; }; }
}
t "--sample: short threads, a fork child, threads alive at exit: counts as designed and as exact mode's" ends exit
t "--sample: ... and everything ended by _exit" ends _exit
t "--sample: ... and the process ended by an exec (of a program that allocates)" ends exec

# Many threads at once, each allocating a size of its own and ending
# before any sample: every thread's count published at its end.
manythreads() {
	cat > "$T/many.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
static void *run(void *arg)
{
	long k = (long)arg;
	for (long i = 0; i <= k; i++)
		free(malloc(4096 + 64 * k));
	return NULL;
}
int main(void)
{
	pthread_t th[64];
	for (long k = 0; k < 64; k++)
		if (pthread_create(&th[k], NULL, run, (void *)k))
			return 1;
	for (int k = 0; k < 64; k++)
		pthread_join(th[k], NULL);
	return 0;
}
C
	cc -O1 -pthread -fno-builtin-malloc -fno-builtin-free -o "$T/many" \
		"$T/many.c" &&
	"$YS" mem --no-store --json "$T/m.json" -- "$T/many" >"$T/m.txt" 2>&1 &&
	python3 "$T/report.py" "$T/m.txt" "$T/m.json" >"$T/many-exact" &&
	"$YS" mem --no-store --sample 1073741824 --json "$T/m.json" -- \
		"$T/many" >"$T/m.txt" 2>&1 &&
	python3 "$T/report.py" "$T/m.txt" "$T/m.json" >"$T/many-sampled" &&
	python3 - "$T/many-exact" "$T/many-sampled" <<'PY'
import json, sys
e, s = (json.loads(open(f).read()) for f in sys.argv[1:])
# 64 threads, thread k: k + 1 blocks of 4096 + 64 k bytes, each a
# temporary: 2080 blocks, all in [4 KiB, 8 KiB)
want = sum(k + 1 for k in range(64) if 4096 + 64 * k < 8192)
assert s["sizes"].get("4 KiB - 8 KiB") == want, (s["sizes"], want)
assert s["temporary"] >= 2080, s["temporary"]
assert s["bytes"] >= sum((k + 1) * (4096 + 64 * k) for k in range(64)), s["bytes"]
assert e == s, "exact %s, sampled %s" % (e, s)
PY
}
t "--sample: 64 threads at once, none sampled: every count published at its end" manythreads

# The bytes allocated are not counted call by call in sampled mode: they
# are what the sampling countdowns took (agent_sample.h, counts_store).
# Across many samples (an interval of 1, 64 and 4096 bytes) and through
# every entry point, every count is still exact mode's.
crossings() {
	for args in "realloc" "calloc" "aligned" "reallocs 2000" \
		    "temp 1000" "samesize" "threads 8 20000"; do
		# shellcheck disable=SC2086 # the fixture's arguments
		"$YS" mem --no-store --json "$T/x.json" -- "$HEAPFIX" $args \
			>"$T/x.txt" 2>&1 &&
		python3 "$T/report.py" "$T/x.txt" "$T/x.json" >"$T/x-exact" ||
			{ echo "heapfix $args"; return 1; }
		for every in 1 64 4096; do
			# shellcheck disable=SC2086
			"$YS" mem --no-store --sample $every --json "$T/x.json" \
				-- "$HEAPFIX" $args >"$T/x.txt" 2>&1 &&
			python3 "$T/report.py" "$T/x.txt" "$T/x.json" \
				>"$T/x-sampled" &&
			cmp -s "$T/x-exact" "$T/x-sampled" ||
				{ echo "heapfix $args, --sample $every:"
				  echo "exact:   $(cat "$T/x-exact")"
				  echo "sampled: $(cat "$T/x-sampled")"
				  return 1; }
		done
	done
}
t "--sample 1, 64, 4096: bytes, allocations, frees, temporaries and sizes as exact mode's, by every entry point" crossings

# A free must find its block among the sampled ones wherever it was
# allocated: the agent keeps them, and the filter every free reads first,
# by 64 MiB region of address, a region's in a stripe of their own
# (agent_sample.h; 16 of them at 524288 bytes, fewer at smaller
# intervals). heaphand's threads each allocate in their own arena (and
# its own region) and free the next thread's blocks, but KEEP of each:
# blocks of 100 KiB from the arenas (at 524288 each sampled with
# probability 0.18: ~150 of 800, each weighing 560 KiB) and of 8 MiB
# (mmapped, regions apart). A sampled free that is not found leaves its
# block leaked: leaked_bytes above the design by 560 KiB at least. The
# design is exact where every block is sampled all but surely (8 MiB at
# 524288: 1 - e^-16; 100 KiB at 4096), and 0 where all are freed; a
# sample of the kept 100 KiB blocks would be an estimate, so none is
# kept at 524288 and 65536 (2 stripes). glibc's own few blocks at exit
# may add an estimate (a 1 KiB block sampled weighs 512 KiB): 4 MiB of
# room above.
# hand INTERVAL T N SIZE KEEP
hand() {
	"$YS" mem -q --no-store --sample "$1" --json "$T/h.json" -- \
		"$HEAPHAND" "$2" "$3" "$4" "$5" >"$T/h.txt" 2>&1 ||
		{ cat "$T/h.txt"; return 1; }
	python3 -c "
import json, sys
m = json.load(open('$T/h.json'))['benchmarks'][0]['metrics']
lb = m['leaked_bytes']['values'][0]
want = $2 * $5 * $4
print('# --sample $1, $2 threads x $3 blocks of $4 bytes, $5 kept each: leaked %.0f bytes, designed %d' % (lb, want))
assert want * (1 - 1e-6) <= lb <= want + 4 * 1048576, (lb, want)"
}
hands() {
	hand 524288 4 200 102400 0 &&
	hand 524288 6 16 8388608 0 &&
	hand 524288 6 16 8388608 5 &&
	hand 65536 3 300 102400 0 &&
	hand 4096 3 300 102400 100
}
t "--sample: blocks freed by another thread than their allocator's, in another arena and region: none lost, the kept ones leaked (100 KiB and 8 MiB; 524288, 65536, 4096)" hands

# The agent leaves glibc's arenas as they would be: nothing of its own
# in a new thread's arena before the program's first block (its stack
# bounds come from pthread_getattr_np, whose allocations it serves from
# scratch). Seed 3451 (4 threads, windows of 64 blocks of up to 64 KiB)
# sits at glibc's trim threshold: two chunks of ours first in each arena
# made it trim twice as often and fault 2.7 times as much. Page faults
# are counts, not times: the program's under mem (the tree's, less those
# of mem on /bin/true) within 25% of its own alone.
arenas() {
	/usr/bin/time -f "%R" -o "$T/f.native" "$ALLOC_GEN" 3451 2 /dev/null >/dev/null &&
	/usr/bin/time -f "%R" -o "$T/f.mem" "$YS" mem -q --no-store --sample 524288 -- "$ALLOC_GEN" 3451 2 /dev/null >/dev/null 2>&1 &&
	/usr/bin/time -f "%R" -o "$T/f.true" "$YS" mem -q --no-store --sample 524288 -- /bin/true >/dev/null 2>&1 &&
	python3 -c "
n, m, z = (int(open(\"$T/f.\" + k).read().split()[-1]) for k in (\"native\", \"mem\", \"true\"))
print(\"# page faults: native\", n, \"under mem\", m - z, \"(tree\", m, \"less\", z, \")\")
assert m - z <= 1.25 * n, (n, m, z)"
}
# Launchers (docs/cmd/mem.md): with --sample the agent's exact counts are
# the whole tree's, and each image adds its own part to its entry in the
# segment at its end (protocol.h, heap_image.counts): the launchers' come
# off. A Python launcher (hundreds of thousands of allocations, with the
# PYTHONMALLOC=malloc the agent sets) that execs alloc_gen, which is then
# the program: the totals and the size histogram, in exact mode and
# sampled, are those of alloc_gen run directly, and the launchers' line
# is exact in both. A launcher killed by SIGKILL (a child of the
# launching shell) has no whole counts: none are taken off then, and the
# line says that the counts include them.
PYL=/usr/bin/python3.11
launched() {
	"$YS" mem --no-store "$@" --json "$T/l.json" -- "$PYL" -c \
		"import os; x = [str(i) * 3 for i in range(100000)]; os.execv('$ALLOC_GEN', ['$ALLOC_GEN', '1006', '1', '$T/l.truth'])" \
		>"$T/l.txt" 2>&1 && python3 "$T/report.py" "$T/l.txt" "$T/l.json"
}
sampled_launchers() {
	"$YS" mem --no-store --json "$T/d.json" -- "$ALLOC_GEN" 1006 1 \
		"$T/d.truth" >"$T/d.txt" 2>&1 &&
	python3 "$T/report.py" "$T/d.txt" "$T/d.json" >"$T/direct" &&
	launched >"$T/l-exact" && cp "$T/l.txt" "$T/l-exact.txt" &&
	launched --sample 524288 >"$T/l-sampled" || { cat "$T/l.txt"; return 1; }
	for f in l-exact l-sampled; do
		cmp -s "$T/direct" "$T/$f" ||
			{ echo "direct:  $(cat "$T/direct")"
			  echo "$f: $(cat "$T/$f")"; return 1; }
	done
	python3 - "$T/l-exact.txt" "$T/l.txt" <<'PY' || return 1
import re, sys
line = lambda f: re.search(r"^  not counted: (.*)$", open(f).read(), re.M).group(1)
e, s = line(sys.argv[1]), line(sys.argv[2])
print("# exact:  ", e)
print("# sampled:", s)
n = int(re.search(r"; ([\d,]+) allocations\)", s).group(1).replace(",", ""))
assert e == s and "estimated" not in s and n > 100000, "not the same line"
PY
	# the killed launcher
	"$YS" mem --no-store --sample 524288 --json "$T/k.json" -- sh -c \
		"$PYL -c 'import os; x = [str(i) * 3 for i in range(50000)]; os.kill(os.getpid(), 9)'; exec $ALLOC_GEN 1006 1 $T/k.truth" \
		>"$T/k.txt" 2>&1 || { cat "$T/k.txt"; return 1; }
	python3 "$T/report.py" "$T/k.txt" "$T/k.json" >"$T/k-counts" &&
	python3 - "$T/k.txt" "$T/k-counts" "$T/l-exact" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
k, e = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
line = re.search(r"^  not counted: (.*)$", text, re.M).group(1)
print("# killed:", line, "allocations", k["allocations"], "program's", e["allocations"])
assert "allocations, estimated); the exact counts above include them" in line, line
assert k["allocations"] >= e["allocations"] + 50000, "the launchers' not included"
PY
}
t "--sample through launchers: the totals and sizes exact mode's, the launchers' line exact; a killed launcher's counts kept in, and said" sampled_launchers

t "mem --sample leaves glibc's arenas alone: a pattern at the trim threshold faults as often as without it" arenas

# The agent's tables that are read before they are written (the stacks
# sent, a thread's walked stacks and their rules, the sampled blocks',
# the filter's counters) have their pages written first
# (src/heap/agent_pages.h): a page read first maps the zero page, and the
# write after it faults again and flushes the page's translation on every
# processor. perf's page-fault samples, with their addresses, count the
# pages of heappages' process that faulted more than once. Natively only
# the loader's do (relocations, each library's .bss); the agent brings a
# few libraries of its own (libunwind and its needs), a few pages each.
# Before the pages were written first: 719 sampled and 857 exact, against
# 5 natively; after, 14 and 14.
twice() {
	perf record -q -e page-faults:u -c 1 -d -o "$T/pf.data" -- "$@" \
		>/dev/null 2>"$T/pf.err" || { cat "$T/pf.err"; return 1; }
	perf script -i "$T/pf.data" -F comm,addr 2>/dev/null | awk '
		$1 == "heappages" { c[substr($2, 1, length($2) - 3)]++ }
		END { n = 0; for (k in c) if (c[k] > 1) n++; print n }'
}
pages_first() {
	native=$(twice "$HEAPPAGES" 3 20000) &&
	sampled=$(twice "$YS" mem -q --no-store --sample 524288 -- "$HEAPPAGES" 3 20000) &&
	exact=$(twice "$YS" mem -q --no-store -- "$HEAPPAGES" 3 20000) || return 1
	echo "# pages faulted twice: native $native, mem --sample $sampled, mem $exact"
	[ "$native" -ge 1 ] && [ "$sampled" -le $((native + 40)) ] &&
		[ "$exact" -le $((native + 40)) ]
}
t "the agent writes its tables' pages before it reads them: a few pages fault twice, as natively, not hundreds" pages_first

finish
