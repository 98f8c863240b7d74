# The heap agent's stack walks against each other: its cached stacks and
# libunwind's fast trace (the default) must find exactly the stacks its
# full libunwind walk finds (YARDSTICK_HEAP_UNWIND=full, every walk a full
# one). tests/fixtures/unwgen.c makes, from a seed, a program allocating
# from stacks of every shape (alloca, in the allocating frame too, 20 KB
# and realigned frames, DRAP,
# recursion, depths 0-40, 1-3 threads, a signal handler that allocates,
# on an alternate stack for some seeds); each seed runs under both walks
# and the two folded profiles (allocations, every frame with its
# file:line) must be the same, stack by stack. Five seeds never seen
# before (a new one each run, printed: `unwgen SEED` runs it again) and
# six fixed ones (threads, an alternate stack, deep recursion), each
# with a --depth of 64, 12 or 5 (the cut).
. "$(dirname "$0")/lib.sh"
UNWGEN=${UNWGEN:?UNWGEN must name tests/fixtures/unwgen.c built}

# walk NAME SEED DEPTH [ENV...] [-- MEM_OPTION...]: the folded profile of
# SEED, sorted, into $T/NAME.sorted
walk() {
	name=$1 seed=$2 depth=$3
	shift 3
	envs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	env $envs "$YS" mem -q --no-store --depth "$depth" --cost allocations \
		--lines "$@" -o "$T/$name.folded" -- "$UNWGEN" "$seed" \
		>"$T/$name.out" &&
	sort "$T/$name.folded" >"$T/$name.sorted"
}

# differ A B: the stacks of $T/A.sorted and $T/B.sorted differ (shown)
differ() {
	if cmp -s "$T/$1.sorted" "$T/$2.sorted"; then
		return 1
	fi
	echo "$1 (<) and $2 (>) differ:"
	diff "$T/$1.sorted" "$T/$2.sorted" | head -20
}

# same SEED DEPTH: the default walks' stacks are the full walks'
same() {
	walk fast "$1" "$2" && walk full "$1" "$2" YARDSTICK_HEAP_UNWIND=full &&
	head -1 "$T/fast.out" &&
	echo "$(wc -l <"$T/fast.sorted") stacks" &&
	# the program's own stacks are there, not only the C library's
	grep -q -E 'leaf(_alloca)? \(unwgen.c' "$T/fast.sorted" &&
	! differ fast full
}

depth_of() {
	case $(($1 % 4)) in
	0 | 1) echo 64 ;;
	2) echo 12 ;;
	*) echo 5 ;;
	esac
}

for k in 1 2 3 4 5; do
	seed=$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')
	d=$(depth_of "$seed")
	echo "# new seed $seed, --depth $d (unwgen $seed makes it again)"
	t "a new program (seed $seed, --depth $d): the same stacks as full walks" \
		same "$seed" "$d"
done

# 1: 3 threads, an alternate signal stack; 2: depths to 26; 3: one thread,
# 2 paths (cached stacks hit); 6: the case main's agent got wrong (its
# stack cache, keyed by return address and stack pointer and checking
# the return addresses alone, gave allocations of one stack to another,
# past alloca'd frames: a stale return address in a cached slot, other
# frame pointers), as does this agent without its checks of saved frame
# pointers; 17, 29: cases this agent gets wrong if its probe of the first
# frame's rule (does its CFA depend on RBP? agent_unwind.h, probe_rbp)
# always said no
for seed in 1 2 3 6 17 29; do
	d=$(depth_of "$seed")
	t "seed $seed (--depth $d): the same stacks as full walks" same "$seed" "$d"
done

# the signal handler's stacks, through the signal frame, are among them
# (seed 29's, the last)
t "a signal handler's allocations have their stacks through the signal frame" \
	grep -q -E 'leaf(_alloca)? \(unwgen.c:[0-9]*\);raise .*;handler \(unwgen.c' \
	"$T/fast.sorted"

# two stacks that only the frame pointer leaf saved tells apart
# (tests/fixtures/unwstale.c: the same first frame, stack pointer and
# return addresses in the slots, one a stale copy): each path's own
# allocations from main's loop, N = 2000 each by the program's design,
# under both walks. The agent drops a saved RBP from its checks when no
# frame's CFA reads it (CPython's code keeps data in RBP); dropping this
# one too gives path_big all 4000 (its calibration's, at other lines of
# main, are 1 and 2).
stale() (
	UNWGEN=${UNWSTALE:?UNWSTALE must name tests/fixtures/unwstale.c built}
	walk fast 2000 64 && walk full 2000 64 YARDSTICK_HEAP_UNWIND=full &&
	for p in path_big path_small; do
		grep -q ";$p (unwstale.c:[0-9]*);mid (unwstale.c:[0-9]*);leaf (unwstale.c:[0-9]*) 2000\$" \
			"$T/fast.sorted" || { echo "no $p stack of 2000:"; grep path_ "$T/fast.sorted"; return 1; }
	done &&
	! differ fast full
)
t "two stacks only a saved frame pointer tells apart: 2000 allocations each" stale

# the comparison can fail: frame-pointer walks of this code (built
# without frame pointers) find other stacks, and are caught
t "a walk that finds other stacks (--unwind fp) is caught" \
	eval 'walk fast 1 64 && walk fp 1 64 -- --unwind fp && differ fast fp'

# libunwind's reads of the thread's stack go through the agent's accessor
# (agent_unwind.h, stack_access_mem), not Debian's libunwind's checked
# one: a mincore, a read and a write on a pipe per page it had not just
# seen, 17,649 mincore calls for unwgen 7's full walks (695 with the
# cache), a quarter of `import torch` under mem. Now at most its own
# start-up's.
validations() {
	# (LeakSanitizer cannot run under ptrace: off for a sanitized build)
	env YARDSTICK_HEAP_UNWIND=full \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -c -e trace=mincore,msync \
		-o "$T/sc.txt" "$YS" mem -q --no-store -- "$UNWGEN" 7 >/dev/null 2>&1 ||
		{ cat "$T/sc.txt"; return 1; }
	got=$(awk '$NF == "mincore" || $NF == "msync" { n += $(NF - 1) } END { print n + 0 }' "$T/sc.txt")
	echo "# validation calls: $got"
	[ "$got" -le 8 ]
}
t "libunwind's reads of the stack are not checked with system calls (unwgen 7, full walks)" validations
t "YARDSTICK_HEAP_UNWIND other than full is refused" \
	expect_exit 2 env YARDSTICK_HEAP_UNWIND=fast "$YS" mem -q --no-store -- /bin/true
t "... and says so" has "$T/stderr" "YARDSTICK_HEAP_UNWIND: expected 'full', got 'fast'"
finish
