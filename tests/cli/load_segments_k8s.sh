# docs/load-segments.yaml, the Kubernetes recipe for `load` from many
# pods, checked without a cluster: the YAML parses, its structure (a
# deadline on both Jobs, the volume claim they mount defined, N set in
# one place), and its two scripts run against a local folder as the pods
# would run them (filled in as envsubst fills them), with a `yardstick`
# that records what it was asked: three segment "pods" next to the stale
# files of an older run merge only their own; a failed segment and a
# missing one make the merge fail at once or after MERGE_WAIT, saying
# which, well before the merge Job's deadline.
. "$(dirname "$0")/lib.sh"
RECIPE=$(dirname "$0")/../../docs/load-segments.yaml

# render RUN_ID SEGMENTS OUTDIR: the recipe filled in as envsubst
# '$SEGMENTS $RUN_ID $START_AT' does, its documents in OUTDIR/docs.json,
# its scripts in OUTDIR/segment.sh and OUTDIR/merge.sh.
render() {
	python3 - "$RECIPE" "$1" "$2" "$3" <<'PY'
import json, re, sys, yaml
src, run, n, out = sys.argv[1:]
vals = {"SEGMENTS": n, "RUN_ID": run, "START_AT": "2030-01-01T00:00:00Z"}
text = re.sub(r"\$(?:\{(\w+)\}|(\w+))",
              lambda m: vals.get(m.group(1) or m.group(2), m.group(0)),
              open(src).read())
docs = [d for d in yaml.safe_load_all(text) if d]
json.dump(docs, open(out + "/docs.json", "w"))
cm = [d for d in docs if d["kind"] == "ConfigMap"][0]
for k in ("segment.sh", "merge.sh"):
    open(out + "/" + k, "w").write(cm["data"][k])
env = {k: v for k, v in cm["data"].items() if not k.endswith(".sh")}
open(out + "/env.sh", "w").write(
    "".join("export %s='%s'\n" % (k, v) for k, v in env.items()))
PY
}

structure() {
	python3 - "$RECIPE" <<'PY'
import re, sys, yaml
text = open(sys.argv[1]).read()
docs = [d for d in yaml.safe_load_all(text) if d]
kinds = [d["kind"] for d in docs]
assert kinds.count("Job") == 2, kinds
jobs = [d for d in docs if d["kind"] == "Job"]
pvc = [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
assert len(pvc) == 1 and "ReadWriteMany" in pvc[0]["spec"]["accessModes"], pvc
cm = [d for d in docs if d["kind"] == "ConfigMap"][0]
for j in jobs:
    s = j["spec"]
    assert isinstance(s.get("activeDeadlineSeconds"), int), j["metadata"]
    # every volume claim a Job mounts is the one defined here
    claims = [v["persistentVolumeClaim"]["claimName"]
              for v in s["template"]["spec"]["volumes"]
              if "persistentVolumeClaim" in v]
    assert claims == [pvc[0]["metadata"]["name"]], claims
    assert "${RUN_ID}" in j["metadata"]["name"], j["metadata"]
load = [j for j in jobs if j["spec"].get("completionMode") == "Indexed"][0]
merge = [j for j in jobs if j is not load][0]
# N in one place: the Job's counts and the pods' SEGMENTS are all the one
# variable, and no count is written as a number anywhere
assert load["spec"]["completions"] == "${SEGMENTS}", load["spec"]
assert load["spec"]["parallelism"] == "${SEGMENTS}", load["spec"]
assert cm["data"]["SEGMENTS"] == "${SEGMENTS}", cm["data"]
code = "\n".join(l for l in text.splitlines()
                 if not l.lstrip().startswith("#"))
assert not re.search(r"(completions|parallelism|SEGMENTS)\W+\d", code)
# the merge gives up, saying why, before its Job's deadline, and not
# before the load Job's (a segment still running is not cut short)
wait = int(cm["data"]["MERGE_WAIT"])
assert load["spec"]["activeDeadlineSeconds"] < wait, wait
assert wait + 60 <= merge["spec"]["activeDeadlineSeconds"], wait
PY
}
t "the recipe parses: two Jobs with deadlines, the claim defined, N one variable" structure

# A `yardstick` that records its arguments: load writes its --json file
# (then fails when FAIL_SEGMENT is its segment), merge lists its inputs.
mkdir -p "$T/bin"
cat >"$T/bin/yardstick" <<'EOF'
#!/bin/sh
echo "$*" >>"$T/calls"
case $1 in
load)
	seg= out=
	while [ $# -gt 0 ]; do
		case $1 in
		--segment) seg=$2; shift ;;
		--json) out=$2; shift ;;
		esac
		shift
	done
	[ "${FAIL_SEGMENT:-}" = "${seg%/*}" ] && exit 3
	echo "{\"segment\": \"$seg\"}" >"$out" ;;
