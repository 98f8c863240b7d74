#!/bin/sh
# How much of its stack a program may use before its allocation under
# `mem` faults, against natively: a thread of PTHREAD_STACK_MIN
# (smallstack.c) and a coroutine on 64 KiB (coro.c) recurse USE bytes
# deep, then allocate; a bisection finds the deepest USE that exits 0.
# YARDSTICK_HEAP_AGENT picks another build's agent (the one before).
#     bench/stack/edge.sh build/yardstick
set -eu
YS=${1:?usage: bench/stack/edge.sh YARDSTICK}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
here=$(dirname "$0")
cc -O1 -g -fno-omit-frame-pointer -o "$D/smallstack" "$here/smallstack.c" -lpthread
cc -O1 -g -fno-omit-frame-pointer -o "$D/coro" "$here/coro.c"
deepest() {
	lo=$1 hi=$2
	shift 2
	while [ $((hi - lo)) -gt 64 ]; do
		mid=$(((lo + hi) / 2))
		if "$@" $mid >/dev/null 2>&1; then lo=$mid; else hi=$mid; fi
	done
	echo $lo
}
echo "                   native   mem"
echo "smallstack (16 KiB) $(deepest 1000 12000 "$D/smallstack")  $(deepest 1000 12000 "$YS" mem --no-store -- "$D/smallstack")"
echo "coro (64 KiB)       $(deepest 30000 66000 "$D/coro")  $(deepest 30000 66000 "$YS" mem --no-store -- "$D/coro")"
