#!/bin/sh
# What `mem --sample`'s agent costs per call, in instructions, which no
# other process on the machine disturbs (issue 30, item 2): a loop of N
# malloc/free pairs (sizes 16-1039 bytes, a 64-slot window; nothing
# sampled but one call in ~1000) run under valgrind's callgrind, natively
# and under `yardstick mem -q --no-store --sample 524288` of each build
# given, at N and 2N pairs: the difference / N is the instructions per
# pair, the program's and glibc's included, and its excess over native:
# the agent's. (callgrind's own split by function is not used: it gives
# the entry points' code after their call into glibc to glibc.)
# Each build is NAME=DIR (its yardstick and agent) or DIR.
#   bench/mem_sample_instr.sh N BUILD...
# Needs valgrind (scripts/deps.sh bench).
set -eu
n=${1:?N}
shift
[ $# -gt 0 ] || { echo "name at least one build" >&2; exit 2; }
d=$(mktemp -d /tmp/mem-sample-instr-XXXXXX)
trap 'rm -rf "$d"' EXIT
cat > "$d/loop.c" <<'C'
#include <stdlib.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	void *w[64] = { 0 };
	unsigned long x = 88172645463325252ul;

	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		free(w[x & 63]);
		w[x & 63] = malloc(16 + (x >> 8) % 1024);
	}
	for (int k = 0; k < 64; k++)
		free(w[k]);
	return 0;
}
C
cc -O2 -fno-builtin-malloc -fno-builtin-free -o "$d/loop" "$d/loop.c"
# ir PREFIX...: total Ir of the loop at m pairs under PREFIX
ir() {
	out=$d/cg.$$
	"$@" valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$d/loop" "$m" >/dev/null 2>&1
	callgrind_annotate --threshold=100 "$out" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
	rm -f "$out"
}
row() {
	name=$1
	shift
	m=$n; a=$(ir "$@")
	m=$((2 * n)); b=$(ir "$@")
	echo "$a $b" | awk -v n="$n" -v name="$name" -v base="${native:-}" '{
		v = ($2 - $1) / n
		if (base == "")
			printf "  %-36s %7.1f Ir/pair\n", name, v
		else
			printf "  %-36s %7.1f Ir/pair  %+6.1f over native\n",
			       name, v, v - base }'
}
echo "callgrind, $n and $((2 * n)) malloc/free pairs: (Ir at 2N - Ir at N) / N"
row native env
native=$(row native env | awk '{ print $2 }')
for b in "$@"; do
	name=${b%%=*}
	dir=${b#*=}
	row "mem --sample 524288, $name" "$dir/yardstick" mem -q --no-store \
		--sample 524288 --
done
