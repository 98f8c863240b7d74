# yardstick mem on children forked while the heap agent is in the middle
# of a call of the forking thread (tests/fixtures/heapforkin.c): a
# signal handler that forks when its signal interrupted the agent (fork,
# or _Fork, which runs no atfork handler), the child allocating in the
# handler or returning into the interrupted call; _Fork from the main
# loop; and one call stepped an instruction at a time with a child
# forked at every fifth instruction of the agent's. Each run: no crash, no hang, no warning;
# the parent's blocks of 5000 bytes exactly what it made (its row too,
# in exact mode), every child's 3 blocks of 11000 bytes counted (3 F in
# their class; in exact mode at child_blocks, and each child's row 3,
# or 4 in the modes where it returns into the call: the call is then
# the child's if it had not begun in the agent). Before the agent
# abandoned such a call in the child (src/heap/agent_start.h,
# abandon_call), the children of a handler's fork counted nothing, a
# child returning into the call wrote into its parent's slot (the
# parent's row 46 blocks of its 3; a hang), and _Fork's children were
# no processes of the tree, their records in the parent's slot broke
# its stacks ("57 stacks could not be rebuilt").
. "$(dirname "$0")/lib.sh"
HEAPFORKIN=${HEAPFORKIN:?HEAPFORKIN must name the heapforkin fixture}

cat > "$T/check.py" <<'PY'
import collections, json, re, sys
text, ss, mode, sampled = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
rep = open(text).read()
parent = int(re.search(r"^parent (\d+)$", rep, re.M).group(1))
forks = int(re.search(r"^forks (\d+)$", rep, re.M).group(1))
resume = mode in ("resume", "stepresume")
assert forks > 0, "no child"
assert "warning" not in rep, "a warning"
sizes = rep.split("\nallocation sizes", 1)[1].split("\n\n", 1)[0]
rows = {k: int(v.replace(",", "")) for k, v in
        re.findall(r"^  (\S.*?) +[\d.]+% +([\d,]+)", sizes, re.M)}
print("parent", parent, "forks", forks, "size classes", rows)
# (sampled, a child returning into leave() between its test of the slot
# and the fast path's opening counts on an open path with no slot: what it
# counts there is lost when its first sampled call takes a slot; 2 blocks
# of 2,811 in one run: known, not fixed)
lost = forks // 100 if sampled and resume else 0
got = rows.get("8 KiB - 16 KiB", 0)
assert 3 * forks - lost <= got <= 3 * forks, "children's blocks"
small = rows.get("4 KiB - 8 KiB", 0)
assert parent <= small <= parent + (forks if resume else 0), "parent's blocks"
if sampled:
    sys.exit(0)
procs = re.findall(r"^ +\d+ +\d+ +([\d,]+) +.*heapforkin \S+ \d+( \(forked\))?$", rep, re.M)
top = [int(n.replace(",", "")) for n, f in procs if not f]
kids = [int(n.replace(",", "")) for n, f in procs if f]
threaded = mode in ("fork", "resume", "_Fork")	# pthread_create's block
assert top == [parent + threaded], ("parent's row", top)
assert len(kids) == forks, ("children's rows", len(kids))
assert all(k == 3 or (resume and k == 4) for k in kids), collections.Counter(kids)
d = json.load(open(ss))
names = [f["name"] for f in d["shared"]["frames"]]
p = [p for p in d["profiles"] if p["name"] == "alloc_objects"][0]
c = collections.Counter()
for s, w in zip(p["samples"], p["weights"]):
    if s:
        c[names[s[-1]]] += w
print("sites", dict(c))
assert c["child_blocks"] == 3 * forks, "child_blocks"
assert parent <= c["parent_block"] <= parent + (forks if resume else 0)
PY

# forkin MODE N [--sample BYTES]: mem runs heapforkin MODE N (within 300 s,
# exit 0) and reports what check.py asks
forkin() {
	mode=$1 count=$2
	shift 2
	sampled=0
	[ $# -gt 0 ] && sampled=1
	timeout 300 "$YS" mem --no-store "$@" -o "$T/f.speedscope.json" -- \
		"$HEAPFORKIN" "$mode" "$count" >"$T/f.txt" 2>&1 ||
		{ echo "exit $?"; tail -20 "$T/f.txt"; return 1; }
	python3 "$T/check.py" "$T/f.txt" "$T/f.speedscope.json" "$mode" \
		$sampled || { head -40 "$T/f.txt"; return 1; }
}

for m in fork resume _Fork loop step stepresume; do
	t "$m: natively" "$HEAPFORKIN" $m 5
done
for m in fork resume _Fork loop; do
	t "$m, 20 children: no crash, every child's blocks its own, the parent's exact" \
		forkin $m 20
	t "$m, sampled: the counts exact" forkin $m 20 --sample 4096
done
for m in step stepresume; do
	t "$m: a child at every fifth instruction of the agent's malloc and free: no crash, no hang, counts exact" \
		forkin $m 5
	t "$m, sampled" forkin $m 5 --sample 4096
done

finish