merge)
	shift 3
	echo "$*" >"$T/merged" ;;
esac
EOF
chmod +x "$T/bin/yardstick"

# pods RUN N [SEGMENT...]: the segment pods of run RUN (N segments), those
# listed (all when none), each as the pod runs it.
pods() {
	run=$1 segs=$2
	shift 2
	mkdir -p "$T/r-$run" && render "$run" "$segs" "$T/r-$run" || return 1
	[ $# -gt 0 ] || set -- $(seq 0 $((segs - 1)))
	for i in "$@"; do
		(. "$T/r-$run/env.sh" && RESULTS_DIR=$T/results \
		 JOB_COMPLETION_INDEX=$i PATH=$T/bin:$PATH sh "$T/r-$run/segment.sh") ||
			echo "segment $i failed" >>"$T/pods-$run"
	done
	return 0
}

merge() {
	(. "$T/r-$1/env.sh" && RESULTS_DIR=$T/results MERGE_WAIT=${2:-960} \
	 MERGE_POLL=0.1 PATH=$T/bin:$PATH sh "$T/r-$1/merge.sh")
}

fresh_run_only() {
	# an older run of 5 segments, and stray files of the old layout
	pods old 5 && merge old &&
	touch "$T/results/segment-0.json" "$T/results/segment-7.json" &&
	rm -f "$T/merged" &&
	pods new 3 && merge new 2>"$T/merge.err" &&
	cat "$T/merged" && [ "$(cat "$T/merged")" = "$T/results/new/segment-0.json $T/results/new/segment-1.json $T/results/new/segment-2.json" ] &&
	grep -q -- "--segment 2/3" "$T/calls" &&
	grep -q -- "--json $T/results/new/segment-1.json" "$T/calls" &&
	has "$T/calls" "merge -o $T/results/new/total.json"
}
t "3 pods next to an older run's files: only the new run's 3 segments merged" fresh_run_only

failed_segment() {
	rm -f "$T/merged"
	FAIL_SEGMENT=1 pods bad 3 && has "$T/pods-bad" "segment 1 failed" &&
	[ -f "$T/results/bad/segment-1.failed" ] &&
	start=$(date +%s) &&
	expect_exit 1 merge bad 600 &&
	[ $(($(date +%s) - start)) -lt 60 ] &&
	has "$T/stderr" "merge of run bad: segment(s) 1 failed" &&
	[ ! -f "$T/merged" ]
}
t "a segment that failed: the merge fails at once, naming it" failed_segment

# A pod that never wrote (not scheduled, killed): the merge gives up after
# MERGE_WAIT (2 s here), naming the segment, not at the Job's deadline;
# the bound on how long it took is wide (a busy machine), and far below
# any deadline.
missing_segment() {
	rm -f "$T/merged"
	pods gone 3 0 2 &&
	start=$(date +%s) &&
	expect_exit 1 merge gone 2 &&
	took=$(($(date +%s) - start)) &&
	[ "$took" -ge 2 ] && [ "$took" -lt 60 ] &&
	has "$T/stderr" "merge of run gone: no result from segment(s) 1 of 3 after 2 s in $T/results/gone; not merged" &&
	[ ! -f "$T/merged" ]
}
t "a segment that never wrote: the merge fails after MERGE_WAIT, naming it" missing_segment

finish
