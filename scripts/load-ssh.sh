#!/bin/bash
# Run one load test from several machines over ssh: segment I of N on the
# I-th host, all starting together at one time, then merge their results
# here (docs/load-segments.md).
#
# Usage: scripts/load-ssh.sh [-o TOTAL.json] [-s SECONDS] HOST... -- LOAD-OPTIONS... URL
#   -o FILE     the merged result (default total.json)
#   -s SECONDS  start this long after now, time for ssh to reach every
#               host and connect (default 10)
# The hosts need yardstick on their PATH (YARDSTICK names it otherwise,
# there and here; a host may be named more than once) and
# clocks in sync (NTP: the segments' schedules share the origin --start-at
# gives, so an offset between clocks shifts a segment's schedule by it).
# SSH and SCP name other commands for ssh and scp (with their options).
set -euo pipefail

out=total.json
lead=10
while getopts o:s: opt; do
	case $opt in
	o) out=$OPTARG ;;
	s) lead=$OPTARG ;;
	*) sed -n '5,9p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
hosts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	hosts+=("$1")
	shift
done
if [ $# -eq 0 ] || [ ${#hosts[@]} -eq 0 ]; then
	sed -n '5,9p' "$0" >&2
	exit 2
fi
shift
n=${#hosts[@]}
SSH=${SSH:-ssh}
SCP=${SCP:-scp}
ys=${YARDSTICK:-yardstick}
at=$(( $(date +%s) + lead ))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the load's arguments, quoted for the remote shell
args=$(printf ' %q' "$@")
remote=/tmp/yardstick-segment-$$-$at

pids=()
for i in "${!hosts[@]}"; do
	$SSH "${hosts[$i]}" "$(printf '%q' "$ys") load --no-store -q --segment $i/$n --start-at $at --json $remote-$i.json$args" \
		>"$tmp/$i.out" 2>"$tmp/$i.err" &
	pids+=($!)
done
failed=0
for i in "${!hosts[@]}"; do
	if ! wait "${pids[$i]}"; then
		echo "load-ssh: segment $i/$n on ${hosts[$i]} failed:" >&2
		cat "$tmp/$i.err" >&2
		failed=1
	fi
done
[ $failed -eq 0 ] || exit 1
files=()
for i in "${!hosts[@]}"; do
	$SCP "${hosts[$i]}:$remote-$i.json" "$tmp/segment-$i.json" >/dev/null
	$SSH "${hosts[$i]}" "rm -f $remote-$i.json" || true
	files+=("$tmp/segment-$i.json")
done
"$ys" merge -o "$out" "${files[@]}"
